"""The pytest plugin in inner pytest sessions (pytester): ini options, the marker, the
factory, snapshots with ``allow_compatible`` and ``name``, errors as pytest shows them,
and that every server a test started is stopped when it ends."""

import os

import pytest

from conftest import Held, copy_server


def ini(pytester, **options):
    lines = ["[pytest]"] + ["%s = %s" % (k, v) for k, v in options.items()]
    pytester.makeini("\n".join(lines) + "\n")


@pytest.fixture
def proj(pytester, python_on_path):
    copy_server(pytester.path, "add_echo.py", "my_server.py")
    copy_server(pytester.path, "search.py")
    return pytester


def test_the_plugin_is_registered(pytester, inner_args):
    if os.environ.get("MCPR_EXPECT_ENTRY_POINT") == "1":
        # The installed package's pytest11 entry point loaded the plugin, as `mcpr`.
        assert inner_args == []
    result = pytester.runpytest(*inner_args, "--help")
    result.stdout.fnmatch_lines(["*--mcp-update-snapshots*", "*mcp_command*", "*mcp_url*",
                                 "*mcp_headers*", "*mcp_timeout*"])
    result = pytester.runpytest(*inner_args, "--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.mcp_server(command=None, url=None*"])


def test_the_mcp_fixture_without_a_server_says_how_to_configure_one(pytester, inner_args):
    pytester.makepyfile("def test_x(mcp):\n    pass\n")
    result = pytester.runpytest(*inner_args)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*no MCP server for the `mcp` fixture: set mcp_command*"])


def test_mcp_command_and_mcp_url_together_are_refused(pytester, inner_args):
    ini(pytester, mcp_command="python x.py", mcp_url="http://127.0.0.1:1/mcp")
    pytester.makepyfile("def test_x(mcp):\n    pass\n")
    result = pytester.runpytest(*inner_args)
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*set mcp_command or mcp_url, not both*"])


def test_the_mcp_fixture_stops_its_server_after_the_test(proj, inner_args, tmp_path):
    held = Held(tmp_path)
    ini(proj, mcp_command="python my_server.py --hold %s" % held.path)
    proj.makepyfile("""
        kept = []

        def test_x(mcp):
            assert mcp.call_tool("add", {"a": 1, "b": 1}).text == "2"
            kept.append(mcp)  # even a client the test keeps is closed after it

        def test_after():
            assert kept[0].closed
            assert kept[0].exit_status is not None
    """)
    proj.runpytest(*inner_args).assert_outcomes(passed=2)
    held.wait_gone()


def test_the_command_runs_in_the_rootdir(proj, inner_args, monkeypatch):
    # The server file is found relative to the rootdir even when pytest runs elsewhere.
    ini(proj, mcp_command="python my_server.py --name from-rootdir")
    sub = proj.mkdir("sub")
    sub.joinpath("test_in_sub.py").write_text(
        "def test_x(mcp):\n    assert mcp.server_info['name'] == 'from-rootdir'\n"
    )
    monkeypatch.chdir(str(sub))
    result = proj.runpytest(*inner_args, "--rootdir", str(proj.path), "-c", str(proj.path / "tox.ini"))
    result.assert_outcomes(passed=1)


def test_the_marker_picks_the_server(proj, inner_args, reference_http):
    http = reference_http()
    ini(proj, mcp_command="python my_server.py")
    proj.makepyfile("""
        import pytest

        def test_from_the_ini(mcp):
            assert mcp.server_info["name"] == "add-echo"

        @pytest.mark.mcp_server(command=["python", "search.py"], env={"DEBUG": "1"})
        def test_command_and_env(mcp):
            assert mcp.server_info["name"] == "search-server"
            assert "[debug]" in mcp.call_tool("search", {"q": "pytest"}).text

        @pytest.mark.mcp_server("python my_server.py --name positional")
        def test_a_command_string(mcp):
            assert mcp.server_info["name"] == "positional"

        @pytest.mark.mcp_server(url=%r)
        def test_url(mcp):
            assert mcp.server_info["name"] == "mcpr-reference-server"
            assert mcp.pid is None

        @pytest.mark.mcp_server(command=["python", "my_server.py"], timeout=5, cwd=%r)
        def test_cwd(mcp):
            pass
    """ % (http.url, str(proj.path)))
    proj.runpytest(*inner_args).assert_outcomes(passed=5)


