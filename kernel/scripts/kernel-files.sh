#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-files.sh check|update
#
# The kernel files this project adds (trace headers, their docs, the admin
# guide, the selftest) have one source: the patch series, where each is
# created by the patch that first needs it and changed by later ones, as
# the mm list reviews them.  The copies at their kernel paths at the top of
# this repository (include/, arch/, tools/testing/, Documentation/admin-guide/,
# Documentation/trace/) are for readers and grep, and must show the kernel
# as the whole series leaves it.
#
# There are two series (kernel/scripts/kver.sh): the 6.12 one in
# kernel/patches, whose files the top-level copies are, and the 7.3 one in
# kernel/patches-7.3.  One run checks or updates one series, picked by KVER
# (and PATCHES_DIR, LINUX_TARBALL), 6.12 by default; make check and make
# kernel-files run it for each.  A file the 7.3 series leaves byte for byte
# as the 6.12 series does has the one top-level copy, checked by both runs.
# A file it leaves differently (the memtype trace doc and the admin guide
# describe 7.3's code) has its own copy under kernel/files-7.3/<kernel
# path>, checked by the 7.3 run only; a copy there that is the same as the
# top-level one, or that the 7.3 series does not create, is not ok.  A
# file only the 7.3 series creates has its copy at the top level.
#
# Both modes apply the series with patch -p1 --fuzz=0 to a scratch copy of
# the files it changes, taken from KERNEL_BASE (default build/stock/src for
# 6.12, build/7.3/stock/src for 7.3: the unpacked tarball) or, when that is
# not there, from the tarball.
#
#   check   one TAP line for the series applying, then one per file: ok when
#           the top-level copy is byte for byte what the series leaves, not
#           ok with the diff otherwise, and not ok for a top-level file that
#           no patch creates.  Exit 1 when anything is not ok (make check
#           runs it first, tests/check.sh).
#   update  rewrite the copies that differ from the series (make
#           kernel-files); files already right keep their mtime.  For 7.3,
#           run after the 6.12 update: a file that now matches the
#           top-level copy loses its kernel/files-7.3 copy.
set -uo pipefail

