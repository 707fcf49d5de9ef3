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
# goal being <= 1.005 with the events off.
#
# KVER picks the kernel (kernel/scripts/kver.sh): 6.12, the default, in
# build/, or 7.3 in build/7.3/ (the Makefile's BUILD_$(KVER)); a kernel's
# own fragment, kernel/config/$KVER.config, is merged after the others as
# the Makefile does.
#
# Then the per-fault memtype lookup (issue 14): QEMU's ivshmem bound to
# vfio-pci (ft_vfio bind), `faulttune bench -w memtype-lookup -t 1` faults
# BENCH_ICOUNT_LOOKUP_SIZE of its BAR2 one 4 KiB page at a time
# (vmf_insert_pfn() -> lookup_memtype() under memtype_lock), events off,
# then with every memtype event on; instructions per fault are a pass's
# time over its pages.  Besides stock and patched this boots the series
# without its last patch (norw, build/norw/src; the read-lock patch), so
# that a read_lock() is compared with the spin_lock() it replaces (the
# Makefile's norw is 6.12's: 7.3's tree is prepared here the same way).
#
# Writes build/bench/icount.md (the section bench.sh appends to
# Documentation/bench.md) and build/bench/icount.json (build/7.3/bench/
# for 7.3), then exits 1 when a goal above is missed, naming it.  Knobs:
# BENCH_ICOUNT_FAULTS (20000), BENCH_ICOUNT_REPS (3),
# BENCH_ICOUNT_KERNELS ("bench debug"), BENCH_ICOUNT_VARIANTS ("stock
# norw patched": stock and patched at least), BENCH_ICOUNT_LOOKUP_SIZE
# (8M), BENCH_ICOUNT_LOOKUP_PASSES (5).
set -uo pipefail

faults=${BENCH_ICOUNT_FAULTS:-20000}
reps=${BENCH_ICOUNT_REPS:-3}
kinds=${BENCH_ICOUNT_KERNELS:-bench debug}
variants=${BENCH_ICOUNT_VARIANTS:-stock norw patched}
lsize=${BENCH_ICOUNT_LOOKUP_SIZE:-8M}
lpasses=${BENCH_ICOUNT_LOOKUP_PASSES:-5}
die() { echo "bench-icount: $*" >&2; exit 1; }
for v in $variants; do
	case $v in stock|norw|patched) ;; *) die "BENCH_ICOUNT_VARIANTS: no variant '$v' (stock, norw, patched)";; esac
done
[[ " $variants " == *" stock "* && " $variants " == *" patched "* ]] ||
	die "BENCH_ICOUNT_VARIANTS must name stock and patched, not '$variants'"
. "$(dirname "$0")/bench-env.sh"

# The series without its last patch: the Makefile's target for 6.12; for
# another kernel its tree, prepared as the Makefile prepares the others,
# again whenever the series is newer than it.
norw_tree() {
	local stamp=$build/norw/src.stamp
	if [ "$KVER" = 6.12 ]; then
		[ -d "$build/norw/src" ] || make -s -C "$top" "$stamp"
		return
	fi
	[ -f "$stamp" ] && [ -z "$(find "$PATCHES_DIR" -newer "$stamp" -print -quit)" ] && return
	KVER=$KVER PATCHES_DIR=$PATCHES_DIR LINUX_TARBALL=$LINUX_TARBALL \
		"$top/kernel/scripts/prepare-tree.sh" norw "$build/norw/src" && touch "$stamp"
}

# stock, the series without its last patch, the series
if [[ " $variants " == *" norw "* ]]; then
	norw_tree || die "no source tree ${build#$top/}/norw/src (make kernel-norw)"
fi
# (make bench builds the debug stock and patched kernels; norw is built
# here too, so that a run of this script alone has it current)
if [[ " $kinds " == *" debug "* && " $variants " == *" norw "* ]]; then
	if [ "$KVER" = 6.12 ]; then
		make -s -C "$top" kernel-norw
	else
		"$top/kernel/scripts/build-kernel.sh" "$build/norw" "$top/kernel/config/base.config" \
			"$top/kernel/config/debug.config" $kfrag
	fi || die "the norw kernel does not build (make kernel-norw)"
fi

