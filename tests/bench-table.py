#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-table.py LOGDIR OUT.md COMMAND: turn make bench's guest logs into
the ratio table.  Each log line "BENCH <config> <json>" holds one faulttune
bench run; per config and thread count the rounds are reduced to their
median and spread, and every ratio is taken against stock at the same
thread count, from the same make bench run."""

import glob
import json
import os
import platform
import statistics
import sys
import time

GOALS = {"off": 0.99, "on": 0.90}
NAMES = {
    "off": "patched, events off / stock",
    "on": "patched, all hugetlb events recorded / stock",
    "table1": "patched, num_fault_mutexes=1 / stock",
}


def main():
    logdir, md, command = sys.argv[1:4]
    runs = {}
    for path in sorted(glob.glob(os.path.join(logdir, "*.log"))):
        with open(path) as f:
            for line in f:
                if not line.startswith("BENCH "):
                    continue
                _, config, payload = line.rstrip("\n").split(" ", 2)
                for r in json.loads(payload)["results"]:
                    runs.setdefault((config, r["threads"]), []).append(
                        r["faults_per_wall_s"])
    if not runs:
        sys.exit("bench-table: no BENCH lines in %s" % logdir)

    rows = []
    for (config, threads), vals in sorted(runs.items()):
        if config == "stock":
            continue
        base = runs.get(("stock", threads))
        if not base:
            continue
        ratio = statistics.median(vals) / statistics.median(base)
        rows.append({
            "config": config, "threads": threads, "ratio": round(ratio, 3),
            "faults_per_s": round(statistics.median(vals), 1),
            "stock_faults_per_s": round(statistics.median(base), 1),
            "spread": [round(min(vals), 1), round(max(vals), 1)],
            "stock_spread": [round(min(base), 1), round(max(base), 1)],
            "rounds": len(vals), "goal": GOALS.get(config),
        })

    host = "%s, %d CPUs" % (platform.node(), os.cpu_count())
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    with open(os.path.join(logdir, "bench.json"), "w") as f:
        json.dump({"host": host, "date": date, "command": command,
                   "rows": rows}, f, indent=1)

    lines = [
        "# faulttune benchmarks",
        "",
        "Produced by `%s` on %s, %s. The parallel_fault shape "
        "(`faulttune bench -w threads`) in the QEMU TCG guest; each ratio is "
        "the median faults per wall-second of the rounds against stock's "
        "median at the same thread count, both measured in this one run "
        "(rounds interleave the kernels). Within a patched boot the "
        "configurations run in a fixed order (off, recorded, one mutex), so "
        "a warm-up drift can favour the later ones; TCG time is not real "
        "time, so read ratios, not absolute rates. The guest kernels have "
        "no JUMP_LABEL (see kernel/config/base.config): events off is a "
        "load and a branch here, a patched nop on real hardware." % (command, host, date),
        "",
        "| configuration | threads | ratio | goal | faults/s (min-max) | stock faults/s (min-max) |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        goal = r["goal"]
        verdict = "" if goal is None else (
            ">= %.2f %s" % (goal, "met" if r["ratio"] >= goal else "**missed**"))
        lines.append("| %s | %d | %.3f | %s | %.0f (%.0f-%.0f) | %.0f (%.0f-%.0f) |" % (
            NAMES.get(r["config"], r["config"]), r["threads"], r["ratio"], verdict,
            r["faults_per_s"], r["spread"][0], r["spread"][1],
            r["stock_faults_per_s"], r["stock_spread"][0], r["stock_spread"][1]))
    text = "\n".join(lines) + "\n"
    with open(md, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
