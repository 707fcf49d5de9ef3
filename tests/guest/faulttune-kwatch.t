#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# faulttune watch on the kprobe recorder, and what a killed run leaves;
# TAP output.  Boots on its own, with single-threaded TCG (check.sh):
# watch arms its probes for each window and disarms them between
# windows, and each arming rewrites the probed instructions, which QEMU's
# multi-threaded TCG does not always see at once.
#
# On the stock kernel (the kprobe recorder is watch's source there):
#   - two windows beside the share workload, each from the kprobe
#     recorder with acquisitions, the textfile naming the source;
#   - between the windows no kprobe of the machine is armed (the debugfs
#     kprobe list marks every one [DISABLED]) and no probe sits on
#     mutex_unlock() at any time; nothing is left after watch;
#   - kill -9 of watch and of record leave their probes armed or
#     registered; report says so and names faulttune cleanup; cleanup
#     removes them and says what it removed; a second cleanup finds
#     nothing, -q then prints nothing; another tool's probe is left alone.
T=/sys/kernel/tracing
W=/tmp/ft-kwatch.$$
. "$(dirname "$0")/lib.sh"
ours() { grep -c 'faulttune_' $T/dynamic_events; }
# kprobes armed in the kernel now: the list marks a disarmed one ("?"
# when the list cannot be read, which no count below takes for 0)
KL=/sys/kernel/debug/kprobes/list
armed() { if [ -r $KL ]; then grep -vc 'DISABLED' $KL; else echo '?'; fi; }

