#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: what "make bench" runs (issue 6).  Boots the stock and the
# patched kernel alternately BENCH_ROUNDS times (stock, patched, stock, ...),
# both production-like (tests/bench-kernels.sh: no lock debugging),
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
#   5b host-speed the same on the host: speed and peak memory (BENCH_HOST=0
#		leaves it out)
#   5c report-memory report's peak memory and speed at 1M, 4M and 10M events,
#		and at about 30M and 100M (the 10M recording repeated,
#		BENCH_REPORT_REPEAT), with its sample of holds and with every
#		hold, against trace-cmd (tests/bench-report.sh, on the host;
#		BENCH_HOST=0 leaves it out; needs about 6 GB of scratch space)
#   6 tune	tune vs tune --full: time, pick, model vs measured per size
#   7 lost	events lost during tune at VM_CPUS threads
#   8 stable	BENCH_STABLE (10) default tune runs per boot: the same pick?
#   9 threads	the model against measurement at 1..VM_CPUS threads
#  10 from	tune --from on the >= 1M-event recording of 5
#  11 icount	instructions per page-cache-hit refault, patched / stock,
#		and per memtype lookup fault, stock / norw / patched,
#		events off and on, production-like and debug kernels
#		(tests/bench-icount.sh: single-threaded TCG with -icount,
#		one vCPU; BENCH_ICOUNT=0 leaves it out)
#  12 lookup	memtype-lookup at 1..VM_CPUS threads, stock / norw / patched
#		(tests/bench-lookup.sh; BENCH_LOOKUP=0 leaves it out)
#  13 programs	default tune on QEMU's preallocation, stress-ng and the
#		built-in workload, BENCH_STABLE runs each in each of
#		BENCH_PROG_BOOTS boots; QEMU's wall time at 1, the boot size
#		and the pick (tests/bench-programs.sh; BENCH_PROGRAMS=0 leaves
#		it out; make bench-programs runs it alone)
#  14 summary	what recording costs: instructions per refault and the
#		recorded hold with the hugetlb_fault_mutex_hold summary,
#		released alone, the trio and every event; trace.dat bytes per
#		acquisition of record and record --trio; the same refaults
#		under the kprobe recorder, its probes on with no reader and
#		record with its reader, and its recorded hold against the
#		released event's (tests/bench-summary.sh; BENCH_SUMMARY=0
#		leaves it out)
#  15 watch	an always-on faulttune watch on the host for BENCH_WATCH_MIN
#		minutes (60) at -i 5: RSS after the first windows against the
#		end, CPU per window (tools/faulttune/tests/watch-cost.sh)
#  16 resize-stall fault latency (p50, p99, max) with no resize and
#		beside a resize loop, side by side in one boot, with long
#		holds by 1 GiB and 2 MiB first touches, and the longest hold
#		in flight (tests/bench-resize.sh; BENCH_RESIZE=0 leaves it
#		out; make bench-resize runs it alone)
#  17 machine	what each recording source, and watch between its windows,
#		costs a pipe program that never touches hugetlb, under
#		-icount on the production-like stock kernel
#		(tests/bench-machine.sh; BENCH_MACHINE=0 leaves it out; make
#		bench-machine runs it alone); fails over its goal, 1.01x
#  18 probe-cost	what one kprobe event costs a hit, part by part (a
#		breakpoint, each argument, a filter, a jump, an ftrace
#		site), and the floor that sets for any recorder of holds
#		(tests/bench-probe-cost.sh; BENCH_PROBE=0 leaves it out; make
#		bench-probe-cost runs it alone)
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
stable=${BENCH_STABLE:-10}
mkdir -p "$out"
rm -f "$out"/*.log
start=$(date +%s)
# Whether the host was quiet: its load before the first boot, and the QEMU
# guests not ours that were running when each of ours started.
: > "$out/host-load"
echo "started $start" >> "$out/host-load"
echo "loadavg $(cut -d' ' -f1 /proc/loadavg)" >> "$out/host-load"
script=$(cat "$top/tests/bench-guest.sh")

# ---------------------------------------------------------------------------
# 5b host-speed (issue 12): faulttune report vs trace-cmd report > /dev/null
# on the host, before any guest boots, on one file of >= 1M events (the
# synthetic recording of tests/synth: 8 tasks, 64 mutexes, every event of
# the contract), alternating BENCH_HOST_RUNS times (3): wall time, and CPU
# time and peak resident memory of each with its children (faulttune reads
# in a child) from GNU time.  Writes $out/host-speed.json for bench-table.py.
host_measure() {	# COMMAND...: one JSON object
	local t0 t1
	t0=$(date +%s%N)
	/usr/bin/time -o "$out/host-time" \
		-f '"user_s":%U,"sys_s":%S,"maxrss_kb":%M,"status":%x' "$@" > /dev/null
	t1=$(date +%s%N)
	printf '{"wall_s":%s,%s}' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')" \
		"$(tail -n 1 "$out/host-time")"
}

host_speed() {
	local ft=$top/tools/faulttune f=$out/host-1m.dat i n=${BENCH_HOST_RUNS:-3}
	make -s -C "$ft" faulttune tests/synth || return 1
	"$ft/tests/synth" "$f" 8 42000 64 > "$out/host-1m.expect" || return 1
	command -v trace-cmd >/dev/null || { echo "bench: trace-cmd not installed" >&2; return 1; }
	[ -x /usr/bin/time ] || { echo "bench: GNU time not installed (apt-get install time)" >&2; return 1; }
	{
		printf '{"events":%s,"bytes":%s,"runs":[' \
			"$(sed -n 's/^events=//p' "$out/host-1m.expect")" "$(wc -c < "$f")"
		for i in $(seq 1 "$n"); do
			[ "$i" = 1 ] || printf ','
			printf '{"faulttune":%s,"tracecmd":%s}' \
				"$(host_measure "$ft/faulttune" report "$f")" \
				"$(host_measure trace-cmd report "$f")"
		done
		printf '],"loadavg":%s,"host_cpus":%s}\n' \
			"$(cut -d' ' -f1 /proc/loadavg)" "$(nproc)"
	} > "$out/host-speed.json" || return 1
	rm -f "$f" "$out/host-time"
}
if [ "${BENCH_HOST:-1}" = 1 ]; then
	echo "bench: host: faulttune report vs trace-cmd report on 1M events"
	host_speed || { echo "bench: the host speed section failed" >&2; exit 1; }
	echo "bench: host: report's memory and speed at 1M to 100M events"
	"$top/tests/bench-report.sh" "$out" > /dev/null ||
		{ echo "bench: the report memory section failed" >&2; exit 1; }
fi

# Sections 1-10 boot production-like kernels (no lock debugging): the
# lockdep kernels make check boots would measure lockdep.
echo "bench: building the production-like kernels"
"$top/tests/bench-kernels.sh" stock patched || exit 1

for r in $(seq 1 "$rounds"); do
	for k in stock patched; do
		sp=0
		{ [ "$speed" = all ] || { [ "$speed" = first ] && [ "$r" = 1 ]; }; } && sp=1
		cmd="KERNEL=$k T=$cpus SIZE=$size REPS=$reps TREPS=$treps ROUND=$r SPEED=$sp FAULTS=$faults RESIZE_GAP=$gap STABLE=$stable
$script"
		echo "bench: round $r/$rounds, $k kernel ($(( $(date +%s) - start )) s)"
		echo "other-guests $(pgrep -c -f '^qemu-system' || true)" >> "$out/host-load"
		VM_LOGDIR=$out/$k-$r VM_KERNEL=$k VM_TIMEOUT=${VM_TIMEOUT:-1800} \
			"$top/kernel/scripts/run-vm.sh" "$build/prod-$k/bzImage" "$build/guest.cpio" \
			"$cmd" > "$out/$k-$r.log" 2>&1 ||
			{ echo "bench: the $k guest failed, see $out/$k-$r.log" >&2; tail -20 "$out/$k-$r.log" >&2; exit 1; }
		grep -v '^BENCH ' "$out/$k-$r.log" | grep -v '^$' | head -20
	done
done

python3 "$top/tests/bench-table.py" "$out" "$top/Documentation/bench.md" \
	"make bench BENCH_ROUNDS=$rounds VM_CPUS=$cpus BENCH_SIZE=$size BENCH_REPS=$reps BENCH_TUNE_REPS=$treps BENCH_FAULTS=$faults BENCH_SPEED=$speed BENCH_RESIZE_GAP=$gap" \
	"$(( $(date +%s) - start ))"

# 5c: appended after the table (bench-table.py writes the file whole)
[ "${BENCH_HOST:-1}" = 1 ] && { echo; cat "$out/report-memory.md"; } >> "$top/Documentation/bench.md"

# 11: deterministic cost, its own section appended to the table
if [ "${BENCH_ICOUNT:-1}" != 0 ]; then
	"$top/tests/bench-icount.sh" || exit 1
	cat "$out/icount.md" >> "$top/Documentation/bench.md"
fi

# 12: the per-fault memtype lookup path, its own section appended too
[ "${BENCH_LOOKUP:-1}" = 0 ] || { "$top/tests/bench-lookup.sh" && cat "$out/lookup.md" >> "$top/Documentation/bench.md"; } || exit 1

# 13: tune on programs nobody here wrote, appended too
[ "${BENCH_PROGRAMS:-1}" = 0 ] || { "$top/tests/bench-programs.sh" && cat "$out/programs.md" >> "$top/Documentation/bench.md"; } || exit 1

# 14: what recording costs, summary against trio (the production-like
# kernels section 11 built), its own section appended too
[ "${BENCH_SUMMARY:-1}" = 0 ] || { "$top/tests/bench-summary.sh" && cat "$out/summary.md" >> "$top/Documentation/bench.md"; } || exit 1

# 15: what an always-on watch costs on this host over BENCH_WATCH_MIN
# minutes (60) at -i 5: RSS after the first window against the end, CPU
# per window (tools/faulttune/tests/watch-cost.sh); BENCH_WATCH_MIN=0
# leaves it out
if [ "${BENCH_WATCH_MIN:-60}" != 0 ]; then
	make -s -C "$top/tools/faulttune" faulttune || exit 1
	"$top/tools/faulttune/tests/watch-cost.sh" "$top/tools/faulttune/faulttune" \
		"${BENCH_WATCH_MIN:-60}" 5 > "$out/watch-cost.log" || exit 1
	{
		echo
		echo "## 15. faulttune watch: memory and CPU over ${BENCH_WATCH_MIN:-60} minutes"
		echo
		echo "\`tools/faulttune/tests/watch-cost.sh ./faulttune ${BENCH_WATCH_MIN:-60} 5\` on the host"
		echo "(its own kernel: the fallback when it has no faulttune events). Goal: RSS at the"
		echo "end within 10% of RSS after the first windows."
		echo
		echo "    $(tail -n 1 "$out/watch-cost.log")"
	} >> "$top/Documentation/bench.md"
fi

# 16: the stall a resize imposes, beside long holds (issue 21), its own
# section appended too
[ "${BENCH_RESIZE:-1}" = 0 ] || { "$top/tests/bench-resize.sh" > /dev/null &&
	{ echo; cat "$out/resize-stall.md"; } >> "$top/Documentation/bench.md"; } || exit 1

# 17: what a recorder costs the rest of the machine, a pipe program that
# never touches hugetlb (issue 38); fails make bench when over its goal
[ "${BENCH_MACHINE:-1}" = 0 ] || { "$top/tests/bench-machine.sh" > /dev/null &&
	cat "$build/bench/machine.md" >> "$top/Documentation/bench.md"; } || exit 1

# 18: what one kprobe event costs, part by part (issue 38)
[ "${BENCH_PROBE:-1}" = 0 ] || { "$top/tests/bench-probe-cost.sh" > /dev/null &&
	cat "$build/bench/probe-cost.md" >> "$top/Documentation/bench.md"; } || exit 1
