#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-report.sh: faulttune report's memory and speed against the length
# of the recording (issue 23), on the host, side by side with trace-cmd
# report in one run.  For each synthetic recording of tests/synth (8
# tasks, 64 mutexes, every contract event: BENCH_REPORT_SIZES rounds per
# task, default 42000 168000 420000, about 1M, 4M and 10M events), in
# turn BENCH_REPORT_RUNS times (3): faulttune report with its default
# sample of holds, faulttune report --sample-holds 0 (every hold), and
# trace-cmd report, all > /dev/null under GNU time (wall, CPU, peak
# resident memory with children); medians.  Then the recommendation of
# each faulttune run from --json: size, predicted collision wait and its
# standard error, and the sample's size; the sample's pick against every
# hold's (issue 23's goal at 1M and 4M events).  Then the longest
# recording BENCH_REPORT_REPEAT times over (default 3 and 10: about 30M
# and 100M events, 1.6 and 5.4 GB in OUTDIR) by tests/mkrepeat.py,
# faulttune report alone, once each: time, peak memory, recommendation.
#
# Writes the markdown section to stdout and to $out/report-memory.md;
# tests/bench.sh appends it to Documentation/bench.md.
#
# usage: tests/bench-report.sh [OUTDIR]   (default build/bench)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ft=$top/tools/faulttune
out=${1:-$top/build/bench}
runs=${BENCH_REPORT_RUNS:-3}
sizes=${BENCH_REPORT_SIZES:-42000 168000 420000}
# the longest recording this many times over, for 30M and 100M events
repeat=${BENCH_REPORT_REPEAT-3 10}
for last in $sizes; do :; done
mkdir -p "$out"

command -v trace-cmd >/dev/null || { echo "bench-report: trace-cmd not installed (apt-get install trace-cmd)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench-report: GNU time not installed (apt-get install time)" >&2; exit 1; }
make -s -C "$ft" faulttune >&2 || exit 1
# tests/synth keeps every event in memory: a build for 10M events
max=0
for r in $sizes; do [ $((8 * r * 3 + r + 10)) -gt $max ] && max=$((8 * r * 3 + r + 10)); done
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -DSYNTH_MAIN -DMAXEV=$max -I"$ft" -I"$ft/tests" \
	-o "$out/synth-big" "$ft/tests/synth.c" "$ft/jhash.c" "$ft/util.c" -lm || exit 1

measure() {	# NAME COMMAND...: one line "NAME wall user+sys maxrss_kb status"
	local name=$1 t0 t1
	shift
	t0=$(date +%s%N)
	/usr/bin/time -o "$out/rm-time" -f '%U %S %M %x' "$@" > /dev/null 2>&1
	t1=$(date +%s%N)
	read -r u s m x < "$out/rm-time"
	awk -v n="$name" -v a="$t0" -v b="$t1" -v u="$u" -v s="$s" -v m="$m" -v x="$x" \
		'BEGIN { printf "%s %.3f %.2f %d %d\n", n, (b - a) / 1e9, u + s, m, x }'
}

advice() {	# FILE JSONOUT OPTIONS...: "size pct se kept total windows runs"
	local f=$1 j=$2
	shift 2
	"$ft/faulttune" report --json "$@" "$f" > "$j"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
a = d["hugetlb"]["advice"]
s = d["sample"]
r = [x for x in a["sizes"] if x["size"] == a["recommended"]][0]
print(a["recommended"], "%.2f" % r["predicted_collision_pct"],
      "%.2f" % r["predicted_se_pct"], s["holds_kept"], s["holds_total"],
      "%d/%d" % (s["windows_kept"], s["windows_total"]), a["runs"])' "$j"
}

