#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test: /sys/kernel/debug/hugetlb/num_fault_mutexes (issue 3).
# Bad-input table, round trip, -ENOMEM with failslab, the resize event,
# the boot parameter (from /proc/cmdline when given), writes under signals.
KNOB=/sys/kernel/debug/hugetlb/num_fault_mutexes
T=/sys/kernel/tracing
. "$(dirname "$0")/lib.sh"

[ -e /sys/kernel/debug/hugetlb ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
if [ ! -e $KNOB ]; then
	echo "1..1"
	if [ "$FT_KERNEL" = patched ]; then
		echo "not ok 1 - num_fault_mutexes: missing on the patched kernel (no $KNOB)"
		exit 1
	fi
	echo "ok 1 - num_fault_mutexes # SKIP no $KNOB (kernel without the faulttune patches or CONFIG_DEBUG_FS)"
	exit 0
fi

orig=$(cat $KNOB)
check "mode is 0644" [ "$(stat -c %a $KNOB)" = 644 ]
check "reads a power of two ($orig)" [ $(( orig & (orig - 1) )) -eq 0 -a "$orig" -ge 1 ]
check "read ends in a newline" [ "$(tail -c 1 $KNOB | od -An -tx1 | tr -d ' ')" = 0a ]

# --- boot parameter -----------------------------------------------------------
bp=$(sed -n 's/.*hugetlb_fault_mutexes=\([^ ]*\).*/\1/p' /proc/cmdline)
if [ -n "$bp" ]; then
	# the next power of two of a decimal number in [1, 65536] (the
	# number itself when it is one), or nothing: what the kernel takes
	up=
	case "$bp" in
	''|0*|*[!0-9]*) ;;
	*) if [ ${#bp} -le 5 ] && [ "$bp" -le 65536 ]; then
		up=1
		while [ $up -lt "$bp" ]; do up=$((up * 2)); done
	   fi;;
	esac
	if [ "$up" = "$bp" ]; then
		check "boot parameter hugetlb_fault_mutexes=$bp sets the size" [ "$orig" = "$bp" ]
	elif [ -n "$up" ]; then
		check "boot parameter hugetlb_fault_mutexes=$bp is rounded up to $up (got $orig)" [ "$orig" = "$up" ]
		check "boot parameter hugetlb_fault_mutexes=$bp: dmesg says it was rounded up to $up" \
			sh -c "dmesg | grep -q 'HugeTLB: hugetlb_fault_mutexes=$bp rounded up to $up, a power of two'"
	else
		check "bad boot parameter hugetlb_fault_mutexes=$bp: a clear dmesg line" \
			sh -c "dmesg | grep -q 'HugeTLB: hugetlb_fault_mutexes=.* is not a number in \\[1, 65536\\], using the default'"
		check "bad boot parameter: default size ($orig)" [ $(( orig & (orig - 1) )) -eq 0 ]
	fi
else
	skip "boot parameter hugetlb_fault_mutexes=" "not on this kernel command line"
fi

# --- round trip -------------------------------------------------------------------
v=1
bad=0
while [ $v -le 65536 ]; do
	echo $v > $KNOB 2>/dev/null && [ "$(cat $KNOB)" = $v ] || bad=$((bad + 1))
	v=$((v * 2))
done
check "every power of two 1..65536 reads back" [ $bad -eq 0 ]
check "no trailing newline accepted" sh -c "[ \"\$(ft_write $KNOB 128)\" = 'ok 3' ] && [ \$(cat $KNOB) = 128 ]"

# --- bad input table ----------------------------------------------------------------
echo 32 > $KNOB
badw() { # description, string for ft_write (\n: newline)
	r=$(ft_write $KNOB "$2")
	v=$(cat $KNOB)
	if [ "$r" = EINVAL ] && [ "$v" = 32 ]; then
		ok "write $1: EINVAL, unchanged"
	else
		nok "write $1: got '$r', size now $v (want EINVAL, 32)"
	fi
}
badw '"0"' '0\n'
badw '"3"' '3\n'
badw '"6"' '6\n'
badw '"-1"' '-1\n'
badw '"2147483648" (2^31)' '2147483648\n'
badw '"18446744073709551616" (2^64)' '18446744073709551616\n'
badw '"99999999999999999999"' '99999999999999999999\n'
badw '"131072" (above the maximum)' '131072\n'
badw '"abc"' 'abc\n'
badw '"\\n" (empty line)' '\n'
badw '"16abc"' '16abc\n'
badw '"0x10"' '0x10\n'
badw '"+16"' '+16\n'
badw '" 16"' ' 16\n'
badw '"16 "' '16 \n'
badw '"016"' '016\n'
badw '"16\\n\\n"' '16\n\n'
badw '"16\\0"' '16\0'
badw '"" (a zero-length write)' ''
big=$(head -c 4096 /dev/zero | tr '\0' '1')
badw 'a 4 KiB string' "$big"
printf '' > $KNOB 2>/dev/null
check "an empty write leaves the size unchanged" [ "$(cat $KNOB)" = 32 ]
rm -f /tmp/err.$$

# --- resize event --------------------------------------------------------------------
E=$T/events/hugetlb/hugetlb_fault_mutex_resize
if [ -d $E ]; then
	I=$T/instances/ft_kernel_knob_$$
	mkdir $I
	echo 1 > $I/events/hugetlb/hugetlb_fault_mutex_resize/enable
	echo 1 > $I/tracing_on
	echo 256 > $KNOB
	echo 256 > $KNOB
	echo 0 > $I/tracing_on
	c=$(grep -c "hugetlb_fault_mutex_resize: old_nbuckets=32 new_nbuckets=256 duration_ns=[0-9]* result=0" $I/trace)
	check "resize 32 -> 256 traced with result=0" [ "$c" -eq 1 ]
	grep hugetlb_fault_mutex_resize $I/trace | sed 's/^/# /'
	echo 0 > $I/events/hugetlb/hugetlb_fault_mutex_resize/enable
	rmdir $I
else
	skip "resize event" "no hugetlb_fault_mutex_resize event"
fi

# --- -ENOMEM: failslab on the writing process only -------------------------------------
F=/sys/kernel/debug/failslab
P=/sys/kernel/debug/fail_page_alloc
if [ -d $F ] && [ -d $P ] && [ -e /proc/self/make-it-fail ]; then
	echo 64 > $KNOB
	for d in $F $P; do
		echo Y > $d/task-filter
		echo N > $d/ignore-gfp-wait 2>/dev/null
		echo 1 > $d/interval
		echo -1 > $d/times
		echo 0 > $d/verbose
		echo 100 > $d/probability
	done
	echo 0 > $P/min-order 2>/dev/null
	echo N > $P/ignore-gfp-highmem 2>/dev/null
	I=$T/instances/ft_kernel_knob_nomem_$$
	mkdir $I && echo 1 > $I/events/hugetlb/hugetlb_fault_mutex_resize/enable
	# open the knob first: only the resize itself may meet the failures.
	# The shell's error message goes to a page that is already there
	# (written first, opened without truncating): writing to a new one
	# would meet fail_page_alloc too, and the message would be lost.
	printf '%4096s' '' > /tmp/err.$$
	sh -c "exec 3> $KNOB; echo 1 > /proc/self/make-it-fail; echo 4096 >&3" 2<>/tmp/err.$$
	rc=$?
	for d in $F $P; do echo 0 > $d/probability; echo N > $d/task-filter; done
	grep -v '^ *$' /tmp/err.$$ | sed 's/^/# write: /'
	check "allocation failure: the write fails" [ $rc -ne 0 ]
	# what write(2) itself returned, as the shell's echo reports it
	# ("sh: write error: " and strerror(ENOMEM), glibc's or musl's): the
	# event alone would pass if the kernel traced -12 but returned
	# another error, or none
	check "allocation failure: write(2) fails with ENOMEM" \
		grep -Eq 'write error: (Cannot allocate memory|Out of memory)$' /tmp/err.$$
	check "allocation failure: -ENOMEM (the resize event says result=-12)" \
		grep -q "old_nbuckets=64 new_nbuckets=4096 duration_ns=[0-9]* result=-12" $I/trace
	grep hugetlb_fault_mutex_resize $I/trace | sed 's/^/# /'
	echo 0 > $I/events/hugetlb/hugetlb_fault_mutex_resize/enable
	rmdir $I
	check "allocation failure: the old table (64) stays" [ "$(cat $KNOB)" = 64 ]
	check "after the failure a resize works again" sh -c "echo 128 > $KNOB && [ \$(cat $KNOB) = 128 ]"
	rm -f /tmp/err.$$
else
	skip "-ENOMEM with fault injection" "no failslab/fail_page_alloc (CONFIG_FAULT_INJECTION_DEBUG_FS)"
fi

# --- a fault parked in userfaultfd does not block a resize ------------------------------
if command -v ft_hugetlb > /dev/null; then
	r=$(ft_hugetlb park $KNOB 512 2>&1)
	check "resize while a fault waits in userfaultfd ($r)" [ $? -eq 0 ]
	check "  ... and the size changed" [ "$(cat $KNOB)" = 512 ]
else
	skip "resize while a fault waits in userfaultfd" "ft_hugetlb not in PATH"
fi

# --- resizes while faulting --------------------------------------------------------------
if command -v ft_hugetlb > /dev/null; then
	# the resizer counts its failed writes: each is a valid size, and
	# the table is kvmalloc()ed, so none may fail
	(f=0; for i in 1 2 3 4 5 6 7 8 9 10; do for v in 1 4096 2 64 16 1024; do
		echo $v > $KNOB || f=$((f + 1)); done; done; exit $f) &
	rp=$!
	r=0
	for i in 1 2 3 4 5; do
		ft_hugetlb fault 16 || r=1
		ft_hugetlb punch 4 || r=1
		ft_hugetlb uffd 2 || r=1
		ft_hugetlb fallocate 2 || r=1
		[ -e /dev/udmabuf ] && { ft_hugetlb memfd 2 || r=1; }
	done
	wait $rp
	rf=$?
	check "faults, fallocate, punch, udmabuf and UFFDIO_COPY during 60 resizes succeed" [ $r -eq 0 ]
	check "  ... and every one of the 60 resizes beside them succeeds ($rf failed)" [ $rf -eq 0 ]
else
	skip "faults during resizes" "ft_hugetlb not in PATH"
fi

# --- exclusion across resizes, read back from the trace events ---------------------------
if command -v ft_hugetlb > /dev/null && [ -d $T/events/hugetlb ]; then
	I=$T/instances/ft_kernel_knob_excl_$$
	mkdir $I
	echo global > $I/trace_clock
	echo 16384 > $I/buffer_size_kb
	for e in start_locking acquire_returned released resize; do
		echo 1 > $I/events/hugetlb/hugetlb_fault_mutex_$e/enable
	done
	(for i in 1 2 3 4 5 6 7 8; do for v in 1 2 4096 8 32 1; do echo $v > $KNOB; done; done) &
	rp=$!
	r=0
	for i in 1 2 3 4; do
		ft_hugetlb contend 10 || r=1
		ft_hugetlb fault 8 || r=1
		ft_hugetlb uffd 2 || r=1
	done
	wait $rp
	echo 0 > $I/tracing_on
	check "same-page threads during resizes succeed" [ $r -eq 0 ]
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
		} else
			start++
	}
	/hugetlb_fault_mutex_resize:/ { resizes++ }
	END { printf "%d %d %d %d %d %d\n", start, acq, rel, over + 0, unpaired + 0, resizes }' \
		$I/trace > /tmp/excl.$$
	read st ac rl ov up rs < /tmp/excl.$$
	check "trace: $ac acquisitions over $rs resizes, no two holders of one page overlap ($ov)" \
		[ "$ac" -gt 0 -a "$rs" -gt 0 -a "$ov" -eq 0 ]
	check "trace: one start ($st), acquire ($ac) and release ($rl) per acquisition, none unpaired ($up)" \
		[ "$st" -eq "$ac" -a "$ac" -eq "$rl" -a "$up" -eq 0 ]
	grep -c "contended=1" $I/trace | sed 's/^/# contended acquisitions: /'
	for e in start_locking acquire_returned released resize; do
		echo 0 > $I/events/hugetlb/hugetlb_fault_mutex_$e/enable
	done
	rmdir $I
	rm -f /tmp/excl.$$
