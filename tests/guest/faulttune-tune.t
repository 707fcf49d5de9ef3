#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# faulttune tune on the patched kernel: the built-in workload, a user's
# COMMAND, --from on faulttune record and trace-cmd record files, the seed
# round trip, --apply, and restore on SIGINT during a COMMAND; TAP.
T=/sys/kernel/tracing
# FT_KNOB: another knob path (a plain file) to dry-run the script on a host
K=${FT_KNOB:-/sys/kernel/debug/hugetlb/num_fault_mutexes}
W=/tmp/ft-tune.$$
H=$W/huge
. "$(dirname "$0")/lib.sh"
# the run order: "order":[..]
jorder() { grep -o '"order":\[[0-9,]*\]' "$1"; }
pow2() { v=$1; [ "$v" -gt 0 ] 2>/dev/null || return 1; while [ $((v % 2)) = 0 ]; do v=$((v / 2)); done; [ $v = 1 ]; }

mkdir -p $W $H
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
[ -e $K ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -e $K ]
t $? "knob $K exists"
saved=$(cat $K)
before=$(cat $T/tracing_on $T/set_event | md5sum)
echo "# $(nproc) CPUs, knob $saved"

# 1. the built-in workload: the model decides, measurement confirms
faulttune tune --knob $K -r 2 -P 1 -B 2 -W 0 -s 32M --json >$W/t.json 2>$W/t.err
t $? "tune --json exits 0"
rec=$(jnum recommended $W/t.json)
pow2 "$rec"
t $? "recommends a power of two ($rec)"
grep -q '"predicted_collision_pct":' $W/t.json && grep -q '"collisions":' $W/t.json
t $? "prediction per size and measured collisions from the events"
grep -q '"statement":"' $W/t.json
t $? "says what the measurement confirms"
[ "$(cat $K)" = "$saved" ]
t $? "knob restored to $saved"
[ "$(insts)" = 0 ]
t $? "no faulttune instance left"
[ "$(cat $T/tracing_on $T/set_event | md5sum)" = "$before" ]
t $? "top-level tracing_on and set_event unchanged"

# the default output is the verdict: at most 20 lines of 100 columns, the
# recommendation in the first 5; -v adds the tables and checks
short() {
	[ "$(wc -l < "$1")" -le 20 ] && [ "$(wc -L < "$1")" -le 100 ] &&
		head -n 5 "$1" | grep -q '^recommendation: '
}
faulttune tune --knob $K -r 2 -P 1 -B 2 -W 0 -s 16M -m 16 >$W/t.txt 2>/dev/null
t $? "tune (text) exits 0"
short $W/t.txt
t $? "the default output: the verdict first, $(wc -l < $W/t.txt) lines of at most $(wc -L < $W/t.txt) columns"
sed 's/^/# tune: /' $W/t.txt
grep -q '^boot parameter: hugetlb_fault_mutexes=' $W/t.txt &&
	grep -q "^now: *echo [0-9]* > $K" $W/t.txt && grep -q '^cause: ' $W/t.txt &&
	grep -Eq '^(not )?settled: ' $W/t.txt
t $? "prints the boot parameter, the echo command, the cause and how settled"
! grep -q '^measured (interleaved' $W/t.txt && ! grep -q '^memory: ' $W/t.txt
t $? "and no table"
faulttune tune -v --knob $K -r 2 -P 1 -B 2 -W 0 -s 16M -m 16 >$W/tv.txt 2>&1
t $? "tune -v exits 0"
grep -Eq '^recommendation: (keep )?[0-9]+: predicted collision wait ' $W/tv.txt
t $? "prints the recommendation line"
grep -q '^true sharing: ' $W/tv.txt && grep -q '^confirmation: ' $W/tv.txt
t $? "-v prints true sharing apart and the confirmation"
grep -q '^boot parameter: hugetlb_fault_mutexes=' $W/tv.txt &&
	grep -q "^now: *echo [0-9]* > $K" $W/tv.txt
t $? "-v prints the boot parameter and the echo command"
grep -q '^memory: sizeof(struct mutex) ' $W/tv.txt &&
	grep -q '^measured (interleaved in the seed' $W/tv.txt &&
	grep -q '^model check at the measured sizes' $W/tv.txt
