"""The ``mcpr driver`` child process and the JSON lines spoken with it (docs/driver.md).

One ``Driver`` is one ``mcpr driver`` process started with pipes. Requests are written as
lines to its stdin under a lock and may be in flight from several threads at once (a
``waitNotification`` while a ``callTool`` runs); a reader thread hands each response line to
the request waiting for its ``id``. Closing the driver's stdin makes it stop every server
it started and exit, so a client that goes away leaves no server behind.
"""

import collections
import itertools
import json
import os
import signal
import subprocess
import threading

from ._errors import MCPDriverError, MCPError
from ._find import find_mcpr_bin

#: The version of the driver protocol this binding speaks.
PROTOCOL = 1

#: How long ``close`` waits for the driver to stop its servers and exit before killing it.
CLOSE_WAIT_SECONDS = 30.0

#: Extra time the binding gives the driver past a request's own deadline before it gives up
#: on an answer (the driver enforces deadlines itself; this only guards against a hang).
GUARD_SECONDS = 30.0


def binding_version():
    """The version of this Python package (``mcpr``), or ``"dev"`` when not installed."""
    try:
        from importlib import metadata
    except ImportError:  # pragma: no cover - Python < 3.8
        return "dev"
    try:
        return metadata.version("mcpr")
    except Exception:
        return "dev"


class _Slot(object):
    __slots__ = ("event", "response")

    def __init__(self):
        self.event = threading.Event()
        self.response = None


