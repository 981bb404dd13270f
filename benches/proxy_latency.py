"""The launcher proxy's added latency per tool call: N calls of `add` through `dotpack run --url
URL --header 'Authorization: Bearer {{env.T}}' --secret T` (one MCP session over stdio, as a host
holds it) against N direct streamable-HTTP POSTs of the same JSON-RPC request, with the same
bearer header, session id and protocol version, on one keep-alive connection to the same server.
Prints the mean and median per call of each, and the difference of the medians.

Usage: python3 proxy_latency.py DOTPACK URL TOKEN [N]
"""

import http.client
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.parse

dotpack, url, token = sys.argv[1], sys.argv[2], sys.argv[3]
n = int(sys.argv[4]) if len(sys.argv) > 4 else 300
VERSION = "2025-11-25"
INIT = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}
CALL = {"name": "add", "arguments": {"a": 1, "b": 2}}


def sse_message(response):
    """The first JSON-RPC message of an event stream, or the JSON body."""
    body = response.read().decode()
    if response.getheader("content-type", "").startswith("application/json"):
        return json.loads(body) if body.strip() else None
    for line in body.splitlines():
        if line.startswith("data:"):
            return json.loads(line[5:].strip())
    return None


parsed = urllib.parse.urlparse(url)
conn = http.client.HTTPConnection(parsed.hostname, parsed.port)
headers = {
    "Authorization": "Bearer " + token,
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
}


def post(message):
    conn.request("POST", parsed.path, json.dumps(message), headers)
    response = conn.getresponse()
    session = response.getheader("mcp-session-id")
    return session, sse_message(response)


session, _ = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT})
headers["Mcp-Session-Id"] = session
headers["MCP-Protocol-Version"] = VERSION
post({"jsonrpc": "2.0", "method": "notifications/initialized"})
direct = []
for i in range(1, n + 1):
    start = time.perf_counter()
    _, answer = post({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": CALL})
    direct.append(time.perf_counter() - start)
    assert answer["result"]["content"][0]["text"] == "3", answer
conn.close()

env = dict(os.environ, T=token)
proxy = subprocess.Popen(
    [dotpack, "run", "--secret", "T", "--url", url, "--header", "Authorization: Bearer {{env.T}}"],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
)


def send(message):
    proxy.stdin.write(json.dumps(message) + "\n")
    proxy.stdin.flush()


def rpc(i, method, params):
    send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
    return json.loads(proxy.stdout.readline())


rpc(0, "initialize", INIT)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
proxied = []
for i in range(1, n + 1):
    start = time.perf_counter()
    answer = rpc(i, "tools/call", CALL)
    proxied.append(time.perf_counter() - start)
    assert answer["result"]["content"][0]["text"] == "3", answer
proxy.stdin.close()
proxy.wait()


def ms(xs):
    return "mean %.2f ms, median %.2f ms" % (statistics.mean(xs) * 1000, statistics.median(xs) * 1000)


print(f"{n} calls of `add`")
print("direct HTTP:   " + ms(direct))
print("through proxy: " + ms(proxied))
print("added (median): %.2f ms" % ((statistics.median(proxied) - statistics.median(direct)) * 1000))
