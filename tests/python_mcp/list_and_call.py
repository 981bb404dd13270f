"""Drives a stdio MCP server with the official Python SDK's client, as a host would.

Usage: python list_and_call.py COMMAND ARG...  (started with this environment) -- prints one JSON object: the server's name, its
tool names and the text of calling `add` with {"a": 2, "b": 3}; or, when the server answers a
request with an error, {"error": MESSAGE} (exit 1).
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client
try:
    from mcp.shared.exceptions import MCPError as McpError
except ImportError:
    from mcp.shared.exceptions import McpError


async def main():
    params = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            try:
                init = await session.initialize()
                tools = await session.list_tools()
                added = await session.call_tool("add", {"a": 2, "b": 3})
            except McpError as e:
                print(json.dumps({"error": str(e)}))
                return 1
            print(json.dumps({
                "server": init.server_info.name,
                "tools": sorted(t.name for t in tools.tools),
                "add": [c.text for c in added.content if c.type == "text"],
            }))
            return 0


sys.exit(asyncio.run(main()))
