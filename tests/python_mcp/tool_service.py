"""A plain HTTP tool service (GET /tools, POST /call) on loopback, for the bridge tests.

Usage: python3 tool_service.py TOOLS_JSON  -- prints the port it listens on, then serves.
The tools are read from TOOLS_JSON on every GET /tools, so a test can change a description.
Tools: `add` answers {"sum": a + b}; `fail` answers HTTP 500 with the body "boom: database
offline"; `secret` echoes the Authorization header; anything else is HTTP 404.
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: every answer has a Content-Length
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed-ACK stall

    def log_message(self, *args):
        pass

    def reply(self, status, body, kind="application/json"):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.rstrip("/") == "/tools":
            with open(sys.argv[1]) as f:
                self.reply(200, f.read())
        else:
            self.reply(404, '{"error": "not found"}')

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        tool, args = request.get("tool"), request.get("arguments") or {}
        if self.path != "/call":
            self.reply(404, '{"error": "not found"}')
        elif tool == "add":
            self.reply(200, json.dumps({"sum": args.get("a", 0) + args.get("b", 0)}))
        elif tool == "fail":
            self.reply(500, "boom: database offline", "text/plain")
        elif tool == "secret":
            self.reply(200, json.dumps({"authorization": self.headers.get("Authorization")}))
        else:
            self.reply(404, json.dumps({"error": f"unknown tool {tool}"}))


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