: > "$out/rm-raw"
for r in $sizes; do
	f=$out/report-$r.dat
	"$out/synth-big" "$f" 8 "$r" 64 > "$out/report-$r.expect" || exit 1
	ev=$(sed -n 's/^events=//p' "$out/report-$r.expect")
	mb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.0f", b / 1048576 }')
	for i in $(seq 1 "$runs"); do
		echo "$ev $mb $(measure sample "$ft/faulttune" report "$f")" >> "$out/rm-raw"
		echo "$ev $mb $(measure all "$ft/faulttune" report --sample-holds 0 "$f")" >> "$out/rm-raw"
		echo "$ev $mb $(measure tracecmd trace-cmd report "$f")" >> "$out/rm-raw"
	done
	echo "$ev sample $(advice "$f" "$out/rm-json-$ev-sample")" >> "$out/rm-advice"
	echo "$ev all $(advice "$f" "$out/rm-json-$ev-all" --sample-holds 0)" >> "$out/rm-advice"
	[ "$r" = "$last" ] || rm -f "$f"
done
# beyond what tests/synth holds in memory: the longest recording K times
# over (tests/mkrepeat.py), faulttune report alone, once each
: > "$out/rm-long"
for k in $repeat; do
	g=$out/report-long.dat
	need=$(( $(stat -c %s "$out/report-$last.dat") / 1024 * k * 11 / 10 ))
	if [ "$(df -Pk "$out" | awk 'NR == 2 { print $4 }')" -lt "$need" ]; then
		echo "bench-report: $k times the longest recording needs $((need / 1024)) MB free in $out: skipped" >&2
		continue
	fi
	python3 "$ft/tests/mkrepeat.py" "$out/report-$last.dat" "$k" "$g" || exit 1
	ev=$(( $(sed -n 's/^events=//p' "$out/report-$last.expect") * k ))
	mb=$(awk -v b="$(stat -c %s "$g")" 'BEGIN { printf "%.0f", b / 1048576 }')
	echo "$ev $mb $(measure sample "$ft/faulttune" report "$g") $(advice "$g" "$out/rm-json-long" | cut -d' ' -f1-3)" >> "$out/rm-long"
	rm -f "$g" "$out/rm-json-long"
done
rm -f "$out/report-$last.dat" "$out/rm-time"

python3 - "$out/rm-raw" "$out/rm-advice" "$runs" "$(cut -d' ' -f1 /proc/loadavg)" "$(nproc)" "$out" "$out/rm-long" <<'EOF' | tee "$out/report-memory.md"
import json, math, statistics, sys
raw, adv, runs, load, cpus, out, long_ = sys.argv[1:]
m = {}
for line in open(raw):
    ev, mb, name, wall, cpu, rss, st = line.split()
    k = (int(ev), name)
    m.setdefault(k, []).append((float(wall), float(cpu), int(rss), int(st)))
    m[k][-1] += (int(mb),)
med = lambda k, i: statistics.median(x[i] for x in m[k])
w = print
w("## 5c. Report memory and speed against the recording's length")
w()
w("On the host: `tests/bench-report.sh` (run by `make bench`; alone: "
  "`tests/bench-report.sh`): synthetic recordings of `tools/faulttune/tests/synth "
  "FILE 8 ROUNDS 64` (8 tasks, 64 mutexes, every contract event), then `faulttune "
  "report FILE`, `faulttune report --sample-holds 0 FILE` (every hold kept, as "
  "before the sample) and `trace-cmd report FILE`, all `> /dev/null`, in turn, "
  "%s times each; medians of wall time, CPU time (user + system) and peak resident "
  "memory with children (GNU time). Host load average at the end: %s on %s cores. "
  "Goals: peak memory <= 64 MB whatever the length; at 1M events >= 30x "
  "trace-cmd's speed and <= 0.5x its memory." % (runs, load, cpus))
w()
w("| events | file MB | report s wall / CPU | peak MB | --sample-holds 0 s wall / CPU "
  "| peak MB | trace-cmd s wall / CPU | peak MB | speed vs trace-cmd wall / CPU "
  "| memory vs trace-cmd | goal |")
