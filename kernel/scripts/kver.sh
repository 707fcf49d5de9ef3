# SPDX-License-Identifier: GPL-2.0
#
# kver.sh: sourced by series-check.sh, prepare-tree.sh, kernel-files.sh and
# make-patches.sh (after they set $top) to pick the kernel and series they
# work on.  Two series live here: kernel/patches against Debian's
# linux-source-6.12 (the LTS backport) and kernel/patches-7.3 against
# Debian's linux-source-7.3 (mainline).
#
#   KVER           6.12 or 7.3.  Unset, it is read from LINUX_TARBALL's name
#                  (linux-source-X.Y.tar.*) when that is set, else 6.12.
#   PATCHES_DIR    the series directory, default kernel/patches (6.12) or
#                  kernel/patches-7.3
#   LINUX_TARBALL  the kernel source, default Debian's 6.12 tarball or the
#                  7.3 one that make deps fetches into /var/cache/faulttune
#
# Sets KVER, PATCHES_DIR, LINUX_TARBALL and KSOURCE (where the tarball comes
# from, for error messages), and defines tree_release, series_list,
# series_subs and series_subs_in_order.
if [ -z "${KVER:-}" ]; then
	case ${LINUX_TARBALL:-} in
	*/linux-source-[0-9]*.tar*) KVER=${LINUX_TARBALL##*/linux-source-}; KVER=${KVER%%.tar*};;
	*) KVER=6.12;;
	esac
fi
case $KVER in
6.12)	: "${PATCHES_DIR:=$top/kernel/patches}"
	: "${LINUX_TARBALL:=/usr/src/linux-source-6.12.tar.xz}"
	KSOURCE="install Debian's linux-source-6.12 (make deps)";;
7.3)	: "${PATCHES_DIR:=$top/kernel/patches-7.3}"
	: "${LINUX_TARBALL:=/var/cache/faulttune/linux-7.3/usr/src/linux-source-7.3.tar.xz}"
	KSOURCE="fetch Debian's linux-source-7.3 from trixie-backports (make deps)";;
*)	echo "KVER must be 6.12 or 7.3, not '$KVER'" >&2; exit 2;;
esac

# tree_release DIR: the release of the kernel tree in DIR (X.Y.Z, from its
# top Makefile), or nothing when DIR has no such Makefile
tree_release() {
	sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = \([0-9]*\)$/\2/p' "$1/Makefile" 2>/dev/null |
		paste -sd. | grep -x '[0-9]*\.[0-9]*\.[0-9]*' || true
}

# series_list DIR: the patches DIR/series names, in order (nothing when
# there is no DIR/series)
series_list() {
	sed -e 's/[[:space:]].*//' -e '/^#/d' -e '/^$/d' "$1/series" 2>/dev/null || true
}

# series_subs DIR: the sub-series DIR/series names, in order: SUB of its
# SUB/NNNN-*.patch entries (7.3's mm and x86, each posted on its own
# against the base); nothing for a series of patches
series_subs() {
	series_list "$1" | sed -n 's|^\([^/]*\)/.*|\1|p' | awk '!seen[$0]++'
}

# series_subs_in_order DIR: DIR/series is its sub-series' own series, one
# after the other, and nothing else (what the harness applies is what is
# posted)
series_subs_in_order() {
	local sub
	[ "$(for sub in $(series_subs "$1"); do
		series_list "$1/$sub" | sed "s|^|$sub/|"
	done)" = "$(series_list "$1")" ]
}
