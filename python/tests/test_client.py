"""MCPClient against mcpr's reference server and the add/echo test server: every method,
the errors, and the rule that no server outlives its client."""

import gc
import json
import os
import pickle
import signal
import subprocess
import sys
import textwrap

import pytest

from mcpr import (
    MCPClient,
    MCPDriverError,
    MCPError,
    MCPProtocolError,
    MCPRPCError,
    MCPTimeoutError,
    MCPTransportError,
)

from conftest import Held, add_echo, child_env, read_line, server_script


# -- the reference server over stdio ---------------------------------------------------


@pytest.fixture
def ref(reference_server):
    with MCPClient.stdio([reference_server], timeout=20) as client:
        yield client


def test_handshake_facts(ref):
    assert ref.server_info["name"] == "mcpr-reference-server"
    assert isinstance(ref.protocol_version, str) and ref.protocol_version[:4].isdigit()
    assert "tools" in ref.capabilities
    assert isinstance(ref.pid, int)
    assert ref.name == "mcp-1"
    assert ref.mcpr_version
    assert not ref.closed
    assert "mcp-1" in repr(ref)


def test_tools_calls_and_tool_errors(ref):
    names = [t["name"] for t in ref.list_tools(timeout=10)]
    assert {"echo", "add", "fail", "log", "environment"} <= set(names)

    result = ref.call_tool("add", {"a": 2, "b": 3})
    assert not result.is_error
    assert result.structured == {"sum": 5}
    assert result["structuredContent"] == {"sum": 5}
    assert result.raw["content"] == result.content

    echo = ref.call_tool("echo", {"text": "line one\nline two"})
    assert echo.text == "line one\nline two"
    assert echo.structured is None

    failed = ref.call_tool("fail", {"message": "broken on purpose"})
    assert failed.is_error
    assert failed.text == "broken on purpose"

    # `arguments=` is the same as the second positional argument.
    assert ref.call_tool("echo", arguments={"text": "kw"}).text == "kw"


def test_resources_and_prompts(ref):
    uris = [r["uri"] for r in ref.list_resources()]
    assert "fixture://readme" in uris
    readme = ref.read_resource("fixture://readme")
    assert readme.text == "The mcpr reference server."
    assert readme.contents[0]["mimeType"] == "text/plain"
    assert ref.read_resource("fixture://items/7").text == "item 7"
    assert [t["uriTemplate"] for t in ref.list_resource_templates()] == ["fixture://items/{id}"]

    assert {p["name"] for p in ref.list_prompts(timeout=10)} == {"greet", "code_review"}
    greeting = ref.get_prompt("greet", {"name": "Ada"})
    assert greeting.text == "Hello, Ada!"
    assert greeting.messages[0]["role"] == "user"
    review = ref.get_prompt("code_review", {"language": "rust", "framework": "axum"})
    assert review.text == "Review this rust code using axum."


def test_a_json_rpc_error_is_raised_with_its_code(ref):
    with pytest.raises(MCPRPCError) as caught:
        ref.get_prompt("no-such-prompt", {})
    err = caught.value
    assert err.kind == "rpc-error"
    assert err.rpc_code == -32602
    assert "Unknown prompt: no-such-prompt" in err.error["message"]
    assert err.server == "mcp-1"
    # The last MCP message is the server's error answer.
    assert err.last_message["direction"] == "received"
    assert "last MCP message (received, error):" in str(err)
    assert isinstance(err, MCPError)


def test_a_request_past_its_deadline_is_a_timeout(ref):
    with pytest.raises(MCPTimeoutError) as caught:
        ref.call_tool("slow", {"ms": 60000}, timeout=0.3)
    assert caught.value.kind == "timeout"
    assert isinstance(caught.value, TimeoutError)
    assert "tools/call" in str(caught.value)
    # The session goes on after a timeout.
    assert ref.call_tool("echo", {"text": "still here"}).text == "still here"


def test_environment_and_working_folder_reach_the_server(reference_server, tmp_path):
    with MCPClient.stdio([reference_server], env={"MCPR_PY_GREETING": "hi there"}, cwd=tmp_path) as c:
        seen = c.call_tool("environment", {"name": "MCPR_PY_GREETING"}).text
    seen = json.loads(seen)
    assert seen["value"] == "hi there"
    assert os.path.realpath(seen["cwd"]) == os.path.realpath(str(tmp_path))


