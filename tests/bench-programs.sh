#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-programs.sh: make bench's section 13, and make bench-programs on
# its own: faulttune tune on programs nobody here wrote, as their users
# run them.  Boots the production-like patched kernel BENCH_PROG_BOOTS
# times (3) and in each runs, BENCH_STABLE times (10) each, the default
# `faulttune tune -- COMMAND` on
#
#   qemu	QEMU preallocating 256 MiB of 2 MiB pages with 4 threads
#		(memory-backend-memfd,prealloc-threads=4), as a VM host
#		starts a VM with hugepage backing
#   stress-ng	stress-ng --mmaphuge 4 --mmaphuge-mmaps 16 --timeout 2s
#   builtin	faulttune's own threads workload (plain `faulttune tune`)
#
# then times QEMU's preallocation at 1 mutex, at the boot size and at the
# size the qemu runs picked most, interleaved, BENCH_PROG_WALL times (10)
# each.  Writes build/bench/programs.json and build/bench/programs.md,
# which bench.sh appends to Documentation/bench.md.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
out=$build/bench
boots=${BENCH_PROG_BOOTS:-3}
stable=${BENCH_STABLE:-10}
walls=${BENCH_PROG_WALL:-10}
programs=${BENCH_PROG_LIST:-qemu stress-ng builtin}
mkdir -p "$out"
# the production-like kernel of the current series, rebuilt when the
# patches changed (an existing bzImage may predate them)
if [ -n "${BENCH_PROG_KERNEL:-}" ]; then
	kernel=$BENCH_PROG_KERNEL
else
	kernel=$build/prod-patched/bzImage
	"$top/tests/bench-kernels.sh" patched || exit 1
fi

: > "$out/programs.log"
for b in $(seq 1 "$boots"); do
	echo "bench-programs: boot $b/$boots"
	echo "$b load {\"loadavg\":\"$(cut -d' ' -f1 /proc/loadavg)\"}" >> "$out/programs.log"
	VM_LOGDIR=$out/programs-$b VM_KERNEL=prod-patched VM_TIMEOUT=${VM_TIMEOUT:-3600} \
		"$top/kernel/scripts/run-vm.sh" "$kernel" "$build/guest.cpio" \
		"STABLE=$stable WALLS=$walls PROGRAMS='$programs'
$(cat "$top/tests/bench-programs-guest.sh")" > "$out/programs-$b.log" 2>&1 ||
		{ echo "bench-programs: boot $b failed, see $out/programs-$b.log" >&2; tail -20 "$out/programs-$b.log" >&2; exit 1; }
	sed -n "s/^BENCHP /$b /p" "$out/programs-$b.log" >> "$out/programs.log"
done
python3 "$top/tests/bench-programs.py" "$out/programs.log" "$out/programs.md" \
	"make bench-programs BENCH_PROG_BOOTS=$boots BENCH_STABLE=$stable BENCH_PROG_WALL=$walls BENCH_PROG_LIST='$programs'"
