"""A small MCP server over stdio, Python standard library only, with one tool, ``search``:
the ``server.py`` of seed 002's ``MCPClient`` example. With ``DEBUG=1`` in its environment
it says on stderr what it was asked, and adds a ``[debug]`` line to its answer (so a test
can see that ``env=`` reached it).
"""

import json
import os
import sys

PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]

SEARCH = {
    "name": "search",
    "description": "Searches the test corpus and returns the titles that mention the query.",
    "inputSchema": {
        "type": "object",
        "properties": {"q": {"type": "string", "description": "The words to look for."}},
        "required": ["q"],
    },
}

CORPUS = ["Testing MCP servers with pytest", "An mcp server in Python", "Unrelated notes"]


def answer(request):
    method = request.get("method")
    params = request.get("params") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {
            "protocolVersion": asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "search-server", "version": "0.3.0"},
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": [SEARCH]}
    if method == "tools/call" and params.get("name") == "search":
        q = str((params.get("arguments") or {}).get("q", "")).lower()
        if os.environ.get("DEBUG") == "1":
            sys.stderr.write("debug: search %r\n" % q)
            sys.stderr.flush()
        hits = [title for title in CORPUS if q and q in title.lower()]
        if os.environ.get("DEBUG") == "1":
            hits.append("[debug] %d hits for %r" % (len(hits), q))
        return {"content": [{"type": "text", "text": "\n".join(hits) or "no results"}]}
    if method == "tools/call":
        raise LookupError("unknown tool: %s" % params.get("name"))
    raise NotImplementedError(method)


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if "id" not in request or "method" not in request:
            continue
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
