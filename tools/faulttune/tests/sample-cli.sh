#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report --sample-holds and what report and tune --from say of a sample,
# on a synthetic recording of 32000 holds in about 40 windows of 10 ms.
# TAP.
#
# usage: tests/sample-cli.sh ./faulttune ./tests/synth
FT=$1
SYNTH=$2
W=$(mktemp -d /tmp/faulttune-sample.XXXXXX)
trap 'rm -rf "$W"' EXIT
n=0
fail=0
t() {	# status description
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=$((fail + 1))
	fi
}
# "kept total sampled" from report's JSON
sample_of() {
	python3 -c 'import json, sys
s = json.load(sys.stdin)["sample"]
print(s["holds_kept"], s["holds_total"], str(s["sampled"]).lower())'
}

"$SYNTH" "$W/f.dat" 8 4000 64 > /dev/null || exit 1

"$FT" report --json "$W/f.dat" > "$W/all.json"
set -- $(sample_of < "$W/all.json")
[ "$1" = 32000 ] && [ "$2" = 32000 ] && [ "$3" = false ]
t $? "within the default budget: every hold, not sampled ($*)"
"$FT" report "$W/f.dat" > "$W/all.txt"
! grep -q '^sample:' "$W/all.txt"
t $? "no sample line when every hold is kept"

"$FT" report --json --sample-holds 8000 "$W/f.dat" > "$W/s.json"
set -- $(sample_of < "$W/s.json")
[ "$1" -le 8000 ] && [ "$1" -gt 0 ] && [ "$2" = 32000 ] && [ "$3" = true ]
t $? "--sample-holds 8000: at most 8000 of 32000 kept, sampled ($*)"
"$FT" report --json --sample-holds 8000 "$W/f.dat" | cmp -s - "$W/s.json"
t $? "the same sample twice"
"$FT" report -v --sample-holds 8000 "$W/f.dat" > "$W/s.txt"
grep -q "^sample: $1 of 32000 holds" "$W/s.txt" &&
	grep -q '^what-if: [0-9]* recorded holds (the sample)' "$W/s.txt"
t $? "-v says so: $(grep '^sample:' "$W/s.txt" | cut -c1-80)"
"$FT" report --sample-holds 8000 "$W/f.dat" > "$W/s.short"
grep -q "^sample: $1 of 32000 holds" "$W/s.short"
t $? "and the default output: $(grep '^sample:' "$W/s.short" | cut -c1-80)"
python3 -c 'import json, sys
a = json.load(sys.stdin)["hugetlb"]["advice"]
sys.exit(not (a["runs"] > 1 and a["holds"] == int(sys.argv[1])))' "$1" < "$W/s.json"
t $? "the model takes each kept window as a run"

# the same report but for the budget it states
nosample() { sed 's/,"sample":{[^}]*}//'; }
"$FT" report --json --sample-holds 0 "$W/f.dat" | nosample > "$W/zero.json"
nosample < "$W/all.json" | cmp -s - "$W/zero.json" && grep -q '"hugetlb"' "$W/zero.json"
t $? "--sample-holds 0: every hold, the default report"

for bad in -1 abc 4294967296 ''; do
	"$FT" report --sample-holds "$bad" "$W/f.dat" > /dev/null 2> "$W/err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l < "$W/err")" = 1 ] && grep -q -- "--sample-holds" "$W/err"
	t $? "--sample-holds '$bad' refused in one line naming the option (rc=$rc)"
done

"$FT" tune --from "$W/f.dat" > /dev/null 2> "$W/err"
[ ! -s "$W/err" ]
t $? "tune --from within the budget: nothing on stderr"

# past the default budget of 131072 holds: 336000
"$SYNTH" "$W/big.dat" 8 42000 64 > /dev/null || exit 1
"$FT" tune --from "$W/big.dat" > "$W/out" 2> "$W/err"
rc=$?
[ $rc = 0 ] && [ "$(wc -l < "$W/err")" = 1 ] &&
	grep -q "^faulttune: $W/big.dat: the model takes a sample: [0-9]* of 336000 holds" "$W/err"
t $? "tune --from past the budget says so on stderr (rc=$rc: $(cat "$W/err"))"

echo "1..$n"
echo "$((n - fail)) passed, $fail failed"
[ $fail = 0 ]
