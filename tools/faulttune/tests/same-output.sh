#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Byte-identical output across a refactor: run report (text with -v, JSON,
# CSV, the default), tune --from (text with -v, JSON, --threads 64, the
# default) and the fallback's report on recordings,
# keeping stdout, stderr and the exit code of each run in OUTDIR, one file
# a run.  Run it with the binary before a change and after, then compare
# the two directories:
#
#   tests/same-output.sh ./faulttune /tmp/before REC...   # before
#   tests/same-output.sh ./faulttune /tmp/after REC...    # after
#   diff -r /tmp/before /tmp/after && echo identical
#
# With no REC, the recordings made here: tests/synth's (all shapes), the
# reader-bug corpus of tests/mkbadfiles.py and the fuzz corpus.
FT=$1
OUT=$2
[ -n "$FT" ] && [ -n "$OUT" ] || { echo "usage: $0 FAULTTUNE OUTDIR [REC...]" >&2; exit 2; }
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT" || exit 1
if [ $# = 0 ]; then
	W=$(mktemp -d /tmp/faulttune-same.XXXXXX)
	trap 'rm -rf "$W"' EXIT
	"$here/synth" "$W/synth-a.dat" 4 50 8 >/dev/null &&
	"$here/synth" "$W/synth-b.dat" 6 40 16 >/dev/null &&
	"$here/synth" "$W/synth-trio.dat" 3 80 4 trio >/dev/null &&
	"$here/synth" "$W/synth-sum.dat" 8 30 64 summary >/dev/null || exit 1
	if command -v trace-cmd >/dev/null && command -v python3 >/dev/null; then
		trace-cmd convert -i "$W/synth-a.dat" -o "$W/synth-v7.dat" \
			--file-version 7 --compression none >/dev/null 2>&1 &&
		python3 "$here/mkbadfiles.py" "$W/synth-a.dat" "$W" "$W/synth-v7.dat" >/dev/null
	fi
	set -- "$W"/*.dat "$here"/fuzz-corpus/*.dat
fi
# the file's name, stdout, stderr with the directory taken out, exit code
run() {	# name args...
	name=$1
	shift
	"$FT" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
	echo "rc=$?" >>"$OUT/$name.out"
	sed -i "s|$dir/||g" "$OUT/$name.out" "$OUT/$name.err"
}
n=0
for f in "$@"; do
	dir=$(dirname "$f")
	b=$(basename "$f" .dat)
	# the text with -v: every table (the default is the verdict alone)
	run "$b.report.txt" report -v -f "$f"
	run "$b.report.json" report -j -f "$f"
	run "$b.report.csv" report -c -f "$f"
	run "$b.report.top3" report -v --top 3 "$f"
	run "$b.report.short" report -f "$f"
	run "$b.tune.txt" tune -v --from "$f"
	run "$b.tune.json" tune -j --from "$f"
	run "$b.tune.t64" tune -v --threads 64 --from "$f"
	run "$b.tune.short" tune --from "$f"
	n=$((n + 9))
done
echo "$n runs on $# recordings in $OUT"
