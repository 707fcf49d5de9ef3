#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# faulttune's lock:contention fallback; TAP output.
#
# On the stock kernel (no faulttune events; check.sh boots it for this
# test): record the share, punch and memtype workloads and check that the
# waits are attributed to the fault mutex with their op, and to
# memtype_lock, that the table is found through kallsyms + /proc/kcore
# and every contended fault mutex is one of its buckets, and that the
# report closes with its verdict.  The kprobe recorder, which record
# chooses on this kernel, is faulttune-kprobe.t's: --source=contention.
#
# On the patched kernel: one trace-cmd recording of the share workload
# with the faulttune events and lock:contention (with stacks) together,
# so that the fallback's fault mutex wait total can be compared with what
# the faulttune events measured for the same faults: same order of
# magnitude (the ratio is printed).
T=/sys/kernel/tracing
W=/tmp/ft-fallback.$$
. "$(dirname "$0")/lib.sh"
# the number after "KEY": in the first match of PATTERN (a sed regex)
after() { sed -n "s/.*$1\([0-9][0-9]*\).*/\1/p" "$2" | head -n 1; }
# fallback op: waits and wait of {"name":"OP","waits":N,"wait_total_ns":M
opwaits() { after "{\"name\":\"$1\",\"waits\":" "$2"; }

mkdir -p $W
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
[ -d $T/events/lock/contention_begin ]
t $? "kernel has lock:contention_begin/end"

