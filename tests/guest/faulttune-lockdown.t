#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# faulttune on a kernel booted with lockdown=confidentiality
# (tests/check.sh boots the stock kernel so; on any other boot this test
# says it was not booted for it and fails).  That level closes tracefs,
# whose files are then never created, kprobes, /proc/kcore and debugfs:
# nothing can be recorded or resized.  Each command that needs them says
# so in one line, names the way out, exits 1 and leaves nothing behind.
# TAP.
T=/sys/kernel/tracing
L=/sys/kernel/security/lockdown
W=/tmp/ft-lockdown-conf
. "$(dirname "$0")/lib.sh"

echo "TAP version 13"
mkdir -p $W
[ -e $L ] || mount -t securityfs none /sys/kernel/security 2>/dev/null
[ -d /sys/kernel/debug/hugetlb ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
mode=$(cat $L 2>/dev/null)
echo "# lockdown: $mode; cmdline: $(cat /proc/cmdline)"
check "the kernel is in lockdown=confidentiality ($mode)" \
	eval 'echo "$mode" | grep -q "\[confidentiality\]"'
grep -q ' /sys/kernel/tracing tracefs ' /proc/mounts || mount -t tracefs nodev $T 2>/dev/null
check "tracefs is mounted but empty: no events, no kprobe_events" \
	eval '[ ! -e $T/events ] && [ ! -e $T/kprobe_events ]'

# cmd LABEL ARGS...: exit 1, one line naming the level, nothing on stdout
refused() {
	label=$1
	shift
	faulttune "$@" > $W/out 2> $W/err
	rc=$?
	sed 's/^/# /' $W/err
	check "$label: exit 1 (rc=$rc)" [ $rc = 1 ]
	check "$label: one line that names lockdown=confidentiality and the way out" \
		eval '[ "$(wc -l < $W/err)" = 1 ] && grep -q "confidentiality" $W/err &&
		      grep -q "lockdown=integrity or none" $W/err'
	check "$label: nothing on stdout" [ ! -s $W/out ]
}
refused "record" record -o $W/r.dat -- true
check "record: no file written" [ ! -e $W/r.dat ]
refused "record --source=kprobe" record --source=kprobe -o $W/r.dat -- true
refused "tune" tune -r 1 -t 2 -s 8M
refused "watch" watch -n 1 -i 1 --window 1
check "no tracefs instance appeared" eval '[ ! -d $T/instances ] || [ -z "$(ls $T/instances)" ]'

rm -rf $W
echo "1..$n"
exit $fail
