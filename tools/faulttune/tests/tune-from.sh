#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# faulttune tune --from on synthetic recordings (no root, no tracefs):
# byte-identical output, the same line as report, bad input refused.
# usage: tune-from.sh FAULTTUNE SYNTH
FT=$1
SYNTH=$2
W=$(mktemp -d /tmp/ft-tune-from.XXXXXX)
n=0
fail=0
t() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi; }
# refused: exit 2, one line naming the option, nothing on stdout
refused() {
	"$FT" tune "$@" >$W/out 2>$W/err
	rc=$?
	[ $rc = 2 ] && [ ! -s $W/out ] && [ "$(wc -l < $W/err)" = 1 ] && grep -q "^faulttune: tune: " $W/err
}

"$SYNTH" $W/a.dat 4 50 8 >/dev/null && "$SYNTH" $W/b.dat 6 40 16 >/dev/null
t $? "synthetic recordings written"

"$FT" tune --from $W/a.dat >$W/1.txt 2>&1 && "$FT" tune --from $W/a.dat >$W/2.txt 2>&1
t $? "tune --from exits 0"
cmp -s $W/1.txt $W/2.txt
t $? "tune --from twice: byte-identical output"
"$FT" tune --from $W/a.dat $W/b.dat -j >$W/1.json && "$FT" tune -j --from $W/a.dat $W/b.dat >$W/2.json
cmp -s $W/1.json $W/2.json
t $? "two files, --json: byte-identical"
grep -q '"runs":2,' $W/1.json
t $? "two files are two runs of the model"
python3 -m json.tool $W/1.json >/dev/null && "$FT" report -j $W/a.dat 2>/dev/null |
	python3 -m json.tool >/dev/null
t $? "tune --from -j and report -j: JSON alone on stdout (python3 -m json.tool)"
# the who-shares table: synth knows how many of its waits were behind the
# same page; the table counts them from the holds
"$SYNTH" $W/s.dat 6 40 16 >$W/s.expect
want=$(sed -n 's/^sharing=//p' $W/s.expect)
"$FT" report -j $W/s.dat 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)["hugetlb"]["true_sharing"]
top = s["top"][0]
assert s["matters"] and top["waiters"] and top["holder"]["op"] and top["index"] >= 0
print(s["waits"])' >$W/s.got
[ -n "$want" ] && [ "$(cat $W/s.got)" = "$want" ]
t $? "report -j: true_sharing counts synth's $want same-page waits ($(cat $W/s.got)), with pages, waiters and holders"
"$FT" tune --from $W/s.dat >$W/s.txt 2>&1 && grep -q '^who shares: '"$want"' waits behind the same page' $W/s.txt &&
	grep -q '^remedy: one task populating the region' $W/s.txt
t $? "tune --from: the who-shares table and, behind first touches, the remedy"

grep '^recommendation: ' $W/1.txt >$W/tune.line
"$FT" report $W/a.dat 2>/dev/null | grep '^recommendation: ' >$W/report.line
[ -s $W/tune.line ] && cmp -s $W/tune.line $W/report.line
t $? "report prints tune --from's recommendation line"

# 64 threads collide more than the 4 recorded: never a smaller table
r4=$(sed -n 's/^recommendation: \(keep \)\{0,1\}\([0-9]*\).*/\2/p' $W/1.txt)
"$FT" tune --from $W/a.dat --threads 64 >$W/64.txt 2>&1
r64=$(sed -n 's/^recommendation: \(keep \)\{0,1\}\([0-9]*\).*/\2/p' $W/64.txt)
[ -n "$r4" ] && [ -n "$r64" ] && [ "$r64" -gt "$r4" ]
t $? "--threads 64 recommends more than the recorded 4 tasks ($r64 > $r4)"

# -v's collisions/run is per run: the same recording given twice (two
# identical runs) gives the column one copy gives.  At size 1 every key
# has the one mutex, so no draw of the hash enters: equal to the tenth.
cp $W/a.dat $W/a2.dat
"$FT" tune -v --from $W/a.dat >$W/v1.txt 2>&1 && "$FT" tune -v --from $W/a.dat $W/a2.dat >$W/v2.txt 2>&1
c1=$(awk '/ collisions\/run / { t = 1; next } t && $1 == 1 { print $7; exit }' $W/v1.txt)
c2=$(awk '/ collisions\/run / { t = 1; next } t && $1 == 1 { print $7; exit }' $W/v2.txt)
[ -n "$c1" ] && [ "$c1" != 0.0 ] && [ "$c1" = "$c2" ]
t $? "-v: predicted collisions/run at size 1 are per run: one copy $c1, two copies $c2"
grep -q '64 simulated threads' $W/64.txt
t $? "--threads says it simulates"

# the same run recorded as *_hold summaries: the same model and advice
# (the first line names the file; report's second counts the events)
"$SYNTH" $W/s.dat 4 50 8 summary >/dev/null &&
	"$FT" tune --from $W/s.dat >$W/s.txt 2>&1 &&
	grep -q '^recommendation: ' $W/s.txt &&
	[ "$(sed 1d $W/s.txt | md5sum)" = "$(sed 1d $W/1.txt | md5sum)" ]
t $? "tune --from a recording of summaries: the trio's output"
"$FT" report -v $W/s.dat >$W/s.rep 2>&1 && "$FT" report -v $W/a.dat >$W/a.rep 2>&1 &&
	grep -q '^what-if' $W/s.rep && grep -q '^events: hugetlb 201, memtype 10,' $W/s.rep &&
	[ "$(sed 1,2d $W/s.rep | md5sum)" = "$(sed 1,2d $W/a.rep | md5sum)" ]
t $? "report of the summaries: the trio's report, one event per hold"

