#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The reader-bug corpus (issue 23): tests/mkbadfiles.py damages a good
# synthetic recording one way per class of bug a reader once took without
# a word; each file must be refused by both readers (in place, and
# libtracecmd with FAULTTUNE_LIBTRACECMD=1) with exit 1 and one line
# naming the file, in under a second of CPU time (user + system, so that
# a loaded host does not fail it; a wall-clock cap of 60 s catches a
# reader that hangs without spinning); an empty page flagged with lost
# events must be reported alike by both.  A version 7 file takes the
# library path either way.  trace-cmd report's outcome on
# each file is printed beside it for comparison (it decides nothing: it is
# not under test).  TAP.
#
# usage: tests/badfiles.sh ./faulttune ./tests/synth
FT=$1
SYNTH=$2
here=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d /tmp/faulttune-badfiles.XXXXXX)
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

# seconds since the epoch, to the millisecond; seconds since $1
now() { date +%s.%N | cut -c1-14; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }

# run report on FILE by the path LIB (0 or 1): sets rc, secs (wall),
# cpu (the report's user + system seconds: a subshell's "times" counts
# only the children it waited for), and $W/err
run() {
	t0=$(now)
	(
		if [ "$2" = 1 ]; then
			FAULTTUNE_LIBTRACECMD=1 timeout 60 "$FT" report --json "$1" >"$W/out.$2" 2>"$W/err"
		else
			env -u FAULTTUNE_LIBTRACECMD timeout 60 "$FT" report --json "$1" >"$W/out.$2" 2>"$W/err"
		fi
		echo $? > "$W/rc"
		times > "$W/times"
	)
	rc=$(cat "$W/rc")
	secs=$(since "$t0")
	cpu=$(sed -n 2p "$W/times" | awk '{ n = split($0, f, /[ms ]+/); s = 0
		for (i = 1; i + 1 <= n; i += 2) if (f[i] != "") s += f[i] * 60 + f[i + 1]
		printf "%.3f", s }')
}

# trace-cmd report's outcome, for the record
tracecmd() {
	t0=$(now)
	timeout 2 trace-cmd report "$1" >"$W/tc" 2>/dev/null
	tc=$?
	[ $tc = 124 ] && tc="killed after 2 s"
	echo "# trace-cmd report: exit $tc, $(grep -c ': hugetlb_\|: memtype_' "$W/tc") events, $(since "$t0") s"
}

command -v trace-cmd >/dev/null || { echo "trace-cmd not installed (apt-get install trace-cmd)"; exit 1; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 1; }
"$SYNTH" "$W/good.dat" 2 60 8 > "$W/expect" || exit 1
trace-cmd convert -i "$W/good.dat" -o "$W/good-v7.dat" --file-version 7 \
	--compression none >/dev/null 2>&1 || { echo "trace-cmd convert (v7) failed"; exit 1; }
python3 "$here/mkbadfiles.py" "$W/good.dat" "$W" "$W/good-v7.dat" || exit 1

run "$W/good.dat" 0
run "$W/good.dat" 1
cmp -s "$W/out.0" "$W/out.1"
t $? "the good recording: both readers print the same JSON"
tracecmd "$W/good.dat"
ev=$(sed -n 's/^events=//p' "$W/expect")
[ "$(grep -c ': hugetlb_\|: memtype_' "$W/tc")" = "$ev" ]
t $? "the good recording: trace-cmd report reads its $ev events"

for class in common-type-size-1 unknown-event-id past-commit padding-fffffff0 \
	     padding-ffffffff negative-offset padding-fffffff0-v7 field-size-3 \
	     commit-past-page truncated size-wraps; do
	f=$W/$class.dat
	for lib in 0 1; do
		run "$f" $lib
		[ $rc = 1 ] && [ "$(wc -l < "$W/err")" = 1 ] &&
			grep -q "^faulttune: $f: " "$W/err" &&
			awk -v s="$cpu" 'BEGIN { exit !(s < 1) }'
		t $? "$class, $([ $lib = 1 ] && echo FAULTTUNE_LIBTRACECMD=1 || echo default path): exit 1, one line naming the file, ${cpu}s CPU (${secs}s wall) (rc=$rc: $(head -n 1 "$W/err"))"
	done
	tracecmd "$f"
done

f=$W/empty-page-missed.dat
run "$f" 0
grep -q '"lost_unknown_pages":1,' "$W/out.0"
t $? "empty-page-missed, in place: one page of lost events reported (rc=$rc)"
run "$f" 1
grep -q '"lost_unknown_pages":1,' "$W/out.1" && cmp -s "$W/out.0" "$W/out.1"
t $? "empty-page-missed, libtracecmd: the same report (rc=$rc)"
tracecmd "$f"

echo "1..$n"
echo "$((n - fail)) passed, $fail failed"
[ $fail = 0 ]
