#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# No loops between the tool's files (issue #24): file A depends on file B
# when A.o takes a symbol that B.o defines (nm); the graph of the objects
# given must sort topologically.  Prints each loop's files and fails on
# one; with -v, the order from the bottom (what calls nothing of ours) up.
# -n A,B:C: neither A nor B reaches C through any path of uses, nor C
# them (the reader and the core know no consumer a caller registers, nor
# it them).
# Sizes (issue #41): the source beside each object (X.o: X.c) has at
# most 1,200 lines and no function over 120; exceptions would be listed
# below with their size, a ratchet (one more, or one grown, fails; one
# shrunk is told to tighten its line): none are left.
# Every global symbol carries its area's prefix (ft_, cmd_, rd_, model_,
# sim_).
# Folders (issue #41): an object's folder is its layer, and a file uses
# only files of its own folder or of a lower layer (FOLDERS below); the
# library's objects (lib/) call no printing, exit, signal, option or
# environment function (LIB_FORBIDDEN), but the two files named in
# LIB_ALLOWED, for the reason given there.
# usage: tests/layers.sh [-v] [-n FILE,...:FILE]... OBJ...
verbose=
rules=
while [ $# -gt 0 ]; do
	case $1 in
	-v) verbose=1; shift ;;
	-n) [ $# -ge 2 ] || break; rules="$rules $2"; shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: $0 [-v] [-n FILE,...:FILE]... OBJ..." >&2; exit 2; }
W=$(mktemp -d /tmp/faulttune-layers.XXXXXX)
trap 'rm -rf "$W"' EXIT
for o in "$@"; do
	f=$(basename "$o" .o)
	nm -g --defined-only "$o" | awk -v f="$f" 'NF == 3 && $2 ~ /[TDBRVW]/ { print $3, f }'
done | sort -k1,1 >"$W/defs"
for o in "$@"; do
	f=$(basename "$o" .o)
	nm -u "$o" | awk -v f="$f" '{ print $NF, f }'
done | sort -k1,1 >"$W/uses"
# "user provider symbol", then the file pairs (and each file with itself,
# so that a file nobody uses still sorts)
join "$W/uses" "$W/defs" | awk '$2 != $3 { print $2, $3, $1 }' | sort -u >"$W/edges"
{ awk '{ print $1, $2 }' "$W/edges"; for o in "$@"; do b=$(basename "$o" .o); echo "$b $b"; done; } |
	sort -u >"$W/pairs"
if ! tsort "$W/pairs" >"$W/order" 2>"$W/loops"; then
	echo "not ok - loops between files (A B: A uses B):"
	sed -n 's/^tsort: //p' "$W/loops" | grep -v 'input contains a loop' |
		sed 's/^/  /'
	echo "  the edges of those files:"
	for f in $(sed -n 's/^tsort: //p' "$W/loops" | grep -v 'input contains' | sort -u); do
		grep "^$f " "$W/edges"
	done | sort -u | sed 's/^/    /'
	exit 1
fi
[ -n "$verbose" ] && tac "$W/order" | tr '\n' ' ' && echo
echo "ok - no loops between the $# files"
# the files $1 uses, directly or through others (itself included)
reach() {
	echo "$1" >"$W/reach"
	while :; do
		awk 'NR == FNR { r[$1] = 1; next } ($1 in r) { print $2 }' \
			"$W/reach" "$W/pairs" | cat - "$W/reach" | sort -u >"$W/reach.new"
		cmp -s "$W/reach" "$W/reach.new" && break
		mv "$W/reach.new" "$W/reach"
	done
	cat "$W/reach"
}
fail=0
for r in $rules; do
	c=${r#*:}
	for f in $(echo "${r%%:*}" | tr , ' '); do
		grep -qx "$c" "$W/order" && grep -qx "$f" "$W/order" || {
			echo "not ok - $f, $c: not among the objects given"; fail=1; continue; }
		if reach "$f" | grep -qx "$c"; then
			echo "not ok - $f reaches $c"; fail=1
		elif reach "$c" | grep -qx "$f"; then
			echo "not ok - $c reaches $f"; fail=1
		else
			echo "ok - $f and $c do not reach each other"
		fi
	done
done

# Names (issue #41): a symbol one object gives another says whose it is:
# ft_ (the library's API), cmd_ (a command's entry), or the prefix of the
# area whose local header declares it: rd_ (reader-local.h), model_ and
# sim_ (model-local.h).  A bare setup() or validate() in the link is one
# collision away from the wrong function.
bare=$(awk '$1 != "main" && $1 !~ /^(ft|cmd|rd|model|sim)_/ { print $2 ".o: " $1 }' "$W/defs")
if [ -n "$bare" ]; then
	echo "not ok - global symbols without an area prefix (ft_, cmd_, rd_, model_, sim_):"
	echo "$bare" | sed 's/^/  /'
	fail=1
else
	echo "ok - every global symbol of the $# files has its area's prefix"
fi

# Folders, bottom up: "layer folder"; a folder may use its own files and
# those of a lower layer only, so two folders of one layer (record and
# analysis; reader and model; out and bench) never use each other.
FOLDERS="
1 lib/util
2 lib/kernel
3 lib/record
3 lib/analysis
4 lib/reader
4 lib/model
5 out
5 bench
6 .
"
for o in "$@"; do
	d=$(dirname "$o")
	r=$(echo "$FOLDERS" | awk -v d="$d" '$2 == d { print $1 }')
	echo "$(basename "$o" .o) ${r:-0} $d"
done | sort -u >"$W/folder"
unfiled=$(awk '$2 == 0 { print $3 "/" $1 ".o" }' "$W/folder")
if [ -n "$unfiled" ]; then
	echo "not ok - objects in no folder of the layer order: $(echo $unfiled)"
	fail=1
fi
# "user provider symbol" edges whose provider is not below the user
up=$(awk 'NR == FNR { rank[$1] = $2; dir[$1] = $3; next }
	dir[$1] != dir[$2] && rank[$1] <= rank[$2] {
		print "  " dir[$1] "/" $1 ".c uses " dir[$2] "/" $2 ".c (" $3 ")" }' \
	"$W/folder" "$W/edges")
if [ -n "$up" ]; then
	echo "not ok - files that use a file of their own layer's other folder or of a higher one:"
	echo "$up"
	fail=1
else
	echo "ok - every file uses only its own folder and lower layers ($(echo "$FOLDERS" | awk 'NF' | tr '\n' ' ' | sed 's/ $//'))"
fi

# What the library never calls: it returns results and reasons as data and
# reports through its one message function (util.c's ft_err and ft_info).
LIB_FORBIDDEN="printf vprintf puts putchar fprintf vfprintf fputs fputc fwrite
perror stdout stderr exit _exit abort atexit signal sigaction raise
getopt getopt_long getenv setenv"
# "object symbol... : why", the only exceptions
LIB_ALLOWED="
util.o fputc fwrite stderr stdout vfprintf : the message function itself
readdat.o stderr : libtracecmd's own messages are silenced by a dup2 of /dev/null over stderr around its calls (readdat.c says why)
"
libbad=
for o in "$@"; do
	case $o in lib/*) ;; *) continue ;; esac
	b=$(basename "$o")
	allowed=$(echo "$LIB_ALLOWED" | awk -v b="$b" '$1 == b { sub(/ :.*/, ""); $1 = ""; print }')
	for s in $(nm -u "$o" | awk '{ print $NF }'); do
		for f in $LIB_FORBIDDEN; do
			[ "$s" = "$f" ] || continue
			case " $allowed " in *" $s "*) ;; *) libbad="$libbad $o:$s" ;; esac
		done
	done
