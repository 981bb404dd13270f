"""A small MCP server on the official Python SDK, for tests/it/probe.rs.

`python server.py` serves over stdio (other arguments are ignored: tests mark a process with
one); `python server.py http PORT [TOKEN]` over streamable HTTP on 127.0.0.1:PORT/mcp, answering
401 to a request without `Authorization: Bearer TOKEN` when a TOKEN is given. With
PYDEMO_CRASH_TOOL set it also has `crash`, which exits mid-call, and `hang`, which never
answers. With PYDEMO_CHANGING set it has `grow`, which adds the tool `times`, changes the
description of `greet` and sends `notifications/tools/list_changed`, and `slow`, which writes
"started" to the file PYDEMO_CHANGING names, sleeps for SECONDS unless cancelled, then writes
"cancelled" or "finished" there. mcp 2.x names the class MCPServer (mcp.server.mcpserver), 1.x
FastMCP.
"""

import os
import sys
import time

import anyio

try:
    from mcp.server.mcpserver import Context, MCPServer as Server
except ImportError:
    from mcp.server.fastmcp import Context, FastMCP as Server

mcp = Server("pydemo", version="1.0.0")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers.

    Returns their sum."""
    return a + b


@mcp.tool()
def greet(name: str) -> str:
    """Say hello to someone."""
    return f"Hello, {name}!"


if os.environ.get("PYDEMO_CRASH_TOOL"):

    @mcp.tool()
    def crash() -> str:
        """Exit the server in the middle of the call."""
        os._exit(3)

    @mcp.tool()
    def hang() -> str:
        """Never answer."""
        time.sleep(3600)
        return "woke"


if os.environ.get("PYDEMO_CHANGING"):
    report = os.environ["PYDEMO_CHANGING"]

    def times(a: int, b: int) -> int:
        """Multiply two integers."""
        return a * b

    def greet_loudly(name: str) -> str:
        return f"HELLO, {name.upper()}!"

    @mcp.tool()
    async def grow(ctx: Context) -> str:
        """Add the tool `times`, change `greet`, and say the tool list changed."""
        mcp.add_tool(times)
        mcp.remove_tool("greet")
        mcp.add_tool(greet_loudly, name="greet", description="Shout hello to someone.")
        await ctx.session.send_tool_list_changed()
        return "grown"

    @mcp.tool()
    async def slow(seconds: float) -> str:
        """Sleep for `seconds` unless cancelled; write what happened to the report file."""
        with open(report, "w") as f:
            f.write("started")
        try:
            await anyio.sleep(seconds)
        except anyio.get_cancelled_exc_class():
            with open(report, "w") as f:
                f.write("cancelled")
            raise
        with open(report, "w") as f:
            f.write("finished")
        return "slept"


def require_bearer(app, token):
    """An ASGI app that answers 401 unless the request carries `Authorization: Bearer TOKEN`."""
    expected = ("Bearer " + token).encode()

    async def guarded(scope, receive, send):
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != expected:
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"missing or wrong bearer token"})
            return
        await app(scope, receive, send)

    return guarded


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[1] == "http":
        import uvicorn

        app = require_bearer(mcp.streamable_http_app(), sys.argv[3])
        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
    elif len(sys.argv) > 2 and sys.argv[1] == "http":
        mcp.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        mcp.run()
