#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-summary.sh: what recording costs, per form of the lock events
# (issue 21).  As in tests/bench-icount.sh, QEMU with -icount
# shift=0,sleep=off and single-threaded TCG makes the guest clock count
# executed instructions (1 ns = 1 instruction), one vCPU, on the
# production-like kernels (base.config + kernel/config/bench.config, no
# lock debugging, jump labels on) of build/bench-{stock,patched}.  In one
# boot per kernel, `bench_refault fault 8 FAULTS 1` (page-cache-hit
# hugetlb refaults: the fault mutex fast path) runs BENCH_SUMMARY_REPS
# times with, in turn:
#
#   off		no event
#   summary	hugetlb_fault_mutex_hold only (emitted after the unlock)
#   released	hugetlb_fault_mutex_released only: its hold_ns is read
#		before the event, so its hold is the one with no event
#		inside it, the reference for the summary's
#   trio	start_locking, acquire_returned and released
#   all		every hugetlb event, the summary included
#
# and prints instructions per refault, the median recorded hold_ns of a
# refault (from the ring buffer: instructions too), then records the same
# refaults with `faulttune record` (summaries, the default) and `faulttune
# record --trio`: trace.dat bytes per acquisition (the file's size less
# that of a recording of `true`, over the acquisitions faulttune report
# counts) and lost events.  Writes build/bench/summary.md and
# summary.txt.  Knobs: BENCH_SUMMARY_FAULTS (20000), BENCH_SUMMARY_REPS
# (3), BENCH_SUMMARY_KERNELS ("stock patched").  KVER picks the kernel as
# in tests/bench-icount.sh: 6.12 by default in build/, 7.3 in build/7.3/.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/kernel/scripts/kver.sh"
build=$top/build
[ "$KVER" = 6.12 ] || build=$top/build/$KVER
out=$build/bench
kfrag=$top/kernel/config/$KVER.config
[ -f "$kfrag" ] || kfrag=
faults=${BENCH_SUMMARY_FAULTS:-20000}
reps=${BENCH_SUMMARY_REPS:-3}
kernels=${BENCH_SUMMARY_KERNELS:-stock patched}
die() { echo "bench-summary: $*" >&2; exit 1; }
[ -r "$build/guest.cpio" ] || die "no guest image ${build#$top/}/guest.cpio (make KVER=$KVER image)"
mkdir -p "$out"

# The production-like kernels of bench-icount.sh: the same trees and
# object directories, so that either script builds them for both.
grep -v '^CONFIG_JUMP_LABEL=' "$top/kernel/config/base.config" > "$out/base-bench.config"
for k in $kernels; do
	[ -d "$build/$k/src" ] || make -s -C "$top" KVER="$KVER" "$build/$k/src.stamp" ||
		die "no source tree build/$k/src"
	mkdir -p "$build/bench-$k"
	ln -sfn "$build/$k/src" "$build/bench-$k/src"
	"$top/kernel/scripts/build-kernel.sh" "$build/bench-$k" \
		"$out/base-bench.config" "$top/kernel/config/bench.config" $kfrag ||
		die "the production-like $k kernel does not build"
done

