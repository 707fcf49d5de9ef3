#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tool-deb.sh WORKDIR OUTDIR
#
# faulttune as a Debian package, with Debian's own tools: a copy of what
# the package is built from (debian/, tools/faulttune, Documentation,
# README.md) in WORKDIR/faulttune, dpkg-buildpackage -b there (debhelper;
# the unit tests run unless DEB_BUILD_OPTIONS has nocheck), then lintian,
# which must report no error.  The .deb is copied to OUTDIR, ready for
# "apt install ./faulttune_*.deb", which pulls in the libraries the binary
# links (shlibs:Depends).
set -euo pipefail

work=$1 out=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
die() { echo "deb: $*" >&2; exit 1; }

for t in dpkg-buildpackage dh lintian rst2man; do
	command -v $t >/dev/null ||
		die "$t not found: apt-get install dpkg-dev debhelper lintian python3-docutils (make deps)"
done

rm -rf "$work"
mkdir -p "$work/faulttune"
(cd "$top" && tar -cf - --exclude='*.o' --exclude=faulttune.1 \
	--exclude=tools/faulttune/faulttune --exclude=tools/faulttune/tests/unit \
	--exclude=tools/faulttune/tests/synth \
	debian tools/faulttune Documentation README.md) | tar -xf - -C "$work/faulttune"

start=$(date +%s)
log=$work/build.log
if ! (cd "$work/faulttune" && dpkg-buildpackage -b -us -uc) > "$log" 2>&1; then
	tail -30 "$log" >&2
	die "dpkg-buildpackage failed; full log: $log"
fi
changes=$(ls "$work"/faulttune_*.changes)
# lintian exits non-zero on errors only (--fail-on error); every tag it
# reports is shown
lintian --fail-on error --info "$changes" > "$work/lintian.log" 2>&1 || {
	cat "$work/lintian.log" >&2
	die "lintian reports errors (above)"
}
sed 's/^/  lintian: /' "$work/lintian.log"
rm -f "$out"/faulttune_*.deb
cp "$work"/faulttune_*.deb "$out/"
echo "deb: $(cd "$out" && ls faulttune_*.deb) in $(( $(date +%s) - start ))s (lintian: no error)"
