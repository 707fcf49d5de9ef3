#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The patched kernel booted with lockdown=integrity and
# hugetlb_fault_mutexes=64 (tests/check.sh boots it so; on any other boot
# this test says it was not booted for it and fails): what a user on a
# locked-down machine (Debian's kernels under Secure Boot) gets.
# debugfs refuses every writable file, the knob included, so tune cannot
# resize the table and must say so and what to do instead; tracefs stays
# open under integrity, so record, report and tune --from work, and the
# boot parameter sets the table, which the events' nbuckets show.  TAP.
KNOB=/sys/kernel/debug/hugetlb/num_fault_mutexes
T=/sys/kernel/tracing
L=/sys/kernel/security/lockdown
W=/tmp/ft-lockdown
. "$(dirname "$0")/lib.sh"

echo "TAP version 13"
mkdir -p $W
[ -e $L ] || mount -t securityfs none /sys/kernel/security 2>/dev/null
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
[ -d /sys/kernel/debug/hugetlb ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
mode=$(cat $L 2>/dev/null)
echo "# lockdown: $mode; cmdline: $(cat /proc/cmdline)"
check "the kernel is in lockdown=integrity ($mode)" eval 'echo "$mode" | grep -q "\[integrity\]"'
grep -q 'hugetlb_fault_mutexes=64' /proc/cmdline
check "booted with hugetlb_fault_mutexes=64" [ $? = 0 ]

# debugfs: the knob exists but cannot be opened, not even for reading
check "the knob is there" [ -e $KNOB ]
err=$(cat $KNOB 2>&1)
rc=$?
check "reading the knob is refused: $err" eval '[ $rc != 0 ] && echo "$err" | grep -qi "not permitted"'
(echo 128 > $KNOB) 2>/dev/null
check "writing the knob is refused" [ $? != 0 ]

# tune: one clear error that names lockdown and the way out; nothing left
before=$(cat $T/tracing_on $T/set_event $T/buffer_size_kb | md5sum)
faulttune tune -r 1 -t 2 -s 8M > $W/tune.out 2> $W/tune.err
rc=$?
sed 's/^/# /' $W/tune.err
check "tune exits 1 (rc=$rc)" [ $rc = 1 ]
check "tune names lockdown and its mode" grep -q "locked down (\[integrity\])" $W/tune.err
check "tune names the boot parameter route" \
	eval 'grep -q "tune --from" $W/tune.err && grep -q "hugetlb_fault_mutexes=N" $W/tune.err'
check "tune prints one line" [ "$(wc -l < $W/tune.err)" = 1 ]
check "tune printed nothing on stdout" [ ! -s $W/tune.out ]
check "tune left no instance" [ "$(insts)" = 0 ]
check "top-level tracefs settings unchanged" \
	[ "$(cat $T/tracing_on $T/set_event $T/buffer_size_kb | md5sum)" = "$before" ]

# the route tune names: record (tracefs works under integrity), tune --from
echo 64 > /proc/sys/vm/nr_hugepages
faulttune record -o $W/r.dat -- faulttune bench -w threads -t 2 -s 16M -r 2 \
	> $W/rec.out 2> $W/rec.err
rc=$?
sed 's/^/# /' $W/rec.err | tail -5
check "record under lockdown exits 0 (rc=$rc)" [ $rc = 0 ]
check "record used the faulttune events, not the fallback" \
	eval '! grep -q "falling back" $W/rec.err'
trace-cmd report $W/r.dat > $W/r.txt 2>/dev/null
check "trace-cmd report reads the recording" [ $? = 0 ]
nb=$(grep -o 'nbuckets=[0-9]*' $W/r.txt | sort -u)
echo "# table size in the events: $(echo $nb | tr '\n' ' ')"
check "the boot parameter set the table: every event says nbuckets=64 ($(echo $nb))" \
	[ "$nb" = "nbuckets=64" ]
faulttune report $W/r.dat > $W/rep.out 2> $W/rep.err
check "report reads it (rc=$?)" [ $? = 0 ]
faulttune tune --from $W/r.dat -j > $W/from.json 2> $W/from.err
rc=$?
sed 's/^/# /' $W/from.err | tail -3
check "tune --from under lockdown exits 0 (rc=$rc)" [ $rc = 0 ]
cur=$(grep -o '"current":[0-9]*' $W/from.json | head -1 | cut -d: -f2)
rec=$(grep -o '"recommended":[0-9]*' $W/from.json | head -1 | cut -d: -f2)
echo "# tune --from: current $cur, recommended $rec"
check "tune --from takes the current size from the recording (64, got $cur)" [ "$cur" = 64 ]
check "tune --from recommends a power of two ($rec)" \
	eval '[ -n "$rec" ] && [ $((rec & (rec - 1))) = 0 ] && [ "$rec" -gt 0 ]'

# integrity leaves kprobes and /proc/kcore open: the recorder of
# unpatched kernels works here too (here beside the events it checks)
faulttune record --source=both -o $W/b.dat -- faulttune bench -w threads -t 2 -s 16M -r 1 \
	> $W/b.out 2> $W/b.err
rc=$?
sed 's/^/# /' $W/b.err | tail -3
check "record --source=both (kprobes) under lockdown=integrity exits 0 (rc=$rc)" [ $rc = 0 ]
# one to one, as faulttune-kprobe.t asks without lockdown: >= 99% of the
# events' acquisitions (the summaries) and of the probes'
faulttune report --json $W/b.dat > $W/b.json 2>/dev/null
num() { sed -n "s/.*$1\([0-9][0-9]*\).*/\1/p" $W/b.json | head -n 1; }
s=$(num '"match":{"summaries":')
m=$(num '"matched":')
k=$(num '"keys":[0-9]*,"acquisitions":')
check "its kprobe acquisitions match the events' one to one, >= 99% (${m:-none} of ${s:-none} events, ${k:-none} kprobe)" \
	eval '[ "${s:-0}" -gt 0 ] && [ $((100 * ${m:-0})) -ge $((99 * s)) ] &&
	      [ $((100 * ${m:-0})) -ge $((99 * ${k:-0})) ]'
check "no faulttune kprobe left" eval '! grep -q faulttune_ $T/dynamic_events'
echo 0 > /proc/sys/vm/nr_hugepages

rm -rf $W
echo "1..$n"
exit $fail
