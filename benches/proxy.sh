#!/usr/bin/env bash
# The launcher proxy's added latency per tool call (`dotpack run --url`), against the official
# MCP Python SDK's streamable-HTTP server requiring a bearer token (tests/python_mcp/server.py),
# on 127.0.0.1. Needs the SDK's virtualenv (tests/python_mcp/install.sh; `$DOTPACK_PY_VENV`,
# default ~/.cache/dotpack-py-mcp). N calls (default 300) each way; see proxy_latency.py.
set -euo pipefail
venv=${DOTPACK_PY_VENV:-$HOME/.cache/dotpack-py-mcp} # before common.sh moves HOME
source "$(dirname "$0")/common.sh"
python="$venv/bin/python"
[ -x "$python" ] || { echo "no MCP Python SDK at $venv: run tests/python_mcp/install.sh" >&2; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
token=bench-token-$$
"$python" "$repo/tests/python_mcp/server.py" http "$port" "$token" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null && break
  sleep 0.1
done
"$python" "$repo/benches/proxy_latency.py" "$bin" "http://127.0.0.1:$port/mcp" "$token" "${1:-300}"
