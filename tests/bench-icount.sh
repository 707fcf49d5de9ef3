#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-icount.sh: make bench's deterministic cost section.  QEMU with
# -icount shift=0,sleep=off and single-threaded TCG makes the guest clock
# count executed instructions (1 ns = 1 instruction), so the time of a loop
# in the guest is its instruction count and repeats to a fraction of a
# percent.  One vCPU runs `bench_refault fault 8 FAULTS 1` (page-cache-hit
# hugetlb refaults: the fault mutex fast path without clearing 2 MiB)
# BENCH_ICOUNT_REPS times with every event off, then as many times with
# every hugetlb event on (written to the ring buffer, no reader), on:
#
#   bench	production-like kernels, stock and patched, built from
#		base.config + kernel/config/bench.config (no lock debugging,
#		jump labels on) into build/bench-{stock,patched}
#   debug	the kernels make check tests (lockdep), build/{stock,patched}
#
# and prints instructions per refault and the patched / stock ratio, the
# goal being <= 1.005 with the events off.  Writes build/bench/icount.md
# (the section bench.sh appends to Documentation/bench.md) and
# build/bench/icount.json.  Knobs: BENCH_ICOUNT_FAULTS (20000),
# BENCH_ICOUNT_REPS (3), BENCH_ICOUNT_KERNELS ("bench debug").
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
out=$build/bench
faults=${BENCH_ICOUNT_FAULTS:-20000}
reps=${BENCH_ICOUNT_REPS:-3}
kinds=${BENCH_ICOUNT_KERNELS:-bench debug}
mkdir -p "$out"
die() { echo "bench-icount: $*" >&2; exit 1; }

# The production-like kernels: the same source trees, another config.
if [[ " $kinds " == *" bench "* ]]; then
	grep -v '^CONFIG_JUMP_LABEL=' "$top/kernel/config/base.config" > "$out/base-bench.config"
	for k in stock patched; do
		mkdir -p "$build/bench-$k"
		ln -sfn "$build/$k/src" "$build/bench-$k/src"
		"$top/kernel/scripts/build-kernel.sh" "$build/bench-$k" \
			"$out/base-bench.config" "$top/kernel/config/bench.config" ||
			die "the production-like $k kernel does not build"
	done
fi

guest="T=/sys/kernel/tracing
for i in \$(seq $reps); do echo \"ICOUNT off \$(bench_refault fault 8 $faults 1)\"; done
if [ -d \$T/events/hugetlb ]; then
	echo 8192 > \$T/buffer_size_kb
	echo 1 > \$T/events/hugetlb/enable
	for i in \$(seq $reps); do echo \"ICOUNT on \$(bench_refault fault 8 $faults 1)\"; done
	echo 0 > \$T/events/hugetlb/enable
	echo \"ICOUNT events \$(grep -c hugetlb_fault_mutex \$T/trace)\"
fi"

: > "$out/icount.txt"
for kind in $kinds; do
	for k in stock patched; do
		img=$build/$k/bzImage
		[ "$kind" = bench ] && img=$build/bench-$k/bzImage
		[ -r "$img" ] || die "no $img"
		echo "bench-icount: $kind $k kernel, $reps x $faults refaults, events off and on"
		VM_LOGDIR=$out/icount-$kind-$k VM_KERNEL=$k VM_CPUS=1 VM_HUGEPAGES=16 \
			VM_ACCEL=tcg,thread=single VM_EXTRA="-icount shift=0,sleep=off" \
			VM_TIMEOUT=${VM_TIMEOUT:-1800} \
			"$top/kernel/scripts/run-vm.sh" "$img" "$build/guest.cpio" "$guest" \
			> "$out/icount-$kind-$k.log" 2>&1 ||
			{ tail -20 "$out/icount-$kind-$k.log" >&2; die "the $kind $k guest failed"; }
		sed -n "s/^ICOUNT /$kind $k /p" "$out/icount-$kind-$k.log" | tee -a "$out/icount.txt"
	done
done

python3 - "$out/icount.txt" "$faults" "$reps" "$out/icount.md" "$out/icount.json" <<'PY'
import json, statistics, sys
path, faults, reps, md, js = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
runs = {}
for line in open(path):
    f = line.split()
    if len(f) >= 4 and f[2] in ("off", "on"):
        sec = float(dict(kv.split("=") for kv in f[3:])["seconds"])
        # shift=0: one instruction per virtual nanosecond
        runs.setdefault((f[0], f[1], f[2]), []).append(sec * 1e9 / faults)
res = {}
rows = []
for kind in ("bench", "debug"):
    s_off = runs.get((kind, "stock", "off"))
    if not s_off:
        continue
    base = statistics.median(s_off)
    for k, ev in (("stock", "off"), ("patched", "off"), ("patched", "on")):
        v = runs.get((kind, k, ev))
        if not v:
            continue
        med = statistics.median(v)
        spread = (max(v) - min(v)) / med * 100
        res["%s/%s/events-%s" % (kind, k, ev)] = {"insn_per_refault": round(med, 1),
            "spread_pct": round(spread, 2), "ratio_vs_stock": round(med / base, 4)}
        rows.append("| %s | %s | %s | %.0f | %.2f%% | %.4f |" % (
            "production-like" if kind == "bench" else "debug (lockdep)", k, ev, med, spread, med / base))
goal = res.get("bench/patched/events-off", {}).get("ratio_vs_stock")
with open(md, "w") as o:
    o.write("\n## Deterministic cost per refault (instruction counts)\n\n")
    o.write("QEMU `-icount shift=0,sleep=off -accel tcg,thread=single`, one vCPU: the guest "
            "clock counts executed instructions, so `bench_refault fault 8 %d 1` "
            "(page-cache-hit hugetlb refaults) gives instructions per refault; median of %s "
            "runs, spread = (max - min) / median.  \"on\": every hugetlb event enabled, "
            "written to the ring buffer.  Production-like: base.config + "
            "kernel/config/bench.config (no lock debugging, CONFIG_JUMP_LABEL=y); debug: the "
            "lockdep kernels make check boots.  Goal: patched with the events off <= 1.005 x "
            "stock.  Made by `tests/bench-icount.sh` (part of `make bench`).\n\n" % (faults, reps))
    o.write("| kernel | variant | events | instructions/refault | spread | vs stock |\n")
    o.write("|---|---|---|---:|---:|---:|\n")
    o.write("\n".join(rows) + "\n\n")
    if goal is not None:
        o.write("Production-like patched / stock with the events off: **%.4f** (goal <= 1.005: %s).\n"
                % (goal, "met" if goal <= 1.005 else "NOT met"))
json.dump(res, open(js, "w"), indent=1)
print(open(md).read())
PY
