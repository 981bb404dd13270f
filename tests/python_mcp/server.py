"""A small MCP server on the official Python SDK, for tests/it/probe.rs.

`python server.py` serves over stdio (other arguments are ignored: tests mark a process with
one); `python server.py http PORT [TOKEN]` over streamable HTTP on 127.0.0.1:PORT/mcp, answering
401 to a request without `Authorization: Bearer TOKEN` when a TOKEN is given. With
PYDEMO_CRASH_TOOL set it also has `crash`, which exits mid-call, and `hang`, which never
answers. mcp 2.x names the class MCPServer (mcp.server.mcpserver), 1.x FastMCP.
"""

import os
import sys
import time

try:
    from mcp.server.mcpserver import MCPServer as Server
except ImportError:
    from mcp.server.fastmcp import FastMCP as Server

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