def test_credentials_are_withheld_by_name(reference_server, monkeypatch):
    monkeypatch.setenv("MCPR_PY_TEST_TOKEN", "s3cr3t-value-for-tests")
    with MCPClient.stdio([reference_server]) as c:
        assert "MCPR_PY_TEST_TOKEN" in c.withheld_env
        seen = c.call_tool("environment", {"name": "MCPR_PY_TEST_TOKEN"}).text
    assert "s3cr3t-value-for-tests" not in seen


# -- notifications -----------------------------------------------------------------------


def test_call_then_wait_for_a_notification(reference_server):
    with MCPClient.stdio([reference_server], log_level="debug") as c:
        c.call_tool("log", {"level": "info", "message": "first"})
        c.call_tool("log", {"level": "warning", "message": "disk low"})
        got = c.wait_notification("notifications/message", match={"level": "warning"}, timeout=10)
        assert got["method"] == "notifications/message"
        assert got["params"]["data"] == {"message": "disk low"}
        # Each notification is handed out once: the info message is still there, once.
        first = c.wait_notification("notifications/message", match={"data.message": "first"}, timeout=10)
        assert first["params"]["level"] == "info"
        with pytest.raises(MCPTimeoutError) as caught:
            c.wait_notification("notifications/message", match={"data.message": "first"}, timeout=0.3)
        assert caught.value.arrived == []


def test_a_wait_that_times_out_lists_what_arrived(reference_server):
    with MCPClient.stdio([reference_server], log_level="debug") as c:
        c.call_tool("log", {"level": "info", "message": "not what we wait for"})
        with pytest.raises(MCPTimeoutError) as caught:
            c.wait_notification("notifications/resources/updated", timeout=0.3)
    arrived = caught.value.arrived
    assert [n["method"] for n in arrived] == ["notifications/message"]
    assert "not what we wait for" in str(caught.value)


def test_list_changed_notifications_in_the_handshake_era(reference_server):
    with MCPClient.stdio([reference_server], protocol="2025-11-25") as c:
        assert c.protocol_version == "2025-11-25"
        c.call_tool("notify", {"kind": "tools"})
        assert c.wait_notification("notifications/tools/list_changed", timeout=10)["method"] == (
            "notifications/tools/list_changed"
        )


# -- the add/echo server -------------------------------------------------------------------


def test_add_echo_server_as_seed_002_describes_it():
    with MCPClient.stdio(add_echo(), timeout=10) as c:
        assert c.server_info == {"name": "add-echo", "version": "1.0.0"}
        result = c.call_tool("add", {"a": 2, "b": 3})
        assert (result.text, result.structured, result.is_error) == ("5", {"result": 5}, False)
        assert c.call_tool("add", {"a": "two"}).is_error
        assert c.call_tool("echo", {"text": "hello"}).text == "hello"
        twice = c.call_tool("echo", {"text": "hello", "times": 2})
        assert twice.text == "hello\nhello"
        assert twice.content == [{"type": "text", "text": "hello"}] * 2


def test_list_tools_follows_every_page():
    with MCPClient.stdio(add_echo("--v2", "--page-size", "1")) as c:
        assert [t["name"] for t in c.list_tools()] == ["add", "multiply", "upper"]


def test_a_string_command_is_split_like_a_shell():
    command = "%s %s --name 'with space'" % (sys.executable, server_script("add_echo.py"))
    with MCPClient.stdio(command) as c:
        assert c.server_info["name"] == "with space"


def test_lint_snapshot_and_diff():
    with MCPClient.stdio(add_echo("--sloppy")) as c:
        report = c.lint(fail_on="warning")
        assert report["failed"]
        assert {f["code"] for f in report["findings"]} == {"MCP005", "MCP007"}
        assert not c.lint(ignore=["MCP005", "MCP007"], fail_on="warning")["failed"]
        snap = c.snapshot()
        assert snap["text"].startswith("{")
        assert [t["name"] for t in snap["snapshot"]["tools"]] == ["add", "echo"]
    with MCPClient.stdio(add_echo("--v2")) as c:
        report = c.diff(snap["text"], name="tools.json")
    assert (report["breaking"], report["compatible"]) == (3, 4)
    assert "  BREAKING add: new required parameter 'c'" in [ch["line"] for ch in report["changes"]]


