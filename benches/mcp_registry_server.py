#!/usr/bin/env python3
"""A loopback MCP Registry for benches/mcp_registry.sh: N generated servers (npm packages, one
secret environment variable, one named argument) behind the registry's REST API:

  GET /v0.1/servers?search=W&version=latest&limit=L&cursor=C   (nextCursor pagination, 100 a page)
  GET /v0.1/servers/{name}/versions
  GET /v0.1/servers/{name}/versions/{version}

with an ETag per response (If-None-Match -> 304). GET /__requests returns the number of API
requests served so far and resets it.

Usage: mcp_registry_server.py PORT_FILE [N]   (writes the chosen port to PORT_FILE)
"""

import hashlib
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
MAX_PAGE = 100


def document(i, version):
    return {
        "$schema": SCHEMA,
        "name": f"io.github.bench/server-{i:05d}",
        "description": f"Generated server number {i} for the benchmark",
        "version": version,
        "packages": [
            {
                "registryType": "npm",
                "identifier": f"@bench/server-{i:05d}",
                "version": version,
                "transport": {"type": "stdio"},
                "packageArguments": [
                    {"type": "named", "name": "--mode", "default": "fast", "choices": ["fast", "safe"]}
                ],
                "environmentVariables": [
                    {"name": f"BENCH_{i}_TOKEN", "isSecret": True, "isRequired": True}
                ],
            }
        ],
    }


def entry(doc, latest):
    return {
        "server": doc,
        "_meta": {
            "io.modelcontextprotocol.registry/official": {
                "status": "active",
                "publishedAt": "2025-10-01T00:00:00Z",
                "isLatest": latest,
            }
        },
    }


def main():
    port_file = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    # Two versions of every server; the list is ordered by name.
    versions = {}
    names = []
    for i in range(count):
        docs = [document(i, "1.0.0"), document(i, "1.1.0")]
        versions[docs[0]["name"]] = docs
        names.append(docs[0]["name"])
    stats = {"requests": 0}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, status, value):
            body = json.dumps(value).encode()
            etag = '"%s"' % hashlib.sha256(body).hexdigest()[:16]
            if status == 200 and self.headers.get("If-None-Match") == etag:
                self.send_response(304)
                self.send_header("ETag", etag)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(status)
            self.send_header("ETag", etag)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            url = urlsplit(self.path)
            if url.path == "/__requests":
                with lock:
                    n, stats["requests"] = stats["requests"], 0
                return self.reply(200, {"requests": n})
            with lock:
                stats["requests"] += 1
            query = parse_qs(url.query)
            path = url.path
            if not path.startswith("/v0.1/servers"):
                return self.reply(404, {"error": "Not found"})
            rest = path[len("/v0.1/servers"):].strip("/")
            if rest == "":
                word = query.get("search", [""])[0].lower()
                limit = min(int(query.get("limit", ["30"])[0]), MAX_PAGE)
                start = int(query.get("cursor", ["0"])[0])
                matching = [n for n in names if word in n]
                page = [entry(versions[n][-1], True) for n in matching[start:start + limit]]
                meta = {"count": len(page)}
                if start + limit < len(matching):
                    meta["nextCursor"] = str(start + limit)
                return self.reply(200, {"servers": page, "metadata": meta})
            parts = rest.split("/")
            name = unquote(parts[0])
            docs = versions.get(name)
            if docs is None:
                return self.reply(404, {"error": "Server not found"})
            if parts[1:] == ["versions"]:
                items = [entry(d, d is docs[-1]) for d in docs]
                return self.reply(200, {"servers": items, "metadata": {"count": len(items)}})
            if len(parts) == 3 and parts[1] == "versions":
                for d in docs:
                    if d["version"] == unquote(parts[2]):
                        return self.reply(200, entry(d, d is docs[-1]))
            return self.reply(404, {"error": "Server not found"})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file, "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
