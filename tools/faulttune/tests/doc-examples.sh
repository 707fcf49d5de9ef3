#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The examples of faulttune's output on a recording are that output: each
# "$ faulttune ... r.dat" line of the manual and the README is run on
# tests/doc-r.dat (copied to r.dat, so that the file name printed is the
# page's) and the block under it must be what the command prints, line
# for line.  A line "..." in the block stands for any lines of the
# output (none included), so a page may shorten a long -v output without
# showing anything the command does not print.  The block ends at the
# next prompt line or where the page's literal block ends.
#
# An example that runs report or tune --from on any other file cannot be
# checked here and fails, but for those of GUEST_ONLY below, recordings
# that only a guest kernel can make (the lock:contention fallback's).
#
# tests/doc-r.dat is tests/synth's recording, 4 tasks, 50 rounds, table 8:
#   tests/synth tests/doc-r.dat 4 50 8
# committed so that the pages do not move when synth.c changes.
#
# usage: tests/doc-examples.sh DIR-OF-faulttune DOC...; one TAP line per
# example.
D=${1:-.}
shift
[ $# -gt 0 ] || set -- ../../Documentation/faulttune.rst ../../README.md
D=$(cd "$D" && pwd)
REC=$D/tests/doc-r.dat
GUEST_ONLY='faulttune report --top 4 s.dat'
tmp=$(mktemp -d /tmp/faulttune-doc.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
tap() {	# STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=$((fail + 1)); fi
}

[ -r "$REC" ] || { echo "not ok 1 - $REC not readable"; exit 1; }
cp "$REC" "$tmp/r.dat"

# $1 the expected block (indent removed), $2 the output: 0 if they match,
# "..." lines matching any run of output lines
match() {
	# through the environment: awk -v would read backslashes as escapes
	WANT=$1 awk '
	{ out[++no] = $0 }
	END {
		nw = split(ENVIRON["WANT"], w, "\n")
		# trailing empty lines of either are not compared
		while (nw > 0 && w[nw] == "") nw--
		while (no > 0 && out[no] == "") no--
		print match_from(1, 1) ? "yes" : "no"
	}
	function match_from(i, j,    k) {
		if (i > nw)
			return j > no
		if (w[i] == "...") {
			for (k = j; k <= no + 1; k++)
				if (match_from(i + 1, k))
					return 1
			return 0
		}
		return j <= no && w[i] == out[j] && match_from(i + 1, j + 1)
	}' "$2" | grep -qx yes
}

for doc in "$@"; do
	[ -r "$doc" ] || { tap 1 "$doc readable"; continue; }
	name=$(basename "$doc")
	# every prompt line that runs report or tune --from on a file
	grep -nE '^ +[$#] +faulttune +(report|tune +.*--from)( |$)' "$doc" |
	while IFS= read -r hit; do
		line=${hit%%:*}
		text=$(printf '%s\n' "${hit#*:}" | sed -E 's/^ +[$#] +//')
		case "$text" in
		*" r.dat") ;;
		"$GUEST_ONLY")
			echo "# $name:$line: $text: a guest recording, not checked"
			continue ;;
		*)	echo "not ok - $name:$line: $text: not on r.dat (tests/doc-r.dat)"
			continue ;;
		esac
		indent=$(sed -n "${line}p" "$doc" | sed -E 's/^( +).*/\1/')
		# the block: up to the next prompt, or a line indented less
		want=$(awk -v from="$line" -v ind="$indent" '
			NR <= from { next }
			$0 != "" && substr($0, 1, length(ind)) != ind { exit }
			substr($0, length(ind) + 1) ~ /^[$#] / { exit }
			{ print substr($0, length(ind) + 1) }' "$doc")
		args=${text#faulttune }
		(cd "$tmp" && eval "\"$D/faulttune\" $args") > "$tmp/out" 2>&1
		if match "$want" "$tmp/out"; then
			echo "ok - $name:$line: $text"
		else
			echo "not ok - $name:$line: $text: the page's block differs from the output:"
			printf '%s\n' "$want" | diff -u - "$tmp/out" | sed 's/^/# /'
		fi
	done
done > "$tmp/tap"
# number the lines here: the loop above ran in a subshell of the pipe
while IFS= read -r l; do
	case "$l" in
	"ok - "*) tap 0 "${l#ok - }" ;;
	"not ok - "*) tap 1 "${l#not ok - }" ;;
	*) echo "$l" ;;
	esac
done < "$tmp/tap"
[ $n -gt 0 ] || tap 1 "examples on r.dat found in $*"
echo "1..$n"
echo "$((n - fail)) passed, $fail failed"
[ $fail = 0 ]
