#!/usr/bin/env bash
# Everyday commands with and without the consent checks: `add`, a no-op `install` and `status`
# in a project-scope project, and the same at user scope (where the approvals file is read and
# the project's state recorded). Usage: benches/consent.sh NEW_BINARY [OLD_BINARY] [RUNS]
# Needs hyperfine. Each binary runs in its own temporary HOME.
set -euo pipefail
NEW=${1:?new dotpack binary}
OLD=${2:-}
RUNS=${3:-30}
ROOT=$(mktemp -d); trap 'rm -rf "$ROOT"' EXIT

setup() { # setup BIN NAME SCOPE: a project with 5 packages into claude-code and codex
  local bin=$1 name=$2 scope=$3 dir="$ROOT/$2"
  mkdir -p "$dir/home/.codex" "$dir/proj"
  (cd "$dir/proj" && env HOME="$dir/home" DOTPACK_HOME="$dir/home/.dotpack" CODEX_HOME="$dir/home/.codex" \
     "$bin" -q init >/dev/null && env HOME="$dir/home" DOTPACK_HOME="$dir/home/.dotpack" CODEX_HOME="$dir/home/.codex" \
     "$bin" -q install --host claude-code --host codex --scope "$scope" >/dev/null && \
     env HOME="$dir/home" DOTPACK_HOME="$dir/home/.dotpack" CODEX_HOME="$dir/home/.codex" \
     "$bin" -q add time fetch memory sequential-thinking figma >/dev/null)
}

bench() { # bench LABEL BIN NAME
  local label=$1 bin=$2 dir="$ROOT/$3"
  local e="env HOME=$dir/home DOTPACK_HOME=$dir/home/.dotpack CODEX_HOME=$dir/home/.codex"
  cd "$dir/proj"
  run() { hyperfine --warmup 3 --runs "$RUNS" --style basic "$@" 2>&1 | grep -E "Time \(mean|^Benchmark|rror" || true; }
  run --command-name "$label install (no change)" "$e $bin -q install"
  run --command-name "$label status" "$e $bin -q status"
  run --command-name "$label add github" --prepare "$e $bin -q remove github || true" "$e $bin -q add github"
}

for scope in project user; do
  setup "$NEW" "new-$scope" "$scope"
  bench "new $scope:" "$NEW" "new-$scope"
  if [ -n "$OLD" ]; then
    setup "$OLD" "old-$scope" "$scope"
    bench "old $scope:" "$OLD" "old-$scope"
  fi
done

# Scale: 2,000 servers of the project's own at user scope into Codex and Claude Code (4,000
# user-scope entries): the first install (every entry a request, allowed with --trust; the old
# binary has no such flag) and an install with nothing to change.
python3 - "$ROOT/scale.toml" <<'PY'
import sys
lines = ['[project]', 'hosts = ["codex", "claude-code"]', 'scope = "user"', '']
for i in range(2000):
    lines += [f'[servers.s{i}]', 'command = "npx"', f'args = ["-y", "s{i}-mcp"]', '']
open(sys.argv[1], 'w').write('\n'.join(lines))
PY
scale() { # scale LABEL BIN TRUSTFLAG
  local dir="$ROOT/scale-$1"
  mkdir -p "$dir/home" "$dir/proj"; cp "$ROOT/scale.toml" "$dir/proj/dotpack.toml"
  local e="env HOME=$dir/home DOTPACK_HOME=$dir/home/.dotpack CODEX_HOME=$dir/home/.codex"
  cd "$dir/proj"
  hyperfine --runs 1 --style basic --command-name "$1 scale: first install" "$e $2 -q $3 install" 2>&1 | grep -E "Time|^Benchmark" || true
  hyperfine --warmup 2 --runs "$RUNS" --style basic --command-name "$1 scale: install (no change)" "$e $2 -q install" 2>&1 | grep -E "Time \(mean|^Benchmark" || true
}
scale new "$NEW" --trust
[ -n "$OLD" ] && scale old "$OLD" ""
