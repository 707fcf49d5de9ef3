# SPDX-License-Identifier: GPL-2.0
#
# apt-suite.sh: sourced by fetch-linux.sh and fetch-distro-kernel.sh, which
# download packages of a Debian suite the machine does not use (trixie,
# trixie-backports) without changing its apt configuration: a sources list,
# package lists and a cache of their own, and apt-get only downloads.
#
#   apt_suite_init WORK SUITE   WORK/{lists,cache,debs}, WORK/sources.list
#				naming SUITE at the machine's archive, and the
#				array apt (the options that point apt there); the
#				archive is FT_ARCHIVE when set.  1 (the caller
#				says so) when the machine names no archive.
#				WORK is removed at exit.
#   apt_suite_uri		the archive apt_suite_init chose

# The Debian archive this machine already uses: the URI of a source for
# its own release (deb822 .sources files or one-line lists).
debian_archive() {
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

apt_suite_init() {
	local work=$1 suite=$2
	apt_suite_uri=${FT_ARCHIVE:-$(debian_archive | grep -m1 '/debian/\?$' || true)}
	[ -n "$apt_suite_uri" ] || return 1
	rm -rf "$work"
	mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
	# shellcheck disable=SC2064 # the work directory as it is now
	trap "rm -rf '$work'" EXIT
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $apt_suite_uri $suite main" \
		> "$work/sources.list"
	apt=(-q -o Dir::Etc::sourcelist="$work/sources.list" -o Dir::Etc::sourceparts=/nonexistent
	     -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache"
	     -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=)
}
