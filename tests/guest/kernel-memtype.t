#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test: the x86 PAT memtype tree as pat_memtype_list shows it, and the
# memtype events of its reserve, free and list users (issue 14).  TAP.
#
# 1. pat_memtype_list lists what the tree holds, on any kernel: every line
#    parses, N mmaps of one page of a PCI memory BAR (ft_memhold) add
#    exactly N entries [BAR, BAR + 4 KiB) uncached-minus to the list, and
#    their exit takes exactly those away.  The list before them is printed
#    as "# pat-boot: ..." lines, which check.sh compares between the stock
#    and the patched kernel.
# 2. With the memtype events (patched kernels): reserve, free and list
#    fire with sane fields: the BAR page's range for reserve and free, 0/0
#    for list, contended 0 or 1, and every start_locking acquired and
#    released with the same op.
# 3. memtype_lock's read side: two pat_memtype_list readers walking a tree
#    of 2000 entries, with no reserve or free running, never find the lock
#    contended (with memtype_lock a spinlock they do: the test fails on
#    make kernel-norw); with a writer beside them, contention is still seen.
#
# Needs: root, debugfs, a PCI memory BAR of 64 KiB or more, ft_memhold and
# ft_memtype (tests/guest/progs) in PATH.
T=/sys/kernel/tracing
[ -d $T/events ] || T=/sys/kernel/debug/tracing
L=/sys/kernel/debug/x86/pat_memtype_list
W=/tmp/ft-memtype.$$
. "$(dirname "$0")/lib.sh"
done_() { echo "1..$n"; exit $fail; }

mkdir -p $W
holder=
I=
cleanup() {
	[ -n "$holder" ] && kill $holder 2>/dev/null
	if [ -n "$I" ] && [ -d "$I" ]; then
		echo 0 > $I/tracing_on
		echo 0 > $I/events/enable
		rmdir $I
	fi
	rm -rf $W
}
trap cleanup EXIT

