#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The manual keeps up with the binary: every option of every command's
# --help is in Documentation/faulttune.rst twice, in the SYNOPSIS (the
# command's lines, "**faulttune CMD** ...") and in the Options of the
# command's own section (CMD in capitals), as **-x** and **--long**.
# A new option without its manual entry fails make check here.
# usage: tests/doc-options.sh [FAULTTUNE [DOC]]; one TAP line per command
# and place.
FT=${1:-./faulttune}
DOC=${2:-../../Documentation/faulttune.rst}
n=0
fail=0
tap() {	# STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=$((fail + 1)); fi
}

pairs=$(mktemp /tmp/faulttune-doc-options.XXXXXX)
trap 'rm -f "$pairs"' EXIT
[ -r "$DOC" ] || { echo "not ok 1 - $DOC not readable"; exit 1; }
cmds=$("$FT" --help | awk '/^commands:/ { on = 1; next }
			   on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
[ -n "$cmds" ] || { echo "not ok 1 - no commands in '$FT --help'"; exit 1; }

# the SYNOPSIS, up to the next section title
synopsis=$(awk '$0 == "SYNOPSIS" { on = 1; next }
		on && /^[A-Z][A-Z -]+$/ { exit } on' "$DOC")

for c in $cmds; do
	# "  -w, --workload W  ..." and "      --pin  ...": one option a
	# line, its names at the start, up to the argument's name
	opts=$("$FT" "$c" --help | awk '/^ +-/ {
		s = ""
		for (i = 1; i <= NF; i++) {
			w = $i; sub(/,$/, "", w)
			if (w !~ /^--?[[:alnum:]][[:alnum:]-]*$/) break
			s = s (s == "" ? "" : " ") w
		}
		if (s != "") print s }')
	if [ -z "$opts" ]; then
		tap 1 "$c: no options found in 'faulttune $c --help'"
		continue
	fi
	nopts=$(printf '%s\n' "$opts" | wc -l)

	# SYNOPSIS: the option by one of its names, as perf's and
	# trace-cmd's pages give it ([-w WORKLOAD] for -w, --workload)
	lines=$(printf '%s\n' "$synopsis" | grep -F "**faulttune $c")
	miss=
	while read -r names; do
		found=
		for o in $names; do
			printf '%s\n' "$lines" | grep -Eq -- "(^|[[ |*])$o([]| =*]|$)" && found=1
		done
		[ -n "$found" ] || miss="$miss ${names%% *}"
	done <<END
$opts
END
	st=0; [ -z "$miss" ] || st=1
	tap $st "$c: the $nopts options of 'faulttune $c --help' are in faulttune.rst's SYNOPSIS${miss:+ (missing:$miss)}"

	# the command's Options: every name of every option, in bold
	sec=$(echo "$c" | tr '[:lower:]' '[:upper:]')
	body=$(awk -v sec="$sec" '
		$0 == sec { insec = 1; next }
		insec && /^[A-Z][A-Z -]+$/ { exit }
		insec && $0 == "Options" { inopt = 1; getline; next }
		inopt && /^-+$/ { exit }
		inopt' "$DOC")
	if [ -z "$body" ]; then
		tap 1 "$c: faulttune.rst has no $sec section with an Options subsection"
		continue
	fi
	miss=
	for o in $opts; do
		printf '%s\n' "$body" | grep -qF -- "**$o**" || miss="$miss $o"
	done
	st=0; [ -z "$miss" ] || st=1
	tap $st "$c: the $nopts options of 'faulttune $c --help' are in faulttune.rst's $sec Options, short and long names${miss:+ (missing:$miss)}"
	printf '%s\n' "$opts" | awk -v c="$c" '$1 ~ /^-[[:alnum:]]$/ && $2 ~ /^--/ { print $1, $2, c }' >> "$pairs"
done

# one meaning per letter: a short option names the same long option in
# every command's --help, and the manual's table of letters (DESCRIPTION,
# Options) gives that long option and the command
bad=$(awk '{ if (($1 in l) && l[$1] != $2) print $1 " is " l[$1] " in " c[$1] " and " $2 " in " $3; l[$1] = $2; c[$1] = $3 }' "$pairs")
st=0; [ -z "$bad" ] || st=1
tap $st "every short option means one thing in every command's --help${bad:+ ($(echo $bad))}"
table=$(awk '/The letters::$/ { on = 1; next } on && /^[^ ]/ { exit } on' "$DOC")
miss=
while read -r s l c; do
	printf '%s\n' "$table" | awk -v s="$s" -v l="$l" -v c="$c" '
		$1 == s && $2 == l { for (i = 3; i <= NF; i++) { w = $i; sub(/,$/, "", w)
			if (w == c || w == "every") f = 1 } }
		END { exit !f }' || miss="$miss $c:$s$l"
done < "$pairs"
st=0; [ -z "$miss" ] || st=1
tap $st "faulttune.rst's table of letters gives each short option of every --help, its long name and its command${miss:+ (missing:$miss)}"
echo "1..$n"
[ $fail = 0 ]
