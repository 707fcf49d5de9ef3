#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make-patches.sh OUTDIR
#
# Turn a series (KVER, PATCHES_DIR and LINUX_TARBALL, kernel/scripts/kver.sh:
# by default the 6.12 one in kernel/patches; KVER=7.3 for kernel/patches-7.3)
# into the series one would post: the commits
# are rebuilt with git am in a scratch git tree holding only the files the
# series touches (and the kernel's .gitattributes, so that hunk headers
# name the C function as the kernel's own git does), and git format-patch
# writes them to OUTDIR with a cover letter from the series directory's
# cover-letter.  Then checkpatch --strict runs over every
# generated patch.  The patches of both series are upstream-style
# already: each new file (trace headers, docs, the selftest) is created by
# the patch that first needs it, so nothing is folded in here.
#
# The patches of a series carry no author and no Signed-off-by: the
# series is posted by whoever runs this, so the From: line and the
# Signed-off-by: trailer come from git config user.name and user.email
# (of this repository, or global), and the script refuses to run without
# them.
#
# A series directory whose series file names sub-series (SUB/NNNN-*.patch)
# gives one posted series per SUB, each against the base, in OUTDIR/SUB.
#
# The base is the stable release the tarball holds, vX.Y.N (Debian's
# linux-source-6.12 is 6.12.y, and the 6.12 series' patch 1 edits code that
# came with a 6.12.y fix, so it does not apply to v6.12; linux-source-7.3 is
# 7.3.4): its tag is named in the cover letter's base: line, with the Debian
# package version (dpkg's, or the changelog next to a tarball unpacked from
# the .deb).  BASE_COMMIT, the commit id of that tag in linux-stable, adds
# the base-commit: line that b4 and the bots read; it cannot be derived from
# the tarball, which has no git history.
set -euo pipefail

