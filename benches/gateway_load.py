"""Load on `dotpack serve`: CLIENTS sessions at once (each its own gateway, as each host runs its
own), each making CALLS sequential `add` calls round-robin over the project's servers `py`
(the SDK's stdio server), `pyhttp` (the SDK's streamable-HTTP server) and `svc` (a bridged tool
service), every answer checked. The same calls made straight to `py` and `pyhttp` (one SDK
session each per client) give the latency the gateway adds.

Usage: python gateway_load.py DOTPACK PROJECT_DIR SERVER_PY HTTP_URL CLIENTS CALLS
"""

import asyncio
import json
import os
import statistics
import sys
import time

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

dotpack, project, server_py, http_url = sys.argv[1:5]
clients, calls = int(sys.argv[5]), int(sys.argv[6])
servers = ["py", "pyhttp", "svc"]


def text(result):
    return "".join(c.text for c in result.content if getattr(c, "text", None) is not None)


def check(server, i, result):
    got = text(result).replace(" ", "")
    want = json.dumps({"sum": i + 1}).replace(" ", "") if server == "svc" else str(i + 1)
    if result.is_error or got != want:
        raise SystemExit(f"{server} add({i}, 1): got {got!r}, expected {want!r}")


async def through_gateway(latencies):
    params = StdioServerParameters(
        command=dotpack, args=["--trust", "serve"], env=dict(os.environ), cwd=project
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for i in range(calls):
                server = servers[i % 3]
                start = time.perf_counter()
                result = await session.call_tool(
                    "call", {"server": server, "tool": "add", "arguments": {"a": i, "b": 1}}
                )
                if i >= 3:  # the first call of each server starts it
                    latencies[server].append(time.perf_counter() - start)
                check(server, i, result)


async def direct_session(read, write, server, latencies):
    async with ClientSession(read, write) as session:
        await session.initialize()
        for i in range(calls // 3):
            start = time.perf_counter()
            result = await session.call_tool("add", {"a": i, "b": 1})
            latencies[server].append(time.perf_counter() - start)
            check(server, i, result)


async def direct(latencies):
    params = StdioServerParameters(command=sys.executable, args=[server_py])
    async with stdio_client(params) as (read, write):
        await direct_session(read, write, "py", latencies)
    async with streamable_http_client(http_url) as (read, write, *_):
        await direct_session(read, write, "pyhttp", latencies)


def report(name, latencies):
    for server, times in latencies.items():
        if not times:
            continue
        times = sorted(times)
        p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
        print(f"  {name:8} {server:7} p50 {statistics.median(times) * 1000:6.2f} ms"
              f"  p99 {p99 * 1000:6.2f} ms  ({len(times)} calls)")


async def main():
    via = {s: [] for s in servers}
    start = time.perf_counter()
    await asyncio.gather(*(through_gateway(via) for _ in range(clients)))
    elapsed = time.perf_counter() - start
    print(f"== {clients} clients x {calls} calls through dotpack serve, every answer checked")
    print(f"  {clients * calls} calls in {elapsed:.1f} s: {clients * calls / elapsed:.0f} calls/s"
          " (including starting each gateway and its servers)")
    report("gateway", via)
    straight = {"py": [], "pyhttp": []}
    await asyncio.gather(*(direct(straight) for _ in range(clients)))
    print("== the same calls straight to the servers")
    report("direct", straight)


asyncio.run(main())
