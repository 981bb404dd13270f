#!/usr/bin/env bash
# `dotpack add NAME --scope user` into a large `~/.claude.json`: a file as Claude Code writes it
# (`JSON.stringify(.., null, 2)`), of about SIZE bytes (default 2 MB): 80 user-scope mcpServers,
# a changelog, and projects with prompt histories and servers of their own. The project declares
# claude-code and has 4 packages at user scope; each timed run adds the fourth again after an
# untimed `remove` (so every run edits the same bytes). The process alone is timed, fsyncs
# included, for this tree's release build and, given OLD, another binary, the two alternating
# run by run.
#
# Medians on a 2-core machine, in one session (ADR 0032): 2 MB, 24.0 ms for the build before the
# workspace work (acd5d1d), 17.0 ms before ADR 0032 (a48f727), 14.1 to 14.7 ms now (60 runs);
# SIZE=2000 (22 KB), 8.5 ms then and now (80 runs). The machine's speed drifts between sessions
# by a fifth or more: compare builds in one run.
#
# Usage: [SIZE=bytes] benches/large_host_file.sh [RUNS] [OLD_BINARY]
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

# setup NAME BIN: its own HOME holding the large file, and a project with p0..p3 at user scope
# (each timed run adds p3 after the prepare step removed it).
setup() {
  local dir="$work/$1"
  mkdir -p "$dir/home" "$dir/proj"
  cp "$work/claude.json" "$dir/home/.claude.json"
  printf '[project]\nhosts = ["claude-code"]\n\n[dependencies]\n' >"$dir/proj/dotpack.toml"
  for i in 0 1 2 3; do
    (cd "$dir/proj" && HOME="$dir/home" DOTPACK_HOME="$dir/home/.dotpack" "$2" -q add "p$i" --scope user)
  done
}

# Each build in its own project and HOME; the runs alternate between the builds, so a drift in
# the machine's speed reaches both alike. The process alone is timed, started without a shell or
# `env` between (each of those is another process start, about 1 ms here); the prepare step
# (`remove p3`) is not timed.
builds=(new "$bin")
if [ -n "$old" ]; then
  setup old "$old"
  builds+=(old "$old")
fi
setup new "$bin"
python3 - "$work" "$runs" "${builds[@]}" <<'PY'
import os, statistics, subprocess, sys, time
work, runs, pairs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
builds = list(zip(pairs[::2], pairs[1::2]))
times = {name: [] for name, _ in builds}
for i in range(runs + 3):  # the first three are warm-up runs
    for name, binary in builds:
        env = dict(os.environ, HOME=f"{work}/{name}/home", DOTPACK_HOME=f"{work}/{name}/home/.dotpack")
        cwd, quiet = f"{work}/{name}/proj", subprocess.DEVNULL
        subprocess.run([binary, "-q", "remove", "p3"], env=env, cwd=cwd, check=True, stdout=quiet)
        start = time.perf_counter()
        subprocess.run([binary, "-q", "add", "p3", "--scope", "user"], env=env, cwd=cwd, check=True, stdout=quiet)
        if i >= 3:
            times[name].append((time.perf_counter() - start) * 1000)
for name, _ in builds:
    t = sorted(times[name])
    q = statistics.quantiles(t, n=4)
    print(f"{name}: add p3 --scope user: median {statistics.median(t):.1f} ms, "
          f"quartiles {q[0]:.1f} to {q[2]:.1f} ms, min {t[0]:.1f} ms ({len(t)} runs)")
PY
