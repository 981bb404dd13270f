#!/usr/bin/env bash
# `dotpack search` and `dotpack add` against a loopback MCP Registry of 10,000 generated servers
# (two versions each; benches/mcp_registry_server.py), cold cache (the registry's cache folder
# removed before each run) and warm cache (kept: every cached response is revalidated with its
# ETag, and documents pinned by checksum are not fetched again). Prints the requests each command
# makes and hyperfine's median.
#
# Usage: benches/mcp_registry.sh [RUNS] [SERVERS]   (needs hyperfine: apt-get install hyperfine)
set -euo pipefail
runs=${1:-20}
count=${2:-10000}
source "$(dirname "$0")/common.sh"

rm -f "$work/port"
python3 "$repo/benches/mcp_registry_server.py" "$work/port" "$count" &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; [ -n "${BENCH_DIR:-}" ] || rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$work/port")"

cat >"$work/dotpack.toml" <<EOF
[project]
hosts = ["claude-code", "codex", "cursor", "vscode", "gemini-cli"]

[registries]
mcp = { url = "$url", kind = "mcp-registry" }
EOF
proj="$work/project"
fresh="rm -rf '$proj' && mkdir -p '$proj' && cp '$work/dotpack.toml' '$proj/'"
cold="$fresh && rm -rf '$DOTPACK_HOME/cache'"

requests() { # the requests one run of $2 makes after preparing with $1
  eval "$1"
  curl -s "$url/__requests" >/dev/null
  (cd "$proj" && eval "$2") >/dev/null 2>&1
  curl -s "$url/__requests" | python3 -c 'import json,sys; print(json.load(sys.stdin)["requests"])'
}

bench() { # NAME PREPARE COMMAND
  local n
  n=$(requests "$2" "$3")
  echo "== $1: $n requests"
  hyperfine --style basic --warmup 2 --runs "$runs" --prepare "$2" \
    --export-json "$work/$1.json" "cd '$proj' && $3" >/dev/null
  median "$work/$1.json"
}

eval "$fresh"
search_one="'$bin' search server-0424"
search_all="'$bin' search bench"
add="'$bin' add io.github.bench/server-04242"
bench search-cold "$cold" "$search_one"
bench search-warm "$fresh" "$search_one"
bench search-broad-cold "$cold" "$search_all"
bench search-broad-warm "$fresh" "$search_all"
bench add-cold "$cold" "$add"
bench add-warm "$fresh" "$add"
