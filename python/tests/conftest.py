"""Shared fixtures of the tests of mcpr's Python binding (python/tests).

Run them with the ``mcpr`` package importable and its binary found: either the installed
wheel (conformance-tests/dist/python.sh), or in development
``MCPR_BINARY=target/debug/mcpr PYTHONPATH=python python -m pytest -p mcpr.pytest_plugin
python/tests``. Variables:

- ``MCPR_REFERENCE_SERVER``: the reference server binary (default
  ``target/debug/mcpr-reference-server`` of the repository);
- ``MCPR_INTEROP_DIR``: where conformance-tests/interop/install.sh put the public servers
  (default ``/tmp/mcpr-interop``); ``MCPR_REQUIRE_INTEROP=1`` turns their absence into a
  failure;
- ``MCPR_EXPECT_ENTRY_POINT=1``: the plugin must have been loaded through the installed
  package's ``pytest11`` entry point.
"""

import os
import select
import shutil
import subprocess
import sys

import pytest

pytest_plugins = ["pytester"]

HERE = os.path.dirname(os.path.abspath(__file__))
SERVERS = os.path.join(HERE, "servers")
REPO = os.path.dirname(os.path.dirname(HERE))


def server_script(name):
    return os.path.join(SERVERS, name)


def add_echo(*flags):
    """The command of the add/echo test server with ``flags``."""
    return [sys.executable, server_script("add_echo.py")] + list(flags)


@pytest.fixture
def add_echo_command():
    return add_echo


@pytest.fixture(scope="session")
def reference_server():
    """The path of mcpr's reference server."""
    path = os.environ.get("MCPR_REFERENCE_SERVER") or os.path.join(
        REPO, "target", "debug", "mcpr-reference-server"
    )
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.fail(
            "the reference server is missing at %s: build it (cargo build -p mcpr-reference-server) "
            "or set MCPR_REFERENCE_SERVER" % path,
            pytrace=False,
        )
    return path


def read_line(stream, deadline_seconds, what):
    """One line from a pipe, waiting at most ``deadline_seconds`` for it to come."""
    ready, _, _ = select.select([stream], [], [], deadline_seconds)
    if not ready:
        raise AssertionError("no line from %s within %s s" % (what, deadline_seconds))
    return stream.readline().decode("utf-8", "replace")


class HttpServer(object):
    def __init__(self, args):
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        self.url = None
        seen = []
        while self.url is None:
            line = read_line(self.proc.stderr, 30, "the reference server")
            if not line:
                raise AssertionError("the reference server ended before listening: %s" % "".join(seen))
            seen.append(line)
            marker = "listening on "
            if marker in line:
                self.url = line.split(marker, 1)[1].strip()

    def stop(self):
        self.proc.terminate()
        self.proc.wait(30)
        self.proc.stderr.close()


@pytest.fixture
def reference_http(reference_server):
    """Starts the reference server over Streamable HTTP on a free port; ``start(*flags)``
    returns it (``.url``). Every one is stopped after the test."""
    started = []

    def start(*flags):
        server = HttpServer([reference_server, "--http", "127.0.0.1:0"] + list(flags))
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def time_server():
    """The command of the public Python server mcp-server-time, or a skip."""
    base = os.environ.get("MCPR_INTEROP_DIR") or os.path.join(
        os.environ.get("TMPDIR") or "/tmp", "mcpr-interop"
    )
    path = os.path.join(base, "venv", "bin", "mcp-server-time")
    if not os.access(path, os.X_OK):
        reason = (
            "mcp-server-time is not installed at %s (run conformance-tests/interop/install.sh, "
            "or set MCPR_INTEROP_DIR)" % path
        )
        if os.environ.get("MCPR_REQUIRE_INTEROP") == "1":
            pytest.fail(reason + "; MCPR_REQUIRE_INTEROP=1 requires it", pytrace=False)
        pytest.skip(reason)
    return [path, "--local-timezone", "UTC"]


@pytest.fixture
def inner_args(request):
    """Arguments an inner pytest session (pytester) needs to load the mcpr plugin: none
    when the installed package's entry point loads it, else ``-p mcpr.pytest_plugin``."""
    if request.config.pluginmanager.has_plugin("mcpr"):
        return []
    return ["-p", "mcpr.pytest_plugin"]


@pytest.fixture
def python_on_path(monkeypatch, tmp_path):
    """Puts a ``python`` that is this interpreter first on PATH (seed 002's examples say
    ``python``), for the servers the inner sessions start."""
    bindir = tmp_path / "python-bin"
    bindir.mkdir()
    os.symlink(sys.executable, str(bindir / "python"))
    monkeypatch.setenv("PATH", str(bindir) + os.pathsep + os.environ.get("PATH", ""))
    return str(bindir / "python")


def child_env(**extra):
    """The environment for a child Python that imports ``mcpr``: this one, with the folder
    the ``mcpr`` package was imported from on PYTHONPATH (the installed package's
    site-packages, or python/ of the repository)."""
    import mcpr

    env = dict(os.environ)
    parts = [os.path.dirname(os.path.dirname(os.path.abspath(mcpr.__file__))), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(p for p in parts if p)
    env.update(extra)
    return env


def copy_server(dest_dir, name, as_name=None):
    target = os.path.join(str(dest_dir), as_name or name)
    shutil.copyfile(server_script(name), target)
    return target


class Held(object):
    """A named pipe the add/echo server (``--hold``) writes ``up`` to and keeps open:
    reading it ends when the server process is gone."""

    def __init__(self, tmp_path, name="held.fifo"):
        self.path = str(tmp_path / name)
        os.mkfifo(self.path)
        self.fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        self.seen = b""

    def wait_gone(self, seconds=30):
        """Returns once the server that held the pipe is gone (fails after ``seconds``)."""
        while True:
            ready, _, _ = select.select([self.fd], [], [], seconds)
            assert ready, "the server process is still running after %s s" % seconds
            chunk = os.read(self.fd, 4096)
            if chunk:
                self.seen += chunk
                continue
            # The end of the file: every writer is gone; the server was one of them.
            assert self.seen == b"up\n", "the server never held the pipe (read %r)" % self.seen
            os.close(self.fd)
            return
