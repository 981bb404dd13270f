"""A small MCP server on the official Python SDK, for tests/it/probe.rs.

`python server.py` serves over stdio (other arguments are ignored: tests mark a process with
one); `python server.py http PORT` over streamable HTTP on 127.0.0.1:PORT/mcp. With
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


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        mcp.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        mcp.run()