t $? "-v: the tables; how it knows the size of a mutex: $(grep '^memory:' $W/tv.txt | cut -c1-80)"
# Without BTF the size comes from the table's own memory (/proc/kcore): on
# the guest kernels, which have lock debugging (/proc/lockdep), more than
# the 32 bytes of a production x86_64 mutex, a whole number of words; on a
# distribution config (make kernel-deb-boot), those 32 bytes exactly.
mb=$(jnum mutex_bytes $W/t.json)
if [ -e /proc/lockdep ]; then than=-gt; else than=-eq; fi
[ -d /sys/kernel/btf ] || { [ -n "$mb" ] && [ "$mb" $than 32 ] && [ $((mb % 8)) = 0 ] &&
	grep -q '"mutex_bytes_source":"[^"]*/proc/kcore' $W/t.json; }
t $? "sizeof(struct mutex) measured on this kernel: ${mb:-none} bytes"

# 2. from one mutex, 4 concurrent faulters collide: a bigger table, and
# the sizes measured are the current one, the probes' pick and, when the
# measured runs moved the pick, the final recommendation: -r 2 runs each,
# and the current size's again beside the moved pick.  The probes (at
# the current size) come first and are not among the measured runs.
echo 1 > $K
faulttune tune --knob $K -r 2 -P 1 -B 2 -W 0 -s 32M -t 4 --json >$W/one.json 2>/dev/null
t $? "tune from 1 mutex exits 0"
rec=$(jnum recommended $W/one.json)
[ -n "$rec" ] && [ "$rec" -gt 1 ] && grep -q '"keep":false' $W/one.json
t $? "from 1 mutex it recommends more ($rec)"
probes=$(grep -o '"probes":{[^}]*}' $W/one.json)
ppick=$(echo "$probes" | grep -o '"pick":[0-9]*' | cut -d: -f2)
np=$(echo "$probes" | grep -o '"runs":[0-9]*' | cut -d: -f2)
order=$(jorder $W/one.json | sed 's/.*\[//; s/\]//' | tr , '\n')
# the sizes after the probes, and how often each ran
counts=$(echo "$order" | tail -n +$((${np:-0} + 1)) | sort -n | uniq -c)
runs_of() { echo "$counts" | awk -v s=$1 '$2 == s { print $1 }'; }
# each pick the measured runs moved to (two at most) ran with 2 more at 1
moved=$(echo "$counts" | awk -v p="$ppick" '$2 != 1 && $2 != p' | wc -l)
cur=$((2 * (1 + moved)))
[ -n "$ppick" ] && [ "$np" -ge 1 ] 2>/dev/null && [ "$moved" -le 2 ] &&
	[ -z "$(echo "$order" | head -n "$np" | grep -vx 1)" ] &&
	[ "$(runs_of 1)" = $cur ] && [ "$(runs_of $ppick)" = 2 ] && [ "$(runs_of $rec)" = 2 ] &&
	[ -z "$(echo "$counts" | awk '$2 != 1 && $1 != 2')" ]
t $? "$np probes at 1 first, then the current ($cur runs: 2 beside each size measured), the probes' pick ($ppick) and the recommended size ($rec), twice each: $(jorder $W/one.json)"
grep -q '"interleaved":true' $W/one.json
t $? "the confirmation compares runs of $rec and of 1 that were interleaved ($(grep -o '"interleaved":[a-z]*' $W/one.json))"
[ "$(cat $K)" = 1 ]
t $? "knob restored to 1"
echo $saved > $K

# 3. the seed round trip: the printed seed repeats the run order
faulttune tune --knob $K --full -r 2 -P 1 -B 2 -W 0 -s 16M -m 8 --json >$W/s1.json 2>/dev/null
seed=$(jnum seed $W/s1.json)
faulttune tune --knob $K --full -r 2 -P 1 -B 2 -W 0 -s 16M -m 8 -S "$seed" --json >$W/s2.json 2>/dev/null
[ -n "$seed" ] && [ "$(jnum seed $W/s2.json)" = "$seed" ]
t $? "-S $seed: printed back as the seed used"
o1=$(jorder $W/s1.json)
[ -n "$o1" ] && [ "$o1" = "$(jorder $W/s2.json)" ]
t $? "-S repeats the run order ($o1)"
[ "$(echo "$o1" | tr -cd , | wc -c)" -ge 6 ]
t $? "--full measured every size up to 8"

# 4. a user's command: a shell loop faulting a hugetlbfs file
mount -t hugetlbfs none $H
faulttune tune --knob $K -r 2 -P 2 -B 2 -W 0 --json -- \
	sh -c "for i in 1 2 3 4; do fallocate -l 16M $H/f\$i & done; wait; rm -f $H/f*" \
	>$W/c.json 2>$W/c.err
