#!/usr/bin/env bash
# Runs the tests built with a sanitizer (make check-asan, make check-tsan) and fails on any
# sanitizer report, from the test process or from any process it starts (the sessionvault CLI,
# VaultTestHost, VaultCrashHost, built with the same sanitizer in the same scratch path, which
# the tests find beside the test bundle).
#
#   scripts/sanitizer-run.sh address|thread <scratch path> [swift test arguments…]
#
# Every sanitized process writes its reports to <scratch>/sanitizer-reports/<kind>.<pid>, not
# to its standard error: a child's stderr is captured by the test that started it, and a report
# there would be lost, or would turn into a confusing test failure. The run fails when the
# tests fail or when any report file exists; the reports are printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
kind="$1"; scratch="$2"; shift 2
reports="$PWD/$scratch/sanitizer-reports"
rm -rf "$reports"
mkdir -p "$reports"

case "$kind" in
address)
    asan=(
        halt_on_error=1            # the first error ends the process (the default, stated)
        abort_on_error=0           # …with exitcode, not abort(): no core file, a plain failure
        exitcode=1                 # the status a report gives a process (the default, stated)
        detect_leaks=1             # LeakSanitizer at every process exit (the default on Linux)
        log_path="$reports/asan"   # reports to files: see above
        suppressions="$PWD/Tests/Sanitizers/asan.supp"  # errors outside this code, each explained
    )
    lsan=(
        suppressions="$PWD/Tests/Sanitizers/lsan.supp"  # each entry explains itself
        print_suppressions=0       # the suppressed leaks' counts would only add noise
    )
    export ASAN_OPTIONS="$(IFS=:; echo "${asan[*]}")"
    export LSAN_OPTIONS="$(IFS=:; echo "${lsan[*]}")"
    ;;
thread)
    tsan=(
        halt_on_error=0            # report every race of the run, not only the first…
        exitcode=66                # …and end the process with 66 when there was one (default)
        second_deadlock_stack=1    # lock-order reports name both acquisitions
        log_path="$reports/tsan"   # reports to files: see above
    )
    if [ -s Tests/Sanitizers/tsan.supp ]; then tsan+=(suppressions="$PWD/Tests/Sanitizers/tsan.supp"); fi
    export TSAN_OPTIONS="$(IFS=:; echo "${tsan[*]}")"
    ;;
*)
    echo "usage: $0 address|thread <scratch path> [swift test arguments…]" >&2
    exit 2
    ;;
esac

status=0
swift test --skip-build --sanitize="$kind" --scratch-path "$scratch" "$@" || status=$?

found="$(find "$reports" -type f | sort)"
if [ -n "$found" ]; then
    echo "sanitizer ($kind): $(echo "$found" | wc -l) process(es) reported; the reports:"
    for file in $found; do
        echo "---- $file"
        # The summary line and the first frames are enough to start; the file has the rest.
        grep -v '^$' "$file" | head -40
    done
    status=1
else
    echo "sanitizer ($kind): no report from any process"
fi
exit "$status"
