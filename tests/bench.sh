#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: what "make bench" runs (issue 6).  Boots the stock and the
# patched kernel alternately BENCH_ROUNDS times (stock, patched, stock, ...)
# so that drift on a noisy host hits both alike, runs tests/bench-guest.sh
# in each guest, and reduces the "BENCH <config> <json>" lines of all
# rounds to medians and spreads with tests/bench-table.py:
#
#   1 scaling	faults/s of the parallel_fault shape at 1..VM_CPUS threads
#		at the size tune recommends, parallel efficiency
#   2 seed-000	num_fault_mutexes=1 vs that size at VM_CPUS threads
#   3 overhead	patched events off / stock, every hugetlb event recorded /
#		stock, at 1 and VM_CPUS threads
#   4 resize	resize duration and fault stalls during resizes, in faults
#   5 speed	faulttune report vs trace-cmd report on >= 1M events
#		(first round only, unless BENCH_SPEED=all)
#   6 tune	tune (what-if plan) vs tune --full: time, pick, prediction
#   7 lost	events lost during tune at VM_CPUS threads
#   8 icount	instructions per page-cache-hit refault, patched / stock,
#		events off and on, production-like and debug kernels
#		(tests/bench-icount.sh: single-threaded TCG with -icount,
#		one vCPU; BENCH_ICOUNT=0 leaves it out)
#
# Writes build/bench/bench.json, Documentation/bench.md and the plots
# Documentation/bench/*.svg (gnuplot).  Knobs: BENCH_ROUNDS (3), VM_CPUS
# (4), BENCH_SIZE (64M), BENCH_REPS (3), BENCH_TUNE_REPS (3),
# BENCH_FAULTS (350000 refaults: about 1.05M events), BENCH_SPEED
# (first|all|none), BENCH_RESIZE_GAP (0.2 s between resizes).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
out=$build/bench
rounds=${BENCH_ROUNDS:-3}
cpus=${VM_CPUS:-4}
size=${BENCH_SIZE:-64M}
reps=${BENCH_REPS:-3}
treps=${BENCH_TUNE_REPS:-3}
faults=${BENCH_FAULTS:-350000}
gap=${BENCH_RESIZE_GAP:-0.2}
speed=${BENCH_SPEED:-first}
mkdir -p "$out"
rm -f "$out"/*.log
start=$(date +%s)
# Whether the host was quiet: its load before the first boot, and the QEMU
# guests not ours that were running when each of ours started.
: > "$out/host-load"
echo "started $start" >> "$out/host-load"
echo "loadavg $(cut -d' ' -f1 /proc/loadavg)" >> "$out/host-load"
script=$(cat "$top/tests/bench-guest.sh")

for r in $(seq 1 "$rounds"); do
	for k in stock patched; do
		sp=0
		{ [ "$speed" = all ] || { [ "$speed" = first ] && [ "$r" = 1 ]; }; } && sp=1
		cmd="KERNEL=$k T=$cpus SIZE=$size REPS=$reps TREPS=$treps ROUND=$r SPEED=$sp FAULTS=$faults RESIZE_GAP=$gap
$script"
		echo "bench: round $r/$rounds, $k kernel ($(( $(date +%s) - start )) s)"
		echo "other-guests $(pgrep -c -f '^qemu-system' || true)" >> "$out/host-load"
		VM_LOGDIR=$out/$k-$r VM_KERNEL=$k VM_TIMEOUT=${VM_TIMEOUT:-1800} \
			"$top/kernel/scripts/run-vm.sh" "$build/$k/bzImage" "$build/guest.cpio" \
			"$cmd" > "$out/$k-$r.log" 2>&1 ||
			{ echo "bench: the $k guest failed, see $out/$k-$r.log" >&2; tail -20 "$out/$k-$r.log" >&2; exit 1; }
		grep -v '^BENCH ' "$out/$k-$r.log" | grep -v '^$' | head -20
	done
done

python3 "$top/tests/bench-table.py" "$out" "$top/Documentation/bench.md" \
	"make bench BENCH_ROUNDS=$rounds VM_CPUS=$cpus BENCH_SIZE=$size BENCH_REPS=$reps BENCH_TUNE_REPS=$treps BENCH_FAULTS=$faults BENCH_SPEED=$speed BENCH_RESIZE_GAP=$gap" \
	"$(( $(date +%s) - start ))"

# 8: deterministic cost, its own section appended to the table
if [ "${BENCH_ICOUNT:-1}" != 0 ]; then
	"$top/tests/bench-icount.sh" || exit 1
	cat "$out/icount.md" >> "$top/Documentation/bench.md"
fi
