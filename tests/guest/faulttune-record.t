#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# faulttune record -> trace-cmd report -> faulttune report agree on event
# counts, on the patched kernel (hugetlb and memtype events); TAP output.
T=/sys/kernel/tracing
W=/tmp/ft-record.$$
. "$(dirname "$0")/lib.sh"
# events of one system as printed by trace-cmd report
tc_count() { trace-cmd report "$1" 2>/dev/null | grep -cE " $2[a-z_]*:"; }

mkdir -p $W
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
[ -d /sys/kernel/debug/hugetlb ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null

[ -d $T/events/hugetlb ] && [ -e $T/events/hugetlb/hugetlb_fault_mutex_acquire_returned ]
t $? "kernel has the hugetlb fault mutex events"
HAVE_MT=0
[ -d $T/events/memtype ] && HAVE_MT=1

before=$(cat $T/tracing_on $T/set_event | md5sum)

# 1. threads workload (collisions) under record
faulttune record -o $W/a.dat -b 4096 -- faulttune bench -t 4 -s 32M -r 2 >$W/a.out 2>$W/a.err
t $? "faulttune record -- faulttune bench exits 0"
trace-cmd report $W/a.dat >/dev/null 2>&1
t $? "trace-cmd report reads the file"
faulttune report --json $W/a.dat >$W/a.json 2>$W/a.rep.err
t $? "faulttune report --json reads the file"
tc=$(tc_count $W/a.dat hugetlb_fault_mutex_)
ft=$(jnum hugetlb $W/a.json)
echo "# hugetlb events: trace-cmd report $tc, faulttune report $ft"
[ -n "$ft" ] && [ "$tc" -gt 0 ] && [ "$tc" = "$ft" ]
t $? "hugetlb event counts agree and are non-zero ($tc / $ft)"
[ "$(jnum lost_events $W/a.json)" = 0 ]
t $? "no lost events with -b 4096"
# one decoder (kbuffer) behind both readers: the same numbers
FAULTTUNE_LIBTRACECMD=1 faulttune report --json $W/a.dat >$W/a.lib.json 2>&1
cmp -s $W/a.json $W/a.lib.json
t $? "the in-place reader and libtracecmd's print the same report"
u=$(( $(jnum start $W/a.json) + $(jnum acquire $W/a.json) + $(jnum release $W/a.json) + $(jnum key_mismatch $W/a.json) ))
[ "$u" = 0 ]
t $? "every start/acquire/release sequence pairs ($u unpaired)"
[ "$(jnum hash_mismatch $W/a.json)" = 0 ]
t $? "bucket == hash & (nbuckets - 1) in every event"
[ "$(jnum jhash_mismatch $W/a.json)" = 0 ]
t $? "hash == jhash2(mapping, index) in every acquisition"
knob=$(cat /sys/kernel/debug/hugetlb/num_fault_mutexes 2>/dev/null)
[ -n "$knob" ] && [ "$(jnum table_size $W/a.json)" = "$knob" ]
t $? "recorded table size equals the knob ($knob)"
acq=$(sed -n 's/.*"hugetlb":{"total":{"name":"all","acquisitions":\([0-9]*\).*/\1/p' $W/a.json)
[ -n "$acq" ] && [ "$acq" -ge 32 ]
t $? "at least one acquisition per faulted page ($acq >= 16 pages x 2 reps)"
trace-cmd report $W/a.dat 2>/dev/null | grep -q 'phase=bench shape=threads'
t $? "bench phase markers are in the file"
faulttune report $W/a.dat >$W/a.txt 2>&1 && grep -q '^what-if' $W/a.txt
t $? "text report has the what-if table"
faulttune report --csv $W/a.dat >$W/a.csv 2>&1 && head -n 1 $W/a.csv | grep -q '^section,name,acquisitions'
t $? "csv report has its header"

# 2. true sharing: contended acquisitions must be classified as sharing
faulttune record -o $W/s.dat -b 4096 -- faulttune bench -w share -t 4 -s 32M -r 2 >/dev/null 2>&1
faulttune report --json $W/s.dat >$W/s.json 2>/dev/null
tc=$(tc_count $W/s.dat hugetlb_fault_mutex_)
[ "$tc" -gt 0 ] && [ "$tc" = "$(jnum hugetlb $W/s.json)" ]
t $? "share workload: counts agree ($tc)"

# 3. memtype workload
if [ $HAVE_MT = 1 ]; then
	faulttune record -o $W/m.dat -b 4096 -- faulttune bench -w memtype -t 2 -i 200 -r 1 >/dev/null 2>$W/m.err
	t $? "record the memtype workload"
	faulttune report --json $W/m.dat >$W/m.json 2>/dev/null
	tc=$(tc_count $W/m.dat memtype_lock_)
	[ "$tc" -gt 0 ] && [ "$tc" = "$(jnum memtype $W/m.json)" ]
	t $? "memtype event counts agree and are non-zero ($tc)"
else
	skip "memtype workload" "no memtype events (X86_PAT off?)"
fi

# 4. a trace-cmd record file is read too
if trace-cmd record -e hugetlb -o $W/tc.dat faulttune bench -t 2 -s 16M -r 1 >/dev/null 2>&1; then
	faulttune report --json $W/tc.dat >$W/tc.json 2>/dev/null
	tc=$(tc_count $W/tc.dat hugetlb_fault_mutex_)
	[ "$tc" -gt 0 ] && [ "$tc" = "$(jnum hugetlb $W/tc.json)" ]
	t $? "faulttune report reads a trace-cmd record file, counts agree ($tc)"
else
	skip "trace-cmd record file" "trace-cmd record failed here"
fi

# 5. nothing left behind
[ -z "$(ls $T/instances | grep '^faulttune-')" ]
t $? "no faulttune instance left"
[ "$(cat $T/tracing_on $T/set_event | md5sum)" = "$before" ]
t $? "top-level tracing_on and set_event unchanged"

rm -rf $W
echo "1..$n"
exit $fail
