#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: what "make bench" runs.  The parallel_fault shape (faulttune
# bench -w threads) at 1 and VM_CPUS threads, in the guest, on the stock and
# the patched kernel, interleaved over ROUNDS boots (stock, patched, stock,
# ...) so that drift on a noisy host hits both alike.  Only ratios measured
# within one run are reported:
#
#   overhead/off	patched, events compiled in but off, vs stock
#   overhead/on		patched, every hugetlb event on and consumed by
#			faulttune record, vs stock
#   table/1		patched with num_fault_mutexes=1 vs the boot size
#
# Writes build/bench/bench.json and Documentation/bench.md (the table, the
# host, the date and the command).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
out=$build/bench
rounds=${BENCH_ROUNDS:-3}
cpus=${VM_CPUS:-4}
size=${BENCH_SIZE:-128M}
mkdir -p "$out"
rm -f "$out"/*.log

bench="faulttune bench -w threads -t 1,$cpus -s $size -r 3 --json"
knob=/sys/kernel/debug/hugetlb/num_fault_mutexes
guest_stock="echo \"BENCH stock \$($bench)\""
guest_patched="echo \"BENCH off \$($bench)\"
faulttune record -o /tmp/b.dat -- $bench > /tmp/on.json && echo \"BENCH on \$(grep '^{' /tmp/on.json)\"
if [ -w $knob ]; then boot=\$(cat $knob); echo 1 > $knob; echo \"BENCH table1 \$($bench)\"; echo \$boot > $knob; fi"

for r in $(seq 1 "$rounds"); do
	for k in stock patched; do
		cmd=$guest_stock
		[ $k = patched ] && cmd=$guest_patched
		echo "bench: round $r/$rounds, $k kernel"
		VM_LOGDIR=$out/$k-$r VM_KERNEL=$k "$top/kernel/scripts/run-vm.sh" \
			"$build/$k/bzImage" "$build/guest.cpio" "$cmd" > "$out/$k-$r.log" 2>&1 ||
			{ echo "bench: the $k guest failed, see $out/$k-$r.log" >&2; tail -20 "$out/$k-$r.log" >&2; exit 1; }
	done
done

python3 "$top/tests/bench-table.py" "$out" "$top/Documentation/bench.md" \
	"make bench (BENCH_ROUNDS=$rounds VM_CPUS=$cpus BENCH_SIZE=$size)"
