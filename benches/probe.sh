#!/usr/bin/env bash
# `dotpack probe` over stdio of a server on the official MCP Python SDK (tests/python_mcp/
# server.py: start, initialize, tools/list, shutdown), and the latency `dotpack bridge` adds to
# each tool call of a plain HTTP tool service (tests/python_mcp/tool_service.py) against calling
# the service directly. Needs hyperfine and the SDK's virtualenv (tests/python_mcp/install.sh).
set -euo pipefail
venv="${DOTPACK_PY_VENV:-$HOME/.cache/dotpack-py-mcp}"
source "$(dirname "$0")/common.sh"
python="$venv/bin/python"
[ -x "$python" ] || { echo "no MCP Python SDK in $venv: run tests/python_mcp/install.sh" >&2; exit 1; }

mkdir -p "$work/project"
cat >"$work/project/dotpack.toml" <<TOML
[servers.py]
command = "$python"
args = ["$repo/tests/python_mcp/server.py"]
TOML
echo "== dotpack probe py (Python SDK server over stdio)"
(cd "$work/project" && hyperfine --warmup 2 --runs 20 --export-json "$work/probe.json" "$bin probe py" >/dev/null)
median "$work/probe.json"
echo "== python server.py alone: start and import the SDK, then exit on closed stdin"
hyperfine --warmup 2 --runs 20 --export-json "$work/python.json" "$python $repo/tests/python_mcp/server.py </dev/null" >/dev/null
median "$work/python.json"

echo "== dotpack bridge: added latency per tools/call"
cp "$repo/tests/python_mcp/tools.example.json" "$work/tools.json"
"$python" "$repo/tests/python_mcp/tool_service.py" "$work/tools.json" >"$work/port" &
service=$!
trap 'kill $service 2>/dev/null; wait $service 2>/dev/null || true; [ -n "${BENCH_DIR:-}" ] || rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
"$python" "$repo/benches/bridge_latency.py" "$bin" "http://127.0.0.1:$(cat "$work/port")" 500
