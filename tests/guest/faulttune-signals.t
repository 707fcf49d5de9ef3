#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# SIGINT and SIGTERM in the middle of tune and record restore the knob and
# every tracefs setting and leave no instance; TAP.
T=/sys/kernel/tracing
# FT_KNOB: another knob path (a plain file) to dry-run the script on a host
K=${FT_KNOB:-/sys/kernel/debug/hugetlb/num_fault_mutexes}
W=/tmp/ft-sig.$$
. "$(dirname "$0")/lib.sh"

mkdir -p $W
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
[ -e $K ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -e $K ]
t $? "knob exists"
# tune starts at size 1, where every fault of another page collides, so
# that its pick leaves the saved size and the knob moves
orig=$(cat $K)
echo 1 > $K
saved=$(cat $K)
state() { cat $T/tracing_on $T/set_event $T/buffer_size_kb $T/current_tracer | md5sum; }
before=$(state)

for sig in INT TERM; do
	faulttune tune --knob $K -r 1000 -W 0 -P 3 -B 3 -s 32M >/dev/null 2>$W/err &
	p=$!
	i=0
	while [ $i -lt 30 ] && [ ! -d $T/instances/faulttune-$p ]; do sleep 1; i=$((i + 1)); done
	[ -d $T/instances/faulttune-$p ]
	t $? "tune running with its instance (SIG$sig)"
	# signalled once it has moved the knob: a knob it never moved is
	# left alone, without a word. The value is kept from the read that
	# saw it move: tune's confirmation puts the saved size back between
	# runs, so a second read may find it there again.
	i=0
	moved=$saved
	while [ $i -lt 240 ]; do
		moved=$(cat $K)
		[ "$moved" != "$saved" ] && break
		sleep 0.5
		i=$((i + 1))
	done
	[ "$moved" != "$saved" ]
	t $? "tune moved the knob ($saved -> $moved, after $((i / 2)) s) before SIG$sig"
	kill -$sig $p
	wait $p
	rc=$?
	[ $rc = 130 ]
	t $? "tune exits 130 after SIG$sig (rc=$rc)"
	[ "$(cat $K)" = "$saved" ]
	t $? "SIG$sig: knob restored to $saved"
	[ ! -d $T/instances/faulttune-$p ]
	t $? "SIG$sig: instance removed"
	[ "$(state)" = "$before" ]
	t $? "SIG$sig: top-level tracefs settings unchanged"
	grep -q 'restored to' $W/err
	t $? "SIG$sig: says the knob was restored"
done

faulttune record -o $W/r.dat -- faulttune bench -t 2 -s 16M -r 100000 >/dev/null 2>&1 &
p=$!
sleep 4
kill -INT $p
wait $p
[ ! -d $T/instances/faulttune-$p ]
t $? "record: SIGINT removes the instance"
trace-cmd report $W/r.dat >/dev/null 2>&1
t $? "record: file written after SIGINT is readable by trace-cmd report"
faulttune report $W/r.dat >/dev/null 2>&1
t $? "record: and by faulttune report"

echo "$orig" > $K
rm -rf $W
echo "1..$n"
exit $fail
