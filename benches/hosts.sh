#!/usr/bin/env bash
# Measures `dotpack add` into five hosts, as a user runs it (the whole process), with hyperfine:
#   1. project scope, in a project that already has 50 dotpack packages installed;
#   2. user scope, where ~/.claude.json is 2 MB (real ones grow that large).
# Usage: benches/hosts.sh [RUNS]   (needs hyperfine: apt-get install hyperfine)
set -euo pipefail
runs=${1:-40}
. "$(dirname "$0")/common.sh"

# A registry of 51 packages, each with one stdio server that reads a token from the environment.
for i in $(seq -w 0 50); do
  mkdir -p "$work/src/pkg$i"
  cat >"$work/src/pkg$i/dotpack.toml" <<TOML
[package]
name = "pkg$i"
version = "1.0.0"
description = "Benchmark server $i"

[servers.pkg$i]
command = "npx"
args = ["-y", "@example/pkg$i-mcp@1.0.0", "--stdio"]
env = { PKG${i}_TOKEN = "{{env.PKG${i}_TOKEN}}" }
TOML
done
"$bin" registry build "$work/src" --out "$work/index" >/dev/null 2>&1
hosts='"claude-code", "codex", "gemini-cli", "cursor", "vscode"'


export DOTPACK_REGISTRY="$work/index"
setup_project() { # $1 = folder, $2 = scope
  mkdir -p "$1"
  { printf '[project]\nhosts = [%s]\nscope = "%s"\n\n[dependencies]\n' "$hosts" "$2"
    for i in $(seq -w 0 49); do echo "pkg$i = \"^1.0\""; done; } >"$1/dotpack.toml"
  "$bin" --manifest-path "$1/dotpack.toml" -q install
}

# The files an add changes, saved once and put back before each run. The state folders stay
# (a copied `.dotpack/` is not one dotpack made, and would be refused), so generations pile up
# as they do in real use.
project_files=(dotpack.toml dotpack.lock .mcp.json .codex/config.toml .gemini/settings.json .cursor/mcp.json .vscode/mcp.json)
user_files=(.claude.json .codex/config.toml .gemini/settings.json .cursor/mcp.json .config/Code/User/mcp.json .dotpack/claims.toml)
save() { # $1 = folder, $2 = snapshot folder, rest = files
  local from=$1 to=$2; shift 2
  for f in "$@"; do [ -e "$from/$f" ] && mkdir -p "$to/$(dirname "$f")" && cp -a "$from/$f" "$to/$f"; done; true
}

echo "== project scope: add 1 package into 5 hosts with 50 installed"
setup_project "$work/proj" project
save "$work/proj" "$work/proj.snap" "${project_files[@]}"
hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/project.json" \
  --prepare "cp -a $work/proj.snap/. $work/proj/" \
  "$bin --manifest-path $work/proj/dotpack.toml -q add pkg50"
median "$work/project.json"

echo "== user scope: the same, with a 2 MB ~/.claude.json"
python3 - "$HOME/.claude.json" <<'PY'
import json, sys
projects = {f"/home/me/src/project-{i}": {"allowedTools": [], "history": [{"display": "x" * 200, "pastedContents": {}} for _ in range(8)], "mcpServers": {}, "lastCost": 0.1234} for i in range(1000)}
doc = {"numStartups": 812, "installMethod": "native", "autoUpdates": True, "projects": projects, "userID": "f" * 64}
with open(sys.argv[1], "w") as f:
    json.dump(doc, f, indent=2)
PY
echo "~/.claude.json: $(stat -c %s "$HOME/.claude.json") bytes"
setup_project "$work/uproj" user
save "$work/uproj" "$work/uproj.snap" "${project_files[@]}"
save "$HOME" "$work/home.snap" "${user_files[@]}"
hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/user.json" \
  --prepare "bash -c 'cp -a $work/uproj.snap/. $work/uproj/ && cp -a $work/home.snap/. $HOME/'" \
  "$bin --manifest-path $work/uproj/dotpack.toml -q add pkg50"
median "$work/user.json"
