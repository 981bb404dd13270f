#!/usr/bin/env bash
# What the transaction costs `dotpack add`: the whole process, adding one package into five
# host files (plus dotpack.toml and dotpack.lock: 7 files replaced, each with fsync), measured
# with hyperfine for a binary without transactions (BASE, default: main before them) and this
# tree's binary.
#
# The prepare step copies a fresh project (without its state folder: a copied `.dotpack/` is not
# one dotpack made, so each run starts a new one) and runs `sync`, so each timed run fsyncs only
# its own writes.
#
# Usage: [BASE_BIN=..] [NEW_BIN=..] benches/add.sh [RUNS] [BASE_REV]   (needs hyperfine: apt-get install hyperfine)
set -euo pipefail
runs=${1:-60}
base_rev=${2:-6a5671e}
repo=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
work=$(mktemp -d)
trap 'git -C "$repo" worktree remove --force "$work/base-src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

# BASE_BIN / NEW_BIN skip the builds.
if [ -n "${BASE_BIN:-}" ]; then
  cp "$BASE_BIN" "$work/dotpack-base"
else
  git -C "$repo" worktree add --detach --quiet "$work/base-src" "$base_rev"
  cargo build --release --quiet --manifest-path "$work/base-src/Cargo.toml"
  cp "$target/release/dotpack" "$work/dotpack-base"
fi
if [ -n "${NEW_BIN:-}" ]; then
  cp "$NEW_BIN" "$work/dotpack-txn"
else
  cargo build --release --quiet --manifest-path "$repo/Cargo.toml"
  cp "$target/release/dotpack" "$work/dotpack-txn"
fi

# A registry with 12 packages; a project on five hosts that already has 10 of them installed.
mkdir -p "$work/src"
for i in $(seq 0 11); do
  mkdir -p "$work/src/p$i"
  printf '[package]\nname = "p%s"\nversion = "1.0.0"\n\n[servers.p%s]\ncommand = "npx"\nargs = ["-y", "p%s-mcp@1.0.0"]\nenv = { P%s_TOKEN = "{{env.P%s_TOKEN}}" }\n' \
    "$i" "$i" "$i" "$i" "$i" >"$work/src/p$i/dotpack.toml"
done
export HOME="$work/home" DOTPACK_HOME="$work/home/.dotpack" NO_COLOR=1
mkdir -p "$HOME"
"$work/dotpack-txn" registry build "$work/src" --out "$work/index" >/dev/null 2>&1
for kind in base txn; do
  p="$work/fixture-$kind"
  mkdir -p "$p"
  printf '[project]\nhosts = ["claude-code", "codex", "gemini-cli", "cursor", "vscode"]\n\n[dependencies]\n' >"$p/dotpack.toml"
  (cd "$p" && for i in $(seq 0 9); do DOTPACK_REGISTRY="$work/index" "$work/dotpack-$kind" -q add "p$i"; done)
done

hyperfine -N --warmup 5 --runs "$runs" --export-json "$work/result.json" \
  --prepare "sh -c 'rm -rf $work/run-base && cp -a $work/fixture-base $work/run-base && rm -rf $work/run-base/.dotpack && sync'" \
  -n "add, no transaction ($base_rev)" \
  "sh -c 'cd $work/run-base && DOTPACK_REGISTRY=$work/index exec $work/dotpack-base -q add p11'" \
  --prepare "sh -c 'rm -rf $work/run-txn && cp -a $work/fixture-txn $work/run-txn && rm -rf $work/run-txn/.dotpack && sync'" \
  -n "add, transaction + generation" \
  "sh -c 'cd $work/run-txn && DOTPACK_REGISTRY=$work/index exec $work/dotpack-txn -q add p11'"
# Medians: fsync latency has a long tail on shared machines, so the mean says less.
python3 - "$work/result.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"{r['command']}: median {r['median']*1000:.1f} ms, min {r['min']*1000:.1f} ms, mean {r['mean']*1000:.1f} ms")
PY
