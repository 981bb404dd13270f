#!/usr/bin/env bash
# What `dotpack run` adds before the server starts: `dotpack run --pin … -- /bin/true` against
# `/bin/true` alone, without secrets, with one secret read from the Secret Service (a private bus
# and an unlocked gnome-keyring-daemon, as in tests/it/secrets.rs), and with one taken from the
# environment where no store answers; and, where libsecret-tools is installed, `secret-tool lookup`
# of the same secret. Needs hyperfine, dbus-daemon, dbus-send and
# gnome-keyring-daemon (Debian: dbus, gnome-keyring).
set -euo pipefail
source "$(dirname "$0")/common.sh"
for tool in hyperfine dbus-daemon dbus-send gnome-keyring-daemon; do
  command -v "$tool" >/dev/null || { echo "$tool not found" >&2; exit 1; }
done

# The pin, computed here independently of dotpack (the encoding of model::launcher::pin).
pin() { # COMMAND ARGS... -- SECRETS...
  python3 - "$@" <<'PY'
import hashlib, sys
argv = sys.argv[1:]
cut = argv.index("--")
command, args, names = argv[0], argv[1:cut], sorted(set(argv[cut + 1:]))
h = hashlib.sha256()
def part(b):
    h.update(len(b).to_bytes(8, "big")); h.update(b)
part(b"dotpack-run-pin-v1"); part(b"command"); part(command.encode())
part(b"args"); part(len(args).to_bytes(8, "big"))
for a in args: part(a.encode())
part(b"secrets"); part(len(names).to_bytes(8, "big"))
for n in names: part(n.encode())
print("sha256:" + h.hexdigest())
PY
}

export XDG_RUNTIME_DIR="$work/run"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
cat >"$work/bus.conf" <<XML
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$XDG_RUNTIME_DIR/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
XML
dbus-daemon --config-file="$work/bus.conf" --nofork --nopidfile 2>/dev/null &
bus=$!
unset DBUS_SESSION_BUS_ADDRESS
for _ in $(seq 100); do [ -S "$XDG_RUNTIME_DIR/bus" ] && break; sleep 0.05; done
export DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"
printf %s bench-password | XDG_DATA_HOME="$HOME/.local/share" \
  gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
keyring=$!
trap 'kill $keyring $bus 2>/dev/null; wait 2>/dev/null || true; [ -n "${BENCH_DIR:-}" ] || rm -rf "$work"' EXIT
for _ in $(seq 200); do
  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null |
    grep -q "boolean true" && break
  sleep 0.05
done
printf %s bench-token | "$bin" secret set TOKEN >/dev/null

plain=$(pin /bin/true --)
with_secret=$(pin /bin/true -- TOKEN)
# The entry counts as one dotpack wrote on this machine, as an install records it: the store
# serves only those.
mkdir -p "$DOTPACK_HOME"
printf '%s\n' "$with_secret" >"$DOTPACK_HOME/launcher-pins"
stats() { # median, mean and standard deviation of a hyperfine JSON export, in ms
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print('  median %.2f ms, mean %.2f ± %.2f ms' % (r['median'] * 1000, r['mean'] * 1000, r['stddev'] * 1000))" "$1"
}
run() { hyperfine -N --warmup 20 --runs "${RUNS:-300}" --export-json "$work/$1.json" "$2" >/dev/null; stats "$work/$1.json"; }
echo "== /bin/true"
run true /bin/true
echo "== dotpack run --pin … -- /bin/true (no secret)"
run nosecret "$bin run --pin $plain -- /bin/true"
echo "== dotpack run --pin … --secret TOKEN -- /bin/true (from gnome-keyring over D-Bus)"
run store "$bin run --pin $with_secret --secret TOKEN -- /bin/true"
if command -v secret-tool >/dev/null; then
  # The platform's own client (libsecret, Debian: libsecret-tools) reading the same secret: what
  # a Secret Service lookup costs whoever makes it.
  echo "== secret-tool lookup service dotpack username TOKEN (libsecret, for comparison)"
  run secret_tool "secret-tool lookup service dotpack username TOKEN"
fi
echo "== the same, the bus found at \$XDG_RUNTIME_DIR/bus (DBUS_SESSION_BUS_ADDRESS unset)"
run runtime_dir "env -u DBUS_SESSION_BUS_ADDRESS $bin run --pin $with_secret --secret TOKEN -- /bin/true"
echo "== the same, no store answering, TOKEN from the environment"
run environment "env DBUS_SESSION_BUS_ADDRESS=unix:path=$work/no-bus TOKEN=x $bin run --pin $with_secret --secret TOKEN -- /bin/true"
