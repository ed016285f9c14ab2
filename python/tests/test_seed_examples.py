"""Seed 002's examples, verbatim but for the import line (``mcptest`` -> ``mcpr``), run as
inner pytest sessions (pytester) against the add/echo server as ``my_server``, with the
``pyproject.toml`` the seed shows."""

import os
import shutil
import socket
import subprocess
import sys

import pytest

from mcpr import find_mcpr_bin

from conftest import HttpServer, SERVERS, child_env, copy_server

PYPROJECT = '''\
# pyproject.toml
[tool.pytest.ini_options]
mcp_command = "python -m my_server"
# or, for a server that is already running:
# mcp_url = "http://localhost:8000/mcp"
'''

# The seed's first test file; only the import line differs (`from mcptest import ...`).
TEST_SERVER = '''\
from mcpr import assert_lint_clean


def test_add(mcp):
    result = mcp.call_tool("add", {"a": 2, "b": 3})
    assert not result.is_error
    assert result.text == "5"
    assert result.structured == {"result": 5}


def test_bad_input_is_a_tool_error(mcp):
    assert mcp.call_tool("add", {"a": "two"}).is_error


def test_tools_are_well_described(mcp):
    assert_lint_clean(mcp)            # fails on warnings and errors


def test_no_surprise_schema_changes(mcp, mcp_snapshot):
    mcp_snapshot(mcp)
'''

# The seed's marker and factory examples, verbatim (they import nothing from mcptest).
TEST_MARKERS = '''\
import pytest


@pytest.mark.mcp_server(command=["node", "dist/index.js"], env={"API_KEY": "test"})
def test_node_server(mcp):
    assert "search" in [t["name"] for t in mcp.list_tools()]


def test_two_versions(mcp_server):
    old = mcp_server(["python", "server_v1.py"])
    new = mcp_server(url="http://localhost:9000/mcp")
    ...
'''

# The seed's direct use of the client; only the import line differs.
CLIENT_EXAMPLE = '''\
from mcpr import MCPClient

with MCPClient.stdio(["python", "server.py"], env={"DEBUG": "1"}, timeout=10) as client:
    print(client.server_info, client.protocol_version)
    for tool in client.list_tools():          # follows pagination
        print(tool["name"])
    result = client.call_tool("search", {"q": "mcp"})
    print(result.text, result.is_error)
'''

SEED_DIFF_MESSAGE = """\
MCP tools differ from snapshot tools.json (3 breaking, 4 compatible):
  BREAKING add: new required parameter 'c'
  BREAKING add: outputSchema was removed
  BREAKING echo: tool was removed
  ok       add: parameter 'a' type changed integer -> number
  ok       add: new optional parameter 'round'
  ok       multiply: new tool
  ok       upper: new tool
Run pytest --mcp-update-snapshots to accept these changes."""


@pytest.fixture
def project(pytester, python_on_path):
    """A project laid out as seed 002's: ``my_server`` (the add/echo server), the seed's
    ``pyproject.toml`` and its test file."""
    copy_server(pytester.path, "add_echo.py", "my_server.py")
    pytester.makefile(".toml", pyproject=PYPROJECT)
    pytester.makepyfile(test_server=TEST_SERVER)
    return pytester


def mcpr_snapshot(path, *server_args):
    """What ``mcpr snapshot -o PATH -- SERVER`` writes, for the add/echo server."""
    subprocess.run(
        [find_mcpr_bin(), "snapshot", "-o", str(path), "--", sys.executable,
         os.path.join(SERVERS, "add_echo.py")] + list(server_args),
        check=True, stdout=subprocess.DEVNULL,
    )
    with open(str(path), "rb") as f:
        return f.read()


def failure_text(reports, name):
    (report,) = [r for r in reports if r.nodeid.endswith("::" + name) and r.failed]
    return report.longreprtext


def set_command(pytester, command):
    pytester.makefile(".toml", pyproject=PYPROJECT.replace("python -m my_server", command))


