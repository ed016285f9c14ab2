"""The pytest plugin of mcpr (docs/pytest.md), loaded through the ``pytest11`` entry point
of the ``mcpr`` package.

- ini options ``mcp_command``, ``mcp_url``, ``mcp_headers``, ``mcp_timeout``;
- the ``mcp`` fixture: a connected ``MCPClient``, stopped after the test;
- the ``mcp_server`` marker, which picks the ``mcp`` fixture's server for one test;
- the ``mcp_server`` fixture: a factory that starts as many servers as a test needs;
- the ``mcp_snapshot`` fixture and the ``--mcp-update-snapshots`` option.
"""

import os
import re
import shlex
import warnings

import pytest

from ._checks import check_snapshot, snapshot_path
from ._client import MCPClient

_UPDATE_OPTION = "--mcp-update-snapshots"

_MARKER = (
    "mcp_server(command=None, url=None, env=None, cwd=None, headers=None, timeout=None): "
    "the server the `mcp` fixture starts for this test: a command (list, or a shell-like "
    "string) over stdio, or the url of a Streamable HTTP server (mcpr)"
)


class MCPSnapshotWarning(UserWarning):
    """Compatible tool changes that ``mcp_snapshot(..., allow_compatible=True)`` let pass."""


MCPSnapshotWarning.__module__ = "mcpr.pytest_plugin"


def pytest_addoption(parser):
    group = parser.getgroup("mcpr", "MCP servers (mcpr)")
    group.addoption(
        _UPDATE_OPTION,
        action="store_true",
        default=False,
        dest="mcp_update_snapshots",
        help="rewrite the MCP tool snapshots (__mcp_snapshots__/<test file>/tools.json) "
        "with the servers' current tools",
    )
    parser.addini(
        "mcp_command",
        "shell-like command that starts the MCP server of the `mcp` fixture over stdio "
        "(split with shlex; started in the rootdir)",
        default="",
    )
    parser.addini(
        "mcp_url",
        "Streamable HTTP URL of a running MCP server for the `mcp` fixture (instead of mcp_command)",
        default="",
    )
    parser.addini(
        "mcp_headers",
        "HTTP headers sent to mcp_url, one `Name: value` per line; ${NAME} in a value is "
        "the environment variable NAME",
        type="linelist",
        default=[],
    )
    parser.addini(
        "mcp_timeout",
        "seconds allowed for a server's start and for each request (default 30)",
        default="30",
    )


def pytest_configure(config):
    config.addinivalue_line("markers", _MARKER)


_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _expand(value, setting):
    """``${NAME}`` in ``value`` replaced by the environment variable NAME."""

    def one(m):
        if m.group(1) not in os.environ:
            raise pytest.UsageError("%s: the environment variable %s is not set" % (setting, m.group(1)))
        return os.environ[m.group(1)]

    return _VARIABLE.sub(one, value)


def _headers(lines):
    headers = {}
    for line in lines:
        if not line.strip():
            continue
        name, sep, value = line.partition(":")
        if not sep or not name.strip():
            raise pytest.UsageError("mcp_headers: %r is not `Name: value`" % name.strip())
        headers[name.strip()] = _expand(value.strip(), "mcp_headers")
    return headers


def _timeout(config):
    raw = config.getini("mcp_timeout")
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise pytest.UsageError("mcp_timeout must be a number of seconds, not %r" % raw) from None
    if value <= 0:
        raise pytest.UsageError("mcp_timeout must be positive, not %r" % raw)
    return value


def _start(config, command=None, url=None, env=None, cwd=None, headers=None, timeout=None, **options):
    """A connected client: ``command`` (list or shell-like string) over stdio, started in
    ``cwd`` (default: the rootdir), or ``url`` over Streamable HTTP."""
    __tracebackhide__ = True  # keep this frame (and the headers it carries) out of reports
    if timeout is None:
        timeout = _timeout(config)
    if (command is None) == (url is None):
        raise TypeError("give a command (stdio) or url= (Streamable HTTP), not both or neither")
    if url is not None:
        return MCPClient.http(url, headers=headers, timeout=timeout, **options)
    if isinstance(command, str):
        command = shlex.split(command)
    if cwd is None:
        cwd = str(config.rootpath)
    return MCPClient.stdio(command, env=env, cwd=cwd, timeout=timeout, **options)


def _configured(config):
    """The server of the ini options, as keyword arguments of ``_start``; ``None`` when
    none is configured."""
    url = (config.getini("mcp_url") or "").strip()
    command = (config.getini("mcp_command") or "").strip()
    if url and command:
        raise pytest.UsageError("set mcp_command or mcp_url, not both")
    if url:
        return {"url": url, "headers": _headers(config.getini("mcp_headers"))}
    if command:
        return {"command": shlex.split(command)}
    return None


def _server_of(item):
    """The server of ``item``'s ``mcp_server`` marker, else of the ini options, as keyword
    arguments of ``_start``."""
    marker = item.get_closest_marker("mcp_server")
    if marker is None:
        kwargs = _configured(item.config)
        if kwargs is None:
            pytest.fail(
                "no MCP server for the `mcp` fixture: set mcp_command (or mcp_url) in "
                "[tool.pytest.ini_options] or mark the test with "
                "@pytest.mark.mcp_server(command=[...])",
                pytrace=False,
            )
        return kwargs
    kwargs = dict(marker.kwargs)
    if marker.args:
        if len(marker.args) > 1 or "command" in kwargs:
            raise pytest.UsageError("@pytest.mark.mcp_server takes one command (a list or a string), or url=")
        kwargs["command"] = marker.args[0]
    return kwargs


@pytest.fixture
def mcp(request):
    """A client connected to the test's MCP server: the one of the test's
    ``@pytest.mark.mcp_server(...)`` marker, else ``mcp_url`` / ``mcp_command``. The server
    is stopped when the test ends."""
    client = _start(request.config, **_server_of(request.node))
    yield client
    client.close()


@pytest.fixture
def mcp_server(request):
    """A factory: ``mcp_server(["python", "server.py"], env=..., cwd=...)`` or
    ``mcp_server(url="http://…/mcp", headers=...)`` returns a connected client. Every
    server it started is stopped when the test ends."""
    clients = []

    def start(command=None, url=None, **kwargs):
        __tracebackhide__ = True  # its arguments may hold headers
        client = _start(request.config, command=command, url=url, **kwargs)
        clients.append(client)
        return client

    try:
        yield start
    finally:
        errors = []
        for client in reversed(clients):
            try:
                client.close()
            except Exception as e:  # pragma: no cover - close swallows the driver's errors
                errors.append(e)
        if errors:
            raise errors[0]


@pytest.fixture
def mcp_snapshot(request):
    """``mcp_snapshot(mcp, allow_compatible=False, name="tools")`` compares the server's
    tools with ``__mcp_snapshots__/<test file>/<name>.json`` beside the test file, writing
    it on the first run (and with ``--mcp-update-snapshots``). Fails on any change, or with
    ``allow_compatible=True`` on breaking changes only."""
    update = request.config.getoption("mcp_update_snapshots")
    test_file = request.node.path if hasattr(request.node, "path") else request.node.fspath

    def check(mcp, allow_compatible=False, name="tools"):
        __tracebackhide__ = True
        path = snapshot_path(test_file, name)
        outcome = check_snapshot(mcp, path, update=update, allow_compatible=allow_compatible)
        if outcome.action == "failed":
            pytest.fail(outcome.message, pytrace=False)
        if outcome.action == "compatible":
            warnings.warn(MCPSnapshotWarning(outcome.message), stacklevel=2)
        return outcome

    return check
