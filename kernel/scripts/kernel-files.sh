#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-files.sh check|update
#
# The kernel files this project adds (trace headers, their docs, the admin
# guide, the selftest) have one source: the patch series in kernel/patches,
# where each is created by the patch that first needs it and changed by
# later ones, as the mm list reviews them.  The copies at their kernel
# paths at the top of this repository (include/, tools/testing/,
# Documentation/admin-guide/, Documentation/trace/) are for readers and
# grep, and must show the kernel as the whole series leaves it.
#
# Both modes apply the series with patch -p1 --fuzz=0 to a scratch copy of
# the files it changes, taken from KERNEL_BASE (default build/stock/src,
# the unpacked tarball) or, when that is not there, from the tarball.
#
#   check   one TAP line for the series applying, then one per file: ok when
#           the top-level copy is byte for byte what the series leaves, not
#           ok with the diff otherwise, and not ok for a top-level file that
#           no patch creates.  Exit 1 when anything is not ok (make check
#           runs it first, tests/check.sh).
#   update  rewrite the top-level copies that differ from the series (make
#           kernel-files); files already right keep their mtime.
set -uo pipefail

mode=${1:-}
case $mode in check|update) ;; *) echo "usage: kernel-files.sh check|update" >&2; exit 2;; esac
top=$(cd "$(dirname "$0")/../.." && pwd)
patches=$top/kernel/patches
base=${KERNEL_BASE:-$top/build/stock/src}
tarball=${LINUX_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
# where the top-level copies live: every file under these is a kernel file
dirs="include tools/testing Documentation/admin-guide Documentation/trace"

die() { echo "kernel-files: $*" >&2; exit 2; }

series=$(sed -e 's/[[:space:]].*//' -e '/^#/d' -e '/^$/d' "$patches/series" 2>/dev/null) ||
	die "no kernel/patches/series"
[ -n "$series" ] || die "kernel/patches/series lists no patches"
for p in $series; do
	[ -f "$patches/$p" ] || die "series names $p, which is not in kernel/patches"
done

# FILE PATCH lines: which patch creates a file, which change an existing one
created=$(for p in $series; do
	awk -v p="$p" '/^--- \/dev\/null/ { n = 1; next }
		n && /^\+\+\+ b\// { print substr($0, 7), p } { n = 0 }' "$patches/$p"
done)
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
[ $mode = check ] && result ok "kernel files: the series ($count patches) applies with fuzz 0 to the files of ${from#$top/}"

fix="the patches are its source: after changing a patch, run 'make kernel-files'; a change made to the copy belongs in the patch"
wrote=0
while read -r f p; do
	[ -n "$f" ] || continue
	ch=$(changed "$f")
	what="created by ${p%%-*}${ch:+, changed by $ch}"
	if [ $mode = update ]; then
		if ! cmp -s "$tree/$f" "$top/$f"; then
			mkdir -p "$(dirname "$top/$f")"
			cp "$tree/$f" "$top/$f"
			echo "kernel-files: wrote $f ($what)"
			wrote=$((wrote + 1))
		fi
	elif [ ! -f "$top/$f" ]; then
		result not "kernel files: $f is missing at the top level ($what): run 'make kernel-files'"
	elif cmp -s "$tree/$f" "$top/$f"; then
		result ok "kernel files: $f is what the series leaves ($what)"
	else
		d=$(diff -u --label "$f (top level)" --label "$f (after the series)" "$top/$f" "$tree/$f")
		echo "$d" | head -60 | sed 's/^/# /'
		[ "$(echo "$d" | wc -l)" -le 60 ] || echo "# ... $(( $(echo "$d" | wc -l) - 60 )) more lines"
		result not "kernel files: $f differs from what the series leaves ($what): $fix"
	fi
done <<<"$created"

# a top-level file that no patch creates is in no kernel
known=$(echo "$created" | awk '{ print $1 }' | sort -u)
while IFS= read -r f; do
	[ -n "$f" ] || continue
	if [ $mode = check ]; then
		result not "kernel files: $f is at the top level but no patch in the series creates it: add it to the patch that needs it, or remove it"
	else
		echo "kernel-files: $f is at the top level but no patch creates it: left alone (add it to a patch, or remove it)" >&2
		bad=1
	fi
done < <(cd "$top" && find $dirs -type f 2>/dev/null | sort | comm -23 - <(echo "$known"))

if [ $mode = check ]; then
	echo "1..$n"
else
	echo "kernel-files: $(echo "$known" | wc -l) files, $wrote rewritten from the series"
fi
exit $bad