[ $# -eq 1 ] && [ -n "$1" ] || { echo "usage: make-patches.sh OUTDIR" >&2; exit 2; }
# Absolute: the script works from a scratch tree, and OUTDIR is removed
# and written from there.
out=$(realpath -m -- "$1")
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/kernel/scripts/kver.sh"
patches=$PATCHES_DIR
tarball=$LINUX_TARBALL
# the checkpatch of the series' own tree (make kernel-stock unpacks it)
if [ "$KVER" = 6.12 ]; then
	checkpatch=${CHECKPATCH:-$top/build/stock/src/scripts/checkpatch.pl}
else
	checkpatch=${CHECKPATCH:-$top/build/$KVER/stock/src/scripts/checkpatch.pl}
fi
work=$out.tree

die() { echo "make-patches: $*" >&2; exit 1; }

name=$(git -C "$top" config user.name || true)
email=$(git -C "$top" config user.email || true)
[ -n "$name" ] && [ -n "$email" ] ||
	die "git config user.name and user.email must be set: they become the From: and Signed-off-by: of every patch"
base_commit=${BASE_COMMIT:-}
[ -z "$base_commit" ] || [[ $base_commit =~ ^[0-9a-f]{40}$ ]] ||
	die "BASE_COMMIT must be the 40-digit commit id of the base tag, not '$base_commit'"
# OUTDIR and OUTDIR.tree are removed first: never the repository, a
# directory above it, or its kernel/
parent=${out%/}
case $top/ in "$parent"/*) die "OUTDIR $out holds this repository: name a directory of its own";; esac
case $out in "$top"/kernel|"$top"/kernel/*) die "OUTDIR $out is in kernel/: name a directory of its own";; esac
[ -r "$tarball" ] || die "$tarball not found: $KSOURCE"
[ -x "$checkpatch" ] || die "$checkpatch not found: run make kernel-stock first, or set CHECKPATCH"

mapfile -t series < <(grep -v '^[[:space:]]*\(#\|$\)' "$patches/series" | awk '{ print $1 }')
[ ${#series[@]} -gt 0 ] || die "${patches#$top/}/series lists no patches"

# A series of sub-series (entries SUB/NNNN-*.patch, each SUB a directory
# with its own series and cover-letter: 7.3's mm for linux-mm and x86
# for tip) is posted as one series per SUB, each made against the base
# alone by a run of this script into OUTDIR/SUB.
subs=$(series_subs "$patches")
if [ -n "$subs" ]; then
	series_subs_in_order "$patches" ||
		die "${patches#$top/}/series is not its sub-series' patches, in order, and nothing else"
	rm -rf "$work" "$out"
	mkdir -p "$out"
	status=0
	for sub in $subs; do
		[ -f "$patches/$sub/series" ] && [ -f "$patches/$sub/cover-letter" ] ||
			die "series names $sub/..., but ${patches#$top/}/$sub has no series or no cover-letter"
		echo "make-patches: sub-series $sub (${patches#$top/}/$sub) on the base alone"
		PATCHES_DIR=$patches/$sub "$0" "$out/$sub" || status=1
	done
	echo "make-patches: $(echo $subs | wc -w) series in $out: $(echo $subs)"
	exit $status
fi

# The scratch tree holds only what the series modifies: format-patch output
# (blob ids included) does not depend on the rest of the tree.  A patch may
# change a file that an earlier patch creates (0004 adds the resize event
# to the header that 0002 creates): those are not in the tarball.
created=$(for p in "${series[@]}"; do
	awk '/^--- \/dev\/null/ { n = 1; next } n && /^\+\+\+ b\// { print substr($0, 7) } { n = 0 }' "$patches/$p"
done | sort -u)
touched=$(for p in "${series[@]}"; do sed -n 's|^--- a/\([^	]*\).*|\1|p' "$patches/$p"; done |
	sort -u | comm -23 - <(echo "$created"))
rm -rf "$work" "$out"
mkdir -p "$work" "$out"
# quoted patterns: unquoted, the shell would glob them in the current directory
members=('*/Makefile' '*/.gitattributes')
for f in $touched; do members+=("*/$f"); done
tar -xf "$tarball" -C "$work" --strip-components=1 --wildcards --no-wildcards-match-slash "${members[@]}"
base_tag=v$(tree_release "$work")
[ "$base_tag" != v ] || die "no VERSION, PATCHLEVEL and SUBLEVEL in $tarball's Makefile"
debian=$(dpkg-query -W -f '${Version}' "linux-source-$KVER" 2>/dev/null || true)
changelog=${tarball%/src/*}/share/doc/linux-source-$KVER/changelog.Debian.gz
if [ -z "$debian" ] && [ -r "$changelog" ]; then
	debian=$(zcat "$changelog" | sed -n '1s/^linux (\([^)]*\)).*/\1/p')
fi
mbox=$(mktemp)
cd "$work"
git init -q
git config user.name "$name"
git config user.email "$email"
git add -A
git commit -q -m "Linux $KVER (Debian linux-source-$KVER), the files the series touches"
base=$(git rev-parse HEAD)

for p in "${series[@]}"; do
	{ printf 'From: %s <%s>\n' "$name" "$email"; cat "$patches/$p"; } > "$mbox"
	git am -q --keep-cr --signoff "$mbox" || die "git am $p failed"
	echo "make-patches: $p"
done

cover=()
cover=(--cover-letter)
git format-patch -q "${cover[@]}" -o "$out" "$base..HEAD"
if [ -f "$patches/cover-letter" ]; then
	# Subject is the first line of cover-letter, the blurb the rest.
	subject=$(head -1 "$patches/cover-letter")
	python3 - "$out"/0000-cover-letter.patch "$patches/cover-letter" "$subject" <<'PY'
import sys
path, blurb_file, subject = sys.argv[1:]
text = open(path).read()
blurb = open(blurb_file).read().split("\n", 1)[1].strip("\n")
text = text.replace("*** SUBJECT HERE ***", subject).replace("*** BLURB HERE ***", blurb)
open(path, "w").write(text)
PY
fi
# format-patch --base needs the upstream commit in this scratch tree, which
# holds only the touched files; the trailer is the same text.
python3 - "$out"/0000-cover-letter.patch "$base_tag" "$debian" "$base_commit" "$KVER" <<'PY'
import sys
path, tag, debian, commit, kver = sys.argv[1:]
text = open(path).read()
head, sep, sig = text.rpartition("\n-- \n")
base = "base: %s (linux-stable)" % tag
if debian:
    base += ", tested as Debian's linux-source-%s %s" % (kver, debian)
if commit:
    base += "\nbase-commit: " + commit
open(path, "w").write(head.rstrip("\n") + "\n\n" + base + "\n" + sep + sig)
PY
if [ -n "$base_commit" ]; then
	echo "make-patches: base $base_tag, base-commit $base_commit"
else
	echo "make-patches: base $base_tag, no base-commit: line (BASE_COMMIT: the tag's commit id)"
fi
cd "$top"
rm -rf "$work" "$mbox"

# Errors and warnings fail; CHECKs are shown.  The TRACE_EVENT() layout
# of every include/trace/events header draws CHECKs ("Lines should not end
# with a '('"; mmap_lock.h has 11), so a CHECK-free trace header would be
# the odd one out.
status=0
for f in "$out"/*.patch; do
	case $f in *0000-cover-letter.patch) continue;; esac
	res=$(cd "$(dirname "$checkpatch")/.." && "$checkpatch" --strict -q "$f" 2>&1 || true)
	total=$(echo "$res" | grep '^total:' || echo "total: 0 errors, 0 warnings, 0 checks")
	if echo "$total" | grep -q '^total: 0 errors, 0 warnings'; then
		echo "make-patches: $(basename "$f"): ${total#total: }"
	else
		echo "$res" | grep -A3 '^\(ERROR\|WARNING\)' | sed 's/^/  /'
		echo "make-patches: $(basename "$f"): ${total#total: }" >&2
		status=1
	fi
done
echo "make-patches: series in $out"
exit $status
