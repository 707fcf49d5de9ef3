#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-resize.sh: section 16 of make bench, the stall a resize imposes
# (issue 21).  One boot of the production-like patched kernel
# (tests/bench-kernels.sh) with one 1 GiB page reserved on the command
# line (hugepagesz=1G hugepages=1, which needs a 4 GiB guest here: with
# 3 GiB no 1 GiB-aligned gigabyte is free at boot), and in it, one after
# the other, resize_stall (tests/guest/progs/resize_stall.c) with its long
# holds made by:
#
#   none	nothing but the faulters' own page-cache refaults
#   2m		a process first-touching fresh 2 MiB pages
#   1g		a process first-touching a fresh 1 GiB page
#
# each alternating still phases (no resize) with resize phases (the knob
# flipped 1024 <-> 2048 every BENCH_RESIZE_GAP_MS), BENCH_RESIZE_ROUNDS times
# BENCH_RESIZE_SECONDS each.  Besides resize_stall's own timings, the
# kernel's view from two events: hugetlb_fault_mutex_hold filtered to
# holds over 1 ms (the long holds in flight, exactly, without recording the
# refaults) and hugetlb_fault_mutex_resize (each resize's duration_ns).
# Writes build/bench/resize-stall.md and resize-stall.txt (the raw guest
# output).  Knobs: BENCH_RESIZE_SECONDS (8), BENCH_RESIZE_ROUNDS (3),
# BENCH_RESIZE_GAP_MS (50), BENCH_RESIZE_THREADS (3), BENCH_RESIZE_MODES
# ("none 2m 1g"), BENCH_RESIZE_KERNEL (default build/prod-patched/bzImage,
# brought up to date by tests/bench-kernels.sh), BENCH_RESIZE_REPORT_ONLY=1
# (the table again from the last run's output, no boot).  KVER picks the
# kernel as in tests/bench-icount.sh: 6.12 by default in build/, 7.3 in
# build/7.3/ (its image, its production-like kernel, its bench/).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/kernel/scripts/kver.sh"
build=$top/build
[ "$KVER" = 6.12 ] || build=$top/build/$KVER
out=$build/bench
secs=${BENCH_RESIZE_SECONDS:-8}
rounds=${BENCH_RESIZE_ROUNDS:-3}
gap=${BENCH_RESIZE_GAP_MS:-50}
threads=${BENCH_RESIZE_THREADS:-3}
modes=${BENCH_RESIZE_MODES:-none 2m 1g}
kernel=${BENCH_RESIZE_KERNEL:-$build/prod-patched/bzImage}
mkdir -p "$out"
die() { echo "bench-resize: $*" >&2; exit 1; }

report_only=${BENCH_RESIZE_REPORT_ONLY:-0}
if [ "$report_only" != 1 ]; then
	# kbuild decides what is stale
	[ -n "${BENCH_RESIZE_KERNEL:-}" ] || "$top/tests/bench-kernels.sh" patched ||
		die "no production-like kernel"
	[ -r "$build/guest.cpio" ] || die "no guest image ${build#$top/}/guest.cpio (make KVER=$KVER image)"
fi

guest="T=/sys/kernel/tracing
H=\$T/events/hugetlb
echo 0 > \$T/tracing_on
echo 8192 > \$T/buffer_size_kb
echo 'hold_ns > 1000000' > \$H/hugetlb_fault_mutex_hold/filter
echo 1 > \$H/hugetlb_fault_mutex_hold/enable
echo 1 > \$H/hugetlb_fault_mutex_resize/enable
echo \"free 1 GiB pages: \$(cat /sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages)\"
for m in $modes; do
	echo > \$T/trace
	echo 1 > \$T/tracing_on
	resize_stall -t $threads -s $secs -r $rounds -g $gap -l \$m > /tmp/rs.out; rc=\$?
	echo 0 > \$T/tracing_on
	sed \"s/^/MODE \$m /\" /tmp/rs.out
	[ \$rc = 0 ] || echo \"MODE \$m failed rc=\$rc\"
	grep -o 'hugetlb_fault_mutex_hold:.*' \$T/trace | sed -n \"s/.*op=\\([a-z_]*\\).*hold_ns=\\([0-9]*\\).*/HOLD \$m \\1 \\2/p\"
	grep -o 'duration_ns=[0-9]*' \$T/trace | sed \"s/duration_ns=/RESIZEEV \$m /\"
	echo \"LOST \$m \$(sed -n 's/^overrun: //p' \$T/per_cpu/cpu*/stats | awk '{ s += \$1 } END { print s + 0 }')\"
done"

