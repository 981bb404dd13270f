#!/usr/bin/env bash
# Measures, as a user runs them (the whole process), with hyperfine:
#   1. `dotpack import claude-code --scope user` of a 2 MB ~/.claude.json holding 20 servers;
#   2. `dotpack add` of one package into every host dotpack knows, at once (each at its own
#      scope: project where the host has a project file, else user).
# Usage: benches/every_host.sh [RUNS]   (needs hyperfine: apt-get install hyperfine)
set -euo pipefail
runs=${1:-30}
. "$(dirname "$0")/common.sh"

echo "== import: a 2 MB ~/.claude.json with 20 servers"
python3 - "$HOME/.claude.json" <<'PY'
import json, sys
projects = {f"/home/me/src/project-{i}": {"allowedTools": [], "history": [{"display": "x" * 200, "pastedContents": {}} for _ in range(8)], "mcpServers": {}, "lastCost": 0.1234} for i in range(1000)}
servers = {f"server-{i}": {"type": "stdio", "command": "npx", "args": ["-y", f"@example/s{i}-mcp"], "env": {"S_TOKEN": "${S_TOKEN}"}} for i in range(20)}
doc = {"numStartups": 812, "projects": projects, "mcpServers": servers, "userID": "f" * 64}
with open(sys.argv[1], "w") as f:
    json.dump(doc, f, indent=2)
PY
echo "~/.claude.json: $(stat -c %s "$HOME/.claude.json") bytes"
mkdir -p "$work/empty"
hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/import.json" \
  "$bin -q --manifest-path $work/empty/dotpack.toml import claude-code --scope user"
median "$work/import.json"

echo "== add: one package into every host"
hosts=$("$bin" hosts --json | python3 -c '
import json, sys
rows = json.load(sys.stdin)["hosts"]
print(", ".join(json.dumps(r["id"]) for r in rows if r["id"] != "mcp-json"))')
mkdir -p "$work/proj"
printf '[project]\nhosts = [%s]\n\n[dependencies]\n' "$hosts" >"$work/proj/dotpack.toml"
cp -a "$work/proj" "$work/proj.snap"
cp -a "$HOME" "$work/home.snap"
hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/add.json" \
  --prepare "bash -c 'rm -rf $work/proj $HOME && cp -a $work/proj.snap $work/proj && cp -a $work/home.snap $HOME'" \
  "$bin --manifest-path $work/proj/dotpack.toml -q add figma --allow-lossy=transport"
median "$work/add.json"
echo "hosts: $(echo "$hosts" | tr ',' '\n' | wc -l)"
