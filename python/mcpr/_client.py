"""``MCPClient``: one MCP server, reached through its own ``mcpr driver`` process."""

import os
import shlex
import weakref

from ._driver import Driver
from ._errors import MCPError

#: Seconds allowed for the start and handshake, and for each request, unless told otherwise.
DEFAULT_TIMEOUT = 30.0


def _ms(seconds):
    if seconds is None:
        return None
    seconds = float(seconds)
    if seconds <= 0:
        raise ValueError("a timeout must be positive, not %r" % seconds)
    return max(1, int(round(seconds * 1000)))


def _text_of(items):
    return "\n".join(
        item.get("text", "")
        for item in items
        if isinstance(item, dict) and item.get("type", "text") == "text" and isinstance(item.get("text"), str)
    )


class _Result(object):
    """A result as the server sent it (``raw``), with a few conveniences; ``result["key"]``
    and ``result.get("key")`` read the raw dict."""

    def __init__(self, raw):
        self.raw = raw if isinstance(raw, dict) else {}

    def __getitem__(self, key):
        return self.raw[key]

    def __contains__(self, key):
        return key in self.raw

    def get(self, key, default=None):
        return self.raw.get(key, default)

    def __eq__(self, other):
        if isinstance(other, _Result):
            return type(self) is type(other) and self.raw == other.raw
        if isinstance(other, dict):
            return self.raw == other
        return NotImplemented

    __hash__ = None

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self.raw)


class ToolResult(_Result):
    """What ``call_tool`` returns: the ``CallToolResult`` of the server.

    ``text`` joins the ``text`` of the text content items with newlines; ``structured`` is
    ``structuredContent`` (``None`` when absent); ``is_error`` is ``isError``; ``content`` is
    the list of content items; ``raw`` is the whole result as a dict.
    """

    @property
    def content(self):
        return list(self.raw.get("content") or [])

    @property
    def text(self):
        return _text_of(self.content)

    @property
    def structured(self):
        return self.raw.get("structuredContent")

    @property
    def is_error(self):
        return bool(self.raw.get("isError"))

    @property
    def meta(self):
        return self.raw.get("_meta")


class ResourceResult(_Result):
    """What ``read_resource`` returns: ``contents`` (the list of contents), ``text`` (the
    ``text`` of the text contents joined with newlines) and ``raw``."""

    @property
    def contents(self):
        return list(self.raw.get("contents") or [])

    @property
    def text(self):
        return "\n".join(c["text"] for c in self.contents if isinstance(c, dict) and isinstance(c.get("text"), str))


class PromptResult(_Result):
    """What ``get_prompt`` returns: ``messages``, ``description``, ``text`` (the text of
    the text messages joined with newlines) and ``raw``."""

    @property
    def messages(self):
        return list(self.raw.get("messages") or [])

    @property
    def description(self):
        return self.raw.get("description")

    @property
    def text(self):
        items = []
        for m in self.messages:
            content = m.get("content") if isinstance(m, dict) else None
            if isinstance(content, list):
                items.extend(content)
            elif isinstance(content, dict):
                items.append(content)
        return _text_of(items)


def _close_quietly(driver):
    # A client that was garbage-collected, or is still open when the interpreter exits:
    # closing the driver's stdin makes the driver stop its servers and exit.
    try:
        driver.close(wait=True)
    except Exception:
        pass


