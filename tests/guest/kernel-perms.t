#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# An unprivileged user can neither read nor write num_fault_mutexes, nor
# enable the hugetlb and memtype events, and faulttune says why instead of
# half-working.  Run as root; each check drops to "nobody" with su.

KNOB=/sys/kernel/debug/hugetlb/num_fault_mutexes
T=/sys/kernel/tracing
. "$(dirname "$0")/lib.sh"

echo "TAP version 13"
check "su drops to uid 65534" [ "$(as_nobody 'id -u')" = 65534 ]

orig=$(cat $KNOB)
if as_nobody "cat $KNOB" >/dev/null 2>&1; then nok "nobody cannot read $KNOB"; else ok "nobody cannot read $KNOB"; fi
if as_nobody "echo 1 > $KNOB" 2>/dev/null; then nok "nobody cannot write $KNOB"; else ok "nobody cannot write $KNOB"; fi
check "the table size is unchanged ($orig)" [ "$(cat $KNOB)" = "$orig" ]

for sys in hugetlb memtype; do
	before=$(cat $T/events/$sys/enable)
	if as_nobody "echo 1 > $T/events/$sys/enable" 2>/dev/null; then
		nok "nobody cannot enable the $sys events"
	else
		ok "nobody cannot enable the $sys events"
	fi
	check "the $sys events are as they were ($before)" [ "$(cat $T/events/$sys/enable)" = "$before" ]
done

instances_before=$(ls $T/instances | wc -l)
as_nobody "faulttune record -o /tmp/nobody.dat -- true" > /tmp/perm.out 2>&1
rc=$?
sed 's/^/# /' /tmp/perm.out
check "faulttune record as nobody fails (rc=$rc)" [ $rc != 0 ]
check "faulttune record as nobody says it needs root" grep -qi "root\|permission" /tmp/perm.out
check "faulttune record as nobody prints one line" [ "$(wc -l < /tmp/perm.out)" -le 2 ]
check "no instance left behind" [ "$(ls $T/instances | wc -l)" = "$instances_before" ]

as_nobody "faulttune tune" > /tmp/perm.out 2>&1
rc=$?
sed 's/^/# /' /tmp/perm.out
check "faulttune tune as nobody fails (rc=$rc)" [ $rc != 0 ]
check "faulttune tune as nobody says it needs root" grep -qi "root\|permission" /tmp/perm.out
check "the table size is still $orig" [ "$(cat $KNOB)" = "$orig" ]

echo "1..$n"
exit $fail