mkdir -p $W
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
[ -d /sys/kernel/debug/kprobes ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
if [ -d $T/events/hugetlb ] || [ ! -w $T/kprobe_events ]; then
	skip "watch on the kprobe recorder" "needs the stock kernel with kprobe events"
	exit 0
fi
[ -r $KL ]
t $? "the kernel's kprobe list is readable ($KL): what says a probe is armed"
echo 'p:other/mine do_sys_openat2' >> $T/kprobe_events
t $? "a probe of another tool: other/mine (registered, not enabled)"
# the list shows a registered probe, so an empty count below is not a
# list that shows nothing
grep -q 'do_sys_openat2' $KL
t $? "  and the list shows it, marked DISABLED ($(grep do_sys_openat2 $KL | head -1))"
before=$(cat $T/kprobe_events)
[ "$(armed)" = 0 ]
t $? "no kprobe armed before watch ($(armed))"

# ---- two windows, disarmed between them ---------------------------------
mkdir -p $W/prom
faulttune watch -i 8 --window 2 -n 2 --json --textfile $W/prom >$W/w.json 2>$W/w.err &
wp=$!
(while kill -0 $wp 2>/dev/null; do
	faulttune bench -w share -t 2 -s 32M -r 1 >/dev/null 2>&1
done) &
bp=$!
i=0
while [ $i -lt 600 ] && [ ! -s $W/w.json ]; do sleep 0.1; i=$((i + 1)); done
[ -s $W/w.json ]
t $? "watch: the first window's line is out"
probes=$(grep -c "^p:faulttune_$wp/" $T/kprobe_events)
a=$(armed)
grep "^p:faulttune_$wp/unlock " $T/kprobe_events | head -3 | sed 's/^/# /'
[ "$probes" -ge 2 ] && [ "$a" = 0 ]
t $? "watch: between windows its $probes probes are registered, none armed ($a)"
! grep -q "^p:faulttune_$wp/[a-z]* mutex_unlock " $T/kprobe_events
t $? "watch: no probe on mutex_unlock() itself"
wait $wp
rc=$?
wait $bp
sed 's/^/# /' $W/w.err $W/w.json
t $rc "watch -n 2 --json exits 0 (rc=$rc)"
[ "$(grep -c '"variant":"kprobe"' $W/w.json)" = 2 ] &&
	! grep -q '"acquisitions":null' $W/w.json
t $? "watch: both windows from the kprobe recorder, with acquisitions"
grep -q 'faulttune_kernel_info{variant="kprobe"' $W/prom/*.prom
t $? "watch: the Prometheus textfile carries the source"
[ "$(ours)" = 0 ] && [ "$(cat $T/kprobe_events)" = "$before" ] && [ "$(armed)" = 0 ]
t $? "watch: no probe left after it, none armed"

# ---- killed runs, then cleanup --------------------------------------------
faulttune record --source=kprobe -o $W/r.dat -- faulttune bench -w share -t 2 -s 16M -r 1 \
	>/dev/null 2>&1
t $? "a recording for report to read"
faulttune watch -i 60 --window 1 >$W/w1.out 2>&1 &
w=$!
i=0
while [ $i -lt 600 ] && [ ! -s $W/w1.out ]; do sleep 0.1; i=$((i + 1)); done
faulttune record --source=kprobe -o $W/x.dat >/dev/null 2>&1 &
r=$!
i=0
until [ $i -ge 600 ] ||
	[ "$(cat $T/instances/faulttune-$r/events/faulttune_$r/key/enable 2>/dev/null)" = 1 ]; do
	sleep 0.1; i=$((i + 1))
done
kill -KILL $w $r
wait $w $r 2>/dev/null
grep -q "faulttune_$w/unlock" $T/dynamic_events && grep -q "faulttune_$r/unlock" $T/dynamic_events
t $? "kill -9 of watch (between windows) and record leaves their probes behind"
[ "$(armed)" -ge 2 ]
t $? "  the record's still armed ($(armed) kprobes armed)"
faulttune report $W/r.dat >$W/rep.out 2>$W/rep.err
t $? "report still reads a file"
grep -q "kprobe event(s) of killed faulttune runs are still in the kernel (armed ones tax their paths): 'faulttune cleanup' removes them" $W/rep.err
t $? "  and names the leftovers and faulttune cleanup ($(head -1 $W/rep.err))"
faulttune cleanup >$W/c.out 2>$W/c.err
t $? "faulttune cleanup exits 0"
sed 's/^/# /' $W/c.out $W/c.err
grep -q "removed stale kprobe event faulttune_$w/unlock" $W/c.err &&
	grep -q "removed stale kprobe event faulttune_$r/unlock" $W/c.err &&
	grep -q "removed stale instance faulttune-$r" $W/c.err
t $? "  says what it removed: both runs' probes, the record's instance"
n=$(sed -n 's/^faulttune cleanup: \([0-9]*\) left by killed runs removed.*/\1/p' $W/c.out)
[ "${n:-0}" -ge 5 ]
t $? "  and how many (${n:-?}: two instances, two key and two unlock events)"
[ "$(ours)" = 0 ] && [ "$(cat $T/kprobe_events)" = "$before" ] && [ "$(armed)" = 0 ] &&
	[ "$(insts)" = 0 ]
t $? "  nothing of faulttune's left, none armed, other/mine untouched"
faulttune report $W/r.dat >/dev/null 2>$W/rep.err
! grep -q 'killed faulttune runs' $W/rep.err
t $? "report says nothing of leftovers once there are none"
faulttune cleanup >$W/c.out 2>$W/c.err
grep -q '^faulttune cleanup: 0 left by killed runs removed' $W/c.out && [ ! -s $W/c.err ]
t $? "a second cleanup finds nothing, and says so"
[ -z "$(faulttune cleanup -q 2>&1)" ]
t $? "cleanup -q prints nothing when there is nothing"
faulttune cleanup extra >/dev/null 2>$W/c.err
[ $? = 2 ] && [ "$(wc -l < $W/c.err)" = 1 ] && grep -q "unexpected argument 'extra'" $W/c.err
t $? "cleanup with an argument: exit 2, one line ($(cat $W/c.err))"
echo '-:other/mine' >> $T/kprobe_events
rm -rf $W
exit $fail
