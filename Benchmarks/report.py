#!/usr/bin/env python3
"""Turns one benchmark run (the JMH export of `swift package benchmark`) into the issue's figures.

Usage: report.py <Current_run.jmh.json>

Prints a table of every benchmark (median and p99 per operation), then one line per figure,
`ratio.<name> = <value>` (plus `count.singleflight_calls`, `bytes.vault_after_touches` and
`bytes.vault_after_rotations`), a few `info.` lines, and finally `PASS` or `FAIL <names>`.
Every ratio compares two benchmarks of the same run, median against median; the p99 ratio is
printed beside it. Exit status 0 on PASS, 1 on FAIL, 2 when the results are unusable.
"""
import json
import re
import sys

WALL = "Time (wall clock)"
PAGE_SLACK_BYTES = 16 * 4096  # B-tree splits or a freelist page or two; far below one growth step per touch
SINGLE_FLIGHT_MARGIN_US = 5_000


def load(path):
    with open(path) as handle:
        elements = json.load(handle)
    results = {}
    for element in elements:
        name = element["benchmark"].split(".SessionVaultBenchmarks.", 1)[-1]
        metrics = element.get("secondaryMetrics", {})
        results[name] = metrics
    return results


def batch_size(name):
    match = re.search(r"\.x(\d+)$", name)
    return int(match.group(1)) if match else 1