else
	skip "exclusion across resizes from the trace" "no ft_hugetlb or no hugetlb events"
fi

# --- signals: waiting for another resize is interruptible ---------------------------
# A child of ft_knobsig resizes 65536 <-> 32768 (slow to set up with lock
# debugging) so that the writes under test wait for the resize mutex.
if command -v ft_knobsig > /dev/null; then
	kv() { echo "$1" | sed -n "s/.* $2=\([0-9]*\).*/\1/p; s/^$2=\([0-9]*\).*/\1/p" | head -1; }
	r=$(ft_knobsig $KNOB eintr 8); rc=$?
	echo "$r" | sed 's/^/# eintr: /'
	check "SIGALRM storm without SA_RESTART: every write succeeds or fails with EINTR, the size is always one a writer set" \
		[ $rc -eq 0 ]
	check "  ... a write waiting for another resize is interrupted (EINTR $(kv "$r" eintr) times)" \
		[ "$(kv "$r" eintr)" -gt 0 ]
	check "  ... and writes still get through ($(kv "$r" ok) succeeded)" [ "$(kv "$r" ok)" -gt 0 ]
	r=$(ft_knobsig $KNOB restart 6); rc=$?
	echo "$r" | sed 's/^/# restart: /'
	check "SIGALRM storm with SA_RESTART: every write succeeds (restarted), no EINTR" \
		[ $rc -eq 0 -a "$(kv "$r" eintr)" -eq 0 -a "$(kv "$r" ok)" -gt 0 -a "$(kv "$r" signals)" -gt 0 ]
	r=$(ft_knobsig $KNOB kill 6); rc=$?
	echo "$r" | sed 's/^/# kill: /'
	check "SIGKILLed writers ($(kv "$r" killed) killed) leave a size some writer set" \
		[ $rc -eq 0 -a "$(kv "$r" killed)" -gt 0 ]
	v=$(cat $KNOB)
	check "after the signal storms the knob reads a valid size ($v)" \
		[ "$v" -ge 1 -a "$v" -le 65536 -a $(( v & (v - 1) )) -eq 0 ]
	check "after the signal storms a resize works" sh -c "echo 64 > $KNOB && [ \$(cat $KNOB) = 64 ]"
else
	skip "resizes under signals" "ft_knobsig not in PATH"
fi

echo $orig > $KNOB
check "size restored to $orig" [ "$(cat $KNOB)" = "$orig" ]
echo "1..$n"
exit $fail