def test_the_seed_test_file_passes_and_stores_the_snapshot(project, inner_args, tmp_path):
    result = project.runpytest(*inner_args)
    result.assert_outcomes(passed=4)
    stored = project.path / "__mcp_snapshots__" / "test_server.py" / "tools.json"
    assert stored.read_bytes() == mcpr_snapshot(tmp_path / "expected.json")
    # A second run compares with the stored file and passes.
    project.runpytest(*inner_args).assert_outcomes(passed=4)
    assert stored.read_bytes() == mcpr_snapshot(tmp_path / "expected.json")


def test_a_changed_server_fails_with_the_seed_message(project, inner_args, tmp_path):
    project.runpytest(*inner_args).assert_outcomes(passed=4)
    set_command(project, "python -m my_server --v2")
    rec = project.inline_run(*inner_args)
    passed, skipped, failed = rec.listoutcomes()
    assert [r.nodeid.split("::")[1] for r in failed] == ["test_no_surprise_schema_changes"]
    assert failure_text(failed, "test_no_surprise_schema_changes") == SEED_DIFF_MESSAGE

    # --mcp-update-snapshots accepts the changes: the file is the new server's snapshot.
    project.runpytest(*inner_args, "--mcp-update-snapshots").assert_outcomes(passed=4)
    stored = project.path / "__mcp_snapshots__" / "test_server.py" / "tools.json"
    assert stored.read_bytes() == mcpr_snapshot(tmp_path / "v2.json", "--v2")
    project.runpytest(*inner_args).assert_outcomes(passed=4)


def test_assert_lint_clean_fails_on_a_warning(project, inner_args):
    set_command(project, "python -m my_server --sloppy")
    rec = project.inline_run(*inner_args, "-k", "well_described")
    _, _, failed = rec.listoutcomes()
    text = failure_text(failed, "test_tools_are_well_described")
    assert "warning MCP005 echo: description is only 4 characters: 'Echo'" in text
    assert "warning MCP007 echo: parameter 'text' has no description" in text
    assert "0 errors and 2 warnings" in text


def test_assert_lint_clean_passes_with_info_findings(project, inner_args):
    set_command(project, "python -m my_server --info-only")
    project.runpytest(*inner_args, "-k", "well_described").assert_outcomes(passed=1)


def _port_free(port):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def test_the_marker_and_factory_examples(pytester, python_on_path, inner_args, reference_server):
    if shutil.which("node") is None:
        pytest.skip("node is not on PATH: the seed's marker example starts `node dist/index.js`")
    if not _port_free(9000):
        pytest.skip("port 9000 is taken: the seed's factory example reaches http://localhost:9000/mcp")
    (pytester.path / "dist").mkdir()
    shutil.copyfile(os.path.join(SERVERS, "node", "dist", "index.js"), str(pytester.path / "dist" / "index.js"))
    copy_server(pytester.path, "add_echo.py", "server_v1.py")
    pytester.makepyfile(test_markers=TEST_MARKERS)
    server = HttpServer([reference_server, "--http", "127.0.0.1:9000"])
    try:
        result = pytester.runpytest(*inner_args, "-v")
    finally:
        server.stop()
    result.assert_outcomes(passed=2)


def test_the_client_example(pytester):
    copy_server(pytester.path, "search.py", "server.py")
    pytester.makepyfile(example=CLIENT_EXAMPLE)
    # The example's `python` is the interpreter of these tests.
    bindir = pytester.path / "bin"
    bindir.mkdir()
    os.symlink(sys.executable, str(bindir / "python"))
    env_path = str(bindir) + os.pathsep + os.environ.get("PATH", "")
    proc = subprocess.run(
        [sys.executable, "example.py"], cwd=str(pytester.path), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=child_env(PATH=env_path), timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    lines = proc.stdout.decode().splitlines()
    assert lines[0].startswith("{'name': 'search-server', 'version': '0.3.0'} ")
    assert lines[1:] == [
        "search",
        "Testing MCP servers with pytest",
        "An mcp server in Python",
        "[debug] 2 hits for 'mcp' False",
    ]