t $? "tune -- COMMAND exits 0"
grep -q '"workload":"command","command":\["sh","-c",' $W/c.json
t $? "the runs were the command's"
[ "$(jnum holds $W/c.json)" -ge 32 ] 2>/dev/null
t $? "the model learnt from the command's faults ($(jnum holds $W/c.json) holds in 2 runs)"
pow2 "$(jnum recommended $W/c.json)"
t $? "recommends a power of two for the command ($(jnum recommended $W/c.json))"
[ "$(cat $K)" = "$saved" ] && [ "$(insts)" = 0 ] && [ -z "$(ls $H)" ]
t $? "knob, instances and the hugetlbfs as found"
# The command faults at size 1, where every fault of another page is a
# collision and the pick must move, and fails at any other size: tune
# stops on the failure with the knob away from 1, and the check of the
# restore can fail (a command that fails at once, or at a size tune
# keeps, fails before the knob ever moves).
echo 1 > $K
faulttune tune --knob $K -r 1 -P 2 -B 2 -W 0 -- sh -c \
	"[ \$(cat $K) = 1 ] && exec faulttune bench -t 4 -s 32M -r 1 >/dev/null" \
	>/dev/null 2>$W/f.err
rc=$?
[ $rc = 1 ] && grep -q "^faulttune: tune: sh exited with status 1" $W/f.err &&
	[ "$(cat $K)" = 1 ] && grep -q "restored to 1$" $W/f.err
t $? "a COMMAND failing at another size: exit 1, named, knob restored to 1 (rc=$rc)"
[ $rc = 1 ] || sed 's/^/# /' $W/f.err | tail -5
echo $saved > $K

# 5. SIGINT while the user's command runs: passed on, everything restored
echo 2 > $K
faulttune tune --knob $K -r 3 -P 1 -B 2 -W 0 -- sh -c "echo \$\$ > $W/cmd.pid; exec sleep 60" \
	>/dev/null 2>$W/int.err &
pid=$!
i=0
while [ ! -s $W/cmd.pid ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(insts)" = 1 ]
t $? "tune runs the command with its instance"
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ]
t $? "SIGINT during the command: tune exits 130 (rc=$rc)"
! kill -0 "$(cat $W/cmd.pid)" 2>/dev/null
t $? "the command got the signal too"
[ "$(cat $K)" = 2 ] && [ "$(insts)" = 0 ] &&
	[ "$(cat $T/tracing_on $T/set_event | md5sum)" = "$before" ]
t $? "knob (2), instances and tracing settings restored"
echo $saved > $K

# 6. --from: a faulttune record file and a trace-cmd record file
faulttune record -o $W/r.dat -- faulttune bench -t 4 -s 32M -r 2 >/dev/null 2>&1
t $? "faulttune record of the threads workload"
faulttune tune --from $W/r.dat >$W/r1.txt 2>&1 && faulttune tune --from $W/r.dat >$W/r2.txt 2>&1
t $? "tune --from a faulttune record file exits 0"
cmp -s $W/r1.txt $W/r2.txt
t $? "tune --from twice: byte-identical"
grep -Eq '^recommendation: (keep )?[0-9]+: ' $W/r1.txt
t $? "recommends from the recording: $(grep '^recommendation:' $W/r1.txt | cut -c1-60)"
faulttune report $W/r.dat 2>/dev/null | grep '^recommendation: ' >$W/rep.line
grep '^recommendation: ' $W/r1.txt | cmp -s - $W/rep.line
t $? "faulttune report prints the same recommendation line"
faulttune report $W/r.dat >$W/rep.txt 2>/dev/null && short $W/rep.txt && short $W/r1.txt
t $? "report and tune --from of a real recording: the verdict first, short ($(wc -l < $W/rep.txt) x $(wc -L < $W/rep.txt), $(wc -l < $W/r1.txt) x $(wc -L < $W/r1.txt))"
faulttune report -v $W/r.dat >$W/repv.txt 2>/dev/null && grep -q '^what-if: ' $W/repv.txt &&
	grep -q '^bucket/size ' $W/repv.txt && faulttune tune -v --from $W/r.dat 2>/dev/null |
	grep -q '^ *[0-9]* .* <- current'
