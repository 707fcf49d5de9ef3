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

# The Debian archive this machine already uses: the URI of a source for
# its own release (deb822 .sources files or one-line lists).
archive() {
	local codename f
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		# one stanza per paragraph: its URIs when its Suites has the release
		awk -v rel="$codename" 'BEGIN { RS = ""; FS = "\n" }
			{ uri = ""; hit = 0
			  for (i = 1; i <= NF; i++) {
				if ($i ~ /^URIs:/) { sub(/^URIs:[ \t]*/, "", $i); split($i, u, " "); uri = u[1] }
				if ($i ~ /^Suites:/) { n = split($i, s, /[ \t]+/); for (j = 2; j <= n; j++) if (s[j] == rel) hit = 1 }
			  }
			  if (hit && uri != "") print uri }' "$f"
	done
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -E 's/\[[^]]*\]//' | awk -v rel="$codename" '$1 == "deb" && $3 == rel { print $2 }'
}
uri=${FT_ARCHIVE:-$(archive | grep -m1 '/debian/\?$' || true)}
[ -n "$uri" ] || die "no Debian archive in /etc/apt/sources.list{,.d} to fetch $suite from (set FT_ARCHIVE=URI)"

work=$dest.fetch
rm -rf "$work"
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
trap 'rm -rf "$work"' EXIT
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main" > "$work/sources.list"
apt=(-q -o Dir::Etc::sourcelist="$work/sources.list" -o Dir::Etc::sourceparts=/nonexistent
     -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache"
     -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=)

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