def test_the_factory_starts_several_servers_and_stops_them_all(proj, inner_args, reference_http, tmp_path):
    http = reference_http("--require-header", "X-Test-Key: k3y-for-tests")
    one, two = Held(tmp_path, "one.fifo"), Held(tmp_path, "two.fifo")
    proj.makepyfile("""
        kept = []

        def test_versions(mcp_server):
            old = mcp_server(["python", "my_server.py", "--hold", %r])
            new = mcp_server("python my_server.py --v2 --hold %s")
            remote = mcp_server(url=%r, headers={"X-Test-Key": "k3y-for-tests"})
            assert [t["name"] for t in old.list_tools()] == ["add", "echo"]
            assert [t["name"] for t in new.list_tools()] == ["add", "multiply", "upper"]
            assert remote.call_tool("echo", {"text": "hi"}).text == "hi"
            kept.extend([old, new, remote])

        def test_after():
            assert [c.closed for c in kept] == [True, True, True]
    """ % (one.path, two.path, http.url))
    proj.runpytest(*inner_args).assert_outcomes(passed=2)
    one.wait_gone()
    two.wait_gone()


def test_mcp_url_with_mcp_headers(proj, inner_args, reference_http, monkeypatch):
    http = reference_http("--require-header", "Authorization: Bearer t0k3n-for-tests")
    monkeypatch.setenv("MCPR_PY_TEST_TOKEN", "t0k3n-for-tests")
    proj.makeini("[pytest]\nmcp_url = %s\nmcp_headers =\n    X-Other: 1\n    Authorization: Bearer ${MCPR_PY_TEST_TOKEN}\n"
                 % http.url)
    proj.makepyfile("""
        def test_x(mcp):
            assert mcp.server_info["name"] == "mcpr-reference-server"
            assert mcp.call_tool("add", {"a": 1, "b": 2}).structured == {"sum": 3}
    """)
    proj.runpytest(*inner_args).assert_outcomes(passed=1)
    # Without the header the server refuses: the fixture errors, and the token is masked.
    proj.makeini("[pytest]\nmcp_url = %s\nmcp_headers = Authorization: Bearer wrong-t0k3n\n" % http.url)
    result = proj.runpytest(*inner_args)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*mcpr.MCPTransportError*"])
    assert "wrong-t0k3n" not in result.stdout.str()
    # A variable that is not set is a usage error that names it.
    proj.makeini("[pytest]\nmcp_url = %s\nmcp_headers = Authorization: Bearer ${MCPR_PY_NOT_SET}\n" % http.url)
    result = proj.runpytest(*inner_args)
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*mcp_headers: the environment variable MCPR_PY_NOT_SET is not set*"])


def test_mcp_timeout(proj, inner_args, reference_server):
    proj.makeini("[pytest]\nmcp_command = %s\nmcp_timeout = 0.5\n" % reference_server)
    proj.makepyfile("""
        import pytest
        from mcpr import MCPTimeoutError

        def test_x(mcp):
            assert mcp.timeout == 0.5
            with pytest.raises(MCPTimeoutError) as caught:
                mcp.call_tool("slow", {"ms": 60000})
            assert "within 500ms" in str(caught.value)
    """)
    proj.runpytest(*inner_args).assert_outcomes(passed=1)


def test_a_server_that_dies_shows_in_the_test_report(proj, inner_args):
    proj.makepyfile("""
        import pytest

        @pytest.mark.mcp_server(command=["python", "my_server.py", "--fail-start"])
        def test_dies_at_start(mcp):
            pass

        @pytest.mark.mcp_server(command=["python", "my_server.py", "--banner", "--die-on-add"])
        def test_dies_in_a_call(mcp):
            mcp.call_tool("add", {"a": 1, "b": 2})
    """)
    result = proj.runpytest(*inner_args)
    result.assert_outcomes(failed=1, errors=1)
    result.stdout.re_match_lines([
        r"^E +mcpr\.MCPTransportError: server closed stdout \(exit code 3\)$",
        r"^E +  server stderr \(last lines\):$",
        r"^E +    fatal: database not configured$",
    ])
    result.stdout.re_match_lines([
        r"^E +mcpr\.MCPTransportError: server closed stdout \(exit code 4\)$",
        r"^E +  server stderr \(last lines\):$",
        r"^E +    fatal: lost the database$",
        r"^E +  server printed to stdout \(not protocol\):$",
        r"^E +    add-echo server starting on stdio$",
    ])
    # The report shows the test's own line, not the binding's code.
    assert "def call_tool" not in result.stdout.str()


