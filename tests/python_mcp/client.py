"""Drives a stdio MCP server with the official Python SDK's client, as a host would.

Usage: python client.py COMMAND ARG...  -- prints one JSON object: the tools (name, description,
inputSchema) and the results of calling `add` with {"a": 2, "b": 3} and `fail` with {}.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client


def dump(result):
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main():
    params = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            added = await session.call_tool("add", {"a": 2, "b": 3})
            failed = await session.call_tool("fail", {})
            print(json.dumps({
                "server": init.server_info.name,
                "tools": [dump(t) for t in tools.tools],
                "add": dump(added),
                "fail": dump(failed),
            }))


asyncio.run(main())