class MCPClient(object):
    """A connected client of one MCP server, over stdio or Streamable HTTP.

    Build it with ``MCPClient.stdio(command, env=..., cwd=..., timeout=...)`` or
    ``MCPClient.http(url, headers=..., timeout=...)``; it is connected when it is returned.
    Use it as a context manager, or call ``close()``; a client that is garbage-collected,
    or still open when the interpreter exits, is closed then. Timeouts are in seconds.

    Options of both: ``timeout`` (the start and handshake, and the default deadline of each
    request; 30), ``protocol`` (pin an MCP revision, e.g. ``"2025-11-25"``), ``log_level``
    (ask for the server's log notifications from this level up), ``name`` (the server's
    name in mcpr's messages), ``binary`` (an ``mcpr`` binary other than the installed one);
    for stdio ``inherit_env`` (``"all"``, the default, or ``"minimal"``).

    Each client runs its own ``mcpr driver`` process (docs/driver.md), which speaks MCP.
    """

    def __init__(self, command=None, url=None, headers=None, env=None, cwd=None,
                 timeout=DEFAULT_TIMEOUT, protocol=None, name=None, inherit_env=None,
                 log_level=None, binary=None):
        __tracebackhide__ = True  # pytest: keep this frame (and its secrets) out of reports
        if (command is None) == (url is None):
            raise ValueError("give a command (stdio) or a url (Streamable HTTP), not both or neither")
        params = {}
        if command is not None:
            if isinstance(command, str):
                command = shlex.split(command)
            command = [os.fspath(part) for part in command]
            if not command:
                raise ValueError("the command is empty")
            params["command"] = command
            if env:
                params["env"] = {str(k): str(v) for k, v in env.items()}
            if cwd is not None:
                params["cwd"] = os.path.abspath(os.fspath(cwd))
            if inherit_env is not None:
                params["inheritEnv"] = inherit_env
        else:
            if env or cwd is not None or inherit_env is not None:
                raise ValueError("env, cwd and inherit_env are for servers started over stdio")
            params["url"] = str(url)
            if headers:
                params["headers"] = {str(k): str(v) for k, v in headers.items()}
        if headers and command is not None:
            raise ValueError("headers are for Streamable HTTP servers (url=...)")
        self.timeout = float(timeout) if timeout is not None else DEFAULT_TIMEOUT
        params["timeoutMs"] = _ms(self.timeout)
        if protocol is not None:
            params["protocol"] = protocol
        if name is not None:
            params["name"] = name
        if log_level is not None:
            params["logLevel"] = log_level
        self.command = params.get("command")
        self.url = params.get("url")
        self._info = {}
        self._handle = None
        self.exit_status = None
        self.exit_code = None
        self.stderr_tail = None
        self._driver = Driver(binary)
        self._finalizer = weakref.finalize(self, _close_quietly, self._driver)
        try:
            self._info = self._driver.request("open", params, guard=self.timeout)
        except BaseException:
            self._finalizer()
            raise
        self._handle = self._info.get("server")
        self._driver.opened(self._handle, self._info.get("pid"))

    # -- building ----------------------------------------------------------------------

    @classmethod
    def stdio(cls, command, env=None, cwd=None, timeout=DEFAULT_TIMEOUT, **options):
        """Starts ``command`` (a list, or a shell-like string split with ``shlex``) and
        connects to it over stdio. ``env`` adds variables to the environment the server
        inherits (minus the variables that look like credentials); ``cwd`` is its working
        folder."""
        __tracebackhide__ = True  # pytest: keep this frame (and its secrets) out of reports
        return cls(command=command, env=env, cwd=cwd, timeout=timeout, **options)

    @classmethod
    def http(cls, url, headers=None, timeout=DEFAULT_TIMEOUT, **options):
        """Connects to the Streamable HTTP endpoint ``url``, sending ``headers`` with every
        request (e.g. ``{"Authorization": "Bearer …"}``)."""
        __tracebackhide__ = True  # pytest: keep this frame (and its secrets) out of reports
        return cls(url=url, headers=headers, timeout=timeout, **options)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        target = self.url if self.url is not None else " ".join(shlex.quote(c) for c in self.command)
        state = "closed" if self.closed else "open"
        return "<MCPClient %s %s (%s)>" % (self._handle, target, state)

    # -- what the handshake told -------------------------------------------------------

    @property
    def server_info(self):
        """The server's ``serverInfo`` (``name``, ``version``, …)."""
        return dict(self._info.get("serverInfo") or {})

    @property
    def protocol_version(self):
        """The MCP protocol version in use, e.g. ``"2025-11-25"``."""
        return self._info.get("protocolVersion")

    @property
    def capabilities(self):
        """The server's capabilities."""
        return dict(self._info.get("capabilities") or {})

    @property
    def instructions(self):
        """The server's ``instructions``, or ``None``."""
        return self._info.get("instructions")

    @property
    def withheld_env(self):
        """Names of variables that look like credentials and were not passed to the
        server (never their values)."""
        return list(self._info.get("withheldEnv") or [])

    @property
    def pid(self):
        """The server's process id (stdio), or ``None``."""
        return self._info.get("pid")

    @property
    def name(self):
        """The handle the driver gave the server (``mcp-1``, or the ``name`` asked for)."""
        return self._handle

    @property
    def mcpr_version(self):
        """The version of the mcpr engine behind this client."""
        return self._driver.version

    @property
    def closed(self):
        return self._handle is None or not self._driver.alive

    # -- requests ----------------------------------------------------------------------

    def _request(self, method, params=None, timeout=None, one_exchange=True):
        """One driver request about this server. ``timeout`` (seconds) becomes the
        request's ``timeoutMs``; a request that is one exchange with the server is also
        bounded on this side (its deadline plus a margin), against a driver that hangs."""
        __tracebackhide__ = True  # pytest: keep this frame (and its secrets) out of reports
        if self._handle is None:
            raise MCPError("the client is closed", "driver")
        p = {"server": self._handle}
        if params:
            p.update(params)
        if timeout is not None:
            p["timeoutMs"] = _ms(timeout)
        guard = None
        if one_exchange:
            guard = timeout if timeout is not None else self.timeout
        return self._driver.request(method, p, guard=guard) or {}

    def list_tools(self, timeout=None):
        """Every tool (all pages), as dicts."""
        __tracebackhide__ = True
        return list(self._request("listTools", None, timeout, False).get("tools") or [])

    def call_tool(self, name, args=None, timeout=None, arguments=None):
        """Calls the tool ``name`` with the arguments ``args`` (a dict); returns a
        ``ToolResult``. A result with ``isError: true`` is returned, not raised: check
        ``result.is_error``."""
        __tracebackhide__ = True
        if args is not None and arguments is not None:
            raise TypeError("give args or arguments, not both")
        if args is None:
            args = arguments
        params = {"name": name, "arguments": dict(args or {}), "allowError": True}
        return ToolResult(self._request("callTool", params, timeout).get("result"))

    def list_resources(self, timeout=None):
        """Every resource (all pages), as dicts."""
        __tracebackhide__ = True
        return list(self._request("listResources", None, timeout, False).get("resources") or [])

    def list_resource_templates(self, timeout=None):
        """Every resource template (all pages), as dicts."""
        __tracebackhide__ = True
        return list(self._request("listResourceTemplates", None, timeout, False).get("resourceTemplates") or [])

    def read_resource(self, uri):
        """Reads the resource ``uri``; returns a ``ResourceResult``."""
        __tracebackhide__ = True
        return ResourceResult(self._request("readResource", {"uri": uri}).get("result"))

    def list_prompts(self, timeout=None):
        """Every prompt (all pages), as dicts."""
        __tracebackhide__ = True
        return list(self._request("listPrompts", None, timeout, False).get("prompts") or [])

    def get_prompt(self, name, args=None, arguments=None):
        """Gets the prompt ``name`` filled with ``args`` (a dict of strings); returns a
        ``PromptResult``."""
        __tracebackhide__ = True
        if args is None:
            args = arguments
        params = {"name": name, "arguments": dict(args or {})}
        return PromptResult(self._request("getPrompt", params).get("result"))

    def wait_notification(self, method, match=None, timeout=None):
        """Waits for a notification ``method`` from the server and returns it as a dict
        (``method``, ``params``). Notifications are kept from the server's start and each
        is handed out once, so calling a tool and then waiting works. ``match`` maps dot
        paths of ``params`` to the scalars they must hold (``{"level": "error"}``). Raises
        ``MCPTimeoutError`` (with ``arrived``) when none comes in time."""
        __tracebackhide__ = True
        params = {"method": method}
        if match:
            params["match"] = dict(match)
        result = self._request("waitNotification", params, timeout)
        return {"method": result.get("method"), "params": result.get("params")}

    def lint(self, ignore=None, fail_on="error"):
        """Runs mcpr's lint rules over the server (docs/lint.md); returns the report as a
        dict (``findings``, ``summary``, ``failed``, ``text``, ``stdoutNoise``, …)."""
        __tracebackhide__ = True
        params = {"failOn": fail_on}
        if ignore:
            params["ignore"] = [ignore] if isinstance(ignore, str) else list(ignore)
        return self._request("lint", params, None, False)

    def snapshot(self):
        """The server's tool snapshot: a dict with ``snapshot`` (the JSON) and ``text``
        (exactly what ``mcpr snapshot -o FILE`` writes)."""
        __tracebackhide__ = True
        return self._request("snapshot", None, None, False)

    def diff(self, snapshot, name=None, strict=False, allow_breaking=False):
        """Compares the server with a snapshot's text (``mcpr diff``); returns the report
        as a dict (``breaking``, ``compatible``, ``changes`` each with its ``line``,
        ``failed``, ``text``)."""
        __tracebackhide__ = True
        params = {"snapshot": snapshot, "strict": bool(strict), "allowBreaking": bool(allow_breaking)}
        if name is not None:
            params["name"] = name
        return self._request("diff", params, None, False)

    def close(self):
        """Stops the server (and the driver behind this client). Closing twice does
        nothing. Afterwards ``exit_status`` (``"exit status 0"``), ``exit_code`` and
        ``stderr_tail`` tell how the server ended, when the driver could say."""
        handle, self._handle = self._handle, None
        if handle is not None and self._driver.alive:
            try:
                closed = self._driver.request("close", {"server": handle}, guard=self.timeout) or {}
            except MCPError:
                closed = {}
            self.exit_status = closed.get("exitStatus")
            self.exit_code = closed.get("exitCode")
            self.stderr_tail = list(closed.get("stderrTail") or [])
            self._driver.closed(handle)
        self._finalizer()