def test_snapshot_allow_compatible(proj, inner_args):
    ini(proj, mcp_command="python my_server.py")
    proj.makepyfile("""
        def test_strict(mcp, mcp_snapshot):
            mcp_snapshot(mcp)

        def test_lenient(mcp, mcp_snapshot):
            mcp_snapshot(mcp, allow_compatible=True)
    """)
    proj.runpytest(*inner_args).assert_outcomes(passed=2)
    stored = proj.path / "__mcp_snapshots__" / "test_snapshot_allow_compatible.py" / "tools.json"
    v1 = stored.read_bytes()

    # A new tool only: compatible. The strict test fails, the lenient one passes with a
    # warning, and the file is kept.
    ini(proj, mcp_command="python my_server.py --v1-compatible")
    result = proj.runpytest(*inner_args, "-W", "default")
    result.assert_outcomes(passed=1, failed=1, warnings=1)
    result.stdout.fnmatch_lines([
        "MCP tools differ from snapshot tools.json (0 breaking, 1 compatible):",
        "  ok       upper: new tool",
        "Run pytest --mcp-update-snapshots to accept these changes.",
        "*MCPSnapshotWarning: MCP tools differ from snapshot tools.json (0 breaking, 1 compatible):*",
    ])
    assert result.stdout.str().count("FAILED") == 1
    assert "FAILED test_snapshot_allow_compatible.py::test_strict" in result.stdout.str()
    assert stored.read_bytes() == v1

    # Breaking changes fail both.
    ini(proj, mcp_command="python my_server.py --v2")
    result = proj.runpytest(*inner_args)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["MCP tools differ from snapshot tools.json (3 breaking, 4 compatible):"])
    assert stored.read_bytes() == v1


def test_snapshot_names_and_a_broken_snapshot_file(proj, inner_args):
    ini(proj, mcp_command="python my_server.py")
    proj.makepyfile(test_two="""
        def test_two_servers(mcp, mcp_server, mcp_snapshot):
            mcp_snapshot(mcp)
            mcp_snapshot(mcp_server("python search.py"), name="search")
    """)
    proj.runpytest(*inner_args).assert_outcomes(passed=1)
    folder = proj.path / "__mcp_snapshots__" / "test_two.py"
    assert sorted(p.name for p in folder.iterdir()) == ["search.json", "tools.json"]
    assert '"search-server"' in (folder / "search.json").read_text()
    (folder / "search.json").write_text("not a snapshot")
    result = proj.runpytest(*inner_args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*MCPDriverError*not a snapshot*"])


def test_assert_lint_clean_ignore_and_stdout_noise(proj, inner_args):
    ini(proj, mcp_command="python my_server.py --sloppy")
    proj.makepyfile("""
        import pytest
        from mcpr import assert_lint_clean

        def test_ignored(mcp):
            assert_lint_clean(mcp, ignore=["MCP005", "MCP007"])

        def test_one_ignored(mcp):
            assert_lint_clean(mcp, ignore=["MCP005"])

        @pytest.mark.mcp_server("python my_server.py --banner")
        def test_noise(mcp):
            assert_lint_clean(mcp)
    """)
    result = proj.runpytest(*inner_args)
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.re_match_lines([
        r"^E +AssertionError: MCP lint found 0 errors and 1 warning in add-echo \(assert_lint_clean fails on warnings and errors\):$",
        r"^E +  warning MCP007 echo: parameter 'text' has no description$",
        r"^E +  \(ignored: MCP005\)$",
    ])
    result.stdout.re_match_lines([
        r"^E +AssertionError: the server printed to stdout what is not MCP protocol",
        r"^E +  add-echo server starting on stdio$",
    ])


def test_a_test_file_of_mcptest_runs_after_its_import_line_changes(proj, inner_args):
    # Every public name of mcptest the seed shows, used the way the seed uses it.
    ini(proj, mcp_command="python my_server.py")
    proj.makepyfile("""
        import sys
        import pytest
        from mcpr import MCPClient, MCPTransportError, assert_lint_clean

        def test_client_directly():
            with MCPClient.stdio([sys.executable, "my_server.py"], timeout=10) as client:
                assert client.server_info["name"] == "add-echo"
                assert [t["name"] for t in client.list_tools()] == ["add", "echo"]

        def test_transport_error():
            with pytest.raises(MCPTransportError):
                MCPClient.stdio([sys.executable, "my_server.py", "--fail-start"])

        def test_lint(mcp):
            assert_lint_clean(mcp)
    """)
    proj.runpytest(*inner_args).assert_outcomes(passed=3)