guest="T=/sys/kernel/tracing
H=\$T/events/hugetlb
median() { sort -n | awk '{ v[NR] = \$1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }
mode() { # NAME EVENT... : refaults with those events on, then the median hold
	name=\$1; shift
	echo 0 > \$T/tracing_on
	[ -d \$H ] && echo 0 > \$H/enable
	echo > \$T/trace
	for e in \"\$@\"; do echo 1 > \$H/\$e/enable || return; done
	echo 1 > \$T/tracing_on
	for i in \$(seq $reps); do echo \"SUMM \$name refault \$(bench_refault fault 8 $faults 1)\"; done
	echo 0 > \$T/tracing_on
	[ \$# = 0 ] && return
	echo \"SUMM \$name events \$(grep -c ' hugetlb_fault_mutex_' \$T/trace)\"
	echo \"SUMM \$name hold \$(grep ' op=fault .*hold_ns=' \$T/trace | sed 's/.*hold_ns=\\([0-9]*\\).*/\\1/' | median)\"
}
echo \"SUMM info clocksource=\$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)\"
echo 65536 > \$T/buffer_size_kb
mode off
if [ -e \$H/hugetlb_fault_mutex_hold ]; then
	mode summary hugetlb_fault_mutex_hold
	mode released hugetlb_fault_mutex_released
	mode trio hugetlb_fault_mutex_start_locking hugetlb_fault_mutex_acquire_returned hugetlb_fault_mutex_released
	mode all hugetlb_fault_mutex_start_locking hugetlb_fault_mutex_acquire_returned hugetlb_fault_mutex_released hugetlb_fault_mutex_hold hugetlb_fault_mutex_resize
	echo 0 > \$H/enable
	echo 1408 > \$T/buffer_size_kb
	cd /tmp
	faulttune record -o base.dat -b 16384 -- true > /dev/null 2>&1
	faulttune record --trio -o base3.dat -b 16384 -- true > /dev/null 2>&1
	for form in summary trio; do
		opt=; b=base.dat
		[ \$form = trio ] && opt=--trio && b=base3.dat
		faulttune record \$opt -o \$form.dat -b 16384 -- bench_refault fault 8 $faults 1 > /dev/null 2>&1
		faulttune report --json \$form.dat > \$form.json 2> /dev/null
		acq=\$(sed -n 's/.*\"hugetlb\":{\"total\":{\"name\":\"all\",\"acquisitions\":\\([0-9]*\\).*/\\1/p' \$form.json)
		lost=\$(grep -o '\"lost_events\":[0-9]*' \$form.json | head -1 | cut -d: -f2)
		echo \"SUMM \$form file bytes=\$(stat -c %s \$form.dat) base=\$(stat -c %s \$b) acquisitions=\$acq lost=\$lost\"
		rm -f \$form.dat \$form.json
	done
fi"

: > "$out/summary.txt"
for k in $kernels; do
	img=$build/bench-$k/bzImage
	[ -r "$img" ] || die "no $img"
	echo "bench-summary: production-like $k kernel, $reps x $faults refaults per mode"
	VM_LOGDIR=$out/summary-$k VM_KERNEL=$k VM_CPUS=1 VM_HUGEPAGES=16 \
		VM_ACCEL=tcg,thread=single VM_EXTRA="-icount shift=0,sleep=off" \
		VM_TIMEOUT=${VM_TIMEOUT:-3600} \
		"$top/kernel/scripts/run-vm.sh" "$img" "$build/guest.cpio" "$guest" \
		> "$out/summary-$k.log" 2>&1 ||
		{ tail -20 "$out/summary-$k.log" >&2; die "the $k guest failed"; }
	sed -n "s/^SUMM /$k /p" "$out/summary-$k.log" | tee -a "$out/summary.txt"
done

python3 - "$out/summary.txt" "$faults" "$reps" "$out/summary.md" "$KVER" <<'PY'
import statistics, sys
path, faults, reps, md, kver = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
on = "" if kver == "6.12" else " on Linux %s" % kver
ipr, hold, nev, files = {}, {}, {}, {}
for line in open(path):
    f = line.split()
    k, mode, what = f[0], f[1], f[2]
    kv = dict(x.split("=", 1) for x in f[3:] if "=" in x)
    if what == "refault":
        ipr.setdefault((k, mode), []).append(float(kv["seconds"]) * 1e9 / faults)
    elif what == "hold":
        hold[(k, mode)] = int(f[3])
    elif what == "events":
        nev[(k, mode)] = int(f[3])
    elif what == "file":
        files[(k, mode)] = kv
stock = statistics.median(ipr[("stock", "off")]) if ("stock", "off") in ipr else None
poff = statistics.median(ipr[("patched", "off")])
ref = hold.get(("patched", "released"))
with open(md, "w") as o:
    o.write("\n## Recording cost: the hold summary against the trio%s\n\n" % on)
    o.write("Instructions per page-cache-hit refault and the recorded hold of one, by the "
            "lock events enabled (`tests/bench-summary.sh`: -icount shift=0,sleep=off, "
            "single-threaded TCG, one vCPU, production-like kernels, `bench_refault fault 8 "
            "%d 1`, median of %s runs; with -icount a nanosecond is an instruction).  "
            "released: only `hugetlb_fault_mutex_released`, whose hold_ns is read before "
            "the event, the hold with no event inside it.\n\n" % (faults, reps))
    o.write("| kernel | events | instructions/refault | spread | vs stock | vs patched off "
            "| median hold_ns | vs released |\n|---|---|---|---|---|---|---|---|\n")
    for k, mode in (("stock", "off"), ("patched", "off"), ("patched", "summary"),
                    ("patched", "released"), ("patched", "trio"), ("patched", "all")):
        v = ipr.get((k, mode))
        if not v:
            continue
        med = statistics.median(v)
        spread = (max(v) - min(v)) / med * 100
        h = hold.get((k, mode))
        o.write("| %s | %s | %.0f | %.2f%% | %s | %.3f | %s | %s |\n" % (
            k, mode, med, spread, "%.3f" % (med / stock) if stock else "-", med / poff,
            h if h is not None else "-",
            "%.3f" % (h / ref) if h is not None and ref else "-"))
    o.write("\ntrace.dat bytes per acquisition (`faulttune record` of the same refaults, "
            "the size less that of a recording of `true`, over the acquisitions `faulttune "
            "report` counts):\n\n| form | acquisitions | bytes/acquisition | lost events |\n"
            "|---|---|---|---|\n")
    per = {}
    for mode in ("summary", "trio"):
        kv = files.get(("patched", mode))
        if not kv or not kv.get("acquisitions"):
            continue
        a = int(kv["acquisitions"])
        per[mode] = (int(kv["bytes"]) - int(kv["base"])) / a
        o.write("| %s | %d | %.1f | %s |\n" % (
            "`record` (summaries)" if mode == "summary" else "`record --trio`",
            a, per[mode], kv.get("lost", "-")))
    if "summary" in per and "trio" in per:
        o.write("\nThe summaries take %.2f of the trio's bytes.\n" % (per["summary"] / per["trio"]))
print(open(md).read())
PY