def test_an_answer_that_breaks_the_output_schema_is_a_protocol_error(tmp_path):
    server = tmp_path / "bad_structured.py"
    with open(server_script("add_echo.py")) as f:
        original = f.read()
    source = original.replace(
        'result["structuredContent"] = {"result": a + b}',
        'result["structuredContent"] = {"result": str(a + b)}',
    )
    server.write_text(source)
    with MCPClient.stdio([sys.executable, str(server)]) as c:
        with pytest.raises(MCPProtocolError) as caught:
            c.call_tool("add", {"a": 2, "b": 3})
    assert caught.value.kind == "invalid-result"
    assert "outputSchema" in str(caught.value)


# -- transport errors ---------------------------------------------------------------------


def test_a_server_that_dies_at_start_reads_as_seed_002_shows():
    with pytest.raises(MCPTransportError) as caught:
        MCPClient.stdio(add_echo("--fail-start"), timeout=10)
    err = caught.value
    assert err.kind == "start-failed"
    assert err.stderr_tail == ["fatal: database not configured"]
    assert str(err).startswith(
        "server closed stdout (exit code 3)\n"
        "  server stderr (last lines):\n"
        "    fatal: database not configured\n"
    )
    assert err.exit_status is not None and "3" in err.exit_status
    assert err.exit_code == 3
    assert type(err).__module__ + "." + type(err).__name__ == "mcpr.MCPTransportError"


def test_what_a_dying_server_printed_on_stdout_is_pointed_out():
    with pytest.raises(MCPTransportError) as caught:
        MCPClient.stdio(add_echo("--banner", "--fail-start"), timeout=10)
    text = str(caught.value)
    assert text.startswith("server closed stdout (exit code 3)\n  server stderr (last lines):\n"
                           "    fatal: database not configured\n")
    assert "  server printed to stdout (not protocol):\n    add-echo server starting on stdio" in text


def test_a_server_that_dies_during_a_call():
    with MCPClient.stdio(add_echo("--banner", "--die-on-add")) as c:
        assert c.call_tool("echo", {"text": "fine"}).text == "fine"
        with pytest.raises(MCPTransportError) as caught:
            c.call_tool("add", {"a": 1, "b": 2})
    err = caught.value
    assert err.kind == "server-exited"
    text = str(err)
    assert text.startswith("server closed stdout (exit code 4)\n  server stderr (last lines):\n"
                           "    fatal: lost the database\n")
    assert "  server printed to stdout (not protocol):\n    add-echo server starting on stdio\n" in text
    assert "  last MCP message (sent, request): " in text and "tools/call" in text


def test_a_command_that_does_not_exist(tmp_path):
    with pytest.raises(MCPTransportError) as caught:
        MCPClient.stdio([str(tmp_path / "no-such-server")])
    assert caught.value.kind == "start-failed"
    assert "no-such-server" in str(caught.value)


def test_errors_survive_pickling():
    with pytest.raises(MCPTransportError) as caught:
        MCPClient.stdio(add_echo("--fail-start"))
    again = pickle.loads(pickle.dumps(caught.value))
    assert type(again) is MCPTransportError and str(again) == str(caught.value)


def test_the_client_refuses_bad_arguments():
    with pytest.raises(ValueError):
        MCPClient(command=["x"], url="http://localhost/mcp")
    with pytest.raises(ValueError):
        MCPClient.stdio([])
    with pytest.raises(ValueError):
        MCPClient.stdio(add_echo(), timeout=0)


# -- the driver --------------------------------------------------------------------------


def test_a_missing_binary_is_a_driver_error(monkeypatch, tmp_path):
    monkeypatch.setenv("MCPR_BINARY", str(tmp_path / "no-mcpr"))
    with pytest.raises(MCPDriverError) as caught:
        MCPClient.stdio(add_echo())
    assert "MCPR_BINARY" in str(caught.value)


def test_a_binary_that_is_no_driver_is_a_driver_error(tmp_path):
    fake = tmp_path / "fake-mcpr"
    fake.write_text("#!/bin/sh\necho 'mcpr: no such command' >&2\nexit 2\n")
    fake.chmod(0o755)
    with pytest.raises(MCPDriverError) as caught:
        MCPClient.stdio(add_echo(), binary=str(fake))
    text = str(caught.value)
    assert "exit code 2" in text
    assert "mcpr: no such command" in text


