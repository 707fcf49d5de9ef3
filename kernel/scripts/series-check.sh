#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# series-check.sh FRAGMENT...
#
# Check that every patch of a series stands on its own: unpack
# a fresh tree into DIR/src (default build/series), then apply the patches
# one at a time with patch -p1 --fuzz=0 (an offset is noted), each one
# creating the new files it needs as the posted series does, and after
# each one build bzImage with the fragments'
# configuration (one object directory, DIR/obj, so each build is
# incremental; ccache) and run scripts/checkpatch.pl --strict on the patch
# file.  One TAP line per patch; the first patch that does not apply,
# build without warnings, pass checkpatch (no error, no warning; CHECKs
# are shown) or keep its file free of
# trailing white space stops the run with "not ok" and exit status 1.
# Logs: DIR/NNNN.build.log and DIR/NNNN.checkpatch.log.  DIR is
# $SERIES_DIR, by default build/series (6.12) or build/series-7.3.
#
# A series whose series file names sub-series (entries SUB/NNNN-*.patch,
# each SUB a directory with its own series and cover-letter: 7.3's mm
# and x86) is checked one sub-series at a time, each from a fresh tree of
# its own in DIR/SUB, so that what passes is what is posted: each
# sub-series applies to the base alone and every patch of it builds.
# The TAP lines name the patches SUB/NNNN-* and are numbered across the
# sub-series; the first failure stops the run as above.  The sub-series
# on top of each other are make check's patched kernel.
#
# The series and the tree: KVER, PATCHES_DIR and LINUX_TARBALL
# (kernel/scripts/kver.sh; default the 6.12 series, kernel/patches, on
# Debian's linux-source-6.12).  Without FRAGMENT arguments the fragments
# are make check's: base.config and debug.config, then systemd.config for
# 6.12 and 7.3.config for 7.3.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/kernel/scripts/kver.sh"
if [ "$KVER" = 6.12 ]; then
	dir=${SERIES_DIR:-$top/build/series}
	[ $# -gt 0 ] || set -- "$top/kernel/config/base.config" "$top/kernel/config/debug.config" \
		"$top/kernel/config/systemd.config"
else
	dir=${SERIES_DIR:-$top/build/series-$KVER}
	[ $# -gt 0 ] || set -- "$top/kernel/config/base.config" "$top/kernel/config/debug.config" \
		"$top/kernel/config/$KVER.config"
fi
src=$dir/src obj=$dir/obj
tarball=$LINUX_TARBALL
patchdir=$PATCHES_DIR
series=$patchdir/series
jobs=${JOBS:-$(nproc)}
# Same ccache setup as the Makefile, for runs outside make.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$top}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
export CCACHE_IGNOREOPTIONS=${CCACHE_IGNOREOPTIONS:--fmacro-prefix-map=*}

die() { echo "series-check: $*" >&2; exit 2; }
[ -r "$tarball" ] || die "$tarball not found: $KSOURCE"
[ -f "$series" ] || die "no $series"

patches=$(sed -e 's/[[:space:]].*//' -e '/^#/d' -e '/^$/d' "$series")
total=$(echo "$patches" | wc -l)
start=$(date +%s)

# A series of sub-series: each one checked by a run of this script on
# its own directory and tree, its TAP lines renumbered and named SUB/...
subs=$(series_subs "$patchdir")
if [ -n "$subs" ]; then
	for sub in $subs; do
		[ -f "$patchdir/$sub/series" ] || die "series names $sub/..., but there is no ${patchdir#$top/}/$sub/series"
	done
	series_subs_in_order "$patchdir" ||
		die "${series#$top/} is not the patches of its sub-series' series, in order, and nothing else"
	echo "# $KVER series ${patchdir#$top/}: sub-series $(echo $subs), each on its own base"
	echo "1..$total"
	n=0
	for sub in $subs; do
		echo "# ==== sub-series $sub (${patchdir#$top/}/$sub), fresh tree in $dir/$sub/src"
		PATCHES_DIR=$patchdir/$sub SERIES_DIR=$dir/$sub "$0" "$@" |
			awk -v sub_="$sub" -v n=$n '
				/^1\.\.[0-9]+$/ { next }
				/^(not )?ok [0-9]+ - / {
					s = $0; pre = "ok"
					if (s ~ /^not /) { pre = "not ok"; sub(/^not /, "", s) }
					sub(/^ok [0-9]+ - /, "", s)
					print pre, ++n, "- " sub_ "/" s; fflush(); next
				}
				{ print; fflush() }'
		rc=${PIPESTATUS[0]}
		[ $rc = 0 ] || exit $rc
		n=$((n + $(series_list "$patchdir/$sub" | wc -l)))
	done
	echo "# series-check: $total patches of $(echo $subs | wc -w) sub-series in $(( $(date +%s) - start ))s"
	exit 0
fi

echo "# $KVER series ${patchdir#$top/} on $tarball"
echo "# fresh tree in $src"
rm -rf "$src"
mkdir -p "$src" "$obj"
tar -xf "$tarball" -C "$src" --strip-components=1 || die "cannot unpack $tarball"
# The object directory outlives the tree: an object built from a later
# patch's version of a file must not look newer than the file now.
# Everything any patch touches gets a fresh mtime; a file the series
# creates gets one from patch(1) when it is created.
now=$(date +%s)
for p in $patches; do
	[ -f "$patchdir/$p" ] || die "series names $p, which is not in ${patchdir#$top/}"
	sed -n 's|^+++ b/\([^	]*\).*|\1|p' "$patchdir/$p"
done | sort -u | while read -r f; do
	[ -e "$src/$f" ] && touch -d "@$now" "$src/$f"
done
"$top/kernel/scripts/configure.sh" "$src" "$obj" "$@" || die "configure failed"
echo "# unpacked and configured in $(( $(date +%s) - start ))s"

echo "1..$total"
n=0
for p in $patches; do
	n=$((n + 1))
	file=$patchdir/$p
	log=$dir/$(printf %04d $n)
	t0=$(date +%s)
	if ! out=$(cd "$src" && patch -p1 --forward --batch --fuzz=0 --no-backup-if-mismatch \
			-r - < "$file" 2>&1); then
		echo "$out" | sed 's/^/# /'
		echo "not ok $n - $p: does not apply with --fuzz=0"
		exit 1
	fi
	if echo "$out" | grep -q 'with fuzz\|offset'; then
		echo "$out" | grep 'with fuzz\|offset' | sed 's/^/# note: /'
	fi
	if grep -q '[[:space:]]$' "$file"; then
		grep -n '[[:space:]]$' "$file" | head -3 | sed 's/^/# /'
		echo "not ok $n - $p: trailing white space in the patch file"
		exit 1
	fi
	if ! make -s -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
			KBUILD_BUILD_USER=faulttune KBUILD_BUILD_HOST=qemu \
			-j"$jobs" bzImage > "$log.build.log" 2>&1; then
		grep -E 'error|Error' "$log.build.log" | head -20 | sed 's/^/# /'
		echo "not ok $n - $p: does not build (log: $log.build.log)"
		exit 1
	fi
	if grep -q 'warning:' "$log.build.log"; then
		grep 'warning:' "$log.build.log" | head -20 | sed 's/^/# /'
		echo "not ok $n - $p: builds with warnings (log: $log.build.log)"
		exit 1
	fi
	t1=$(date +%s)
	# spdxcheck.py needs python3-ply; its absence is not the patch's fault.
	# --no-signoff: the files carry no author; make patches adds the
	# poster's Signed-off-by and checks the result.
	# Errors and warnings fail, as in make patches; the CHECKs that
	# every TRACE_EVENT() hunk draws from --strict are shown, not fatal.
	(cd "$src" && ./scripts/checkpatch.pl --strict --no-signoff "$file") > "$log.checkpatch.log" 2>/dev/null
	cp_total=$(grep '^total:' "$log.checkpatch.log")
	if ! grep -q '^total: 0 errors, 0 warnings' <<<"$cp_total"; then
		grep -E '^(ERROR|WARNING|CHECK):' "$log.checkpatch.log" | head -20 | sed 's/^/# /'
		echo "not ok $n - $p: checkpatch --strict: ${cp_total:-no total line}"
		exit 1
	fi
	grep -E '^CHECK:' "$log.checkpatch.log" | sed 's/^/# note: /'
	echo "ok $n - $p: applies, builds, checkpatch clean (${cp_total#total: })"
	echo "# $p: build $((t1 - t0))s, checkpatch $(( $(date +%s) - t1 ))s"
done
echo "# series-check: $total patches in $(( $(date +%s) - start ))s"
