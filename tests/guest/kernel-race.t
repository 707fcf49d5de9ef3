#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test: mutual exclusion of the hugetlb fault mutexes across resizes,
# by two checks that fail when it breaks (make mutation-check shows that
# they do, on deliberately broken kernels):
#
#  - ft_race: processes race first-touch faults on the same pages of a
#    file whose hole is punched every round; two faults on one page that
#    overlap make the second one SIGBUS.  Run with every event off (the
#    fast path, and lockdep sees every lock edge: the traced path's
#    trylock hides them) and with every hugetlb event on (the traced path).
#  - the trace replay: with the events on, no acquire_returned of a
#    (mapping, index) while another holder of it has not released.
#
# Both run beside a writer resizing the table back to back.
# FT_RACE_ROUNDS (default 150) sets the rounds per mode.
KNOB=/sys/kernel/debug/hugetlb/num_fault_mutexes
T=/sys/kernel/tracing
ROUNDS=${FT_RACE_ROUNDS:-150}
. "$(dirname "$0")/lib.sh"

if [ ! -w $KNOB ] || ! command -v ft_race > /dev/null; then
	echo "1..1"
	if [ "$FT_KERNEL" = patched ]; then
		echo "not ok 1 - same-page races across resizes: no $KNOB or no ft_race"
		exit 1
	fi
	echo "ok 1 - same-page races across resizes # SKIP no $KNOB (kernel without the faulttune patches)"
	exit 0
fi
orig=$(cat $KNOB)
STOP=/tmp/kernel-race.stop.$$
COUNT=/tmp/kernel-race.count.$$

resizer() {
	c=0
	while [ ! -e $STOP ]; do
		for v in 1 2048 2 64 16 512 4 32; do
			echo $v > $KNOB && c=$((c + 1))
		done
		echo $c > $COUNT
	done
}

# race MODE: ft_race beside the resizer
race() {
	rm -f $STOP $COUNT
	resizer &
	rp=$!
	out=$(ft_race 4 4 "$ROUNDS" 2>&1)
	rc=$?
	touch $STOP
	wait $rp
	c=$(cat $COUNT 2>/dev/null || echo 0)
	echo "$out" | sed 's/^/# /'
	check "4 processes race first touches of 4 punched pages, $ROUNDS rounds, no SIGBUS ($1)" [ $rc -eq 0 ]
	check "the table was resized meanwhile ($c resizes, $1)" [ "$c" -gt 0 ]
}

race events-off

if [ -d $T/events/hugetlb ]; then
	I=$T/instances/ft_kernel_race_$$
	mkdir $I
	echo global > $I/trace_clock
	echo 32768 > $I/buffer_size_kb
	echo 1 > $I/events/hugetlb/enable
	race events-on
	echo 0 > $I/tracing_on
	echo 0 > $I/events/hugetlb/enable
	# Replay: per (mapping, index), acquire and release must alternate.
	awk '
	/hugetlb_fault_mutex_(start_locking|acquire_returned|released):/ {
		m = ""; x = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^mapping=/) m = $i
			if ($i ~ /^index=/) x = $i
		}
		k = m " " x
		if ($0 ~ /acquire_returned:/) {
			acq++
			if (held[k]) over++
			held[k] = 1
		} else if ($0 ~ /released:/) {
			rel++
			if (!held[k]) unpaired++
			held[k] = 0
		}
	}
	/hugetlb_fault_mutex_resize:/ { resizes++ }
	END { printf "%d %d %d %d %d\n", acq, rel, over + 0, unpaired + 0, resizes }' \
		$I/trace > /tmp/kernel-race.replay.$$
	read ac rl ov up rs < /tmp/kernel-race.replay.$$
	lost=$(sed -n 's/^overrun: //p' $I/per_cpu/cpu*/stats | awk '{ s += $1 } END { print s + 0 }')
	check "trace replay: $ac acquisitions over $rs resizes, no acquire while another holder of the page has not released ($ov)" \
		[ "$ac" -gt 0 -a "$rs" -gt 0 -a "$ov" -eq 0 ]
	check "trace replay: every release follows its acquire ($up unpaired of $rl), no event lost ($lost)" \
		[ "$up" -eq 0 -a "$lost" -eq 0 ]
	rmdir $I
	rm -f /tmp/kernel-race.replay.$$
else
	nok "trace replay: no hugetlb events on the patched kernel"
fi

rm -f $STOP $COUNT
echo $orig > $KNOB
check "size restored to $orig" [ "$(cat $KNOB)" = "$orig" ]
echo "1..$n"
exit $fail
