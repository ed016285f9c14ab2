"""A small MCP server over stdio, Python standard library only: the server seed 002's
examples are written against, with two tools, ``add`` and ``echo``.

``add`` answers text ``"5"`` and ``structuredContent`` ``{"result": 5}`` for ``{"a": 2,
"b": 3}`` (it has an ``outputSchema``); an argument of the wrong type is a tool error
(``isError``). Flags change it for the tests of python/tests:

  --v2            the next version, with changes the snapshot diff must report: ``add``
                  gets a new required parameter ``c``, loses its ``outputSchema``, and ``a``
                  becomes a number; ``echo`` is removed; ``multiply`` and ``upper`` are new,
                  and ``add`` gets a new optional parameter ``round`` (3 breaking, 4
                  compatible changes)
  --v1-compatible the first version plus a new tool ``upper`` only (compatible changes)
  --sloppy        ``echo`` with a short description and an undescribed parameter (lint
                  warnings MCP005 and MCP007)
  --info-only     ``echo``'s parameter described by its own name (lint info MCP015 only)
  --banner        print a line that is not protocol on stdout before serving
  --page-size N   list the tools N at a time (``nextCursor``)
  --fail-start    print "fatal: database not configured" on stderr and exit 3 at once
  --die-on-add    on a call of ``add``, print "fatal: lost the database" on stderr and exit 4
  --name NAME     the server's name (serverInfo.name)
  --hold FIFO     open the named pipe FIFO for writing, write "up", and keep it open while
                  the server runs: its reader sees the end of the file once the server process is gone
"""

import json
import os
import sys

PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]


def num(kind, description):
    return {"type": kind, "description": description}


def tools_of(flags):
    add = {
        "name": "add",
        "description": "Adds two integers and returns the sum as text and as structured content.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "a": num("integer", "The first addend."),
                "b": num("integer", "The second addend."),
            },
            "required": ["a", "b"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"result": num("integer", "The sum of a and b.")},
            "required": ["result"],
        },
    }
    echo = {
        "name": "echo",
        "description": "Returns the text it is given, unchanged, as a text content item.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "text": {"type": "string", "description": "What to send back."},
                "times": {"type": "integer", "description": "How many text items to answer (default 1)."},
            },
            "required": ["text"],
        },
    }
    upper = {
        "name": "upper",
        "description": "Returns the text it is given in upper case letters.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "What to turn to upper case."}},
            "required": ["text"],
        },
    }
    if "--sloppy" in flags:
        echo["description"] = "Echo"
        del echo["inputSchema"]["properties"]["text"]["description"]
    if "--info-only" in flags:
        echo["inputSchema"]["properties"]["text"]["description"] = "Text"
    if "--v1-compatible" in flags:
        return [add, echo, upper]
    if "--v2" in flags:
        add["inputSchema"]["properties"]["a"] = num("number", "The first addend.")
        add["inputSchema"]["properties"]["c"] = num("integer", "A third addend.")
        add["inputSchema"]["properties"]["round"] = {"type": "boolean", "description": "Round the sum."}
        add["inputSchema"]["required"] = ["a", "b", "c"]
        del add["outputSchema"]
        multiply = {
            "name": "multiply",
            "description": "Multiplies two numbers and returns the product as text.",
            "inputSchema": {
                "type": "object",
                "properties": {"a": num("number", "The first factor."), "b": num("number", "The second factor.")},
                "required": ["a", "b"],
            },
        }
        return [add, multiply, upper]
    return [add, echo]


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def text(t, error=False):
    result = {"content": [{"type": "text", "text": t}]}
    if error:
        result["isError"] = True
    return result


def call(flags, name, args):
    if name == "add":
        if "--die-on-add" in flags:
            sys.stderr.write("fatal: lost the database\n")
            sys.stderr.flush()
            os._exit(4)
        a, b = args.get("a"), args.get("b")
        if not is_int(a) or not is_int(b):
            return text("add: a and b must be integers, got %s" % json.dumps(args), error=True)
        result = text(str(a + b))
        result["structuredContent"] = {"result": a + b}
        return result
    if name in ("echo", "upper"):
        t = args.get("text")
        if not isinstance(t, str):
            return text("%s: text must be a string" % name, error=True)
        if name == "upper":
            return text(t.upper())
        times = args.get("times", 1)
        return {"content": [{"type": "text", "text": t} for _ in range(times if is_int(times) else 1)]}
    return None


def answer(flags, tools, request):
    method = request.get("method")
    params = request.get("params") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
        name = flags[flags.index("--name") + 1] if "--name" in flags else "add-echo"
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": name, "version": "2.0.0" if "--v2" in flags else "1.0.0"},
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        size = int(flags[flags.index("--page-size") + 1]) if "--page-size" in flags else len(tools)
        start = int(params.get("cursor") or 0)
        page = {"tools": tools[start:start + size]}
        if start + size < len(tools):
            page["nextCursor"] = str(start + size)
        return page
    if method == "tools/call":
        known = [t["name"] for t in tools]
        if params.get("name") not in known:
            raise LookupError("unknown tool: %s" % params.get("name"))
        return call(flags, params["name"], params.get("arguments") or {})
    raise NotImplementedError(method)


def main():
    flags = sys.argv[1:]
    if "--banner" in flags:
        sys.stdout.write("add-echo server starting on stdio\n")
        sys.stdout.flush()
    if "--fail-start" in flags:
        sys.stderr.write("fatal: database not configured\n")
        sys.stderr.flush()
        sys.exit(3)
    if "--hold" in flags:
        held = open(flags[flags.index("--hold") + 1], "wb")  # kept open until the process ends
        held.write(b"up\n")
        held.flush()
    tools = tools_of(flags)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        request = json.loads(line)
        if "id" not in request or "method" not in request:
            continue  # a notification, or a response: nothing to answer
        reply = {"jsonrpc": "2.0", "id": request["id"]}
        try:
            reply["result"] = answer(flags, tools, request)
        except NotImplementedError as e:
            reply["error"] = {"code": -32601, "message": "method not found: %s" % e}
        except LookupError as e:
            reply["error"] = {"code": -32602, "message": str(e)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