mode=${1:-}
case $mode in check|update) ;; *) echo "usage: kernel-files.sh check|update" >&2; exit 2;; esac
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/kernel/scripts/kver.sh"
patches=$PATCHES_DIR
rel=${patches#$top/}
tarball=$LINUX_TARBALL
if [ "$KVER" = 6.12 ]; then
	base=${KERNEL_BASE:-$top/build/stock/src}
	own=	# the top-level copies are this series' own
else
	base=${KERNEL_BASE:-$top/build/$KVER/stock/src}
	own=kernel/files-$KVER
fi
primary=$top/kernel/patches	# the series whose files the top-level copies are
# where the top-level copies live: every file under these is a kernel file
dirs="include arch tools/testing Documentation/admin-guide Documentation/trace"

die() { echo "kernel-files: $*" >&2; exit 2; }

list_series() {	# DIR: the patches its series file names
	sed -e 's/[[:space:]].*//' -e '/^#/d' -e '/^$/d' "$1/series" 2>/dev/null
}
list_created() {	# DIR PATCH...: FILE PATCH lines, the files the patches create
	local d=$1 p
	shift
	for p in "$@"; do
		awk -v p="$p" '/^--- \/dev\/null/ { n = 1; next }
			n && /^\+\+\+ b\// { print substr($0, 7), p } { n = 0 }' "$d/$p"
	done
}

series=$(list_series "$patches") || die "no $rel/series"
[ -n "$series" ] || die "$rel/series lists no patches"
for p in $series; do
	[ -f "$patches/$p" ] || die "series names $p, which is not in $rel"
done

# FILE PATCH lines: which patch creates a file, which change an existing one
created=$(list_created "$patches" $series)
# the files the 6.12 series creates: their top-level copies are its, so
# another series that leaves one differently keeps its own copy
primary_files=$(list_created "$primary" $(list_series "$primary") | awk '{ print $1 }' | sort -u)
# the files the other series create with no copy of their own: a top-level
# file that only they create is theirs to check
others=$(for d in "$top"/kernel/patches-*; do
	[ -d "$d" ] && [ "$d" != "$patches" ] || continue
	v=${d##*/patches-}
	list_created "$d" $(list_series "$d") | awk '{ print $1 }' | sort -u |
		while read -r f; do [ -f "$top/kernel/files-$v/$f" ] || echo "$f"; done
done | sort -u)
if [ "$patches" != "$primary" ]; then
	others=$(printf '%s\n' "$others" $primary_files | sed '/^$/d' | sort -u)
fi
copy() {	# FILE: the copy this series' FILE is checked against
	if [ -n "$own" ] && [ -f "$top/$own/$1" ]; then echo "$own/$1"; else echo "$1"; fi
}
changed() {	# FILE: the patches after the one creating FILE that change it
	local p out=
	for p in $series; do
		grep -qxF -- "--- a/$1" "$patches/$p" && out="$out ${p%%-*}"
	done
	echo "${out# }"
}
existing=$(for p in $series; do sed -n 's|^--- a/\([^	]*\).*|\1|p' "$patches/$p"; done |
	sort -u | comm -23 - <(echo "$created" | awk '{ print $1 }' | sort -u))

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tree=$tmp/tree
mkdir -p "$tree"
if [ -f "$base/Makefile" ]; then
	from=$base
	(cd "$base" && cp --parents $existing "$tree/") || die "cannot copy the series' files from $base"
else
	[ -r "$tarball" ] || die "neither $base nor $tarball: run make kernel-stock (or make deps)"
	from=$tarball
	members=()
	for f in $existing; do members+=("*/$f"); done
	tar -xf "$tarball" -C "$tree" --strip-components=1 --wildcards --no-wildcards-match-slash \
		"${members[@]}" || die "cannot unpack the series' files from $tarball"
fi

n=0 bad=0
result() {	# ok|not DESC
	n=$((n + 1))
	if [ "$1" = ok ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; bad=1; fi
}

count=0
for p in $series; do
	count=$((count + 1))
	if ! out=$(cd "$tree" && patch -p1 --forward --batch --fuzz=0 --no-backup-if-mismatch \
			-r - < "$patches/$p" 2>&1); then
		echo "$out" | sed 's/^/# /'
		[ $mode = check ] && result not "kernel files: the series applies with fuzz 0 (patch $p does not)"
		die "patch $p does not apply to $from with fuzz 0"
	fi
done
[ $mode = check ] && result ok "kernel files: the $KVER series ($count patches) applies with fuzz 0 to the files of ${from#$top/}"

fix="the patches are its source: after changing a patch, run 'make kernel-files'; a change made to the copy belongs in the patch"
wrote=0
shared() {	# FILE: does the 6.12 series create FILE too (then its copy is the top level's)?
	[ "$patches" != "$primary" ] && grep -qxF -- "$1" <<<"$primary_files"
}
while read -r f p; do
	[ -n "$f" ] || continue
	ch=$(changed "$f")
	what="created by ${p%%-*}${ch:+, changed by $ch}"
	c=$(copy "$f")
	if [ $mode = update ]; then
		# a file the 6.12 series leaves otherwise gets this series' own copy
		if shared "$f" && ! cmp -s "$tree/$f" "$top/$f"; then
			c=$own/$f
		elif [ "$c" != "$f" ]; then
			rm "$top/$c"
			echo "kernel-files: removed $c: the $KVER series leaves $f as the top-level copy is"
			c=$f
		fi
		if ! cmp -s "$tree/$f" "$top/$c"; then
			mkdir -p "$(dirname "$top/$c")"
			cp "$tree/$f" "$top/$c"
			echo "kernel-files: wrote $c ($what)"
			wrote=$((wrote + 1))
		fi
	elif [ ! -f "$top/$c" ]; then
		result not "kernel files: $f is missing at the top level ($what): run 'make kernel-files'"
	elif cmp -s "$tree/$f" "$top/$c"; then
		result ok "kernel files: $c is what the $KVER series leaves ($what)"
	else
		d=$(diff -u --label "$c (copy)" --label "$f (after the $KVER series)" "$top/$c" "$tree/$f")
		echo "$d" | head -60 | sed 's/^/# /'
		[ "$(echo "$d" | wc -l)" -le 60 ] || echo "# ... $(( $(echo "$d" | wc -l) - 60 )) more lines"
		result not "kernel files: $c differs from what the $KVER series leaves ($what): $fix"
	fi
	# a copy of this series' own must differ from the shared one
	if [ $mode = check ] && [ "$c" != "$f" ] && cmp -s "$top/$c" "$top/$f"; then
		result not "kernel files: $c is the same as the top-level $f: remove it (the $KVER series shares the top-level copy)"
	fi
done <<<"$created"

# a file among the copies that no patch creates is in no kernel; a
# top-level file that another series creates is that series' to check
known=$(echo "$created" | awk '{ print $1 }' | sort -u)
orphans=$( (cd "$top" && find $dirs -type f 2>/dev/null | sort | comm -23 - <(echo "$known") |
		comm -23 - <(echo "$others"))
	[ -z "$own" ] || (cd "$top/$own" 2>/dev/null && find . -type f | sed 's|^\./||' | sort |
		comm -23 - <(echo "$known") | sed "s|^|$own/|"))
while IFS= read -r f; do
	[ -n "$f" ] || continue
	if [ $mode = check ]; then
		result not "kernel files: $f is a kernel file here but no patch in $rel creates it: add it to the patch that needs it, or remove it"
	else
		echo "kernel-files: $f is a kernel file here but no patch in $rel creates it: left alone (add it to a patch, or remove it)" >&2
		bad=1
	fi
done <<<"$orphans"

if [ $mode = check ]; then
	echo "1..$n"
else
	echo "kernel-files: $KVER: $(echo "$known" | wc -l) files, $wrote rewritten from the series"
fi
exit $bad
