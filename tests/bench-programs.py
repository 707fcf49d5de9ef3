#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-programs.py LOG MD COMMAND: make bench's section 13 from the
"BOOT KIND JSON" lines tests/bench-programs.sh collected: the picks of
repeated default tunes of each program per boot, the model against
measurement at the sizes tune measured, and QEMU's preallocation time at
1 mutex, the boot size and the pick."""
import json
import statistics
import sys


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def sd(xs):
    return statistics.stdev(xs) if len(xs) > 1 else float("nan")


def overlap(a, b):
    return bool(a) and bool(b) and max(a[0], b[0]) <= min(a[-1], b[-1])


def main():
    log, md, command = sys.argv[1:4]
    tunes, fails, walls, load = {}, {}, {}, {}
    with open(log) as f:
        for line in f:
            boot, kind, js = line.split(" ", 2)
            d = json.loads(js)
            if kind == "tune":
                tunes.setdefault((d["program"], int(boot)), []).append(d)
            elif kind == "fail":
                fails.setdefault((d["program"], int(boot)), 0)
                fails[(d["program"], int(boot))] += 1
            elif kind == "wall":
                walls.setdefault(int(boot), []).append(d)
            elif kind == "load":
                load[int(boot)] = d["loadavg"]
    out = []
    w = out.append
    w("## 13. tune on programs nobody here wrote")
    w("")
    w("`faulttune tune -- COMMAND` with default options on QEMU preallocating "
      "256 MiB of 2 MiB pages with 4 threads (`memory-backend-memfd,...,"
      "prealloc=on,prealloc-threads=4`, what a VM host does at every start "
      "of a hugepage-backed VM), on `stress-ng --mmaphuge 4 --mmaphuge-mmaps "
      "16 --timeout 2s`, and plain `faulttune tune` (the built-in workload), "
      "in turn, in several boots of the production-like patched kernel "
      "(4 vCPUs, TCG). Goal: the same pick in >= 9 of 10 runs in each boot. "
      "settled: runs whose final decision (probes and measured runs) "
      "separated the pick from every smaller size with 95% confidence; the "
      "others said which sizes they could not separate and recommended the "
      "safe one. consistent: pairs of successive runs with the same pick or "
      "overlapping ranges of inseparable sizes. idle: runs of the program "
      "in which no two faults were in flight at once (left out of the "
      "decision), median per tune, of the median traced runs.")
    w("")
    w("Command: `%s`" % command)
    w("")
    w("| program | boot | host load | picks | most common | same | goal | "
      "settled | consistent | median probes | idle / traced | "
      "median tune s |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|")
    missed = []
    checks = {}
    for (prog, boot) in sorted(tunes):
        runs = tunes[(prog, boot)]
        picks = [r["recommended"] for r in runs]
        top = max(set(picks), key=picks.count)
        same = picks.count(top)
        n = len(picks) + fails.get((prog, boot), 0)
        met = same * 10 >= 9 * n
        if not met:
            missed.append("%s in boot %d: %d of %d" % (prog, boot, same, n))
        settled = sum(1 for r in runs if r["settled"]["settled"])
        pairs = list(zip(runs, runs[1:]))
        cons = sum(1 for a, b in pairs if a["recommended"] == b["recommended"]
                   or overlap(a["settled"]["inseparable"],
                              b["settled"]["inseparable"]))
        idle = med([r["settled"].get("idle_runs", 0) for r in runs])
        traced = med([r["settled"]["runs"] + r["settled"].get("idle_runs", 0)
                      for r in runs])
        w("| %s | %d | %s | %s | %d | %d / %d | %s | %d / %d | %d / %d | %g "
          "| %g / %g | %.1f |" % (
            prog, boot, load.get(boot, "?"), " ".join(map(str, picks)), top,
            same, n, "met" if met else "**missed**", settled, len(runs),
            cons, len(pairs),
            med([r["probes"]["runs"] for r in runs]), idle, traced,
            med([r["wall_s"] for r in runs])))
        c = checks.setdefault(prog, [0, 0, 0])
        for r in runs:
            c[0] += 1
            c[1] += all(m["fits"] for m in r["model_check_measured"])
            c[2] += sum(1 for m in r["model_check_measured"] if not m["fits"])
    w("")
    w("The model against measurement: a run fits when the predicted and the "
      "measured collision wait agree within two standard errors at every "
      "size it measured (the current size and the pick); where they do not, "
      "the run's output says so (DOES NOT FIT, and which way). Goal: >= 90% "
      "of runs fit, or their output says they do not (always the case).")
    w("")
    w("| program | runs | every measured size fits | sizes that did not fit, said so |")
    w("|---|---|---|---|")
    for prog in sorted(checks):
        c = checks[prog]
        w("| %s | %d | %d (%.0f%%) | %d |" % (prog, c[0], c[1],
                                            100.0 * c[1] / c[0], c[2]))
    w("")
    if walls:
        w("QEMU's preallocation, wall time per run (interleaved, rotating "
          "order): at 1 mutex, at the boot size and at the size the qemu "
          "runs picked most in that boot.")
        w("")
        w("| boot | size | role | runs | median s | sd s | vs boot size |")
        w("|---|---|---|---|---|---|---|")
        for boot in sorted(walls):
            ws = walls[boot]
            bsize, pick = ws[0]["boot"], ws[0]["pick"]
            base = med([x["wall_s"] for x in ws if x["size"] == bsize])
            for size, role in ((1, "one mutex"), (bsize, "boot default"),
                               (pick, "the pick")):
                xs = [x["wall_s"] for x in ws if x["size"] == size]
                if role == "the pick" and pick == bsize:
                    continue
                w("| %d | %d | %s | %d | %.2f | %.2f | %+.1f%% |" % (
                    boot, size, role, len(xs), med(xs), sd(xs),
                    100 * (med(xs) / base - 1) if base else float("nan")))
        w("")
    if missed:
        w("Missed: " + "; ".join(missed) + ".")
        w("")
    with open(md, "w") as f:
        f.write("\n".join(out))
    print("\n".join(out))


if __name__ == "__main__":
    main()
