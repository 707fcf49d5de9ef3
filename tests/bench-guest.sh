# SPDX-License-Identifier: GPL-2.0
#
# bench-guest.sh: the guest side of make bench (busybox sh), sent as the
# guest command by tests/bench.sh after a line of variables: KERNEL (stock
# or patched), T (threads = VM_CPUS), SIZE, REPS (bench repetitions),
# TREPS (tune repetitions), ROUND, SPEED (1: make the analysis-speed
# recording), FAULTS (refaults in it), RESIZE_S.  Prints one
# "BENCH <config> <json>" line per measurement, nothing else that starts
# with BENCH.
knob=/sys/kernel/debug/hugetlb/num_fault_mutexes
tlist=$(seq -s, 1 "$T")
b() { faulttune bench -w threads -s "$SIZE" -r "$REPS" --json "$@" | grep '^{'; }
jnum() { grep -o "\"$1\":[0-9][0-9]*" "$2" | head -n 1 | cut -d: -f2; }

if [ "$KERNEL" = stock ]; then
	echo "BENCH stock $(b -t 1,$T)"
	exit 0
fi

[ -e $knob ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
boot=$(cat $knob)

# 8, 9: tune's own sections (issue 11).  8: STABLE default tune runs in
# this boot, their picks.  9: the model against measurement at every
# thread count: one recording of the threads workload per thread count
# at the boot size and at 1 mutex; each is predicted from the 1-thread
# recording (--threads t) and measured (the recording's own collision
# wait, tune --from's "recorded").
tune_sections() {
	i=0
	while [ $i -lt "${STABLE:-0}" ]; do
		i=$((i + 1))
		faulttune tune --json > /tmp/st.json 2>/dev/null &&
			echo "BENCH stable {\"run\":$i,\"recommended\":$(jnum recommended /tmp/st.json),\"wall_s\":$(grep -o '"wall_s":[0-9.]*' /tmp/st.json | head -n 1 | cut -d: -f2)}"
	done
	[ "${THREADS_CHECK:-1}" = 1 ] || return 0
	for size in "$boot" 1; do
		echo "$size" > $knob
		faulttune record -o /tmp/m1.dat -- faulttune bench -w threads -s "$SIZE" -r "$REPS" -t 1 >/dev/null 2>&1
		for t in $(seq 1 "$T"); do
			faulttune record -o /tmp/mt.dat -- faulttune bench -w threads -s "$SIZE" -r "$REPS" -t "$t" >/dev/null 2>&1
			faulttune tune --from /tmp/mt.dat --current "$size" -m "$size" --json > /tmp/mt.own 2>/dev/null
			faulttune tune --from /tmp/m1.dat --current "$size" -m "$size" --threads "$t" --json > /tmp/mt.pred 2>/dev/null
			echo "BENCH threads {\"size\":$size,\"threads\":$t,\"from_1\":$(grep '^{' /tmp/mt.pred),\"own\":$(grep '^{' /tmp/mt.own)}"
		done
	done
	echo "$boot" > $knob
	rm -f /tmp/m1.dat /tmp/mt.dat
}

# 6, 7: tune (the model decides, current vs recommended measured) and the
# full sweep, same repetitions; the order alternates by round so that
# warm-up drift hits both alike
tune_plan() { faulttune tune -t "$T" -r "$TREPS" --json > /tmp/tune.json 2>/tmp/tune.err &&
	echo "BENCH tune $(grep '^{' /tmp/tune.json)"; }
tune_full() { faulttune tune --full -t "$T" -r "$TREPS" --json > /tmp/full.json 2>/tmp/full.err &&
	echo "BENCH tunefull $(grep '^{' /tmp/full.json)"; }
if [ $((ROUND % 2)) = 1 ]; then tune_plan; tune_full; else tune_full; tune_plan; fi
rec=$(jnum recommended /tmp/tune.json)
[ -n "$rec" ] || { echo "bench-guest: tune failed"; cat /tmp/tune.err; rec=$boot; }
tune_sections

# 1, 2: scaling at tune's pick, then one mutex at T threads
echo "$rec" > $knob
echo "BENCH scale {\"size\":$rec,\"bench\":$(b -t "$tlist")}"
echo 1 > $knob
echo "BENCH table1 $(b -t "$T")"
echo "$rec" > $knob
echo "BENCH scaleT {\"size\":$rec,\"bench\":$(b -t "$T")}"

# 3: overhead at the boot size: events off, then every event recorded
echo "$boot" > $knob
echo "BENCH off $(b -t 1,$T)"
faulttune record -o /tmp/b.dat -- faulttune bench -w threads -s "$SIZE" -r "$REPS" \
	--json -t 1,$T > /tmp/on.json && echo "BENCH on $(grep '^{' /tmp/on.json)"
rm -f /tmp/b.dat

# 4: resize cost: T threads fault while a resizer flips rec <-> 2 x rec,
# pausing RESIZE_GAP seconds after each resize so that some faults see no
# resize at all (the baseline)
echo "$rec" > $knob
rm -f /tmp/stop
(while [ ! -e /tmp/stop ]; do
	echo $((rec * 2)) > $knob; sleep "$RESIZE_GAP" 2>/dev/null || sleep 1
	echo "$rec" > $knob; sleep "$RESIZE_GAP" 2>/dev/null || sleep 1
done) &
rz=$!
faulttune record -o /tmp/rs.dat -- faulttune bench -w threads -s "$SIZE" -r "$REPS" \
	--json -t "$T" > /tmp/rs.json
touch /tmp/stop
wait $rz
echo "$boot" > $knob
faulttune report --json /tmp/rs.dat > /tmp/rs.rep &&
	echo "BENCH resize {$(grep -o '"resize":{[^}]*}' /tmp/rs.rep),\"bench\":$(grep '^{' /tmp/rs.json)}"
rm -f /tmp/rs.dat /tmp/rs.rep

# 5: analysis speed on one recording of >= 1,000,000 events
if [ "$SPEED" = 1 ]; then
	faulttune record -o /tmp/big.dat -- bench_refault fault 8 "$FAULTS" 1 > /tmp/big.out 2>&1
	faulttune report --json /tmp/big.dat > /tmp/big.rep
	ev=$(jnum hugetlb /tmp/big.rep)
	lost=$(jnum lost_events /tmp/big.rep)
	sz=$(wc -c < /tmp/big.dat)
	ft=$(bench_refault time faulttune report /tmp/big.dat | sed -n 's/^seconds=//p')
	tc=$(bench_refault time trace-cmd report /tmp/big.dat | sed -n 's/^seconds=//p')
	ft2=$(bench_refault time faulttune report /tmp/big.dat | sed -n 's/^seconds=//p')
	# 10: tune --from on the same recording (goal < 1 s)
	fr=$(bench_refault time faulttune tune --from /tmp/big.dat | sed -n 's/^seconds=//p')
	echo "BENCH fromspeed {\"events\":${ev:-0},\"seconds\":${fr:-0}}"
	echo "BENCH speed {\"events\":${ev:-0},\"lost\":${lost:-0},\"bytes\":$sz,\"faulttune_s\":[${ft:-0},${ft2:-0}],\"tracecmd_s\":${tc:-0}}"
	rm -f /tmp/big.dat
fi
