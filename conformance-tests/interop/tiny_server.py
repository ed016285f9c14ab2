"""A tiny MCP server on the official Python SDK (mcp 2.3), the one public server here
that speaks both eras (initialize up to 2025-11-25, and the stateless 2026-07-28).
Used by the runtime's interop tests: conformance-tests/interop/run.sh."""

import sys

from pydantic import BaseModel, Field
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer(name="tiny-py", version="0.0.1", instructions="mcpr interop fixture")


class SumResult(BaseModel):
    total: int = Field(description="a + b")
    inputs: list[int]


@server.tool(description="Add two integers; the result is structured")
def add(a: int, b: int) -> SumResult:
    return SumResult(total=a + b, inputs=[a, b])


@server.tool(description="Echo a message", structured_output=False)
def echo(message: str) -> str:
    return message


@server.tool(description="Reports progress and logs")
async def slow(steps: int, ctx: Context) -> str:
    for i in range(steps):
        await ctx.report_progress(i + 1, steps, f"step {i + 1}")
        await ctx.info(f"did step {i + 1}")
    return f"done {steps}"


@server.resource("tiny://greeting", mime_type="text/plain")
def greeting() -> str:
    return "hello from tiny-py"


@server.resource("tiny://item/{item_id}", mime_type="application/json")
def item(item_id: str) -> dict:
    return {"id": item_id}


@server.prompt(description="Ask for a code review")
def review(code: str) -> str:
    return f"Please review:\n{code}"


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
