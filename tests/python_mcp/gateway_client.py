"""Drives `dotpack serve` with the official Python SDK's client, as a host would, step by step.

Usage: python gateway_client.py STEPS_JSON COMMAND ARG...  -- runs COMMAND (in the current
folder, with this process's environment), or python gateway_client.py STEPS_JSON --http URL
-- reaches a gateway already serving streamable HTTP at URL, and prints one JSON list, one
answer per step:
  ["list"]                  -> {"names": [...], "bytes": N}  (N: the tools/list result as JSON)
  ["call", NAME, ARGS]      -> the tools/call result
  ["procs", MARKER]         -> how many processes have MARKER in their command line
  ["wait", MARKER, N, SECS] -> that count, once it is N or SECS have passed
  ["many", [[NAME, ARGS], ...]] -> every call made at once; each result's text, in order
  ["notices", SECS?]        -> the methods of the notifications received since the last
                               "notices" step (the SDK's message_handler), once there is one
                               or SECS (default 0) have passed
  ["abandon", NAME, ARGS, SECS] -> the call, given up after SECS: the SDK then sends
                               notifications/cancelled; "abandoned", or the result if it came
  ["read", PATH, SECS, SKIP] -> the text of file PATH once it is neither empty nor SKIP, or
                               null when SECS have passed
  ["capabilities"]          -> the server's capabilities from initialize
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


def dump(result):
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


def procs(marker):
    count = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline and "gateway_client.py" not in cmdline:
            count += 1
    return count


async def main():
    steps = json.loads(sys.argv[1])
    if sys.argv[2] == "--http":
        transport = streamable_http_client(sys.argv[3])
    else:
        transport = stdio_client(StdioServerParameters(
            command=sys.argv[2], args=sys.argv[3:], env=dict(os.environ), cwd=os.getcwd()
        ))
    answers = []
    notices = []

    async def on_message(message):
        method = getattr(message, "method", None)
        if method is not None:
            notices.append(method)

    async with transport as (read, write, *_):
        async with ClientSession(read, write, message_handler=on_message) as session:
            init = await session.initialize()
            answers.append({"server": init.server_info.name})
            for step in steps:
                if step[0] == "notices":
                    for _ in range(int((step[1] if len(step) > 1 else 0) * 20)):
                        if notices:
                            break
                        await asyncio.sleep(0.05)
                    answers.append(list(notices))
                    notices.clear()
                elif step[0] == "capabilities":
                    answers.append(init.capabilities.model_dump(mode="json", by_alias=True, exclude_none=True))
                elif step[0] == "abandon":
                    try:
                        result = await session.call_tool(step[1], step[2], read_timeout_seconds=step[3])
                        answers.append(dump(result))
                    except Exception as e:  # the SDK's timeout error, after it sent the cancel
                        answers.append("abandoned" if "timed out" in str(e) else f"error: {e}")
                elif step[0] == "read":
                    text = None
                    for _ in range(int(step[2] * 20)):
                        if os.path.exists(step[1]):
                            with open(step[1]) as f:
                                text = f.read()
                            if text and text != step[3]:
                                break
                            text = None
                        await asyncio.sleep(0.05)
                    answers.append(text)
                elif step[0] == "list":
                    tools = dump(await session.list_tools())
                    answers.append({
                        "names": [t["name"] for t in tools["tools"]],
                        "bytes": len(json.dumps(tools, separators=(",", ":"))),
                        "tools": tools["tools"],
                    })
                elif step[0] == "call":
                    answers.append(dump(await session.call_tool(step[1], step[2])))
                elif step[0] == "procs":
                    answers.append(procs(step[1]))
                elif step[0] == "many":
                    results = await asyncio.gather(
                        *(session.call_tool(name, args) for name, args in step[1])
                    )
                    answers.append([
                        ("error: " if r.is_error else "") + "".join(
                            c.text for c in r.content if getattr(c, "text", None) is not None
                        )
                        for r in results
                    ])
                elif step[0] == "wait":
                    for _ in range(int(step[3] * 20)):
                        if procs(step[1]) == step[2]:
                            break
                        await asyncio.sleep(0.05)
                    answers.append(procs(step[1]))
    print(json.dumps(answers))


asyncio.run(main())
