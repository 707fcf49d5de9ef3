#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-linux.sh KVER: Debian's linux-source-KVER and linux-config-KVER from
# the suite that carries them (7.3: trixie-backports), unpacked into
# /var/cache/faulttune/linux-KVER (FT_KCACHE), for a kernel this Debian
# release does not ship.
#
# Nothing on the machine changes: the suite goes in a sources list of its
# own, with its own package lists and cache, apt-get only downloads, and
# dpkg-deb -x unpacks the two .debs under the cache directory.  The
# archive is the one the machine's sources already name (FT_ARCHIVE to
# override).  Nothing to do when the tarball is there.
set -euo pipefail

kver=${1:?usage: fetch-linux.sh KVER}
case $kver in
7.3) suite=trixie-backports ;;
*) echo "fetch-linux: no suite known for linux-source-$kver (7.3 only; 6.12 is Debian 12's own, from make deps)" >&2
   exit 1 ;;
esac
dest=${FT_KCACHE:-/var/cache/faulttune}/linux-$kver
tarball=$dest/usr/src/linux-source-$kver.tar.xz
pkgs="linux-source-$kver linux-config-$kver"

[ -r "$tarball" ] && [ -d "$dest/usr/src/linux-config-$kver" ] && exit 0

die() { echo "fetch-linux: $*" >&2; exit 1; }

. "$(dirname "$0")/apt-suite.sh"
work=$dest.fetch
apt_suite_init "$work" "$suite" ||
	die "no Debian archive in /etc/apt/sources.list{,.d} to fetch $suite from (set FT_ARCHIVE=URI)"
uri=$apt_suite_uri

echo "fetch-linux: $pkgs from $uri $suite"
apt-get "${apt[@]}" update > "$work/update.log" 2>&1 ||
	{ tail -5 "$work/update.log" >&2; die "apt-get update of $suite at $uri failed"; }
for p in $pkgs; do
	apt-cache "${apt[@]}" show "$p" > /dev/null 2>&1 ||
		die "$suite at $uri has no package $p (is linux-$kver still in $suite?)"
done
# apt-get download as root is unsandboxed: it writes into the cwd
(cd "$work/debs" && apt-get "${apt[@]}" download $pkgs > "$work/download.log" 2>&1) ||
	{ tail -5 "$work/download.log" >&2; die "apt-get download $pkgs from $suite failed"; }
mkdir -p "$dest"
for deb in "$work"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dest"
	echo "fetch-linux: $(basename "$deb") -> $dest"
done
[ -r "$tarball" ] || die "linux-source-$kver did not hold usr/src/linux-source-$kver.tar.xz"