def test_a_driver_that_dies_fails_the_requests_clearly():
    c = MCPClient.stdio(add_echo())
    c._driver._proc.kill()
    with pytest.raises(MCPDriverError) as caught:
        c.call_tool("add", {"a": 1, "b": 2})
    assert "killed by signal" in str(caught.value) or "exited" in str(caught.value)
    c.close()


def test_requests_from_several_threads_share_one_driver(reference_server):
    import threading

    with MCPClient.stdio([reference_server], log_level="debug") as c:
        got = {}

        def wait():
            got["n"] = c.wait_notification("notifications/message", match={"data.message": "from the main thread"},
                                           timeout=20)

        waiter = threading.Thread(target=wait)
        waiter.start()
        c.call_tool("log", {"level": "info", "message": "from the main thread"})
        waiter.join(30)
        assert got["n"]["params"]["data"]["message"] == "from the main thread"


# -- no server outlives its client ----------------------------------------------------------


def test_close_stops_the_server_and_the_driver(tmp_path):
    held = Held(tmp_path)
    c = MCPClient.stdio(add_echo("--hold", held.path))
    driver = c._driver._proc
    c.close()
    held.wait_gone()
    assert driver.poll() == 0
    assert c.exit_status is not None and c.closed
    assert c.exit_code == 0
    c.close()  # a second close does nothing
    with pytest.raises(MCPError):
        c.list_tools()


def test_a_garbage_collected_client_stops_its_server(tmp_path):
    held = Held(tmp_path)
    c = MCPClient.stdio(add_echo("--hold", held.path))
    driver = c._driver._proc
    del c
    gc.collect()
    held.wait_gone()
    assert driver.poll() is not None


def _child(tmp_path, body):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(body))
    return subprocess.Popen([sys.executable, str(script)] + add_echo(), stdout=subprocess.PIPE,
                            env=child_env())


def test_a_client_left_open_is_closed_at_interpreter_exit(tmp_path):
    held = Held(tmp_path)
    child = _child(tmp_path, """
        import sys
        from mcpr import MCPClient
        client = MCPClient.stdio(sys.argv[1:] + ["--hold", %r])
        print(client.call_tool("add", {"a": 20, "b": 22}).text, flush=True)
    """ % held.path)
    with child.stdout:
        assert read_line(child.stdout, 30, "the child") == "42\n"
    assert child.wait(60) == 0
    held.wait_gone()


def test_a_killed_binding_leaves_no_server_behind(tmp_path):
    held = Held(tmp_path)
    child = _child(tmp_path, """
        import sys, time
        from mcpr import MCPClient
        client = MCPClient.stdio(sys.argv[1:] + ["--hold", %r])
        print(client.pid, flush=True)
        sys.stdin.read()  # until killed
    """ % held.path)
    with child.stdout:
        pid = int(read_line(child.stdout, 30, "the child"))
    assert pid > 0
    child.send_signal(signal.SIGKILL)
    child.wait(30)
    held.wait_gone()


# -- Streamable HTTP ---------------------------------------------------------------------


def test_http_client_with_headers(reference_http):
    server = reference_http("--require-header", "Authorization: Bearer t0k3n-for-tests")
    with MCPClient.http(server.url, headers={"Authorization": "Bearer t0k3n-for-tests"}) as c:
        assert c.pid is None
        assert c.server_info["name"] == "mcpr-reference-server"
        assert c.call_tool("echo", {"text": "over http"}).text == "over http"
    with pytest.raises(MCPTransportError) as caught:
        MCPClient.http(server.url, headers={"Authorization": "Bearer wrong"})
    assert "t0k3n" not in str(caught.value)


# -- the public Python server mcp-server-time --------------------------------------------


def test_mcp_server_time(time_server):
    with MCPClient.stdio(time_server, timeout=30) as c:
        assert c.server_info["name"] == "mcp-time"
        names = {t["name"] for t in c.list_tools()}
        assert {"get_current_time", "convert_time"} <= names
        r = c.call_tool("convert_time", {"source_timezone": "UTC", "time": "12:00",
                                         "target_timezone": "Asia/Tokyo"})
        assert not r.is_error
        assert r.structured["target"]["datetime"].endswith("T21:00:00+09:00")
        assert r.structured["time_difference"] == "+9.0h"
        bad = c.call_tool("get_current_time", {"timezone": "Not/AZone"})
        assert bad.is_error
