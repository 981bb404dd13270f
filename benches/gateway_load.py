"""Load on `dotpack serve`, every answer checked, calls round-robin over the project's servers
`py` (the SDK's stdio server), `pyhttp` (the SDK's streamable-HTTP server) and `svc` (a bridged
tool service):

1. CLIENTS sessions at once, each its own gateway (as each host runs its own), each making
   CALLS sequential `add` calls;
2. one session (one gateway) with CLIENTS callers at once, each making CALLS calls: calls to
   one server run side by side;
3. the same as 1 straight to `py` and `pyhttp` (one SDK session to each per client);
4. the latency the gateway adds, with nothing else running: one caller alternating a call
   through a warm gateway with the same call straight to the same server, CALLS times each.

Calls per second count the calls after every client made its first three (which start the
gateway's servers). Usage: python gateway_load.py DOTPACK PROJECT_DIR SERVER_PY HTTP_URL CLIENTS CALLS
"""

import asyncio
import contextlib
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
WARM = 3  # the first call to each server starts it


def text(result):
    return "".join(c.text for c in result.content if getattr(c, "text", None) is not None)


def check(server, i, result):
    got = text(result).replace(" ", "")
    want = json.dumps({"sum": i + 1}).replace(" ", "") if server == "svc" else str(i + 1)
    if result.is_error or got != want:
        raise SystemExit(f"{server} add({i}, 1): got {got!r}, expected {want!r}")


class Barrier:
    """Every caller waits here after its warm-up calls; the clock starts when the last arrives."""

    def __init__(self, parties):
        self.left, self.event, self.start = parties, asyncio.Event(), None

    async def wait(self):
        self.left -= 1
        if self.left == 0:
            self.start = time.perf_counter()
            self.event.set()
        await self.event.wait()


async def caller(session, latencies, barrier):
    for i in range(calls):
        if i == WARM:
            await barrier.wait()
        server = servers[i % 3]
        start = time.perf_counter()
        result = await session.call_tool(
            "call", {"server": server, "tool": "add", "arguments": {"a": i, "b": 1}}
        )
        if i >= WARM:
            latencies[server].append(time.perf_counter() - start)
        check(server, i, result)


def gateway():
    params = StdioServerParameters(
        command=dotpack, args=["--trust", "serve"], env=dict(os.environ), cwd=project
    )
    return stdio_client(params)


async def own_gateway(latencies, barrier):
    async with gateway() as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await caller(session, latencies, barrier)


async def shared_gateway(latencies, barrier):
    async with gateway() as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await asyncio.gather(*(caller(session, latencies, barrier) for _ in range(clients)))


def straight_sessions(stack):
    """One SDK session straight to each of `py` and `pyhttp`, entered on `stack`."""

    async def enter():
        params = StdioServerParameters(command=sys.executable, args=[server_py])
        sessions = {}
        for server, transport in (("py", stdio_client(params)),
                                  ("pyhttp", streamable_http_client(http_url))):
            read, write, *_ = await stack.enter_async_context(transport)
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            sessions[server] = session
        return sessions

    return enter()


async def direct(latencies, barrier):
    async with contextlib.AsyncExitStack() as stack:
        sessions = await straight_sessions(stack)
        for i in range(calls):
            if i == WARM:
                await barrier.wait()
            server = servers[i % 2]
            start = time.perf_counter()
            result = await sessions[server].call_tool("add", {"a": i, "b": 1})
            if i >= WARM:
                latencies[server].append(time.perf_counter() - start)
            check(server, i, result)


async def added(_latencies, _barrier):
    """Alternates a call through the gateway with the same call straight to the server."""
    pairs = {"py": [], "pyhttp": []}
    async with contextlib.AsyncExitStack() as stack:
        read, write = await stack.enter_async_context(gateway())
        via = await stack.enter_async_context(ClientSession(read, write))
        await via.initialize()
        sessions = await straight_sessions(stack)
        for i in range(WARM + calls):
            for server in pairs:
                start = time.perf_counter()
                result = await via.call_tool(
                    "call", {"server": server, "tool": "add", "arguments": {"a": i, "b": 1}}
                )
                middle = time.perf_counter()
                check(server, i, result)
                check(server, i, await sessions[server].call_tool("add", {"a": i, "b": 1}))
                if i >= WARM:
                    pairs[server].append((middle - start, time.perf_counter() - middle))
    return pairs


def percentiles(times):
    times = sorted(times)
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.99))]


def report(name, latencies):
    for server, times in latencies.items():
        if times:
            p50, p99 = percentiles(times)
            print(f"  {name:8} {server:7} p50 {p50 * 1000:6.2f} ms  p99 {p99 * 1000:6.2f} ms"
                  f"  ({len(times)} calls)")


async def phase(run, parties, names, label="gateway"):
    latencies = {s: [] for s in names}
    barrier = Barrier(parties)
    await run(latencies, barrier)
    elapsed = time.perf_counter() - barrier.start
    measured = sum(len(t) for t in latencies.values())
    print(f"  {measured} calls after warm-up in {elapsed:.2f} s: {measured / elapsed:.0f} calls/s")
    report(label, latencies)


async def main():
    print(f"== {clients} sessions x {calls} calls, each through its own dotpack serve")
    await phase(
        lambda lat, bar: asyncio.gather(*(own_gateway(lat, bar) for _ in range(clients))),
        clients, servers,
    )
    print(f"== one dotpack serve session, {clients} callers x {calls} calls at once")
    await phase(shared_gateway, clients, servers)
    print(f"== {clients} sessions x {calls} calls straight to the SDK servers (no svc)")
    await phase(
        lambda lat, bar: asyncio.gather(*(direct(lat, bar) for _ in range(clients))),
        clients, servers[:2], "direct",
    )
    print(f"== one caller, {calls} calls through the gateway alternating with {calls} straight")
    pairs = await added(None, None)
    for server, times in pairs.items():
        for name, got in (("gateway", [g for g, _ in times]), ("direct", [d for _, d in times])):
            p50, p99 = percentiles(got)
            print(f"  {name:8} {server:7} p50 {p50 * 1000:6.2f} ms  p99 {p99 * 1000:6.2f} ms")
        p50, p99 = percentiles([g - d for g, d in times])
        print(f"  added    {server:7} p50 {p50 * 1000:+6.2f} ms  p99 {p99 * 1000:+6.2f} ms"
              " (per pair of calls)")


asyncio.run(main())
