#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# faulttune in a hostile environment (issue 5): a full disk under
# 'record -o', no tracefs mounted, debugfs not mounted.  Each case must give
# a clear message and a fitting exit status, and leave the knob, the
# top-level tracing settings, the instances and the mounts as it found
# them; TAP.
T=/sys/kernel/tracing
D=/sys/kernel/debug
K=$D/hugetlb/num_fault_mutexes
W=/tmp/ft-env.$$
FULL=/mnt/ft-full
. "$(dirname "$0")/lib.sh"
# failed cleanly: non-zero, not killed by a signal
clean_fail() { [ "$1" -ne 0 ] && [ "$1" -lt 128 ]; }
show() { sed 's/^/# /' "$1" | head -${2:-6}; }
state() { cat $T/tracing_on $T/set_event $T/buffer_size_kb $T/current_tracer $T/trace_clock | md5sum; }
tracefs_mounts() { awk '$3 == "tracefs"' /proc/mounts | wc -l; }
# the debugfs automount of tracefs at $D/tracing, if something walked into it
umount_debug_tracing() { awk '$2 == "'$D/tracing'"' /proc/mounts | grep -q . && umount $D/tracing; }
# as_found LABEL [knob]: no instance of ours left, the top-level tracing
# settings and (with "knob") the knob as they were before the case
as_found() {
	[ "$(insts)" = "$n0" ]
	t $? "$1: no instance left behind"
	[ "$(state)" = "$before" ]
	t $? "$1: top-level tracing settings unchanged"
	[ "${2:-}" != knob ] && return
	[ "$(cat $K)" = "$knob0" ]
	t $? "$1: knob unchanged ($knob0)"
}