# The production-like kernels: the same source trees, another config.
if [[ " $kinds " == *" bench "* ]]; then
	grep -v '^CONFIG_JUMP_LABEL=' "$top/kernel/config/base.config" > "$out/base-bench.config"
	for k in $variants; do
		[ -d "$build/$k/src" ] || make -s -C "$top" KVER="$KVER" "$build/$k/src.stamp" ||
			die "no source tree ${build#$top/}/$k/src"
		mkdir -p "$build/bench-$k"
		ln -sfn "$build/$k/src" "$build/bench-$k/src"
		"$top/kernel/scripts/build-kernel.sh" "$build/bench-$k" \
			"$out/base-bench.config" "$top/kernel/config/bench.config" $kfrag ||
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
fi
lookup() { faulttune bench -w memtype-lookup -t 1 -s $lsize --iterations $lpasses -r 1 --json | tr -d '\\n'; }
if ft_vfio bind > /dev/null; then
	for i in \$(seq $reps); do echo \"ICOUNT lookup-off \$(lookup)\"; done
	if [ -d \$T/events/memtype ]; then
		echo > \$T/trace
		echo 1 > \$T/events/memtype/enable
		for i in \$(seq $reps); do echo \"ICOUNT lookup-on \$(lookup)\"; done
		echo 0 > \$T/events/memtype/enable
		echo \"ICOUNT lookup-events \$(grep -c 'memtype_lock_acquire_returned: op=lookup' \$T/trace)\"
	fi
	ft_vfio unbind
else
	echo 'ICOUNT lookup-none ft_vfio bind failed'
fi"

: > "$out/icount.txt"
for kind in $kinds; do
	for k in $variants; do
		img=$build/$k/bzImage
		[ "$kind" = bench ] && img=$build/bench-$k/bzImage
		[ -r "$img" ] || die "no $img"
		echo "bench-icount: $kind $k kernel, $reps x $faults refaults and $reps x $lpasses passes of $lsize lookup faults, events off and on"
		VM_LOGDIR=$out/icount-$kind-$k VM_KERNEL=$k VM_CPUS=1 VM_HUGEPAGES=16 \
			VM_ACCEL=tcg,thread=single VM_EXTRA="-icount shift=0,sleep=off" \
			VM_TIMEOUT=${VM_TIMEOUT:-1800} \
			"$top/kernel/scripts/run-vm.sh" "$img" "$build/guest.cpio" "$guest" \
			> "$out/icount-$kind-$k.log" 2>&1 ||
			{ tail -20 "$out/icount-$kind-$k.log" >&2; die "the $kind $k guest failed"; }
		sed -n "s/^ICOUNT /$kind $k /p" "$out/icount-$kind-$k.log" | tee -a "$out/icount.txt"
	done
done

python3 - "$out/icount.txt" "$faults" "$reps" "$out/icount.md" "$out/icount.json" "$lsize" "$lpasses" \
	"$KVER" "${kfrag#$top/}" <<'PY'
import json, statistics, sys
path, faults, reps, md, js = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
lsize, lpasses = sys.argv[6], sys.argv[7]
kver, kfrag = sys.argv[8], sys.argv[9]
# 6.12's section keeps its words; another kernel's says which it is
on = "" if kver == "6.12" else " on Linux %s" % kver
cmd = ("`tests/bench-icount.sh` (part of `make bench`)" if kver == "6.12" else
       "`KVER=%s tests/bench-icount.sh`" % kver)
frags = "base.config + kernel/config/bench.config" + (" + " + kfrag if kfrag else "")
runs = {}
lookups = {}
for line in open(path):
    f = line.split()
    if len(f) >= 4 and f[2] in ("lookup-off", "lookup-on"):
        # one thread: its average pass time over the pages of a pass
        res = json.loads(line.split(" ", 3)[3])["results"][0]
        t = res["per_thread"][0]
        lookups.setdefault((f[0], f[1], f[2][7:]), []).append(t["avg_ns"] / res["pages_per_pass"])
    elif len(f) >= 4 and f[2] in ("off", "on"):
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
    for k, ev in (("stock", "off"), ("norw", "off"), ("patched", "off"), ("patched", "on")):
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
    o.write("\n## Deterministic cost per refault (instruction counts)%s\n\n" % on)
    o.write("QEMU `-icount shift=0,sleep=off -accel tcg,thread=single`, one vCPU: the guest "
            "clock counts executed instructions, so `bench_refault fault 8 %d 1` "
            "(page-cache-hit hugetlb refaults) gives instructions per refault; median of %s "
            "runs, spread = (max - min) / median.  \"on\": every hugetlb event enabled, "
            "written to the ring buffer.  Production-like: %s "
            "(no lock debugging, CONFIG_JUMP_LABEL=y); debug: the "
            "lockdep kernels make check boots.  Goal: patched with the events off <= 1.005 x "
            "stock.  Made by %s.\n\n" % (faults, reps, frags, cmd))
    o.write("| kernel | variant | events | instructions/refault | spread | vs stock |\n")
    o.write("|---|---|---|---:|---:|---:|\n")
    o.write("\n".join(rows) + "\n\n")
    if goal is not None:
        o.write("Production-like patched / stock with the events off: **%.4f** (goal <= 1.005: %s).\n"
                % (goal, "met" if goal <= 1.005 else "NOT met"))
