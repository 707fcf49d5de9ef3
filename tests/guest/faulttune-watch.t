#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# faulttune watch on the patched kernel, beside the built-in workload:
# one JSON line per window with the patched kernel's numbers (the
# recommended size among them), the knob changed by someone else between
# two windows reported as an override, the textfile written for
# node_exporter, and tracefs as it was.  The textfile is printed as
# "# watch-prom: " lines and the recommendation as "# watch-recommended: N"
# for the host (tests/check.sh), which checks them with promtool,
# node_exporter and a prometheus query; TAP.
T=/sys/kernel/tracing
K=/sys/kernel/debug/hugetlb/num_fault_mutexes
W=/tmp/ft-watch.$$
. "$(dirname "$0")/lib.sh"

mkdir -p $W/prom
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
[ -e $K ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -e $K ]
t $? "knob $K exists"
saved=$(cat $K)
before=$(cat $T/tracing_on $T/set_event | md5sum)
n0=$(insts)

# the workload runs until watch has done its windows
faulttune watch -i 4 --window 2 -n 3 --json --textfile $W/prom > $W/w.json 2> $W/w.err &
wp=$!
(while kill -0 $wp 2>/dev/null; do
	faulttune bench -w threads -t 2 -s 32M -r 1 > /dev/null 2>&1
done) &
bp=$!
# between the first and the second window, somebody else resizes the table
# (w.json may not exist yet: the background shell creates it)
i=0
while [ "$(cat $W/w.json 2>/dev/null | grep -c .)" -lt 1 ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
other=$((saved * 2))
echo $other > $K
wait $wp
rc=$?
wait $bp
sed 's/^/# /' $W/w.err | head -5
sed 's/^/# /' $W/w.json
t $rc "watch -n 3 --json --textfile exits 0"
[ "$(grep -c . $W/w.json)" = 3 ]
t $? "one JSON line per window (3)"
[ "$(grep -c '"variant":"patched"' $W/w.json)" = 3 ] && ! grep -q "cannot fill" $W/w.err
t $? "on the patched kernel: variant patched in every line, no column left out"

# the numbers of the last window (the json is flat, one object a line)
last=$(tail -1 $W/w.json)
val() { echo "$last" | grep -o "\"$1\":[^,}]*" | cut -d: -f2; }
acq=$(val acquisitions)
rec=$(val recommended)
size=$(val size)
[ "${acq:-0}" -gt 0 ] 2>/dev/null
t $? "the workload's acquisitions are counted ($acq)"
pow2() { v=$1; [ "$v" -gt 0 ] 2>/dev/null || return 1; while [ $((v % 2)) = 0 ]; do v=$((v / 2)); done; [ $v = 1 ]; }
pow2 "$rec"
t $? "a recommended size, a power of two ($rec)"
[ "$size" = "$other" ]
t $? "the current size is the knob's ($size, knob $other)"
coll=$(val collision_wait_pct)
share=$(val sharing_wait_pct)
pred=$(val predicted_collision_pct)
[ "$coll" != null ] && [ "$share" != null ] && [ "$pred" != null ] && [ -n "$coll$share$pred" ]
t $? "collision ($coll%), true sharing ($share%) and predicted ($pred%) filled"
# how settled each window's pick is: "settled" true, false or null (one
# active run: not known) and "inseparable_from", the smallest size the
# window's runs cannot separate from the recommendation: null exactly
# when settled is, a power of two up to it, equal to it when settled
bad=
while read -r line; do
	v() { echo "$line" | grep -o "\"$1\":[^,}]*" | cut -d: -f2; }
	s=$(v settled)
	lo=$(v inseparable_from)
	r=$(v recommended)
	case $s in
	null) [ "$lo" = null ] || bad="$bad [settled null, inseparable_from '$lo']" ;;
	true) [ "$lo" = "$r" ] || bad="$bad [settled, inseparable_from '$lo', recommended $r]" ;;
	false) pow2 "$lo" && [ "$lo" -le "$r" ] ||
		bad="$bad [unsettled, inseparable_from '$lo', recommended $r]" ;;
	*) bad="$bad [settled '$s']" ;;
	esac
done < $W/w.json
[ -z "$bad" ]
t $? "every window says how settled its pick is: settled true/false/null, inseparable_from <= recommended, equal when settled, null when settled is$bad"
sed -n 2p $W/w.json | grep -q '"overridden":true'
t $? "the resize between windows 1 and 2 is an override in window 2"
tail -1 $W/w.json | grep -q '"overridden":false'
t $? "window 3, with no resize since window 2, is no override"

prom=$W/prom/faulttune.prom
grep -q '^faulttune_kernel_info{variant="patched",' $prom &&
	grep -qx "faulttune_recommended_table_size $rec" $prom &&
	grep -qx "faulttune_table_size $other" $prom &&
	grep -qx "faulttune_knob_overrides_total 1" $prom
t $? "the textfile has the variant, the recommended ($rec) and current size, one override"
s=$(sed -n 's/^faulttune_recommendation_settled //p' $prom)
lo=$(sed -n 's/^faulttune_recommended_table_size_lowest //p' $prom)
case $(val settled) in
null) [ -z "$s$lo" ] ;;
true) [ "$s" = 1 ] && [ "$lo" = "$rec" ] ;;
false) [ "$s" = 0 ] && [ "$lo" = "$(val inseparable_from)" ] && [ "$lo" -le "$rec" ] ;;
*) false ;;
esac
t $? "the textfile says what the last line says of settling (settled '$(val settled)': gauge '$s', lowest '$lo', recommended $rec; absent when not known)"
grep -q '^faulttune_lock_acquisitions_total{lock="fault_mutex",op="fault"} [1-9]' $prom
t $? "acquisitions by lock and op in the textfile"
[ "$(ls -A $W/prom)" = faulttune.prom ]
t $? "no temporary file left beside it"
sed 's/^/# watch-prom: /' $prom
echo "# watch-recommended: $rec"

echo $saved > $K
[ "$(insts)" = "$n0" ]
t $? "no faulttune instance left"
[ "$(cat $T/tracing_on $T/set_event | md5sum)" = "$before" ]
t $? "top-level tracing_on and set_event unchanged"
rm -rf $W
exit $fail