done
if [ -n "$libbad" ]; then
	echo "not ok - library objects that print, exit, handle signals or read options or the environment:$libbad"
	fail=1
else
	echo "ok - the library's $(for o in "$@"; do case $o in lib/*) echo "$o" ;; esac; done | wc -l) objects call no printing, exit, signal, option or environment function (but: $(echo "$LIB_ALLOWED" | awk 'NF { print $1 }' | tr '\n' ' ' | sed 's/ $//'))"
fi

# nor does a library source or header include a header of a layer above
# it, or of the other folder of its own layer: each area declares its own
# (issue #41), lib/event.h (the kernel's contract) is every area's, and
# lib/faulttune.h, which gathers them all, is for the layers above only
rank_of() {	# folder: its layer, 0 for lib/ itself
	[ "$1" = lib ] && { echo 0; return; }
	echo "$FOLDERS" | awk -v d="$1" '$2 == d { print $1 }'
}
badinc=
for f in $(for o in "$@"; do case $o in lib/*) [ -f "${o%.o}.c" ] && echo "${o%.o}.c" ;; esac; done) \
	 $(find lib -name '*.h' ! -path lib/faulttune.h | sort); do
	d=$(dirname "$f")
	r=$(rank_of "$d")
	for h in $(sed -n 's/^#include "\(.*\)"$/\1/p' "$f"); do
		where=$(for dir in lib lib/* out bench .; do
			[ -f "$dir/$h" ] && { echo "$dir"; break; }; done)
		if [ "$h" = faulttune.h ] || [ -z "$where" ]; then
			badinc="$badinc $f:$h"; continue
		fi
		[ "$where" = "$d" ] && continue
		hr=$(rank_of "$where")
		[ -n "$hr" ] && [ "$hr" -lt "$r" ] || badinc="$badinc $f:$h"
	done
done
if [ -n "$badinc" ]; then
	echo "not ok - library files that include faulttune.h or a header of their layer's other folder or of a higher layer:$badinc"
	fail=1
else
	echo "ok - every library file includes only its own area's headers and those below (never faulttune.h)"
fi

MAX_FILE=1200
MAX_FUNC=120
# exceptions, "file lines" and "file:function lines": none today; never
# add one (split the file or the function instead)
big_files="
"
big_funcs="
"
# each function as "file:name lines": kernel style puts a function's
# opening and closing braces alone at column 0, and nothing else there
# (a struct or an initialiser opens on its own line); counted from the
# "{" to the "}", its name from the last line at column 0 before the "{"
funcs() {
	awk '/^[A-Za-z_]/ && !body { sig = $0 }
	/^\{$/ && !body { body = 1; start = FNR; name = sig
		sub(/\(.*/, "", name); sub(/.*[^A-Za-z0-9_]/, "", name); next }
	/^\}$/ && body { body = 0; n = split(FILENAME, p, "/")
		print p[n] ":" name, FNR - start + 1 }' "$@"
}
# over: "what size" lines over max; allowed: the ratchet's list
ratchet() {	# what max allowed over
	echo "$4" | while read -r what size; do
		[ -n "$what" ] || continue
		have=$(echo "$3" | awk -v w="$what" '$1 == w { print $2 }')
		if [ -z "$have" ]; then
			echo "not ok - $what: $size lines, over $2 ($1; split it)"
		elif [ "$size" -gt "$have" ]; then
			echo "not ok - $what: $size lines, grown from $have ($1, over $2)"
		fi
	done
	echo "$3" | while read -r what have; do
		[ -n "$what" ] || continue
		size=$(echo "$4" | awk -v w="$what" '$1 == w { print $2 }')
		[ "${size:-0}" -lt "$have" ] &&
			echo "# $what: ${size:-at most $2} lines now, listed at $have: lower its line in $0"
	done
	return 0
}
srcs=
for o in "$@"; do
	[ -f "${o%.o}.c" ] && srcs="$srcs ${o%.o}.c"
done
if [ -n "$srcs" ]; then
	over=$(wc -l $srcs | awk -v m=$MAX_FILE '$2 != "total" && $1 > m {
		n = split($2, p, "/"); print p[n], $1 }')
	ratchet file $MAX_FILE "$big_files" "$over" >"$W/files"
	over=$(funcs $srcs | awk -v m=$MAX_FUNC '$2 > m')
	ratchet function $MAX_FUNC "$big_funcs" "$over" >"$W/funcs"
	cat "$W/files" "$W/funcs"
	if grep -q '^not ok' "$W/files" "$W/funcs"; then
		fail=1
	else
		listed=
		[ -n "$(echo $big_files $big_funcs)" ] && listed=", but the listed"
		echo "ok - $(echo $srcs | wc -w) files within $MAX_FILE lines and their functions within $MAX_FUNC$listed"
	fi
fi
exit $fail