refused --from $W/a.dat -T nan
t $? "--target nan refused"
refused --from $W/a.dat -T 0x1
t $? "--target 0x1 refused"
refused --from $W/a.dat -T 100
t $? "--target 100 refused"
refused --from
t $? "--from without a file refused"
refused --from $W/a.dat -- true
t $? "--from with a COMMAND refused"
refused --from $W/a.dat --current 3
t $? "--current 3 (not a power of two) refused"
"$FT" tune --from $W/missing.dat >$W/out 2>$W/err
[ $? = 1 ] && grep -q "missing.dat" $W/err && [ ! -s $W/out ]
t $? "a missing file: exit 1, named"

# what report refuses, tune --from refuses: every damaged file of the
# fuzz corpus that report exits 1 on, tune --from exits 1 on, naming it
CORPUS=$(dirname "$0")/fuzz-corpus
bad=0 seen=0
for f in "$CORPUS"/*.dat; do
	"$FT" report "$f" >/dev/null 2>&1
	[ $? = 1 ] || continue
	seen=$((seen + 1))
	"$FT" tune --from "$f" >$W/out 2>$W/err
	{ [ $? = 1 ] && grep -qF "$(basename "$f")" $W/err && [ ! -s $W/out ]; } ||
		{ bad=$((bad + 1)); echo "# tune --from took $f"; }
done
[ $seen -gt 0 ] && [ $bad = 0 ]
t $? "tune --from refuses the $seen corpus files report refuses ($bad taken)"
"$FT" tune --force --from "$CORPUS/short-record-at-end.dat" >$W/out 2>&1 &&
	grep -q '^recommendation: ' $W/out
t $? "tune --from --force advises from the records that are whole"
refused --force -j -- true
t $? "--force without --from refused"

# --threads below the recorded concurrency: said, not silently raised
"$FT" tune --from $W/a.dat --threads 1 >$W/t1.txt 2>&1 &&
	grep -q '^--threads 1 is below the 4 that faulted at once' $W/t1.txt
t $? "--threads 1 below the recorded 4: said so"
# -m below the current size: the current is kept, never a smaller one
"$FT" tune --from $W/a.dat --current 64 -m 4 >$W/m.txt 2>&1
sed -n 's/^recommendation: \(keep \)\{0,1\}\([0-9]*\).*/\2/p' $W/m.txt > $W/m.pick
[ "$(cat $W/m.pick)" -ge 64 ] 2>/dev/null
t $? "-m 4 below the current 64: recommends $(cat $W/m.pick), not below 64"
# the model checked against what the recording measured, both variants
"$FT" tune -v --from $W/a.dat >$W/1v.txt 2>&1 &&
grep -q '^model check at the recorded size' $W/1v.txt &&
	grep -q '^  closed loop predicts' $W/1v.txt && grep -q '^  open loop   predicts' $W/1v.txt
t $? "tune --from checks both model variants against the recording"
grep -q '^settled: not known from one run' $W/1.txt
t $? "one recording: says that how settled is not known"
"$FT" tune --from $W/a.dat $W/a.dat $W/b.dat >$W/3.txt 2>&1 &&
	grep -Eq '^(settled: (with 95% confidence over the 3 runs|the current [0-9]+ meets)|not settled: (the 3 runs cannot separate|3 runs are too few))' $W/3.txt
t $? "three recordings: says how settled the pick is"

# the default output: the verdict first, short and narrow; -v: the tables
# short FILE: at most 20 lines of at most 100 columns, the recommendation
# in the first 5
short() {
	[ "$(wc -l < "$1")" -le 20 ] && [ "$(wc -L < "$1")" -le 100 ] &&
		head -n 5 "$1" | grep -q '^recommendation: '
}
"$FT" tune --from $W/a.dat $W/a.dat $W/b.dat >$W/3.txt 2>/dev/null
bad=0
for f in 1 3 64 t1 m; do
	short $W/$f.txt || { bad=1; echo "# $f.txt: $(wc -l < $W/$f.txt) lines, $(wc -L < $W/$f.txt) columns"; }
done
t $bad "tune --from: at most 20 lines of 100 columns, the recommendation in the first 5"
"$FT" report $W/a.dat >$W/r.txt 2>/dev/null && short $W/r.txt &&
	"$FT" report $W/s.dat >$W/r.txt 2>/dev/null && short $W/r.txt
t $? "report: at most 20 lines of 100 columns, the recommendation in the first 5 ($(wc -l < $W/r.txt) x $(wc -L < $W/r.txt))"
grep -q '^boot parameter: hugetlb_fault_mutexes=' $W/1.txt && grep -q '^cause: ' $W/1.txt &&
	grep -Eq '^(not )?settled: ' $W/1.txt
t $? "tune --from: the verdict says the boot parameter, the cause, how settled"
"$FT" tune --verbose --from $W/a.dat >$W/v.txt 2>&1 &&
	grep -q '^    size       memory      coll%' $W/v.txt && grep -q '<- recommended' $W/v.txt &&
	grep -q '^who shares: ' $W/v.txt && grep -q '^  page (mapping:index)' $W/v.txt &&
	! grep -q '^    size       memory      coll%' $W/1.txt
t $? "tune --from -v: the model's table and who shares, which the default leaves out"
"$FT" report -v $W/a.dat >$W/rv.txt 2>&1
bad=$?
for h in '^op  ' '^bucket/size ' '^what-if: ' '^predicted collision wait by table size' \
	'^model check at the recorded size' '^memtype_lock (x86 PAT)'; do
	grep -q "$h" $W/rv.txt || { bad=1; echo "# report -v: no $h"; }
done
t $bad "report -v: the tables by op, bucket and memtype, the what-if and its chart, the model check"

rm -rf $W
echo "1..$n"
exit $fail