if [ ! -d $T/events/hugetlb ]; then
	# ---- the stock kernel ----------------------------------------------
	faulttune record --source=contention -o $W/s.dat -- faulttune bench -w share -t 4 -s 64M -r 2 \
		>$W/s.out 2>$W/s.err
	t $? "record the share workload on the stock kernel"
	grep -q "falling back to lock:contention" $W/s.err
	t $? "record says it falls back to lock:contention"
	trace-cmd report $W/s.dat >$W/s.txt 2>&1
	t $? "trace-cmd report reads the file"
	grep -q '=> hugetlb_fault' $W/s.txt
	t $? "trace-cmd report names the stacks from the file's kallsyms"
	faulttune report -v --top 100000 $W/s.dat >$W/s.rep 2>&1
	t $? "faulttune report -v reads it"
	# the default output: the fallback's verdict, short and narrow
	faulttune report $W/s.dat >$W/s.short 2>/dev/null &&
		[ "$(wc -l < $W/s.short)" -le 20 ] && [ "$(wc -L < $W/s.short)" -le 100 ] &&
		head -n 5 $W/s.short | grep -q '^verdict: [a-z-]*: ' &&
		! grep -q '^contended locks' $W/s.short
	t $? "faulttune report: the verdict in the first 5 lines, $(wc -l < $W/s.short) lines of at most $(wc -L < $W/s.short) columns, no table"
	faulttune report --json --top 100000 $W/s.dat >$W/s.json 2>&1
	t $? "faulttune report --json reads it"
	sed -n '/^lock:contention/,$p' $W/s.rep | head -40 | sed 's/^/# /'

	fw=$(opwaits fault $W/s.json)
	pu=$(opwaits punch $W/s.json)
	all=$(after '"hugetlb_fault_mutex":{"total":{"name":"all","waits":' $W/s.json)
	echo "# share: fault mutex waits $all: fault ${fw:-0}, punch/truncate ${pu:-0}"
	[ "${fw:-0}" -gt 0 ] && [ $((fw + ${pu:-0})) = "$all" ]
	t $? "share: fault mutex waits in faults, and only truncation at teardown besides"
	nb=$(after '"base_from":"kcore","nbuckets":' $W/s.json)
	possible=$(sed 's/.*-//' /sys/devices/system/cpu/possible)
	want=1
	while [ $want -lt $((8 * (possible + 1))) ]; do want=$((want * 2)); done
	[ "$nb" = "$want" ]
	t $? "table found through kallsyms + /proc/kcore: $nb mutexes (roundup_pow_of_two(8 x $((possible + 1)) CPUs) = $want)"
	grep -q '"mutex_bytes_from":"kcore"' $W/s.json
	t $? "sizeof(struct mutex) read from the table's memory (no BTF in this kernel)"
	cls=$(grep -o '"class":"hugetlb_fault_mutex"' $W/s.json | wc -l)
	named=$(grep -o '"lock":"hugetlb_fault_mutex_table\[[0-9]*\]"' $W/s.json | wc -l)
	inside=$(grep -o '"lock":"hugetlb_fault_mutex_table\[[0-9]*\]"' $W/s.json |
		 sed 's/[^0-9]//g' | awk -v n="$nb" '$1 < n' | wc -l)
	[ "$cls" -gt 0 ] && [ "$cls" = "$named" ] && [ "$named" = "$inside" ]
	t $? "every contended fault mutex is a bucket of the table ($named of $cls, $inside < $nb)"
	! grep -E '^hugetlb_fault_mutex_table|^memtype_lock' $W/s.rep | grep -vq ' n/a '
	t $? "hold is n/a on every fault mutex row, never a number"
	grep -q '^on this kernel' $W/s.rep && grep -q '^  verdict: [a-z-]*: ' $W/s.rep
	t $? "the report closes with 'on this kernel' and a verdict"
	grep -q '"on_this_kernel":{.*"verdict":"[a-z-]*","reason":"' $W/s.json
	t $? "--json carries the verdict and its reason"

	faulttune record --source=contention -o $W/p.dat -- faulttune bench -w punch -t 4 -s 64M -r 2 --iterations 20 \
		>$W/p.out 2>$W/p.err
	t $? "record the punch workload"
	faulttune report --json --top 100000 $W/p.dat >$W/p.json 2>&1
	t $? "faulttune report --json reads it"
	fa=$(opwaits fallocate $W/p.json)
	pu=$(opwaits punch $W/p.json)
	fw=$(opwaits fault $W/p.json)
	all=$(after '"hugetlb_fault_mutex":{"total":{"name":"all","waits":' $W/p.json)
	echo "# punch: fault mutex waits $all: fallocate ${fa:-0}, punch ${pu:-0}, fault ${fw:-0}"
	[ "${all:-0}" -gt 0 ] && [ $((${fa:-0} + ${pu:-0})) -gt 0 ] &&
		[ $((${fa:-0} + ${pu:-0} + ${fw:-0})) = "$all" ]
	t $? "punch: fault mutex waits in fallocate and punch (and faults only besides)"

	bar=$(for r in /sys/bus/pci/devices/*/resource[0-9]; do
		[ -e "$r" ] && [ "$(stat -c %s "$r")" -ge 65536 ] && echo "$r"; done | head -n 1)
	if [ -n "$bar" ]; then
		# Contention we can count on: 2000 entries in the memtype tree
		# and a reader of pat_memtype_list walking them under the lock
		# while the workload reserves, looks up and frees.
		ft_memhold "$bar" 2000 $W/held & hold=$!
		i=0
		while [ ! -e $W/held ] && [ $i -lt 600 ] && kill -0 $hold 2>/dev/null; do
			sleep 0.1; i=$((i + 1))
		done
		faulttune record --source=contention -o $W/m.dat -- sh -c "
			(while :; do cat /sys/kernel/debug/x86/pat_memtype_list >/dev/null; done) &
			faulttune bench -w memtype -R $bar -t 4 --iterations 300 -r 1; s=\$?
			kill \$!; exit \$s" >$W/m.out 2>$W/m.err
		t $? "record the memtype workload beside a grown memtype tree"
		kill $hold 2>/dev/null
		wait $hold 2>/dev/null
		faulttune report --json --top 100000 $W/m.dat >$W/m.json 2>&1
		t $? "faulttune report --json reads it"
		faulttune report -v $W/m.dat 2>&1 | sed -n '/^memtype_lock waits/,/^all/p' | sed 's/^/# /'
		mw=$(after '"memtype_lock":{"total":{"name":"all","waits":' $W/m.json)
		ops=$(( $(opwaits reserve $W/m.json) + $(opwaits free $W/m.json) +
			$(opwaits lookup $W/m.json) + $(opwaits list $W/m.json) ))
		[ "${mw:-0}" -gt 0 ] && [ "$ops" = "$mw" ]
		t $? "memtype: memtype_lock waits, each with its op ($ops of ${mw:-0} in reserve/free/lookup/list)"
		grep -q '"lock":"memtype_lock","addr":"0x[0-9a-f]*","type":"spinlock","class":"memtype_lock"' $W/m.json
		t $? "memtype_lock named from kallsyms, a spinlock"
	else
		skip "memtype workload" "no PCI memory BAR of 64 KB or more"
	fi
else
	# ---- the patched kernel: fallback vs the faulttune events ------------
	trace-cmd record --file-version 6 -q -o $W/c.dat -e hugetlb \
		-e lock:contention_begin -R stacktrace -e lock:contention_end \
		faulttune bench -w share -t 4 -s 64M -r 2 >$W/c.out 2>$W/c.err
	t $? "trace-cmd record: faulttune events and lock:contention with stacks"
	faulttune report --json $W/c.dat >$W/c.json 2>$W/c.rerr
	t $? "faulttune report --json reads it"
	ev=$(grep -o '"hugetlb":{"total":{[^}]*}' $W/c.json | grep -o '"wait_total_ns":[0-9]*' | cut -d: -f2)
	fb=$(after '"hugetlb_fault_mutex":{"total":{"name":"all","waits":[0-9]*,"wait_total_ns":' $W/c.json)
	cont=$(grep -o '"hugetlb":{"total":{[^}]*}' $W/c.json | grep -o '"contended":[0-9]*' | cut -d: -f2)
	fw=$(after '"hugetlb_fault_mutex":{"total":{"name":"all","waits":' $W/c.json)
	echo "# share, one recording: faulttune events $cont contended, wait ${ev:-?} ns;" \
		"fallback $fw fault mutex waits, ${fb:-?} ns"
	# Both time the same slow-path waits of the same faults (one
	# recording: 135 contended, 135 waits, ratio 0.99 on 2026-12-04);
	# they differ by a trylock that failed where the lock came free
	# before mutex_lock() slept, and by the clocks' reads.  Four
	# processes on the same pages always wait: none is a failure.
	ratio=$(awk -v a="${fb:-0}" -v b="${ev:-0}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
	echo "# fallback / events wait ratio: $ratio"
	[ "${ev:-0}" -gt 0 ] && [ "${fb:-0}" -gt 0 ] &&
		awk -v r="$ratio" 'BEGIN { exit !(r >= 0.5 && r <= 2) }'
	t $? "fallback's fault mutex wait within 2x of the events' on share, both above 0 (events ${ev:-?} ns, fallback ${fb:-?} ns, ratio $ratio)"
fi

rm -rf $W
exit $fail
