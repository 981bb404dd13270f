#!/usr/bin/env bash
# Installs the pinned host CLIs of versions.txt (Claude Code, Codex, Gemini CLI, the Continue CLI, pi, taplo,
# and the Node.js 22 pi needs, as a registry package) from npm into
# ${DOTPACK_REAL_HOSTS_DIR:-$HOME/.cache/dotpack-real-hosts}, outside the repository, for
# tests/real_hosts.rs. Does nothing when that folder already holds exactly these versions.
# Exits non-zero when npm fails (registry unreachable); the test then skips.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${DOTPACK_REAL_HOSTS_DIR:-$HOME/.cache/dotpack-real-hosts}"
pkgs=()
while IFS= read -r line; do
    case "$line" in '' | '#'*) ;; *) pkgs+=("$line") ;; esac
done <"$here/versions.txt"

stamp="$dir/.dotpack-installed"
wanted="$(printf '%s\n' "${pkgs[@]}")"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
    echo "real hosts: already installed in $dir: ${pkgs[*]}"
    exit 0
fi

mkdir -p "$dir"
echo "real hosts: npm install into $dir: ${pkgs[*]}"
# No install scripts (Gemini CLI's optional node-pty and keytar would compile with node-gyp and
# are not needed to list servers), except Claude Code's own postinstall, which only copies the
# native binary of its platform package over the `claude` placeholder (no network).
npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts --fetch-retries=1 "${pkgs[@]}"
(cd "$dir/node_modules/@anthropic-ai/claude-code" && node install.cjs)
printf '%s\n' "$wanted" >"$stamp"