lrows = []
for kind in ("bench", "debug"):
    s_off = lookups.get((kind, "stock", "off"))
    n_off = lookups.get((kind, "norw", "off"))
    if not s_off:
        continue
    base, nbase = statistics.median(s_off), statistics.median(n_off) if n_off else None
    for k in ("stock", "norw", "patched"):
        for ev in ("off", "on"):
            v = lookups.get((kind, k, ev))
            if not v:
                continue
            med = statistics.median(v)
            spread = (max(v) - min(v)) / med * 100
            res["lookup/%s/%s/events-%s" % (kind, k, ev)] = {"insn_per_fault": round(med, 1),
                "spread_pct": round(spread, 2), "ratio_vs_stock": round(med / base, 4),
                "ratio_vs_norw": round(med / nbase, 4) if nbase else None}
            lrows.append("| %s | %s | %s | %.0f | %.2f%% | %.4f | %s |" % (
                "production-like" if kind == "bench" else "debug (lockdep)", k, ev, med, spread,
                med / base, "%.4f" % (med / nbase) if nbase else "-"))
if lrows:
    with open(md, "a") as o:
        o.write("\n### Instructions per memtype lookup fault%s\n\n" % on)
        o.write("The same guests, QEMU's ivshmem bound to vfio-pci (no-IOMMU mode): "
                "`faulttune bench -w memtype-lookup -t 1 -s %s --iterations %s -r 1`, one thread faulting "
                "its slice of BAR2 one 4 KiB page at a time (`vmf_insert_pfn()` -> "
                "`lookup_memtype()` under `memtype_lock`), a pass's time over its pages; median "
                "of %s runs.  norw: the series without its last patch, so memtype_lock is the "
                "spinlock; patched: lookups take it for reading.  \"on\": every memtype event "
                "enabled.  Goal: patched <= norw with the events off (a read lock must not "
                "cost more than the spinlock uncontended).\n\n" % (lsize, lpasses, reps))
        o.write("| kernel | variant | events | instructions/fault | spread | vs stock | vs norw |\n")
        o.write("|---|---|---|---:|---:|---:|---:|\n")
        o.write("\n".join(lrows) + "\n\n")
        p_ = res.get("lookup/bench/patched/events-off")
        n_ = res.get("lookup/bench/norw/events-off")
        if p_ and n_:
            # within the runs' own spread, the two cost the same
            noise = max(p_["spread_pct"], n_["spread_pct"]) / 100
            g = p_["ratio_vs_norw"]
            o.write("Production-like patched / norw with the events off: **%.4f**, %+.1f "
                    "instructions per fault (%s).\n" % (g, p_["insn_per_fault"] - n_["insn_per_fault"],
                    "the same within the %.2f%% spread" % (noise * 100) if abs(g - 1) <= noise else
                    "cheaper than the spinlock" if g < 1 else "dearer than the spinlock"))
json.dump(res, open(js, "w"), indent=1)
print(open(md).read())
# A missed goal fails the run (make bench with it), once the outputs are
# written: a table that says "NOT met" must not pass for one that is met.
missed = []
if goal is not None and goal > 1.005:
    missed.append("production-like patched / stock with the events off %.4f > 1.005" % goal)
if lrows and p_ and n_ and g > 1 + noise:
    missed.append("memtype lookup: production-like patched / norw with the events off %.4f, "
                  "dearer than the spinlock beyond the %.2f%% spread" % (g, noise * 100))
for m in missed:
    print("bench-icount: goal missed: %s (%s)" % (m, md), file=sys.stderr)
sys.exit(1 if missed else 0)
PY
