#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test: the kernel's hugetlb selftests with a resize storm beside them
# (issue 3), once with the hugetlb and memtype events off and once with all
# of them on (issue 4).  Each test must pass and give the huge page pool
# back; the storm must have resized the table while they ran.  ft_race
# (same-page first-touch races on a file punched every round) fails on any
# overlap of two holders of one page.  The events-off pass is the one where
# lockdep sees every lock edge (the traced path's trylock hides them).  The
# host checks the guest log for lockdep, WARNING and BUG lines.
KNOB=/sys/kernel/debug/hugetlb/num_fault_mutexes
T=/sys/kernel/tracing
. "$(dirname "$0")/lib.sh"

if [ ! -w $KNOB ]; then
	echo "1..1"
	if [ "$FT_KERNEL" = patched ]; then
		echo "not ok 1 - resize storm: missing on the patched kernel (no $KNOB)"
		exit 1
	fi
	echo "ok 1 - resize storm # SKIP no $KNOB (kernel without the faulttune patches)"
	exit 0
fi
orig=$(cat $KNOB)
STOP=/tmp/kernel-storm.stop.$$
COUNT=/tmp/kernel-storm.count.$$

storm() {
	c=0
	while [ ! -e $STOP ]; do
		for v in 1 4096 2 64 16 1024 256 8 32; do
			echo $v > $KNOB && c=$((c + 1))
		done
		echo $c > $COUNT
	done
}


# run NAME TIMEOUT CMD...
run() {
	name=$1 limit=$2
	shift 2
	if ! command -v "$1" > /dev/null; then
		skip "$name ($mode)" "$1 not in the guest"
		return
	fi
	before=$(pool)
	timeout "$limit" "$@" > /tmp/kernel-storm.log 2>&1
	rc=$?
	after=$(pool_after "$before")
	if [ $rc -eq 0 ]; then
		ok "$name with a resize storm ($mode)"
	elif [ $rc -eq 4 ]; then
		skip "$name with a resize storm ($mode)" "$(grep -i skip /tmp/kernel-storm.log | tail -1 | cut -c1-80)"
	else
		nok "$name with a resize storm ($mode): exit $rc"
		tail -15 /tmp/kernel-storm.log | sed 's/^/# /'
	fi
	if [ "$before" = "$after" ]; then
		ok "$name ($mode): pool restored"
	else
		nok "$name ($mode): pool restored (was $before, now $after)"
	fi
}

# did_work STRESSOR: the stress-ng run just made reported bogo ops > 0
did_work() {
	ops=$(sed -n "s/.*\] $1  *\([0-9][0-9]*\) .*/\1/p" /tmp/kernel-storm.log | tail -1)
	if [ "${ops:-0}" -gt 0 ]; then
		ok "stress-ng-$1 did work ($mode, $ops bogo ops)"
	else
		nok "stress-ng-$1 did work ($mode, bogo ops: ${ops:-no metrics line})"
	fi
}

for mode in events-off events-on; do
	if [ $mode = events-on ]; then
		if [ -d $T/events/hugetlb ]; then
			echo 1 > $T/events/hugetlb/enable
			[ -d $T/events/memtype ] && echo 1 > $T/events/memtype/enable
			# consumed as they come, as a recorder would
			cat $T/trace_pipe > /dev/null &
			reader=$!
		else
			skip "selftests with every event on" "no hugetlb events"
			continue
		fi
	fi
	rm -f $STOP $COUNT
	storm &
	sp=$!
	run hugepage-mmap 300 hugepage-mmap
	run map_hugetlb 300 map_hugetlb
	run hugetlb-madvise 300 hugetlb-madvise
	run hugetlb_dio 300 hugetlb_dio
	run uffd-stress-hugetlb 300 uffd-stress hugetlb 64 16
	run uffd-stress-hugetlb-private 300 uffd-stress hugetlb-private 64 16
	# not round_trip and bad_input: they own the knob
	run hugetlb_fault_mutexes 600 hugetlb_fault_mutexes -t resize_storm -t resize_with_parked_userfault
	# peer workloads (peers.md): hugetlb faults and memtype_lock users
	run stress-ng-mmaphuge 120 stress-ng --mmaphuge 4 --mmaphuge-mmaps 16 --verify --timeout 10s --metrics-brief
	did_work mmaphuge
	run stress-ng-pci 120 stress-ng --pci 4 --verify --timeout 10s --metrics-brief
	did_work pci
	# same-page first touches, punched every round: an overlap is a SIGBUS
	run ft_race 600 ft_race 4 4 300
	run ft_hugetlb-mix 300 sh -c 'ft_hugetlb fault 16 && ft_hugetlb punch 8 && ft_hugetlb uffd 4 && ft_hugetlb contend 20 && ft_hugetlb wp 4'
	touch $STOP
	wait $sp
	c=$(cat $COUNT 2>/dev/null || echo 0)
	if [ "$c" -gt 0 ]; then ok "storm made $c resizes ($mode)"; else nok "storm made no resize ($mode)"; fi
	if [ $mode = events-on ]; then
		echo 0 > $T/events/hugetlb/enable
		[ -d $T/events/memtype ] && echo 0 > $T/events/memtype/enable
		kill $reader
		wait $reader 2>/dev/null
		# the ring buffer's own count of what trace_pipe handed out
		read=$(cat $T/per_cpu/cpu*/stats 2>/dev/null |
			awk '/^read events:/ { n += $3 } END { print n + 0 }')
		if [ "$read" -gt 0 ]; then ok "events flowed to the reader ($mode, $read events read)"
		else nok "events flowed to the reader ($mode, none read)"; fi
		echo > $T/trace
	fi
done
rm -f $STOP $COUNT /tmp/kernel-storm.log
echo $orig > $KNOB
echo "1..$n"
exit $fail
