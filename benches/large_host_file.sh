#!/usr/bin/env bash
# `dotpack add NAME --scope user` into a large `~/.claude.json`: a file as Claude Code writes it
# (`JSON.stringify(.., null, 2)`), of about SIZE bytes (default 2 MB): 80 user-scope mcpServers,
# a changelog, and projects with prompt histories and servers of their own. The project declares
# claude-code and has 3 packages at user scope already; each timed run adds a fourth (the prepare
# step removes it again, so every run edits the same bytes). hyperfine (`-N`) measures the whole
# process, fsyncs included, for this tree's release build and, given OLD, another binary.
#
# Medians on a 2-core machine, 30 runs interleaved with the build before the workspace work
# (acd5d1d) in one session: 2 MB, 28.4 ms then, 21.2 ms now; SIZE=2000, 12.4 ms then, 12.2 ms now.
# The machine's speed drifts between sessions by up to a third: compare builds in one run.
#
# Usage: [SIZE=bytes] benches/large_host_file.sh [RUNS] [OLD_BINARY]   (needs hyperfine)
set -euo pipefail
runs=${1:-40}
old=${2:-}
source "$(dirname "$0")/common.sh"
size=${SIZE:-2000000}

python3 - "$work/claude.json" "$size" <<'PY'
import json, random, sys
out, size = sys.argv[1], int(sys.argv[2])
rnd = random.Random(20)
words = ("the a refactor test fix build parser file module error please add update why does "
         "this fail when run cargo check lock plan host config server").split()
def sentence(n):
    return " ".join(rnd.choice(words) for _ in range(n))
doc = {
    "numStartups": 412, "installMethod": "npm-global", "autoUpdates": True,
    "tipsHistory": {f"tip-{i}": rnd.randint(1, 400) for i in range(40)},
    "firstStartTime": "2025-03-02T09:14:11.201Z", "userID": "9f" * 32,
    "projects": {}, "mcpServers": {},
    "oauthAccount": {"accountUuid": "0b7a-4c1e", "emailAddress": "dev@example.com"},
    "hasCompletedOnboarding": True,
    "cachedChangelog": "\n".join(f"## 1.0.{i}\n- {sentence(12)}" for i in range(60)),
}
for i in range(80):
    doc["mcpServers"][f"user-server-{i}"] = {
        "type": "stdio", "command": "npx", "args": ["-y", f"@example/mcp-{i}@1.{i}.0"],
        "env": {f"TOKEN_{i}": f"${{TOKEN_{i}}}"}}
i = 0
while len(json.dumps(doc, indent=2, ensure_ascii=False)) < size:
    doc["projects"][f"/home/dev/work/project-{i}"] = {
        "allowedTools": ["Bash(cargo test:*)", "Edit"],
        "history": [{"display": sentence(rnd.randint(5, 60)), "pastedContents": {}}
                    for _ in range(rnd.randint(20, 60))],
        "mcpContextUris": [],
        "mcpServers": {f"proj-{i}-{k}": {"type": "stdio", "command": "node",
                                         "args": [f"/home/dev/work/p{i}/mcp{k}.js"], "env": {}}
                       for k in range(rnd.randint(0, 4))},
        "enabledMcpjsonServers": [], "disabledMcpjsonServers": [],
        "hasTrustDialogAccepted": True, "projectOnboardingSeenCount": 2,
        "lastCost": round(rnd.random() * 3, 6), "lastDuration": rnd.randint(1000, 9000000),
        "lastSessionId": f"{rnd.getrandbits(128):032x}",
        "exampleFiles": ["src/main.rs", "src/lib.rs", "Cargo.toml"],
    }
    i += 1
open(out, "w").write(json.dumps(doc, indent=2, ensure_ascii=False))
PY
echo "~/.claude.json: $(wc -c <"$work/claude.json") bytes"

# A registry of 4 packages.
for i in 0 1 2 3; do
  mkdir -p "$work/src/p$i"
  printf '[package]\nname = "p%s"\nversion = "1.0.0"\n\n[servers.p%s]\ncommand = "npx"\nargs = ["-y", "p%s-mcp@1.0.0"]\nenv = { P%s_TOKEN = "{{env.P%s_TOKEN}}" }\n' \
    "$i" "$i" "$i" "$i" "$i" >"$work/src/p$i/dotpack.toml"
done
"$bin" -q registry build "$work/src" --out "$work/index" >/dev/null
export DOTPACK_REGISTRY="$work/index"

# setup NAME BIN: its own HOME holding the large file, and a project with p0..p2 at user scope.
setup() {
  local dir="$work/$1"
  mkdir -p "$dir/home" "$dir/proj"
  cp "$work/claude.json" "$dir/home/.claude.json"
  printf '[project]\nhosts = ["claude-code"]\n\n[dependencies]\n' >"$dir/proj/dotpack.toml"
  for i in 0 1 2; do
    (cd "$dir/proj" && HOME="$dir/home" DOTPACK_HOME="$dir/home/.dotpack" "$2" -q add "p$i" --scope user)
  done
}

args=()
for kind in new old; do
  b=$bin
  if [ "$kind" = old ]; then
    [ -n "$old" ] || continue
    b=$old
  fi
  setup "$kind" "$b"
  e="env HOME=$work/$kind/home DOTPACK_HOME=$work/$kind/home/.dotpack"
  args+=(-n "$kind: add p3 --scope user"
    --prepare "sh -c 'cd $work/$kind/proj && $e $b -q remove p3 >/dev/null 2>&1 || true'"
    "sh -c 'cd $work/$kind/proj && exec $e $b -q add p3 --scope user'")
done
hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/large.json" "${args[@]}" >"$work/large.log" 2>&1 ||
  { cat "$work/large.log" >&2; exit 1; }
python3 - "$work/large.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"{r['command']}: mean {r['mean']*1000:.1f} ± {r['stddev']*1000:.1f} ms, "
          f"median {r['median']*1000:.1f} ms, min {r['min']*1000:.1f} ms, "
          f"user+sys {(r['user'] + r['system'])*1000:.1f} ms")
PY
