"""A tiny MCP server over stdio with the Python standard library alone.

It stands for "my_server.py" in the install checks of the release artefacts
(conformance-tests/dist/run.sh): a fresh environment has no MCP SDK, and the artefacts must
work against any server. One tool, `add`, described well enough that `mcpr lint` finds
nothing to report.
"""

import json
import sys

PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]

ADD = {
    "name": "add",
    "description": "Adds two integers and returns their sum as text and as structured content.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "a": {"type": "integer", "description": "The first addend."},
            "b": {"type": "integer", "description": "The second addend."},
        },
        "required": ["a", "b"],
    },
    "outputSchema": {
        "type": "object",
        "properties": {"result": {"type": "integer", "description": "The sum."}},
        "required": ["result"],
    },
}


def answer(request):
    method = request.get("method")
    params = request.get("params") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "tiny-server", "version": "1.0.0"},
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": [ADD]}
    if method == "tools/call":
        if params.get("name") != "add":
            raise LookupError("unknown tool: %s" % params.get("name"))
        args = params.get("arguments") or {}
        a, b = args.get("a"), args.get("b")
        if not isinstance(a, int) or not isinstance(b, int):
            return {"content": [{"type": "text", "text": "a and b must be integers"}], "isError": True}
        return {"content": [{"type": "text", "text": str(a + b)}], "structuredContent": {"result": a + b}}
    raise NotImplementedError(method)


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        request = json.loads(line)
        if "id" not in request:
            continue  # a notification: nothing to answer
        reply = {"jsonrpc": "2.0", "id": request["id"]}
        try:
            reply["result"] = answer(request)
        except NotImplementedError as e:
            reply["error"] = {"code": -32601, "message": "method not found: %s" % e}
        except LookupError as e:
            reply["error"] = {"code": -32602, "message": str(e)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
