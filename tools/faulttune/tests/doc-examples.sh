#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run the report example of Documentation/faulttune.rst on the synthetic
# recording and check that the lines the man page shows are produced.
# usage: tests/doc-examples.sh DIR-OF-faulttune DOC
D=${1:-.}
DOC=${2:-../../Documentation/faulttune.rst}
tmp=$(mktemp -d /tmp/faulttune-doc.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
"$D/tests/synth" "$tmp/s.dat" 4 50 8 >/dev/null || exit 1
# the lines checked are -v's tables (the default output is the verdict);
# the page may show the example with -v or, from before -v, without it
"$D/faulttune" report -v --top 3 -m 32 "$tmp/s.dat" > "$tmp/out" 2>&1
# every line of the example block that starts with these words must match
# (only the block of the synthetic example, up to the next paragraph)
awk '/^  \$ faulttune report (-v )?--top 3 -m 32 s.dat/ { on = 1; next }
     on && /^[^ ]/ { on = 0 }
     on' "$DOC" |
	grep -E '^  (contended:|what-if:|  +(8|16|32) +[0-9]+B)' | sed 's/^  //' > "$tmp/want"
[ -s "$tmp/want" ] || { echo "no example lines found in $DOC"; exit 1; }
while IFS= read -r line; do
	if grep -qxF "$line" "$tmp/out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "not in output: $line"
	fi
done < "$tmp/want"
echo "doc examples: $pass passed, $fail failed"
[ $fail = 0 ]
