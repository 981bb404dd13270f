# Shared by the benchmark scripts (sourced, not run): builds the release binary, sets `bin`,
# (`NEW_BIN` to use a binary already built) makes a work folder (`$BENCH_DIR` to keep it) with a temporary HOME, and defines `median`.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -n "${NEW_BIN:-}" ]; then
  bin=$NEW_BIN # a binary already built (skips the build)
else
  cargo build --release --quiet --manifest-path "$repo/Cargo.toml"
  # The binary cargo just built: honours CARGO_TARGET_DIR and build.target-dir.
  target_dir=$(cargo metadata --format-version 1 --no-deps --manifest-path "$repo/Cargo.toml" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
  bin="$target_dir/release/dotpack"
fi
work=${BENCH_DIR:-$(mktemp -d)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$work"' EXIT
export HOME="$work/home" DOTPACK_HOME="$work/home/.dotpack" NO_COLOR=1
unset CODEX_HOME CLAUDE_CONFIG_DIR XDG_CONFIG_HOME GEMINI_CLI_HOME COPILOT_HOME PI_CODING_AGENT_DIR
mkdir -p "$HOME"

median() { # the median of a hyperfine JSON export, in ms
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print('  median: %.1f ms' % (r['median'] * 1000))" "$1"
}
