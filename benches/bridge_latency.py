"""The bridge's added latency per tool call: N calls of `add` through `dotpack bridge URL`
(one MCP session over stdio, as a host holds it) against N direct POST /call requests on one
keep-alive connection to the same service. Prints the mean and median per call of each.

Usage: python3 bridge_latency.py DOTPACK URL [N]
"""

import http.client
import json
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse

dotpack, url = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 500
body = {"tool": "add", "arguments": {"a": 1, "b": 2}}

# Direct: one keep-alive connection, as the bridge's HTTP client holds one, each request sent
# in one write with TCP_NODELAY (as the bridge's client sends it), so Nagle's algorithm and
# delayed ACKs do not slow the direct side.
parsed = urllib.parse.urlparse(url)
sock = socket.create_connection((parsed.hostname, parsed.port))
sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
payload = json.dumps(body).encode()
request = (
    f"POST /call HTTP/1.1\r\nHost: {parsed.hostname}:{parsed.port}\r\n"
    f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
).encode() + payload
direct = []
for _ in range(n):
    start = time.perf_counter()
    sock.sendall(request)
    response = http.client.HTTPResponse(sock)
    response.begin()
    assert json.loads(response.read()) == {"sum": 3}
    direct.append(time.perf_counter() - start)
sock.close()

bridge = subprocess.Popen([dotpack, "bridge", url], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def rpc(i, method, params):
    bridge.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
    bridge.stdin.flush()
    return json.loads(bridge.stdout.readline())


rpc(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
bridged = []
for i in range(1, n + 1):
    start = time.perf_counter()
    answer = rpc(i, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
    bridged.append(time.perf_counter() - start)
    assert answer["result"]["structuredContent"] == {"sum": 3}, answer
bridge.stdin.close()
bridge.wait()


def ms(xs):
    return "mean %.3f ms, median %.3f ms" % (statistics.mean(xs) * 1000, statistics.median(xs) * 1000)


print(f"  {n} calls of `add`")
print(f"  direct POST /call:        {ms(direct)}")
print(f"  through dotpack bridge:   {ms(bridged)}")
print("  added by the bridge:      median %.3f ms per call" % ((statistics.median(bridged) - statistics.median(direct)) * 1000))
