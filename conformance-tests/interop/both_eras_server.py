"""The tools and resource of conformance-tests/runtime/both-eras.mcpr on the official Python
SDK (mcp 2.3), with the answers of the reference server: `notify`, `log`, `elicit`, `sample`,
`roots`, `long_task` and the subscribable resource `fixture://status`. It speaks both eras:
the `initialize` handshake up to 2025-11-25 (server-to-client requests mid-call,
`resources/subscribe`, `logging/setLevel`) and the stateless 2026-07-28 (`input_required`
results, `subscriptions/listen`, the per-request log level in `_meta`). The SDK picks the
wire of each era; this file only says what each tool answers.

The SDK has no tasks (its method tables leave `tasks/*` out of 2025-11-25 on purpose, and it
ships no tasks extension for 2026-07-28), so `long_task` is an ordinary tool here.

Used by cli/tests/interop.rs (`both_eras_suite_on_the_python_sdk`)."""

import sys
from typing import Annotated

import anyio
import mcp_types as types
from mcp.server.connection import allowed_log_levels
from mcp.server.elicitation import ElicitationResult
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp.server.stdio import stdio_server
from pydantic import BaseModel

server = MCPServer(name="both-eras-py", version="0.0.1", instructions="mcpr both-eras interop fixture")

# The handshake era's subscriptions and log level (one client per stdio process).
subscribed: set[str] = set()
log_level: list[str] = ["debug"]
LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]


def modern(ctx: Context) -> bool:
    return (ctx.protocol_version or "") >= "2026-07-28"


@server.resource("fixture://status", name="status", mime_type="application/json")
def status() -> str:
    return '{"status":"ready"}'


@server.tool(description="Emits a notification on demand: kind tools | prompts | resources | updated (with uri).")
async def notify(kind: str, ctx: Context, uri: str = "fixture://status") -> str:
    if modern(ctx):
        # 2026-07-28: events go to the `subscriptions/listen` streams.
        match kind:
            case "tools":
                await ctx.notify_tools_changed()
            case "prompts":
                await ctx.notify_prompts_changed()
            case "resources":
                await ctx.notify_resources_changed()
            case _:
                await ctx.notify_resource_updated(uri)
        return f"sent {kind} to the subscriptions"
    session = ctx.session
    match kind:
        case "tools":
            await session.send_tool_list_changed()
        case "prompts":
            await session.send_prompt_list_changed()
        case "resources":
            await session.send_resource_list_changed()
        case _:
            if uri not in subscribed:
                return f"{uri} has no subscriber; nothing sent"
            await session.send_resource_updated(uri)
    return f"sent {kind}"


@server.tool(description="Emits a log message at `level`.")
async def log(message: str, ctx: Context, level: str = "info") -> str:
    if modern(ctx):
        # 2026-07-28: the level the client asked for rides this request's `_meta`.
        allowed = allowed_log_levels(ctx.protocol_version, ctx.request_context.meta)
    else:
        allowed = frozenset(LEVELS[LEVELS.index(log_level[0]) :])
    if level not in allowed:
        return f"not logged (level {level} below threshold or not requested)"
    await ctx.log(level, {"message": message}, logger_name="both-eras-py")
    return f"logged at {level}"


class Name(BaseModel):
    name: str


def ask_name(message: str = "What is your name?") -> Elicit[Name]:
    return Elicit(message, Name)


@server.tool(description="Asks the client for a name (form elicitation).")
async def elicit(answer: Annotated[ElicitationResult[Name], Resolve(ask_name)], message: str = "What is your name?") -> str:
    name = answer.data.name if answer.action == "accept" else ""
    return f"elicitation {answer.action}: {name}"


def ask_sample(prompt: str = "Say hello") -> Sample:
    message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text=prompt))
    return Sample([message], max_tokens=64)


@server.tool(description="Asks the client to sample a message.")
async def sample(answer: Annotated[types.CreateMessageResult, Resolve(ask_sample)], prompt: str = "Say hello") -> str:
    content = answer.content
    return f"sampled: {content.text if isinstance(content, types.TextContent) else ''}"


def ask_roots() -> ListRoots:
    return ListRoots()


@server.tool(description="Asks the client for its roots.")
async def roots(answer: Annotated[types.ListRootsResult, Resolve(ask_roots)]) -> str:
    return "roots: " + ", ".join(str(r.uri) for r in answer.roots)


@server.tool(description="Runs `ms` milliseconds (an ordinary tool: the SDK has no tasks).")
async def long_task(ms: int = 100) -> str:
    await anyio.sleep(ms / 1000)
    return f"finished after {ms}ms"


# The handshake era's `resources/subscribe`, `resources/unsubscribe` and `logging/setLevel`:
# MCPServer leaves them out, the low-level server serves them (the SDK's own advice for
# methods 2026-07-28 removed). At 2026-07-28 the runner never routes them here.
lowlevel = server._lowlevel_server


async def on_subscribe(ctx, params: types.SubscribeRequestParams) -> types.EmptyResult:
    subscribed.add(str(params.uri))
    return types.EmptyResult()


async def on_unsubscribe(ctx, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
    subscribed.discard(str(params.uri))
    return types.EmptyResult()


async def on_set_level(ctx, params: types.SetLevelRequestParams) -> types.EmptyResult:
    log_level[0] = params.level
    return types.EmptyResult()


lowlevel.add_request_handler("resources/subscribe", types.SubscribeRequestParams, on_subscribe)
lowlevel.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams, on_unsubscribe)
lowlevel.add_request_handler("logging/setLevel", types.SetLevelRequestParams, on_set_level)


async def main() -> None:
    # Declares `listChanged` in the handshake era (2026-07-28 derives it from listen).
    options = lowlevel.create_initialization_options(NotificationOptions(True, True, True))
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, options)


if __name__ == "__main__":
    if sys.argv[1:]:
        sys.exit("usage: both_eras_server.py (stdio only)")
    anyio.run(main)
