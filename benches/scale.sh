#!/usr/bin/env bash
# How dotpack scales with the number of servers: a project declaring N servers of its own
# (`[servers.sN] command = "npx", args = ["-y", "sN"]`) on five hosts (claude-code, codex,
# gemini-cli, cursor, vscode), so every command edits three JSON files, a JSONC file and a TOML
# file holding N entries each, and a dotpack.lock holding 5 N claims. For each N, hyperfine
# (`-N`, whole process) measures:
#   install    into a project where nothing is installed yet;
#   rerun      `install` again, nothing to change;
#   add one    one more server declared, then `install`;
#   uninstall  `uninstall`, every entry removed (and the files dotpack created deleted).
# and prints the medians, with the install time per 1,000 servers (flat when linear).
#
# Medians, release build, 2-core machine (load average 1 to 2):
#            install             rerun, no change    add one             uninstall (all)
#   servers  before    after     before    after     before    after     before    after
#     1,000  6.6 s     55 ms     126 ms    51 ms     153 ms    79 ms     6.3 s     67 ms
#     2,000  30 s      112 ms    243 ms    107 ms    291 ms    154 ms    28 s      132 ms
#     4,000  164 s     224 ms    482 ms    216 ms    631 ms    315 ms    126 s     269 ms
#    10,000  ~20 min   714 ms    1.4 s     650 ms    1.6 s     816 ms    (not run) 698 ms
# "before" is one edit per entry, each parsing the file again (one run each; 10,000 installs
# extrapolated, its rerun and add one measured on a project this tree installed). See
# docs/adr/0011-batch-edits-per-file.md.
# Later, on the same machine under load (4 other builds), first install, mean ± sd (user+sys):
#   1,000: 224 ± 29 ms (113) before, 176 ± 18 ms (91) after a TOML batch stopped searching
#   its entry list once per edit; 3,000: 583 ± 105 (301), 528 ± 25 (300); 10,000: 2.80 ± 0.40 s
#   (1.87), 1.87 ± 0.19 s (1.18). Quiet again (load average about 1), 10,000, medians of 5 runs,
#   two rounds each, the build before the workspace work → this one: install 1,015/997 →
#   772/779 ms, rerun 533/541 → 544/543 ms, add one 793/854 → 840/856 ms, uninstall 774/768 →
#   663/704 ms. With mimalloc as the allocator (ADR 0030), 10,000, medians of 5 runs, glibc →
#   mimalloc: install 1,065 → 874 ms, rerun 711 → 580 ms, add one 1,166 → 833 ms, uninstall
#   964 → 867 ms. Compare two builds: DOTPACK_BIN=old benches/scale.sh 3 1000.
#
# Usage: [DOTPACK_BIN=path] benches/scale.sh [RUNS] [N...]   (default: 5 runs of 1000 2000 4000
# 10000, of this tree's release build; needs hyperfine: apt-get install hyperfine)
set -euo pipefail
runs=${1:-5}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 2000 4000 10000)
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${DOTPACK_BIN:-}" ]; then
  bin=$DOTPACK_BIN # another build to compare, e.g. one of main
else
  cargo build --release --quiet --manifest-path "$repo/Cargo.toml"
  # The binary cargo just built: honours CARGO_TARGET_DIR and build.target-dir.
  target_dir=$(cargo metadata --format-version 1 --no-deps --manifest-path "$repo/Cargo.toml" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
  bin="$target_dir/release/dotpack"
fi
work=${BENCH_DIR:-$(mktemp -d)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$work"' EXIT
export NO_COLOR=1
unset CODEX_HOME CLAUDE_CONFIG_DIR XDG_CONFIG_HOME

server() { printf '[servers.s%d]\ncommand = "npx"\nargs = ["-y", "s%d"]\n\n' "$1" "$1"; }

median_ms() { # the median of a hyperfine JSON export, in ms
  python3 -c "import json,sys; print('%.0f' % (json.load(open(sys.argv[1]))['results'][0]['median'] * 1000))" "$1"
}

# bench NAME PREPARE COMMAND: hyperfine, with PREPARE (a script) run before each run; prints
# the median.
bench() {
  if ! hyperfine -N --runs "$runs" --warmup 1 --export-json "$work/$1.json" --style none \
    --prepare "bash $2" "$3" >"$work/$1.log" 2>&1; then
    cat "$work/$1.log" >&2
    exit 1
  fi
  median_ms "$work/$1.json"
}

printf '%8s %10s %10s %10s %10s %14s\n' servers install rerun "add one" uninstall "install/1000"
for n in "${sizes[@]}"; do
  p="$work/p$n"
  rm -rf "$p" "$p.fresh" "$p.installed"
  mkdir -p "$p/home"
  { printf '[project]\nhosts = ["claude-code", "codex", "gemini-cli", "cursor", "vscode"]\n\n'
    for i in $(seq 1 "$n"); do server "$i"; done; } >"$p/dotpack.toml"
  cp -a "$p" "$p.fresh"
  export HOME="$p/home" DOTPACK_HOME="$p/home/.dotpack"
  run="$bin --manifest-path $p/dotpack.toml -q"
  # Prepare steps: a fresh project; an installed one; an installed one with one more server.
  # The installed state is put back around the project's `.dotpack/` folder, not by copying it:
  # dotpack trusts only the state folder it made (a copy has another inode).
  echo "rm -rf '$p' && cp -a '$p.fresh' '$p'" >"$work/fresh-$n.sh"
  cat >"$work/installed-$n.sh" <<SH
find '$p' -mindepth 1 -maxdepth 1 ! -name .dotpack -exec rm -rf {} +
find '$p/.dotpack' -mindepth 1 -maxdepth 1 -exec rm -rf {} +
cp -a '$p.installed/.' '$p/'
SH
  { cat "$work/installed-$n.sh"; echo "cat >>'$p/dotpack.toml' <<'TOML'"; server $((n + 1)); echo TOML; } >"$work/more-$n.sh"
  install=$(bench "install-$n" "$work/fresh-$n.sh" "$run install")
  bash "$work/fresh-$n.sh" && $run install
  cp -a "$p" "$p.installed"
  rerun=$(bench "rerun-$n" "$work/installed-$n.sh" "$run install")
  add=$(bench "add-$n" "$work/more-$n.sh" "$run install")
  uninstall=$(bench "uninstall-$n" "$work/installed-$n.sh" "$run uninstall")
  printf '%8d %8s ms %8s ms %8s ms %8s ms %11s ms\n' "$n" "$install" "$rerun" "$add" "$uninstall" \
    "$(python3 -c "print('%.0f' % ($install * 1000 / $n))")"
done
