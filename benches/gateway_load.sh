#!/usr/bin/env bash
# Load on `dotpack serve` (benches/gateway_load.py): 8 clients x 200 calls to 3 servers on
# loopback, every answer checked, with p50/p99 per call through the gateway and straight to the
# servers. Needs the SDK's virtualenv (tests/python_mcp/install.sh). CLIENTS and CALLS override.
set -euo pipefail
venv="${DOTPACK_PY_VENV:-$HOME/.cache/dotpack-py-mcp}"
source "$(dirname "$0")/common.sh"
python="$venv/bin/python"
[ -x "$python" ] || { echo "no MCP Python SDK in $venv: run tests/python_mcp/install.sh" >&2; exit 1; }
port=$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$python" "$repo/tests/python_mcp/server.py" http "$port" >/dev/null 2>&1 &
http=$!
printf '[{"name": "add", "description": "Add two numbers", "schema": {"type": "object"}}]' >"$work/tools.json"
"$python" "$repo/tests/python_mcp/tool_service.py" "$work/tools.json" >"$work/port" &
service=$!
trap 'kill $http $service 2>/dev/null; [ -n "${BENCH_DIR:-}" ] || rm -rf "$work"' EXIT
for _ in $(seq 200); do
  [ -s "$work/port" ] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
mkdir -p "$work/project"
cat >"$work/project/dotpack.toml" <<TOML
[servers.py]
command = "$python"
args = ["$repo/tests/python_mcp/server.py"]

[servers.pyhttp]
url = "http://127.0.0.1:$port/mcp"

[servers.svc]
bridge = "http://127.0.0.1:$(head -1 "$work/port")"
TOML
"$python" "$(dirname "$0")/gateway_load.py" "$bin" "$work/project" \
  "$repo/tests/python_mcp/server.py" "http://127.0.0.1:$port/mcp" "${CLIENTS:-8}" "${CALLS:-200}"
