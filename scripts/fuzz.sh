#!/usr/bin/env bash
# Runs each libFuzzer target of Fuzz/ for a bounded time (`make fuzz`), on a copy of its
# committed corpus in a temporary directory (a run never grows Fuzz/Corpus), with its
# dictionary when Fuzz/Dictionaries has one. Prints per target: executions, edges (cov),
# features (ft), corpus size after the run, and findings (crash-, timeout-, leak-, oom- and
# slow-unit files; kept under <harness dir>/../fuzz-findings/<target>/ for a look). Exit 1 when any
# target crashed, hung, leaked, ran out of memory or stopped with an error.
#
#   scripts/fuzz.sh <harness> <seconds> [<target>...]
#
# <harness> is the built sessionvault-fuzz; with no target named, every one it lists (`--list`:
# the cases of `FuzzTarget.Name`, the one list of them). A finding replays with
#   SESSIONVAULT_FUZZ_TARGET=<target> <harness> <finding file>
set -u
harness=$1; seconds=$2; shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
findings_root="$(dirname "$(dirname "$harness")")/fuzz-findings"
if [ "$#" -eq 0 ]; then
    listed=$(ASAN_OPTIONS=detect_leaks=0 "$harness" --list) || { echo "$harness --list failed"; exit 1; }
    set -- $listed
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/sessionvault-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=""
printf '%-15s %10s %8s %8s %8s %s\n' target executions cov ft corpus findings
for target in "$@"; do
    dir="$work/$target"; mkdir -p "$dir/corpus" "$dir/artifacts"
    cp "$root/Fuzz/Corpus/$target/"* "$dir/corpus/"
    dict=(); [ -f "$root/Fuzz/Dictionaries/$target.dict" ] && dict=(-dict="$root/Fuzz/Dictionaries/$target.dict")
    # The targets' own scratch files go under $dir too (TMPDIR), removed with it. Swift's
    # backtracer is off: on abort it reads memory ASan reports as a second, unrelated error.
    TMPDIR="$dir" SWIFT_BACKTRACE=enable=no SESSIONVAULT_FUZZ_TARGET="$target" "$harness" "$dir/corpus" "${dict[@]}" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/artifacts/" > "$dir/log" 2>&1
    status=$?
    executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/log" | grep -o '[0-9]*$' | tail -1)
    status_line=$(grep -E '^#[0-9]+.*cov: ' "$dir/log" | tail -1)
    cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$status_line")
    ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$status_line")
    corpus=$(ls "$dir/corpus" | wc -l)
    found=$(ls "$dir/artifacts" | wc -l)
    printf '%-15s %10s %8s %8s %8s %s\n' "$target" "${executions:-?}" "${cov:-?}" "${ft:-?}" "$corpus" "$found"
    grep '^outcome ' "$dir/log" | sed 's/^/    /'
    if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
        failed="$failed $target"
        mkdir -p "$findings_root/$target"
        cp "$dir/artifacts/"* "$findings_root/$target/" 2>/dev/null
        cp "$dir/log" "$findings_root/$target/log"
        echo "    exit $status; log and inputs in $findings_root/$target:"
        grep -E 'property broken|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|SUMMARY|Test unit written' "$dir/log" | head -5 | sed 's/^/    /'
    fi
done
if [ -n "$failed" ]; then echo "FAIL:$failed"; exit 1; fi
echo "PASS"
