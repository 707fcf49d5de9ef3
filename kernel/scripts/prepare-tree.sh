#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prepare-tree.sh VARIANT SRCDIR
#
# Unpack a kernel tarball into a staging directory and, for the "patched"
# variant, apply a series with patch -p1 --fuzz=0.  KVER, PATCHES_DIR and
# LINUX_TARBALL pick them (kernel/scripts/kver.sh): by default the 6.12
# series, kernel/patches, on Debian's linux-source-6.12; KVER=7.3 takes
# kernel/patches-7.3 on Debian's linux-source-7.3.
# The series is the only source of the kernel side: the files it adds
# (trace headers, their docs, the admin guide, the selftest) are created
# by the patch that first needs them, and the copies at the top of this
# repository are checked against the applied series, never copied in
# (kernel/scripts/kernel-files.sh).  The "norw" variant applies the series
# without its last patch (memtype_lock taken for reading on lookups), so
# that the read lock can be measured against the rest of the series.
# Files keep the tarball's mtimes, and every file a patch touches gets the
# mtime of the newest patch, so syncing the staged tree into SRCDIR by
# size and mtime rewrites only what changed, and the next kernel build is
# incremental.
#
# A patch that does not apply stops here with the patch, file and hunk named.
set -euo pipefail

variant=$1
srcdir=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/kernel/scripts/kver.sh"
tarball=$LINUX_TARBALL
patchdir=$PATCHES_DIR
stage=$srcdir.stage

die() { echo "prepare-tree: $*" >&2; exit 1; }

# Debian's archive keeps only the newest linux-source of a version, so the
# tree can move past the release the series was made against with no change
# here.  When a patch fails on such a tree, say so: the fix is a rebase.
# The cover letter is the series directory's, or for a series of
# sub-series (7.3's mm/ and x86/) the first sub-series' (all name the
# same base).
moved() {	# PATCH
	local have want cover
	# (a glob that matches nothing stays as written: -f skips it)
	for cover in "$patchdir/cover-letter" "$patchdir"/*/cover-letter ""; do
		[ -f "$cover" ] && break
	done
	have=$(tree_release "$stage")
	want=$(grep -o -m1 'applies to \(Linux \|v\)[0-9][0-9.]*[0-9]' "${cover:-/dev/null}" 2>/dev/null |
		grep -o '[0-9][0-9.]*[0-9]$' || true)
	[ -n "$have" ] && [ -n "$want" ] && [ "$have" != "$want" ] || return 0
	echo "prepare-tree: $tarball holds Linux $have, the series (${cover#$top/}) applies to $want:" \
		"rebase it onto $have (mend $1, then make patches) before it can apply" >&2
}

[ -r "$tarball" ] || die "$tarball not found: $KSOURCE"
case $variant in stock|patched|norw) ;; *) die "variant must be stock, patched or norw, not '$variant'";; esac

rm -rf "$stage"
mkdir -p "$stage"
tar -xf "$tarball" -C "$stage" --strip-components=1

touched=$srcdir.touched
: > "$touched"
if [ "$variant" != stock ]; then
	series=$patchdir/series
	if [ -f "$series" ]; then
		patches=$(sed -e 's/[[:space:]].*//' -e '/^#/d' -e '/^$/d' "$series")
		if [ "$variant" = norw ]; then
			[ "$(echo "$patches" | wc -l)" -ge 2 ] ||
				die "norw needs a series of two patches or more"
			echo "prepare-tree: norw leaves out $(echo "$patches" | tail -1)"
			patches=$(echo "$patches" | sed '$d')
		fi
		n=0
		for p in $patches; do
			n=$((n + 1))
			[ -f "$patchdir/$p" ] || die "series names $p, which is not in ${patchdir#$top/}"
			if ! out=$(cd "$stage" && patch -p1 --forward --batch --fuzz=0 --no-backup-if-mismatch \
					-r - < "$patchdir/$p" 2>&1); then
				echo "$out" | sed 's/^/  /' >&2
				hunk=$(echo "$out" | grep -E 'FAILED|Reversed|malformed|can.t find file' | head -3 || true)
				moved "$p"
				die "patch $p does not apply: ${hunk:-see above}"
			fi
			if echo "$out" | grep -q 'with fuzz\|offset'; then
				echo "prepare-tree: note: $p applied with offset/fuzz:" >&2
				echo "$out" | grep 'with fuzz\|offset' | sed 's/^/  /' >&2
			fi
			sed -n 's|^+++ b/\([^	]*\).*|\1|p' "$patchdir/$p" >> "$touched"
		done
		echo "prepare-tree: applied $n patches from ${series#$top/}"
	fi
	# Stamp what the patches touched with the newest file of the series
	# (of its sub-series' directories too).
	newest=$(find "$patchdir" -type f -printf '%T@\n' | cut -d. -f1 | sort -n | tail -1)
	sort -u "$touched" | while read -r f; do
		[ -e "$stage/$f" ] && touch -d "@$newest" "$stage/$f"
	done
fi
rm -f "$touched"

# Sync by size and mtime: unchanged files keep their mtime.
if [ -d "$srcdir" ]; then
	rsync -a --delete "$stage/" "$srcdir/"
	rm -rf "$stage"
else
	mv "$stage" "$srcdir"
fi
echo "prepare-tree: $variant $KVER tree ready in $srcdir"
