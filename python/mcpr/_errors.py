"""The exceptions of the Python binding.

Every failure the driver reports (docs/driver.md, "Errors") becomes an ``MCPError`` of the
class its ``kind`` calls for, carrying the driver's ``kind``, ``code``, ``message`` and
``data``; a driver that cannot be started or that goes away is an ``MCPDriverError``.
"""


class MCPError(Exception):
    """A failure of a request to an MCP server, or of the driver behind the client.

    Attributes: ``kind`` (the driver's failure kind, e.g. ``"timeout"``), ``code`` (mcpr's
    run-time code such as ``"MCP-EXIT-001"``, or ``None``), ``message`` (the driver's
    sentence), ``data`` (a dict: ``server``, ``exitStatus``, ``stderrTail``,
    ``stdoutNoise``, ``lastMessage`` and the fields of the kind).
    """

    def __init__(self, message, kind="failed", code=None, data=None):
        self.message = message
        self.kind = kind
        self.code = code
        self.data = dict(data or {})
        super().__init__(message)

    @classmethod
    def _from_driver(cls, error):
        """The exception for the driver's error object ``error``."""
        kind = error.get("kind") or "failed"
        cls = _CLASSES.get(kind, MCPDriverError if kind in _DRIVER_KINDS else MCPError)
        return cls(error.get("message") or kind, kind, error.get("code"), error.get("data"))

    # What the driver tells about the server, as attributes.
    @property
    def server(self):
        """The handle of the server concerned (``mcp-1``, …), or ``None``."""
        return self.data.get("server")

    @property
    def exit_status(self):
        """How the server process ended (``"exit code 3"``), or ``None`` while it runs."""
        return self.data.get("exitStatus")

    @property
    def exit_code(self):
        """The server's exit code as a number, or ``None`` (still running, or killed by a
        signal)."""
        return self.data.get("exitCode")

    @property
    def stderr_tail(self):
        """The server's last stderr lines (at most 20)."""
        return list(self.data.get("stderrTail") or [])

    @property
    def stdout_noise(self):
        """Lines the server printed on stdout that are not protocol (at most 5)."""
        return list(self.data.get("stdoutNoise") or [])

    @property
    def last_message(self):
        """The last MCP message exchanged: a dict with ``direction``, ``kind`` and ``text``."""
        return self.data.get("lastMessage")

    def _headline(self):
        return self.message

    def __str__(self):
        lines = [self._headline()]
        lines.extend(_context_lines(self.data))
        if self._headline() != self.message:
            detail = self.message
            if self.code:
                detail += " [%s; `mcpr explain %s`]" % (self.code, self.code)
            lines.append("  mcpr: " + detail)
        return "\n".join(lines)

    def __reduce__(self):
        return (_rebuild, (type(self), self.message, self.kind, self.code, self.data))


def _rebuild(cls, message, kind, code, data):
    return cls(message, kind, code, data)


def _context_lines(data):
    lines = []
    tail = data.get("stderrTail") or []
    if tail:
        lines.append("  server stderr (last lines):")
        lines.extend("    " + line for line in tail)
    noise = list(data.get("stdoutNoise") or [])
    last = data.get("lastMessage")
    if not isinstance(last, dict) or not last.get("text"):
        last = None
    elif last.get("direction") == "received" and last.get("kind") == "invalid":
        # The last line read from the server was not a JSON-RPC message: stdout noise.
        if last["text"] not in noise:
            noise.append(last["text"])
        last = None
    if noise:
        lines.append("  server printed to stdout (not protocol):")
        lines.extend("    " + line for line in noise)
    if last is not None:
        lines.append(
            "  last MCP message (%s, %s): %s"
            % (last.get("direction", "?"), last.get("kind", "?"), last["text"])
        )
    return lines


class MCPTransportError(MCPError):
    """The server could not be started, died, closed its output, or the connection failed
    (kinds ``start-failed``, ``server-exited``, ``transport``).

    When the server process has ended, ``str()`` starts with
    ``server closed stdout (exit code N)`` and goes on with its last stderr lines, what it
    printed on stdout that is not protocol, and the last MCP message.
    """

    def _headline(self):
        status = self.data.get("exitStatus")
        if status and self.kind in ("server-exited", "start-failed"):
            code = self.data.get("exitCode")
            if isinstance(code, int) and not isinstance(code, bool):
                status = "exit code %d" % code
            return "server closed stdout (%s)" % status
        return self.message


class MCPTimeoutError(MCPError, TimeoutError):
    """No answer, or no matching notification, within the deadline (kind ``timeout``).

    For ``wait_notification``, ``arrived`` lists the notifications that did arrive and are
    still waiting to be taken.
    """

    @property
    def arrived(self):
        return list(self.data.get("arrived") or [])


class MCPRPCError(MCPError):
    """The server answered with a JSON-RPC error (kind ``rpc-error``).

    ``error`` is the JSON-RPC error object (``code``, ``message``, ``data``);
    ``rpc_code`` its number.
    """

    @property
    def error(self):
        return self.data.get("error") or {}

    @property
    def rpc_code(self):
        return self.error.get("code")


class MCPToolError(MCPError):
    """A tool result with ``isError: true`` where success was required (kind
    ``tool-error``). ``MCPClient.call_tool`` returns such results instead of raising."""

    @property
    def result(self):
        return self.data.get("result")


class MCPProtocolError(MCPError):
    """The server's answer breaks the protocol, e.g. ``structuredContent`` that does not
    match the tool's ``outputSchema`` (kind ``invalid-result``)."""


class MCPDriverError(MCPError):
    """The ``mcpr driver`` process could not be started, went away, or refused a request
    (kinds ``invalid-request``, ``no-hello``, ``unsupported-protocol``,
    ``unknown-server``, ``failed``, and ``driver`` for a driver that is gone)."""

    def __str__(self):
        lines = [MCPError.__str__(self)]
        driver_stderr = self.data.get("driverStderr") or []
        if driver_stderr:
            lines.append("  driver stderr (last lines):")
            lines.extend("    " + line for line in driver_stderr)
        return "\n".join(lines)


_CLASSES = {
    "start-failed": MCPTransportError,
    "server-exited": MCPTransportError,
    "transport": MCPTransportError,
    "timeout": MCPTimeoutError,
    "rpc-error": MCPRPCError,
    "tool-error": MCPToolError,
    "invalid-result": MCPProtocolError,
}

_DRIVER_KINDS = ("invalid-request", "no-hello", "unsupported-protocol", "unknown-server", "failed", "driver")

# Tracebacks name the classes as users import them: `mcpr.MCPTransportError: …`.
for _cls in (MCPError, MCPTransportError, MCPTimeoutError, MCPRPCError, MCPToolError,
             MCPProtocolError, MCPDriverError):
    _cls.__module__ = "mcpr"
del _cls