[ -d /sys/kernel/debug/x86 ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
if [ ! -r $L ]; then
	skip "pat_memtype_list" "no $L (CONFIG_X86_PAT or CONFIG_DEBUG_FS off, or nopat)"
	done_
fi

# the first memory BAR (IORESOURCE_MEM) of at least 64 KiB, and its start
mb=$(mem_bar)
res=${mb% *} bar=${mb#* }
if [ -z "$res" ]; then
	skip "memtype tree on a PCI BAR" "no PCI memory BAR of 64 KiB or more"
	done_
fi
# the entry one mmap of the BAR's first page adds, as the list prints it
S=$(printf '0x%016x' $((bar)))
E=$(printf '0x%016x' $((bar + 4096)))
entry="PAT: [mem $S-$E] uncached-minus"
echo "# BAR $res at $S"

# hold N one-page mappings of the BAR until killed
hold() { # N
	rm -f $W/held
	ft_memhold $res $1 $W/held &
	holder=$!
	i=0
	while [ ! -e $W/held ] && [ $i -lt 600 ] && kill -0 $holder 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -e $W/held ]
}
release() {
	kill $holder 2>/dev/null
	wait $holder 2>/dev/null
	holder=
}

# --- 1. the list lists what the tree holds ------------------------------------
cat $L > $W/boot.raw
sed 1d $W/boot.raw | sort > $W/boot
sed 's/^/# pat-boot: /' $W/boot
bad=$(sed 1d $W/boot.raw | grep -Evc '^PAT: \[mem 0x[0-9a-f]{16}-0x[0-9a-f]{16}\] (write-back|uncached|uncached-minus|write-combining|write-through|write-protected)$')
check "pat_memtype_list: a header and $(wc -l < $W/boot) entries, every one a range and a type ($bad not)" \
	[ "$(head -1 $W/boot.raw)" = "PAT memtype list:" -a "$bad" = 0 ]
bad=$(sed 's/^PAT: \[mem \(0x[0-9a-f]*\)-\(0x[0-9a-f]*\)\].*/\1 \2/' $W/boot |
	while read -r s e; do [ $((s)) -lt $((e)) ] || echo x; done | wc -l)
check "pat_memtype_list: every entry starts below its end ($bad do not)" [ "$bad" = 0 ]

N=64
if hold $N; then
	ok "ft_memhold: $N mmaps of the first page of $res"
	sed 1d $L | sort > $W/grown
	{ cat $W/boot; i=0; while [ $i -lt $N ]; do echo "$entry"; i=$((i + 1)); done; } |
		sort > $W/want
	if cmp -s $W/want $W/grown; then
		ok "the list is the boot list plus $N x '$entry'"
	else
		nok "the list is the boot list plus $N x '$entry'"
		diff $W/want $W/grown | head -20 | sed 's/^/# /'
	fi
	release
	sed 1d $L | sort > $W/after
	if cmp -s $W/boot $W/after; then
		ok "after their munmap the list is the boot list again"
	else
		nok "after their munmap the list is the boot list again"
		diff $W/boot $W/after | head -20 | sed 's/^/# /'
	fi
else
	nok "ft_memhold: $N mmaps of the first page of $res"
	release
fi

# --- 2. the reserve, free and list events --------------------------------------
if [ ! -d $T/events/memtype ]; then
	skip "memtype events" "kernel without the faulttune patches (no $T/events/memtype)"
	done_
fi
I=$T/instances/ft_kernel_memtype_$$
mkdir $I || { nok "create tracefs instance $I"; done_; }
echo 16384 > $I/buffer_size_kb
echo 0 > $I/tracing_on
echo 1 > $I/events/memtype/enable

N=8
echo > $I/trace
echo 1 > $I/tracing_on
hold $N
entries=$(sed 1d $L | wc -l)
release
echo 0 > $I/tracing_on
cat $I/trace > $W/tr
rng="start=$(printf '0x%x' $((bar))) end=$(printf '0x%x' $((bar + 4096)))"
for op in reserve free; do
	c=$(grep -c "memtype_lock_acquire_returned: op=$op $rng contended=[01] wait_ns=[0-9]*$" $W/tr)
	check "$N mmaps and their exit: $N op=$op acquisitions on the BAR page, $rng (got $c)" [ "$c" = $N ]
done
c=$(grep -c "memtype_lock_acquire_returned: op=list start=0x0 end=0x0 contended=[01] wait_ns=[0-9]*$" $W/tr)
a=$(grep -c "memtype_lock_acquire_returned: op=list " $W/tr)
check "reading $entries entries: at least as many op=list acquisitions, each start=0x0 end=0x0 ($c of $a)" \
	[ "$c" = "$a" -a "$c" -ge "$entries" ]
bad=$(grep "memtype_lock_" $W/tr | grep -Evc 'memtype_lock_[a-z_]*: op=(reserve|free|lookup|list) ')
check "every memtype event decodes its op ($bad do not)" [ "$bad" = 0 ]
for op in reserve free list; do
	s=$(grep -c "memtype_lock_start_locking: op=$op " $W/tr)
	a=$(grep -c "memtype_lock_acquire_returned: op=$op " $W/tr)
	r=$(grep -c "memtype_lock_released: op=$op .* hold_ns=[0-9]*$" $W/tr)
	check "op=$op: start_locking ($s), acquire_returned ($a) and released ($r) pair up" \
		[ "$s" = "$a" -a "$a" = "$r" -a "$a" -gt 0 ]
done

# --- 3. the read side ---------------------------------------------------------
echo 0 > $I/events/memtype/enable
echo 1 > $I/events/memtype/memtype_lock_acquire_returned/enable
readers() { # ROUNDS: two readers of the whole list at once
	pids=
	for r in 1 2; do
		(i=0; while [ $i -lt $1 ]; do cat $L > /dev/null; i=$((i + 1)); done) &
		pids="$pids $!"
	done
	wait $pids
}
if hold 2000; then
	echo > $I/trace
	echo 1 > $I/tracing_on
	readers 2
	echo 0 > $I/tracing_on
	cat $I/trace > $W/tr
	a=$(grep -c "memtype_lock_acquire_returned: op=list " $W/tr)
	c=$(grep -c "memtype_lock_acquire_returned: op=list .* contended=1 " $W/tr)
	w=$(grep -Ec "memtype_lock_acquire_returned: op=(reserve|free) " $W/tr)
	if [ "$w" != 0 ]; then
		skip "two readers of 2000 entries, no writer: no op=list contended" "$w reserve/free ran meanwhile"
	else
		check "two readers of 2000 entries, no writer: no op=list contended ($c of $a)" \
			[ "$a" -ge 4000 -a "$c" = 0 ]
	fi

	echo > $I/trace
	echo 1 > $I/tracing_on
	ft_memtype $res 100 &
	writer=$!
	readers 1
	wait $writer
	echo 0 > $I/tracing_on
	cat $I/trace > $W/tr
	c=$(grep -Ec "memtype_lock_acquire_returned: op=(list|reserve|free) .* contended=1 " $W/tr)
	check "readers beside a reserve/free writer: contention seen ($c contended)" [ "$c" -ge 1 ]
	grep -E "memtype_lock_acquire_returned: .* contended=1 " $W/tr | head -3 | sed 's/^/# /'
	release
else
	nok "ft_memhold: 2000 mmaps of the first page of $res"
	release
fi
done_
