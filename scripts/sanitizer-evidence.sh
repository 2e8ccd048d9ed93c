#!/usr/bin/env bash
# Builds and runs the programs in Tests/Sanitizers/Evidence with AddressSanitizer, each without
# SessionVault, and prints LeakSanitizer's summary for each: the evidence behind
# Tests/Sanitizers/lsan.supp and behind the test helpers' waitUntilExit(). Not part of CI; run by
# hand (seconds to a minute). Nothing here fails: it shows.
set -uo pipefail
cd "$(dirname "$0")/.."
out="$(mktemp -d)"
trap 'rm -rf "$out"; [ -n "${server:-}" ] && kill "$server" 2>/dev/null' EXIT
build() { swiftc -sanitize=address -g "Tests/Sanitizers/Evidence/$1.swift" -o "$out/$1" 2>&1 | grep -v "warning: Cannot export" || true; }
show() { echo "== $*"; "$@" 2>&1 | grep -E "^(read|ran|got|resumed)|SUMMARY|^(Direct|Indirect) leak| in .*(readBytesFromFile|formWeakReference|CFURLSessionCurlHostIsEqual|ProcessCACycfC)" | sed 's/^ *#[0-9]* 0x[0-9a-f]* in /    in /' | cut -c1-160 | head -12; }
for program in EmptyFileRead ProcessPolled SessionSharedRequest TopLevelAsyncString; do build "$program"; done
show "$out/EmptyFileRead"
show "$out/ProcessPolled" polled
show "$out/ProcessPolled" waited
python3 -u -m http.server 0 --bind 127.0.0.1 --directory Tests/Sanitizers/Evidence > "$out/http.log" 2>&1 &
server=$!
port=""
for _ in $(seq 100); do port="$(grep -o 'port [0-9]*' "$out/http.log" | grep -o '[0-9]*' || true)"; [ -n "$port" ] && break; sleep 0.1; done
ASAN_OPTIONS=fast_unwind_on_malloc=0 show "$out/SessionSharedRequest" "http://127.0.0.1:$port/EmptyFileRead.swift"
show "$out/TopLevelAsyncString"