t $? "report -v and tune --from -v: the tables"
sed 's/^/# report: /' $W/rep.txt
[ "$(cat $K)" = "$saved" ]
t $? "--from changed nothing (knob $saved)"
trace-cmd record -e hugetlb -o $W/tc.dat faulttune bench -t 4 -s 32M -r 2 >/dev/null 2>&1
t $? "trace-cmd record -e hugetlb"
faulttune tune --from $W/tc.dat --json >$W/tc.json 2>$W/tc.err
t $? "tune --from a trace-cmd record file exits 0"
[ "$(jnum holds $W/tc.json)" -gt 0 ] 2>/dev/null && pow2 "$(jnum recommended $W/tc.json)"
t $? "recommends from it ($(jnum recommended $W/tc.json), $(jnum holds $W/tc.json) holds)"
faulttune tune --from $W/tc.dat --threads 64 >$W/tc64.txt 2>&1 &&
	grep -q '64 simulated threads' $W/tc64.txt
t $? "--threads 64 from a recording of 4"

# 7. --apply
faulttune tune --knob $K -r 2 -P 1 -B 2 -W 0 -s 16M -m 8 --apply --json >$W/a.json 2>/dev/null
rec=$(jnum recommended $W/a.json)
[ -n "$rec" ] && [ "$(cat $K)" = "$rec" ]
t $? "--apply leaves the recommendation ($rec) set"
echo "$saved" > $K
[ "$(cat $K)" = "$saved" ]
t $? "knob set back to $saved"

# 8. true sharing (issue 32): a program nobody here wrote, three QEMUs
# preallocating one shared hugetlbfs file as their guest memory
# (memory-backend-file,share=on: the processes of a server attaching one
# shared region of huge pages), each page first allocated and cleared by
# one, the others waiting behind it, and now and then two of them on
# different pages at once, which a table could collide; and the built-in
# share workload
# (processes faulting the same pages of one shared mapping).  A tune keeps
# the current size when no collision was measured at it (the goal: in 9
# of 10 tunes at least; for share, which cannot collide, in every tune); -j leaves the JSON alone on stdout (the
# command's output goes to stderr), which QEMU's QMP parser reads: one
# object, no parse error; the who-shares table names pages and tasks; and
# no line speaks of a table that has no rows.
# jparse FILE: FILE is one JSON value (QMP's reply to it: one error for
# the members it does not know, none for the JSON)
jparse() {
	{ echo '{"execute":"qmp_capabilities"}'; cat "$1"; echo; echo '{"execute":"quit"}'; } |
		timeout 120 qemu-system-x86_64 -machine none -nodefaults -display none \
		-qmp stdio >$W/qmp.out 2>&1
	! grep -q 'JSON parse error' $W/qmp.out && [ "$(grep -c '"error"' $W/qmp.out)" = 1 ]
}
# the measured "collisions" at SIZE in a tune's JSON
mcoll() { grep -o '"measured":\[[^]]*\]' "$2" | sed 's/},{/}\n{/g' |
	grep "\"size\":$1," | grep -o '"collisions":[0-9]*' | cut -d: -f2; }
