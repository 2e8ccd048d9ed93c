#!/usr/bin/env bash
# The README must hold a working app: this builds a client package from the README's
# manifest and the Swift blocks of the README and the DocC articles that
# scripts/readme_examples.py names (readme_examples.py assemble), starts django-oauth-toolkit
# (Tests/Servers/oauth, as the real-server tests do), and runs the story: first launch → login,
# sign-in, launch → home, one API call, sign-out → login. Exit 0 only if every step held.
# The client lives in .build-readme-client/MyApp (rewritten each run) with its own scratch path
# there, so later runs rebuild only what changed. README_CLIENT_SWIFT_FLAGS adds options to its
# `swift build` (the stand-in leg's --config-path, whose mirrors stand in for the Apple packages).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
work="$root/.build-readme-client"
client="$work/MyApp"

python3 scripts/readme_examples.py check
bash Tests/Servers/oauth/setup.sh

rm -rf "$client"
mkdir -p "$client"
python3 scripts/readme_examples.py assemble "$client" "$root"
# shellcheck disable=SC2086 # the flags are words
if ! ( cd "$client" && swift build --scratch-path "$work/scratch" ${README_CLIENT_SWIFT_FLAGS:-} ) > "$work/build.log" 2>&1; then
    grep -E "error" "$work/build.log" | head -40
    echo "readme client: the package built from the README does not compile (full log: $work/build.log)"
    exit 1
fi
tail -1 "$work/build.log"
binary="$work/scratch/debug/MyApp"

# The server prints its port once it listens; its stdin is ours, and it exits when we close it.
client_id="readme-client" user="reader" password="a passphrase with spaces"
log="$work/server.log"
coproc SERVER { PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 exec .build-oauth-venv/bin/python Tests/Servers/oauth/serve.py \
    "$client_id" "$user" "$password" 2>"$log"; }
server_pid=$SERVER_PID
stop_server() { exec {SERVER[1]}>&- 2>/dev/null || true; kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; }
trap stop_server EXIT
port=""
while read -r -t 90 line <&"${SERVER[0]}"; do
    case "$line" in "OAUTH-SERVER READY port="*) port="${line#*port=}"; break ;; esac
done
[ -n "$port" ] || { echo "readme client: the test server did not start"; cat "$log"; exit 1; }

vault_dir="$(mktemp -d)"
status=0
timeout 120 "$binary" "http://127.0.0.1:$port" "$client_id" "$user" "$password" "$vault_dir" || status=$?
rm -rf "$vault_dir"
[ "$status" = 0 ] || { echo "readme client: the story failed (exit $status); server log:"; tail -20 "$log"; }
exit "$status"
