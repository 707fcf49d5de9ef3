#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# subseries-apply.sh
#
# A series whose series file names sub-series (entries SUB/NNNN-*.patch,
# each SUB a directory with its own series and cover-letter: 7.3's mm for
# linux-mm and x86 for tip) is posted as one series per SUB, each against
# the base alone.  Check, in seconds and with no kernel build, that each
# sub-series applies to the base on its own as a maintainer applies it:
# git am, patch by patch, in a scratch git tree of the files the series
# changes (from KERNEL_BASE, the unpacked stock tree, or else the
# tarball), the same approach as make-patches.sh.  make series-check
# proves the same and builds every patch; this is make check's quick
# guard (tests/check.sh, kernel files group).
#
# The series: KVER, PATCHES_DIR and LINUX_TARBALL (kernel/scripts/kver.sh).
# TAP: one line for the series file naming every sub-series' patches in
# their order, then one per patch of each sub-series; a patch that does
# not apply is not ok, names the sub-series and the patch, and ends that
# sub-series.  A series without sub-series gives "1..0".  Exit 1 when
# anything is not ok, 2 when the check cannot run.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/kernel/scripts/kver.sh"
patches=$PATCHES_DIR
rel=${patches#$top/}
tarball=$LINUX_TARBALL
if [ "$KVER" = 6.12 ]; then base=${KERNEL_BASE:-$top/build/stock/src}
else base=${KERNEL_BASE:-$top/build/$KVER/stock/src}; fi

die() { echo "subseries-apply: $*" >&2; exit 2; }

[ -f "$patches/series" ] || die "no $rel/series"
subs=$(series_subs "$patches")
if [ -z "$subs" ]; then
	echo "1..0 # no sub-series in $rel/series"
	exit 0
fi

n=0 bad=0
result() {	# ok|not DESC
	n=$((n + 1))
	if [ "$1" = ok ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; bad=1; fi
}

# the series file is what the harness applies: every sub-series' patches,
# in their order, sub-series after sub-series, and nothing else
if series_subs_in_order "$patches"; then
	result ok "sub-series: $rel/series names the patches of $(echo $subs | sed 's/ /, /g'), in order"
else
	result not "sub-series: $rel/series is not the patches of $(echo $subs | sed 's/ /, /g') in order"
fi

# the files the patches change that the base has (not those they create)
all=$(for sub in $subs; do series_list "$patches/$sub" | sed "s|^|$patches/$sub/|"; done)
for f in $all; do [ -f "$f" ] || die "$f is named by its series but not there"; done
created=$(for f in $all; do
	awk '/^--- \/dev\/null/ { n = 1; next } n && /^\+\+\+ b\// { print substr($0, 7) } { n = 0 }' "$f"
done | sort -u)
existing=$(for f in $all; do sed -n 's|^--- a/\([^	]*\).*|\1|p' "$f"; done |
	sort -u | comm -23 - <(echo "$created"))

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/base"
if [ -f "$base/Makefile" ]; then
	from=${base#$top/}
	(cd "$base" && cp --parents Makefile $existing "$tmp/base/") || die "cannot copy the files from $base"
else
	[ -r "$tarball" ] || die "neither $base nor $tarball: run make kernel-stock (or make deps)"
	from=$tarball
	members=('*/Makefile')
	for f in $existing; do members+=("*/$f"); done
	tar -xf "$tarball" -C "$tmp/base" --strip-components=1 --wildcards --no-wildcards-match-slash \
		"${members[@]}" || die "cannot unpack the files from $tarball"
fi
release=$(tree_release "$tmp/base")
git=(git -c user.name=subseries-apply -c user.email=subseries-apply@localhost
     -c commit.gpgsign=false -c core.hooksPath=/dev/null)

for sub in $subs; do
	t=$tmp/$sub
	cp -a "$tmp/base" "$t"
	(cd "$t" && "${git[@]}" init -q && "${git[@]}" add -A && "${git[@]}" commit -q -m base) ||
		die "cannot make a git tree in $t"
	for p in $(series_list "$patches/$sub"); do
		{ printf 'From: subseries-apply <subseries-apply@localhost>\n'; cat "$patches/$sub/$p"; } > "$tmp/mbox"
		if out=$(cd "$t" && "${git[@]}" am -q --keep-cr "$tmp/mbox" 2>&1); then
			result ok "sub-series $sub: $p applies with git am to Linux ${release:-?} alone"
		else
			{ echo "$out" | grep -E '^(error|fatal|warning):' || echo "$out"; } | head -8 | sed 's/^/# /'
			result not "sub-series $sub: $p does not apply with git am to Linux ${release:-?} ($from) and the sub-series' earlier patches alone: each sub-series is made against the base, not against another"
			break
		fi
	done
done
echo "1..$n"
exit $bad