# keeps NAME N all|most COMMAND...: N tunes -j; how many measured no
# collision at the current size, and how many of those kept it.  "all":
# a workload that cannot collide (every fault on one page): each tune
# must exit 0, measure no collision and keep; one collision is the bug.
# "most": a workload that sometimes collides: of the tunes that measured
# none, 9 in 10 at least keep.
keeps() {
	name=$1 times=$2 rule=$3
	shift 3
	kept=0 nocoll=0 i=0 seen= failed=0
	while [ $i -lt $times ]; do
		i=$((i + 1))
		faulttune tune --knob $K -r 2 -P 3 -B 6 -W 0 -j -- "$@" >$W/$name.$i.json 2>/dev/null ||
			{ echo "# $name: tune $i failed"; failed=$((failed + 1)); }
		c=$(mcoll $saved $W/$name.$i.json)
		r=$(jnum recommended $W/$name.$i.json)
		seen="$seen $r/${c:-?}"
		[ "$c" = 0 ] || continue
		nocoll=$((nocoll + 1))
		[ "$r" = "$saved" ] && kept=$((kept + 1))
	done
	echo "# $name: $times tunes at $saved, recommended/collisions measured at $saved:$seen"
	if [ $rule = all ]; then
		[ $failed = 0 ] && [ $nocoll = $times ] && [ $kept = $times ]
		t $? "$name: all $times tunes exit 0, measure no collision at $saved and keep it ($failed failed, $nocoll without a collision, $kept kept)"
	elif [ $nocoll -ge 1 ]; then
		[ $((kept * 10)) -ge $((nocoll * 9)) ]
		t $? "$name: kept $saved in $kept of the $nocoll tunes that measured no collision at it (>= 90%)"
	else
		skip "$name: kept when no collision is measured" "none of $times tunes measured none at $saved"
	fi
	[ "$(cat $K)" = "$saved" ] && [ "$(insts)" = 0 ]
	t $? "$name: knob and instances as found"
}
falloc="echo hello from the command; for i in 1 2 3 4; do fallocate -l 128M $H/shared & done; wait; rm -f $H/shared"
faulttune tune --knob $K -r 2 -P 3 -B 6 -W 0 -j -- sh -c "$falloc" >$W/j.json 2>$W/j.err
t $? "tune -j -- a command that prints exits 0"
grep -q '^hello from the command' $W/j.err && ! grep -q '^hello' $W/j.json && jparse $W/j.json
t $? "tune -j: the command's output on stderr, stdout one JSON value (QMP: $(grep -m1 -o '"desc": "[^"]*' $W/qmp.out 2>/dev/null | cut -c10-70))"
qshare="rm -f $H/shared; for i in 1 2 3; do echo quit | qemu-system-x86_64 -machine none -nodefaults -display none -object memory-backend-file,id=m,size=64M,mem-path=$H/shared,share=on,prealloc=on,prealloc-threads=2 -monitor stdio >/dev/null & done; wait; rm -f $H/shared"
# three tunes: in the 40 of this test's last four runs (6.12, 7.3), every one measured
# collisions at 32 (the rule then has nothing to judge, a skip), so ten
# bought nothing but CI time
keeps qemu-shared 3 most sh -c "$qshare"
# one huge page that four processes fault: every wait is true sharing and
# no size can collide, so every tune must keep the current size (issue
# 42: a measured collision there is the bug); 16M (8 pages) collided at
# 32 in most tunes
keeps share 5 all faulttune bench -w share -t 4 -s 2M -r 1
faulttune tune -v --knob $K -r 2 -P 3 -B 6 -W 0 -- sh -c "$qshare" >$W/ft.txt 2>&1
t $? "tune (text) of three QEMUs sharing one file exits 0"
sed 's/^/# qemu-shared: /' $W/ft.txt | grep -E 'idle runs|model check|settled|current:|recommendation|sharing|shares|remedy|keep|^# qemu-shared:   0x' | cut -c1-200
# a model-check header must have rows under it; none of the old empty lines
rows=$(awk '/^model check at the measured sizes \(/ { on = 1; next } on && /^ *[0-9]+ +[0-9]+ / { n++ } on && !/^ *[0-9]/ && !/^ *size/ && !/^  at / { on = 0 } END { print n + 0 }' $W/ft.txt)
! grep -q 'no two faults were in flight' $W/ft.txt && ! grep -q '^model check: none' $W/ft.txt &&
	{ ! grep -q 'fits every measured size' $W/ft.txt || [ "$rows" -gt 0 ]; }
t $? "no line about an empty table (model check rows: $rows)"
grep -q '^who shares: [0-9]* waits behind the same page' $W/ft.txt &&
	grep -Eq '^  0x[0-9a-f]+:[0-9]+ .* (fallocate|fault), .*\([0-9]+( [^)]*)?\)( [0-9]+( [^ ]+)?)+$' $W/ft.txt
t $? "qemu-shared: the who-shares table names pages, the holder's op and task, the waiters: $(grep -m1 '^  0x' $W/ft.txt | tr -s ' ' | cut -c1-120)"
# the JSON of the last tune of each: the same table, pages and tasks
for name in qemu-shared share; do
	f=$(ls $W/$name.*.json | tail -n 1)
	grep -q '"true_sharing":{"matters":true,' $f &&
		grep -Eq '"top":\[\{"mapping":"0x[0-9a-f]+","index":[0-9]+,"wait_ns":[1-9][0-9]*,' $f &&
		grep -Eq '"waiters":\[\{"pid":[1-9][0-9]*,"comm":"[^"]*"' $f
	t $? "$name -j: true_sharing names the pages and their waiting tasks ($(grep -o '"waiters":\[[^]]*' $f | head -n 1 | cut -c1-80))"
done

umount $H 2>/dev/null
rm -rf $W
echo "1..$n"
exit $fail
