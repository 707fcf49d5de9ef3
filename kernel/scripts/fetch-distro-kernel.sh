#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-distro-kernel.sh KVER: Debian's own kernel of a release, the one a
# user of that release runs, into /var/cache/faulttune/distro-KVER
# (FT_KCACHE) as its .deb files, for kdeb-boot.sh to boot:
#
#   6.1	bookworm's linux-image-amd64 (Debian 12's default kernel)
#   6.12	trixie's
#   7.3	trixie-backports'
#
# The version is whatever the archive's linux-image-amd64 of that suite
# depends on today: the kernel a new install gets.  As fetch-linux.sh,
# nothing on the machine changes: a sources list, package lists and cache
# of its own, apt-get only downloads.  Prints the directory.  Exit 2 with
# one line naming the suite and the package when the archive no longer
# carries it (the caller reports a skip); 1 on any other failure.
set -euo pipefail

kver=${1:?usage: fetch-distro-kernel.sh 6.1|6.12|7.3}
case $kver in
6.1) suite=bookworm ;;
6.12) suite=trixie ;;
7.3) suite=trixie-backports ;;
*) echo "fetch-distro-kernel: no Debian suite known for $kver (6.1, 6.12 or 7.3)" >&2; exit 1 ;;
esac
dest=${FT_KCACHE:-/var/cache/faulttune}/distro-$kver
die() { echo "fetch-distro-kernel: $*" >&2; exit 1; }
gone() { echo "fetch-distro-kernel: $*" >&2; exit 2; }

# a sources list, lists and cache of its own, at the machine's archive
. "$(dirname "$0")/apt-suite.sh"
work=$dest.fetch
apt_suite_init "$work" "$suite" ||
	die "no Debian archive in /etc/apt/sources.list{,.d} (set FT_ARCHIVE=URI)"
uri=$apt_suite_uri
apt-get "${apt[@]}" update > "$work/update.log" 2>&1 ||
	{ tail -5 "$work/update.log" >&2; die "apt-get update of $suite at $uri failed"; }
# the suite's own linux-image-amd64 (a backports suite sees its base's too)
ver=$(apt-cache "${apt[@]}" madison linux-image-amd64 2>/dev/null | awk -F'|' -v s="$suite" \
	'$3 ~ " "s"/" { gsub(/ /, "", $2); print $2; exit }')
[ -n "$ver" ] || gone "$suite at $uri has no linux-image-amd64"
image=$(apt-cache "${apt[@]}" show "linux-image-amd64=$ver" | sed -n 's/^Depends: //p' | head -1 |
	tr ',' '\n' | sed -n 's/^ *\(linux-image-[0-9][^ ]*\).*/\1/p' | head -1)
[ -n "$image" ] || gone "linux-image-amd64 $ver of $suite depends on no linux-image-N"
# the image and what holds its kernel and modules (7.3: linux-binary-*,
# linux-modules-*; before: the image package itself)
parts=$(apt-cache "${apt[@]}" show "$image" | sed -n 's/^Depends: //p' | head -1 |
	tr ',' '\n' | sed -n 's/^ *\(linux-\(binary\|modules\)-[0-9][^ ]*\).*/\1/p')
pkgs=$(echo $image $parts)
if [ -f "$dest/PACKAGES" ] && [ "$(cat "$dest/PACKAGES")" = "$ver $pkgs" ]; then
	echo "$dest"
	exit 0
fi
echo "fetch-distro-kernel: $pkgs ($ver) from $uri $suite" >&2
(cd "$work/debs" && apt-get "${apt[@]}" download $pkgs > "$work/download.log" 2>&1) ||
	{ tail -5 "$work/download.log" >&2; gone "apt-get download $pkgs from $suite failed"; }
rm -rf "$dest"
mkdir -p "$dest"
mv "$work"/debs/*.deb "$dest/"
echo "$ver $pkgs" > "$dest/PACKAGES"
echo "$dest"