class Driver(object):
    """A running ``mcpr driver``, greeted with ``hello``."""

    def __init__(self, binary=None):
        if binary is None:
            try:
                binary = find_mcpr_bin()
            except FileNotFoundError as e:
                raise MCPDriverError(str(e), "driver") from None
        self.binary = binary
        try:
            self._proc = subprocess.Popen(
                [binary, "driver"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                close_fds=True,
            )
        except OSError as e:
            raise MCPDriverError("could not start `%s driver`: %s" % (binary, e), "driver") from None
        self.pid = self._proc.pid
        self._lock = threading.Lock()
        self._pending = {}
        self._ids = itertools.count(1)
        self._gone = None  # the MCPDriverError once the driver's output ended
        self._ended = threading.Event()
        self._closing = False
        self._stderr = collections.deque(maxlen=20)
        self._junk = collections.deque(maxlen=5)  # stdout lines that were not responses
        self._server_pids = {}
        self._stderr_thread = threading.Thread(
            target=self._read_stderr, name="mcpr-driver-stderr-%d" % self.pid, daemon=True
        )
        self._stderr_thread.start()
        self._reader = threading.Thread(
            target=self._read, name="mcpr-driver-reader-%d" % self.pid, daemon=True
        )
        self._reader.start()
        try:
            self.hello = self.request(
                "hello", {"protocol": PROTOCOL, "client": "mcpr-python " + binding_version()},
                guard=0.0,
            )
        except MCPError as e:
            # Before hello the driver has started nothing: it can be ended at once.
            if self._proc.poll() is None:
                self._proc.kill()
            self.close()
            if e.kind == "driver":
                raise MCPDriverError(
                    "`%s driver` did not answer hello (an mcpr without the driver, or not mcpr?): %s"
                    % (binary, e.message),
                    e.kind,
                    e.code,
                    e.data,
                ) from None
            if e.kind == "invalid-request" or e.kind == "unsupported-protocol":
                raise MCPDriverError(
                    "`%s driver` does not speak driver protocol %d: %s" % (binary, PROTOCOL, e.message),
                    e.kind,
                    e.code,
                    e.data,
                ) from None
            raise
        #: mcpr's version, as the driver gave it.
        self.version = self.hello.get("version")

    # -- the wire --------------------------------------------------------------------------

    def request(self, method, params=None, guard=None):
        """Sends one request and waits for its response; returns its ``result`` or raises
        the ``MCPError`` of its ``error``. ``guard`` (seconds) bounds the wait for a
        request whose own deadline is known."""
        __tracebackhide__ = True  # pytest: keep this frame (and its secrets) out of reports
        with self._lock:
            if self._gone is not None:
                raise self._gone_error()
            if self._closing:
                raise MCPDriverError("the client is closed", "driver")
            rid = next(self._ids)
            message = {"id": rid, "method": method}
            if params is not None:
                message["params"] = params
            line = (json.dumps(message, separators=(",", ":")) + "\n").encode("ascii")
            slot = _Slot()
            self._pending[rid] = slot
            try:
                self._proc.stdin.write(line)
                self._proc.stdin.flush()
            except (OSError, ValueError):
                self._pending.pop(rid, None)
                failed = True
            else:
                failed = False
        if failed:
            # The driver is gone: wait for its output to end to say how it ended.
            self._ended.wait(5.0)
            raise self._gone_error()
        if guard is None:
            slot.event.wait()
        elif not slot.event.wait(guard + GUARD_SECONDS):
            with self._lock:
                self._pending.pop(rid, None)
            raise MCPDriverError(
                "the mcpr driver did not answer %s within %.0f s%s"
                % (method, guard + GUARD_SECONDS, " (the request's deadline was %g s)" % guard if guard else ""),
                "driver",
                data={"driverStderr": list(self._stderr)},
            )
        response = slot.response
        if response is None:
            raise self._gone_error()
        if "error" in response:
            error = response["error"]
            if not isinstance(error, dict):
                error = {"kind": "failed", "message": repr(error)}
            raise MCPError._from_driver(error)
        return response.get("result")

    def _read(self):
        stdout = self._proc.stdout
        try:
            for raw in stdout:
                try:
                    message = json.loads(raw.decode("utf-8", "replace"))
                except ValueError:
                    message = None
                if not isinstance(message, dict) or ("result" not in message and "error" not in message):
                    self._junk.append(raw.decode("utf-8", "replace").rstrip("\r\n"))
                    continue
                with self._lock:
                    slot = self._pending.pop(message.get("id"), None)
                if slot is None:
                    self._junk.append(raw.decode("utf-8", "replace").rstrip("\r\n")[:500])
                    continue
                slot.response = message
                slot.event.set()
        except (OSError, ValueError):
            pass
        finally:
            code = self._proc.wait()
            self._stderr_thread.join(5.0)
            _close(stdout)
            if not self._stderr_thread.is_alive():
                _close(self._proc.stderr)
            with self._lock:
                self._gone = self._describe_end(code)
                pending = list(self._pending.values())
                self._pending.clear()
            self._ended.set()
            for slot in pending:
                slot.event.set()

    def _read_stderr(self):
        try:
            for raw in self._proc.stderr:
                self._stderr.append(raw.decode("utf-8", "replace").rstrip("\r\n"))
        except (OSError, ValueError):
            pass

    def _describe_end(self, code):
        if self._closing and code == 0:
            return MCPDriverError("the client is closed", "driver")
        if code is not None and code < 0:
            how = "was killed by signal %d" % -code
        else:
            how = "exited (exit code %s)" % code
        message = "the mcpr driver (`%s driver`, pid %d) %s" % (self.binary, self.pid, how)
        data = {"driverStderr": list(self._stderr)}
        if self._junk:
            data["driverStdout"] = list(self._junk)
        return MCPDriverError(message, "driver", data=data)

    def _gone_error(self):
        gone = self._gone
        if gone is None:
            return MCPDriverError("the mcpr driver stopped answering", "driver")
        return MCPDriverError(gone.message, gone.kind, gone.code, gone.data)

    # -- servers' pids, for the last resort of close ---------------------------------------

    def opened(self, handle, pid):
        if pid:
            self._server_pids[handle] = pid

    def closed(self, handle):
        self._server_pids.pop(handle, None)

    # -- the end ---------------------------------------------------------------------------

    @property
    def alive(self):
        return self._gone is None and not self._closing

    def close(self, wait=True):
        """Closes the driver's stdin, so it stops every server it started and exits; with
        ``wait``, waits for that (and kills the driver, and the servers it named, should it
        hang)."""
        with self._lock:
            first = not self._closing
            self._closing = True
            if first:
                try:
                    self._proc.stdin.close()
                except (OSError, ValueError):
                    pass
        if not wait:
            return
        try:
            self._proc.wait(CLOSE_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
            for pid in list(self._server_pids.values()):
                _kill_group(pid)
        self._ended.wait(5.0)


def _close(stream):
    try:
        stream.close()
    except (OSError, ValueError):
        pass


def _kill_group(pid):
    """SIGKILL to the process group a server leads (the driver starts each in its own),
    else to the process."""
    if os.name != "posix":  # pragma: no cover
        return
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
