#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# faulttune tune --knob $K finishes, recommends a size and restores the knob; TAP.
T=/sys/kernel/tracing
# FT_KNOB: another knob path (a plain file) to dry-run the script on a host
K=${FT_KNOB:-/sys/kernel/debug/hugetlb/num_fault_mutexes}
W=/tmp/ft-tune.$$
n=0
fail=0
t() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi; }
# first "key":number in a JSON file
jnum() { grep -o "\"$1\":[0-9][0-9]*" "$2" | head -n 1 | cut -d: -f2; }
pow2() { v=$1; [ "$v" -gt 0 ] 2>/dev/null || return 1; while [ $((v % 2)) = 0 ]; do v=$((v / 2)); done; [ $v = 1 ]; }

mkdir -p $W
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
[ -e $K ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -e $K ]
t $? "knob $K exists"
saved=$(cat $K)
before=$(cat $T/tracing_on $T/set_event | md5sum)
echo "# $(nproc) CPUs, knob $saved"

faulttune tune --knob $K -r 2 -s 32M --json >$W/t.json 2>$W/t.err
t $? "tune --json exits 0"
rec=$(jnum recommended $W/t.json)
pow2 "$rec"
t $? "recommends a power of two ($rec)"
[ "$(cat $K)" = "$saved" ]
t $? "knob restored to $saved"
grep -q '"collisions":' $W/t.json
t $? "evidence has collision counts from the events"
[ -z "$(ls $T/instances | grep '^faulttune-')" ]
t $? "no faulttune instance left"
[ "$(cat $T/tracing_on $T/set_event | md5sum)" = "$before" ]
t $? "top-level tracing_on and set_event unchanged"

faulttune tune --knob $K -r 1 -W 0 -s 16M -m 16 >$W/t.txt 2>&1
t $? "tune (text) exits 0"
grep -q '^boot parameter: hugetlb_fault_mutexes=' $W/t.txt
t $? "prints the boot parameter line"
grep -q "^now: *echo [0-9]* > $K" $W/t.txt
t $? "prints the echo command"
grep -q 'confidence' $W/t.txt
t $? "prints a confidence statement"
[ "$(cat $K)" = "$saved" ]
t $? "knob restored after the text run"

# the what-if plan measures fewer sizes than --full, which measures all;
# from a current size inside the candidates (1..16), which it must measure
echo 4 > $K
faulttune tune --knob $K -r 1 -W 0 -s 16M -m 16 --json >$W/p.json 2>/dev/null
t $? "tune (what-if plan) exits 0"
grep -q '"mode":"what-if plan"' $W/p.json &&
	[ "$(jnum sizes_measured $W/p.json)" -le 5 ] &&
	[ "$(grep -o '"measured":true' $W/p.json | wc -l)" = "$(jnum sizes_measured $W/p.json)" ]
t $? "the plan measures $(jnum sizes_measured $W/p.json) of 5 sizes"
grep -q '"size":4,"memory_bytes":[0-9]*,"runs":[1-9][0-9]*,"measured":true' $W/p.json
t $? "the plan always measures the current size (4)"
[ "$(cat $K)" = 4 ]
t $? "knob restored to 4 after the plan"
echo $saved > $K
faulttune tune --knob $K --full -r 1 -W 0 -s 16M -m 16 --json >$W/f.json 2>/dev/null
t $? "tune --full exits 0"
grep -q '"mode":"full"' $W/f.json && [ "$(jnum sizes_measured $W/f.json)" = 5 ] &&
	[ "$(jnum runs $W/f.json)" = 5 ] && ! grep -q '"measured":false' $W/f.json
t $? "--full measures every size once"
[ "$(cat $K)" = "$saved" ]
t $? "knob restored after --full"

faulttune tune --knob $K -r 1 -W 0 -s 16M -m 8 --apply --json >$W/a.json 2>/dev/null
rec=$(jnum recommended $W/a.json)
[ -n "$rec" ] && [ "$(cat $K)" = "$rec" ]
t $? "--apply leaves the recommendation ($rec) set"
echo "$saved" > $K
[ "$(cat $K)" = "$saved" ]
t $? "knob set back to $saved"

rm -rf $W
echo "1..$n"
exit $fail