w("|---|---|---|---|---|---|---|---|---|---|---|")
evs = sorted({k[0] for k in m})
for ev in evs:
    s, a, t = (ev, "sample"), (ev, "all"), (ev, "tracecmd")
    bad = [x for k in (s, a, t) for x in m[k] if x[3] != 0]
    peak = med(s, 2) / 1024
    ok = peak <= 64 and (ev > 2e6 or (med(t, 0) / med(s, 0) >= 30 and
                                      med(s, 2) / med(t, 2) <= 0.5))
    w("| %d | %d | %.2f / %.2f | %.1f | %.2f / %.2f | %.1f | %.2f / %.2f | %.1f "
      "| %.1f / %.1f | %.2f | %s%s |" % (
          ev, m[s][0][4], med(s, 0), med(s, 1), peak, med(a, 0), med(a, 1),
          med(a, 2) / 1024, med(t, 0), med(t, 1), med(t, 2) / 1024,
          med(t, 0) / med(s, 0), med(t, 1) / med(s, 1), med(s, 2) / med(t, 2),
          "met" if ok else "**missed**", " (a run failed)" if bad else ""))
w()
w("The recommendation of each (`--json`): size, predicted collision wait at it "
  "+- the model's standard error over runs; the sample: holds kept of all, windows "
  "kept of all, runs of the model.")
w()
w("| events | report (sample) | sample | --sample-holds 0 (every hold, one run) |")
w("|---|---|---|---|")
a = {}
for line in open(adv):
    f = line.split()
    a[(int(f[0]), f[1])] = f[2:]
for ev in evs:
    s, e = a[(ev, "sample")], a[(ev, "all")]
    w("| %d | %s: %s%% +- %s%% | %s of %s holds, %s windows, %s runs | %s: %s%% +- %s%% |"
      % (ev, s[0], s[1], s[2], s[3], s[4], s[5], s[6], e[0], e[1], e[2]))
w()
w("The sample against every hold (goal at 1M and 4M events: the sample's "
  "recommendation within the printed error of every hold's): each size's "
  "prediction, sample minus every hold, in units of the two printed standard "
  "errors combined (|z| <= 2: within); the picks agree when they are the same "
  "size or when, at both picks, the two predictions are within 2 combined errors.")
w()
w("| events | sample pick | every-hold pick | largest abs(z) over the sizes (at) "
  "| z at the picks | goal |")
w("|---|---|---|---|---|---|")
for ev in evs:
    rows = {}
    for k in ("sample", "all"):
        d = json.load(open("%s/rm-json-%d-%s" % (out, ev, k)))["hugetlb"]["advice"]
        rows[k] = (d["recommended"], {x["size"]: x for x in d["sizes"]})
    zs = {}
    for size, x in rows["sample"][1].items():
        y = rows["all"][1].get(size)
        if not y:
            continue
        se = math.hypot(x["predicted_se_pct"], y["predicted_se_pct"])
        dz = x["predicted_collision_pct"] - y["predicted_collision_pct"]
        zs[size] = dz / se if se > 0 else (0 if dz == 0 else math.inf)
    ps, pa = rows["sample"][0], rows["all"][0]
    big = max(zs, key=lambda k: abs(zs[k]))
    atp = [zs.get(ps, math.inf), zs.get(pa, math.inf)]
    ok = ps == pa or all(abs(z) <= 2 for z in atp)
    w("| %d | %d | %d | %.1f (%d) | %s | %s |" % (
        ev, ps, pa, abs(zs[big]), big,
        ", ".join("%.1f" % z for z in atp),
        ("met" if ok else "**missed**") if ev < 5e6 else
        ("agree" if ok else "differ")))
longs = [l.split() for l in open(long_) if l.strip()]
if longs:
    w()
    w("Longer than tests/synth can hold in memory: the longest recording above "
      "K times over (`tools/faulttune/tests/mkrepeat.py FILE K OUT`: its pages "
      "again, each copy's page time stamps moved on by the recording's span), "
      "`faulttune report` alone, once. Goal: peak memory <= 64 MB.")
    w()
    w("| events | file MB | report s wall / CPU | peak MB | recommendation | goal |")
    w("|---|---|---|---|---|---|")
    for f in longs:
        w("| %s | %s | %s / %s | %.1f | %s: %s%% +- %s%% | %s%s |" % (
            f[0], f[1], f[3], f[4], int(f[5]) / 1024, f[7], f[8], f[9],
            "met" if int(f[5]) / 1024 <= 64 else "**missed**",
            " (the run failed)" if f[6] != "0" else ""))
EOF
rm -f "$out/rm-raw" "$out/rm-advice" "$out/rm-long" "$out/synth-big" "$out"/rm-json-*
