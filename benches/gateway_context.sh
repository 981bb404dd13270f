#!/usr/bin/env bash
# What a host's model is sent before the conversation starts: the bytes of `tools/list` that
# `dotpack serve` answers for 10 servers of 20 tools each, with the servers' own tools (direct,
# `SERVER__TOOL`) and behind the proxy tools (search, describe, call). The servers are one plain
# HTTP tool service (tests/python_mcp/tool_service.py) bridged 10 times; its 20 tools have
# descriptions and input schemas the size of a typical API server's (about 300 bytes of
# description, 4 described parameters). Needs the SDK's virtualenv (tests/python_mcp/install.sh),
# whose client lists the tools as a host does. The bytes do not depend on the build:
# NEW_BIN=target/debug/dotpack skips the release build.
set -euo pipefail
venv="${DOTPACK_PY_VENV:-$HOME/.cache/dotpack-py-mcp}"
source "$(dirname "$0")/common.sh"
python="$venv/bin/python"
[ -x "$python" ] || { echo "no MCP Python SDK in $venv: run tests/python_mcp/install.sh" >&2; exit 1; }

"$python" - "$work/tools.json" <<'PY'
import json, sys
verbs = ["list", "get", "create", "update", "delete"]
things = ["issues", "pull_requests", "comments", "labels"]
tools = []
for verb in verbs:
    for thing in things:
        tools.append({
            "name": f"{verb}_{thing}",
            "description": (f"{verb.capitalize()} {thing.replace('_', ' ')} of a repository. "
                "Use this when the user asks about the repository's work items; the result is "
                "paginated (see `page` and `per_page`) and sorted newest first. Requires a token "
                "with read access to the repository, and write access for changes."),
            "schema": {"type": "object", "properties": {
                "owner": {"type": "string", "description": "The account that owns the repository"},
                "repo": {"type": "string", "description": "The repository's name, without the owner"},
                "page": {"type": "integer", "description": "Page number of the results, from 1"},
                "per_page": {"type": "integer", "description": "Results per page, at most 100"},
            }, "required": ["owner", "repo"]},
        })
json.dump(tools, open(sys.argv[1], "w"))
PY
"$python" "$repo/tests/python_mcp/tool_service.py" "$work/tools.json" >"$work/port" &
service=$!
trap 'kill $service 2>/dev/null; [ -n "${BENCH_DIR:-}" ] || rm -rf "$work"' EXIT
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(head -1 "$work/port")"

mkdir -p "$work/project"
servers() { for i in $(seq 0 9); do printf '[servers.s%s]\nbridge = "%s"\n\n' "$i" "$url"; done; }
list_bytes() { # GATEWAY -> bytes of tools/list
  { printf '[project]\ngateway = %s\n\n' "$1"; servers; } >"$work/project/dotpack.toml"
  (cd "$work/project" && "$bin" --trust lock --pin-tools -q &&
    "$python" "$repo/tests/python_mcp/gateway_client.py" '[["list"]]' "$bin" --trust serve) |
    "$python" -c 'import json,sys; a=json.load(sys.stdin)[1]; print(len(a["names"]), "tools,", a["bytes"], "bytes")'
}
echo "== tools/list, 10 servers x 20 tools, direct (SERVER__TOOL)"
list_bytes '"direct"'
echo "== tools/list, the same servers behind the proxy tools"
list_bytes 'true'