mkdir -p $W $FULL
[ -e $K ]
t $? "knob exists"
knob0=$(cat $K)
before=$(state)
n0=$(insts)
# the first memory BAR of at least 64 KiB (std VGA's framebuffer)
bar=
for d in /sys/bus/pci/devices/*; do
	i=0
	while read -r s e f; do
		if [ $((f & 0x200)) -ne 0 ] && [ $((e - s)) -ge 65535 ] && [ -e $d/resource$i ]; then
			bar=$d/resource$i
			break
		fi
		i=$((i + 1))
	done < $d/resource
	[ -n "$bar" ] && break
done
[ -n "$bar" ]
t $? "a PCI memory BAR for the memtype workload (${bar:-none})"

# --- 1. full disk -------------------------------------------------------------
# a: 20 KB holds the capture of a small workload (at most a page per CPU)
#    but not its 28 KB trace.dat
#    (the trace.dat writer fails, the partial file goes);
# b: 512 KB fills with the events of a memtype storm during the capture.
for size in 20k 512k; do
	mount -t tmpfs -o size=$size ft-full $FULL
	if [ $size = 20k ]; then
		faulttune record -o $FULL/r.dat -- ft_hugetlb fault 4 >/dev/null 2>$W/full.err
	else
		timeout 300 faulttune record -o $FULL/r.dat -- ft_memtype "$bar" 3000 >/dev/null 2>$W/full.err
	fi
	rc=$?
	show $W/full.err
	clean_fail $rc
	t $? "full disk ($size): record exits non-zero, no crash (rc=$rc)"
	grep -q "^faulttune: writing $FULL/r.dat[.a-z0-9]*: No space left on device" $W/full.err
	t $? "full disk ($size): one error line names the file and ENOSPC"
	if [ $size = 20k ]; then
		grep -q "^faulttune: writing $FULL/r.dat: No space left on device (partial file removed)" $W/full.err
		t $? "full disk ($size): the trace.dat writer failed and removed its partial file"
	fi
	grep -q "^faulttune: record: $FULL/r.dat not written" $W/full.err
	t $? "full disk ($size): says the trace.dat was not written"
	[ -z "$(ls $FULL)" ]
	t $? "full disk ($size): no partial trace.dat or capture file left ($(ls $FULL | tr '\n' ' '))"
	as_found "full disk ($size)" knob
	umount $FULL
done

# --- 2. no tracefs mounted ----------------------------------------------------
# trace-cmd mounts tracefs when it is missing and a root user takes that for
# granted; faulttune does the same, says so, and unmounts it at exit.
umount_debug_tracing
umount $T
[ "$(tracefs_mounts)" = 0 ]
t $? "no tracefs mounted anywhere before the run"
faulttune record -o $W/nt.dat -- ft_hugetlb fault 4 >/dev/null 2>$W/nt.err
rc=$?
show $W/nt.err
t $rc "no tracefs: record exits 0 (rc=$rc)"
grep -q "^faulttune: tracefs was not mounted: mounted it at $T" $W/nt.err
t $? "no tracefs: says it mounted tracefs at $T"
grep -q "^faulttune: unmounted tracefs from $T" $W/nt.err
t $? "no tracefs: says it unmounted it"
[ "$(tracefs_mounts)" = 0 ]
t $? "no tracefs: tracefs unmounted again after the run"
trace-cmd report $W/nt.dat 2>/dev/null | grep -Eq 'hugetlb_fault_mutex_(hold|acquire_returned):'
t $? "no tracefs: the recording holds hugetlb events (trace-cmd report)"
mount -t tracefs nodev $T
as_found "no tracefs: record" knob
# tune too: its restore (instance, knob) must run before the unmount
umount_debug_tracing
umount $T
faulttune tune -r 1 -W 0 -s 8M >/dev/null 2>$W/ntt.err
rc=$?
show $W/ntt.err
t $rc "no tracefs: tune exits 0 (rc=$rc)"
grep -q "^faulttune: tracefs was not mounted: mounted it at $T" $W/ntt.err &&
	grep -q "^faulttune: unmounted tracefs from $T" $W/ntt.err
t $? "no tracefs: tune says it mounted tracefs and unmounted it"
[ "$(tracefs_mounts)" = 0 ]
t $? "no tracefs: tracefs unmounted again after tune"
mount -t tracefs nodev $T
as_found "no tracefs: tune" knob

# --- 3. debugfs not mounted ---------------------------------------------------
umount_debug_tracing
umount $D
[ ! -e $K ] && ! awk '$3 == "debugfs"' /proc/mounts | grep -q .
t $? "debugfs unmounted, the knob is gone"
faulttune tune -r 1 -W 0 -s 8M >/dev/null 2>$W/nd.err
rc=$?
show $W/nd.err
clean_fail $rc
t $? "no debugfs: tune fails cleanly (rc=$rc)"
[ "$(wc -l < $W/nd.err)" = 1 ] && grep -q "^faulttune: $K not found: debugfs is not mounted (mount -t debugfs none $D)" $W/nd.err
t $? "no debugfs: tune says, in one line, that debugfs is not mounted and how to mount it"
as_found "no debugfs: tune"
faulttune record -o $W/nd.dat -- ft_hugetlb fault 4 >/dev/null 2>$W/ndr.err
rc=$?
show $W/ndr.err
t $rc "no debugfs: record works with tracefs alone (rc=$rc)"
faulttune report $W/nd.dat > $W/nd.txt 2>&1
rc=$?
[ $rc = 0 ] && grep -qi 'fault' $W/nd.txt
t $? "no debugfs: report reads the recording (rc=$rc)"
as_found "no debugfs: record"
awk '$3 == "debugfs"' /proc/mounts | grep -q .
[ $? != 0 ]
t $? "no debugfs: nobody mounted debugfs behind our back"
mount -t debugfs none $D
[ "$(cat $K)" = "$knob0" ]
t $? "no debugfs: knob unchanged ($knob0) once debugfs is back"

rm -rf $W
rmdir $FULL 2>/dev/null
echo "1..$n"
exit $fail