# BENCH_RESIZE_REPORT_ONLY=1 remakes the table from the last run's output
if [ "$report_only" != 1 ]; then
	start=$(date -u '+%Y-%m-%d %H:%M UTC')
	t0=$(date +%s)
	VM_MEM=${VM_MEM_RESIZE:-4096} VM_HUGEPAGES=${VM_HUGEPAGES_RESIZE:-64} \
		VM_APPEND="hugepagesz=1G hugepages=1 ${VM_APPEND:-}" VM_KERNEL=prod-patched \
		VM_LOGDIR=$out/vm-resize VM_TIMEOUT=${VM_TIMEOUT:-1800} \
		"$top/kernel/scripts/run-vm.sh" "$kernel" "$build/guest.cpio" "$guest" \
		> "$out/resize-stall.txt" || die "the guest failed (log: $out/vm-resize)"
	echo "$start|$(( $(date +%s) - t0 ))" > "$out/resize-stall.when"
fi
IFS='|' read -r start secs_run < "$out/resize-stall.when" || die "no run to report (run without BENCH_RESIZE_REPORT_ONLY)"

# The markdown table: per mode, the faulters still and while resizing, the
# resizes as resize_stall timed them and as the event did, the long holds.
awk -v when="$start" -v took="$secs_run" -v cpus="${VM_CPUS:-4}" -v mem="${VM_MEM_RESIZE:-4096}" \
	-v threads="$threads" -v gap="$gap" -v rounds="$rounds" -v secs="$secs" \
	-v cmd="${BENCH_RESIZE_CMD:-make bench-resize BENCH_RESIZE_SECONDS=$secs BENCH_RESIZE_ROUNDS=$rounds BENCH_RESIZE_GAP_MS=$gap BENCH_RESIZE_THREADS=$threads}" '
function us(ns) { return sprintf("%.1f", ns / 1000) }
/^MODE / && $3 ~ /^(still|resize|long|resizes)$/ {
	m = $2; d = $3
	for (i = 4; i <= NF; i++) { split($i, kv, "="); v[m, d, kv[1]] = kv[2] }
	if (!(m in seen)) { seen[m] = 1; order[++nm] = m }
}
/^MODE .* failed/ { failed[$2] = $0 }
/^HOLD / { n = ++nh[$2]; if ($4 > hmax[$2]) { hmax[$2] = $4 } }
/^RESIZEEV / { nr[$2]++; if ($3 > rmax[$2]) rmax[$2] = $3 }
/^LOST / { lost[$2] = $3 }
END {
	printf "## 16. Resize stall: fault latency beside a resize loop (issue 21)\n\n"
	printf "`%s` (one boot of the production-like patched kernel, %d vCPUs, %s MiB, `hugepagesz=1G hugepages=1`): %s faulter threads re-fault 2 MiB page-cache pages of a hugetlb memfd (every touch a fault that takes its mutex), timing each fault; a child process makes the long holds (nothing, fresh 2 MiB pages or a fresh 1 GiB page first-touched again and again). Still phases (no resize) alternate with resize phases (the knob flipped 1024 <-> 2048, %s ms between writes), %s rounds of %s s each, so both columns come from the same boot side by side. The longest hold in flight is the long holder'"'"'s first touch as it timed it, and the largest `hold_ns` of `hugetlb_fault_mutex_hold` (filtered to holds over 1 ms, so the refaults are not recorded). A resize holds back new faults from the end of its RCU grace period until every current holder (and every waiter queued behind one) has unlocked: the bound is the longest hold in flight.\n\n", cmd, cpus, mem, threads, gap, rounds, secs
	printf "| long holds by | faults still / resizing | still p50 / p99 / max (us) | resizing p50 / p99 / max (us) | resizes | resize write p50 / max (us) | resize event max (us) | longest hold in flight: thread max / event max (us), holds > 1 ms |\n"
	printf "|---|---|---|---|---|---|---|---|\n"
	for (i = 1; i <= nm; i++) {
		m = order[i]
		printf "| %s | %s / %s | %s / %s / %s | %s / %s / %s | %s | %s / %s | %s | %s / %s, %d |\n", m,
			v[m, "still", "faults"], v[m, "resize", "faults"],
			v[m, "still", "p50"], v[m, "still", "p99"], v[m, "still", "max"],
			v[m, "resize", "p50"], v[m, "resize", "p99"], v[m, "resize", "max"],
			v[m, "resizes", "n"], v[m, "resizes", "p50"], v[m, "resizes", "max"],
			us(rmax[m]),
			m == "none" ? "-" : v[m, "long", "max"], us(hmax[m]), nh[m]
	}
	for (m in failed) print "\n" failed[m]
	for (m in lost) if (lost[m] > 0) printf "\n%s: %d events lost\n", m, lost[m]
	printf "\nMeasured %s in %d s (boot included).\n", when, took
}' "$out/resize-stall.txt" > "$out/resize-stall.md"
cat "$out/resize-stall.md"
