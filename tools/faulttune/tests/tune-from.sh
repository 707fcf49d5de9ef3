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
grep -q '64 simulated threads' $W/64.txt
t $? "--threads says it simulates"

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
refused --from $W/a.dat -c 3
t $? "--current 3 (not a power of two) refused"
"$FT" tune --from $W/missing.dat >$W/out 2>$W/err
[ $? = 1 ] && grep -q "missing.dat" $W/err && [ ! -s $W/out ]
t $? "a missing file: exit 1, named"

rm -rf $W
echo "1..$n"
exit $fail
