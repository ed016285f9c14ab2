"""mcpr for Python: test MCP servers from Python code and from pytest.

The wheel carries the ``mcpr`` binary as a script, so installing it puts ``mcpr`` on PATH.
``find_mcpr_bin()`` returns that binary's path for code that wants to run it.

``MCPClient`` talks to one MCP server through mcpr's engine (an ``mcpr driver`` process,
docs/driver.md); ``assert_lint_clean`` checks a server against mcpr's lint rules. The pytest
plugin (``mcpr.pytest_plugin``, loaded automatically once the package is installed) adds the
``mcp``, ``mcp_server`` and ``mcp_snapshot`` fixtures (docs/pytest.md).
"""

from ._checks import assert_lint_clean
from ._client import MCPClient, PromptResult, ResourceResult, ToolResult
from ._errors import (
    MCPDriverError,
    MCPError,
    MCPProtocolError,
    MCPRPCError,
    MCPTimeoutError,
    MCPToolError,
    MCPTransportError,
)
from ._find import find_mcpr_bin

__all__ = [
    "MCPClient",
    "ToolResult",
    "ResourceResult",
    "PromptResult",
    "assert_lint_clean",
    "MCPError",
    "MCPTransportError",
    "MCPTimeoutError",
    "MCPRPCError",
    "MCPToolError",
    "MCPProtocolError",
    "MCPDriverError",
    "find_mcpr_bin",
]
