#!/usr/bin/env bash
# Installs the official MCP Python SDK pinned in versions.txt into a virtualenv at
# ${DOTPACK_PY_VENV:-$HOME/.cache/dotpack-py-mcp}, outside the repository, for
# tests/python_mcp.rs. Does nothing when that virtualenv already holds exactly these versions.
# Exits non-zero when python3 is missing or pip fails (PyPI unreachable); the test then skips.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${DOTPACK_PY_VENV:-$HOME/.cache/dotpack-py-mcp}"
reqs=()
while IFS= read -r line; do
    case "$line" in '' | '#'*) ;; *) reqs+=("$line") ;; esac
done <"$here/versions.txt"

stamp="$venv/.dotpack-installed"
wanted="$(printf '%s\n' "${reqs[@]}")"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] && [ -x "$venv/bin/python" ]; then
    echo "python mcp: already installed in $venv: ${reqs[*]}"
    exit 0
fi

command -v python3 >/dev/null 2>&1 || { echo "python mcp: python3 not found" >&2; exit 1; }
echo "python mcp: pip install into $venv: ${reqs[*]}"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --retries 1 --timeout 30 "${reqs[@]}"
printf '%s\n' "$wanted" >"$stamp"