class Run:
    def __init__(self, results):
        self.results = results
        self.missing = []

    def wall(self, name, percentile="50.0"):
        """Wall-clock microseconds per operation at a percentile (batch benchmarks divided by N)."""
        metrics = self.results.get(name)
        if metrics is None or WALL not in metrics:
            self.missing.append(name)
            return None
        return metrics[WALL]["scorePercentiles"][percentile] / batch_size(name)

    def custom(self, name, metric, percentile="50.0"):
        metrics = self.results.get(name, {})
        for key, value in metrics.items():
            if key.split(" (")[0] == metric:
                return value["scorePercentiles"][percentile]
        self.missing.append(f"{name}:{metric}")
        return None


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt(value, digits=3):
    if value is None:
        return "n/a"
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}f}"


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    run = Run(load(sys.argv[1]))

    print()
    print("Per operation, wall clock, microseconds (batch benchmarks `.xN` divided by N):")
    print(f"{'benchmark':34} {'p50':>12} {'p99':>12} {'samples':>8}")
    for name in sorted(run.results):
        metrics = run.results[name]
        if WALL not in metrics:
            continue
        samples = len(metrics[WALL].get("rawData", [[]])[0])
        print(f"{name:34} {fmt(run.wall(name), 2):>12} {fmt(run.wall(name, '99.0'), 2):>12} {samples:>8}")
    print()

    figures = []  # (name, value, passes, p99 value or None)

    def add(name, value, passes, p99=None):
        figures.append((name, value, passes(value) if value is not None else False, p99))

    # 1. launch
    add("launch_vs_unencrypted", ratio(run.wall("launch.vault.1"), run.wall("launch.unencrypted.1")), lambda v: v <= 1.6,
        ratio(run.wall("launch.vault.1", "99.0"), run.wall("launch.unencrypted.1", "99.0")))
    add("launch_naive_vs_vault", ratio(run.wall("launch.naive.1"), run.wall("launch.vault.1")), lambda v: v >= 40,
        ratio(run.wall("launch.naive.1", "99.0"), run.wall("launch.vault.1", "99.0")))
    # 2. rotate
    add("rotate_vs_unencrypted", ratio(run.wall("rotate.vault.1"), run.wall("rotate.unencrypted.1")), lambda v: v <= 1.3,
        ratio(run.wall("rotate.vault.1", "99.0"), run.wall("rotate.unencrypted.1", "99.0")))
    add("rotate_vs_fsync_floor", ratio(run.wall("rotate.vault.1"), run.wall("rotate.fsyncfloor")), lambda v: v <= 3,
        ratio(run.wall("rotate.vault.1", "99.0"), run.wall("rotate.fsyncfloor", "99.0")))
    # 3. touch (coalesced: amortized per call against one plain UPDATE at synchronous=NORMAL)
    add("touch_vs_unencrypted_update", ratio(run.wall("touch.vault.x1000"), run.wall("touch.unencrypted.x100")), lambda v: v <= 1.5,
        ratio(run.wall("touch.vault.x1000", "99.0"), run.wall("touch.unencrypted.x100", "99.0")))
    # 4. verify, per page of the file
    for sessions in (10000, 1):
        vault_pages = run.custom(f"verify.vault.{sessions}", "pagesScanned")
        plain_pages = run.custom(f"verify.unencrypted.{sessions}", "pagesScanned")
        vault_time, plain_time = run.wall(f"verify.vault.{sessions}"), run.wall(f"verify.unencrypted.{sessions}")
        vault_p99, plain_p99 = run.wall(f"verify.vault.{sessions}", "99.0"), run.wall(f"verify.unencrypted.{sessions}", "99.0")
        if vault_pages and plain_pages:
            value = ratio(vault_time / vault_pages, plain_time / plain_pages)
            p99 = ratio(vault_p99 / vault_pages, plain_p99 / plain_pages)
        else:
            # A scan that reports 0 pages has not scanned: no per-page figure, and it does not pass.
            value, p99 = None, None
        add(f"verify_per_page_{sessions}", value, lambda v: v <= 3, p99)
    # 6. scale
    add("launch_10000_vs_1", ratio(run.wall("launch.vault.10000"), run.wall("launch.vault.1")), lambda v: v <= 1.25,
        ratio(run.wall("launch.vault.10000", "99.0"), run.wall("launch.vault.1", "99.0")))
    # 7. single-flight: last caller within refresh latency + 5 ms
    refresh = run.wall("singleflight.refresh")
    last = run.wall(f"singleflight.callers1000")
    refresh99, last99 = run.wall("singleflight.refresh", "99.0"), run.wall("singleflight.callers1000", "99.0")
    add("singleflight_last_caller_vs_refresh_plus_5ms",
        ratio(last, refresh + SINGLE_FLIGHT_MARGIN_US) if refresh is not None else None, lambda v: v <= 1.0,
        ratio(last99, refresh99 + SINGLE_FLIGHT_MARGIN_US) if refresh99 is not None else None)

    failures = []
    for name, value, passes, p99 in figures:
        print(f"ratio.{name} = {fmt(value)}" + (f"   (p99: {fmt(p99)})" if p99 is not None else ""))
        if not passes:
            failures.append(name)

    calls_min = run.custom("singleflight.callers1000", "networkCalls", "0.0")
    calls_max = run.custom("singleflight.callers1000", "networkCalls", "100.0")
    homes_min = run.custom("singleflight.callers1000", "homeOutcomes", "0.0")
    calls = int(calls_max) if calls_max is not None else None
    print(f"count.singleflight_calls = {fmt(calls)}" + (f"   (fewest in an iteration: {int(calls_min)})" if calls_min is not None else ""))
    if not (calls_min == 1 and calls_max == 1):
        failures.append("singleflight_calls")
    if homes_min is None or homes_min < 1000:
        failures.append("singleflight_all_callers_home")

    for kind in ("touches", "rotations"):
        name = "size.touches.x10000" if kind == "touches" else "size.rotations.x1000"
        after = run.custom(name, "bytesAfter", "100.0")
        before = run.custom(name, "bytesBefore")
        print(f"bytes.vault_after_{kind} = {fmt(int(after) if after is not None else None)}"
              + (f"   (largest after any of 100 sessions; {int(before)} at the audit cap before)" if before is not None else ""))
        if after is None or before is None or after > before + PAGE_SLACK_BYTES:
            failures.append(f"bytes_after_{kind}")

    # Context, not targets.
    print(f"info.launch_vault_us = {fmt(run.wall('launch.vault.1'), 1)}   info.launch_unencrypted_us = {fmt(run.wall('launch.unencrypted.1'), 1)}"
          f"   info.launch_naive_us = {fmt(run.wall('launch.naive.1'), 1)}")
    print(f"info.rotate_vault_us = {fmt(run.wall('rotate.vault.1'), 1)}   info.rotate_unencrypted_us = {fmt(run.wall('rotate.unencrypted.1'), 1)}"
          f"   info.fsync_floor_us = {fmt(run.wall('rotate.fsyncfloor'), 1)}")
    print(f"info.launch_enginefloor_us = {fmt(run.wall('launch.enginefloor.1'), 1)}   info.launch_enginefloor_vs_unencrypted = "
          f"{fmt(ratio(run.wall('launch.enginefloor.1'), run.wall('launch.unencrypted.1')))}   info.launch_vault_vs_enginefloor = "
          f"{fmt(ratio(run.wall('launch.vault.1'), run.wall('launch.enginefloor.1')))}")
    print(f"info.rotate_enginefloor_us = {fmt(run.wall('rotate.enginefloor.1'), 1)}   info.rotate_enginefloor_vs_unencrypted = "
          f"{fmt(ratio(run.wall('rotate.enginefloor.1'), run.wall('rotate.unencrypted.1')))}   info.rotate_vault_vs_enginefloor = "
          f"{fmt(ratio(run.wall('rotate.vault.1'), run.wall('rotate.enginefloor.1')))}")
    print(f"info.rotate_10000_vs_1 = {fmt(ratio(run.wall('rotate.vault.10000'), run.wall('rotate.vault.1')))}"
          f"   info.launch_1000_vs_1 = {fmt(ratio(run.wall('launch.vault.1000'), run.wall('launch.vault.1')))}")
    print(f"info.touch_uncoalesced_vs_unencrypted_update = {fmt(ratio(run.wall('touch.vault.flush'), run.wall('touch.unencrypted.x100')))}"
          f"   info.touch_vault_amortized_us = {fmt(run.wall('touch.vault.x1000'), 3)}   info.update_unencrypted_us = {fmt(run.wall('touch.unencrypted.x100'), 2)}")
    print(f"info.decide_ns = {fmt(run.wall('decide.x1000') * 1000 if run.wall('decide.x1000') is not None else None, 1)}")
    print(f"info.singleflight_refresh_ms = {fmt(refresh / 1000 if refresh else None, 2)}   info.singleflight_last_of_1000_ms = {fmt(last / 1000 if last else None, 2)}"
          f"   info.singleflight_one_caller_ms = {fmt(run.wall('singleflight.callers1') / 1000 if run.wall('singleflight.callers1') else None, 2)}")
    floor, sleep = run.wall("singleflight.harnessfloor"), run.wall("singleflight.sleep")
    print(f"info.singleflight_harness_floor_ms = {fmt(floor / 1000 if floor else None, 2)} (1,000 tasks awaiting one shared {fmt(sleep / 1000 if sleep else None, 2)} ms task, no vault)"
          f"   info.singleflight_vault_overhead_ms = {fmt((last - refresh) / 1000 if last and refresh else None, 2)}")
    for sessions in (1, 10000):
        pages = run.custom(f"verify.vault.{sessions}", "pagesScanned")
        file_pages = run.custom(f"verify.vault.{sessions}", "filePages")
        print(f"info.verify_{sessions}_pages_scanned = {fmt(int(pages) if pages is not None else None)} of {fmt(int(file_pages) if file_pages is not None else None)} file pages")

    if run.missing:
        print("missing results: " + ", ".join(sorted(set(run.missing))))
    print("PASS" if not failures else "FAIL " + " ".join(failures))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
