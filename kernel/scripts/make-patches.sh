#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make-patches.sh OUTDIR
#
# Turn kernel/patches/series plus the new files that live in this repository
# (include/, tools/testing/, Documentation/) into the series one would post:
# each new file is folded into the patch that kernel/patches/new-files names
# for it, the commits are rebuilt in a scratch git tree holding only the
# files the series touches, and git format-patch writes them to OUTDIR with
# a cover letter from kernel/patches/cover-letter.  Then checkpatch --strict
# runs over every generated patch, new files included, which the per-patch
# check of kernel/patches alone cannot see.
set -euo pipefail

out=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
patches=$top/kernel/patches
tarball=${LINUX_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
checkpatch=${CHECKPATCH:-$top/build/stock/src/scripts/checkpatch.pl}
work=$out.tree

die() { echo "make-patches: $*" >&2; exit 1; }

[ -r "$tarball" ] || die "$tarball not found: install linux-source-6.12 (make deps)"
[ -x "$checkpatch" ] || die "$checkpatch not found: run make kernel-stock first, or set CHECKPATCH"

mapfile -t series < <(grep -v '^[[:space:]]*\(#\|$\)' "$patches/series" | awk '{ print $1 }')
[ ${#series[@]} -gt 0 ] || die "kernel/patches/series lists no patches"

# Every new file must be placed, and only in a patch that exists.
declare -A place
while read -r nr file; do
	case $nr in ''|'#'*) continue;; esac
	[ -f "$top/$file" ] || die "new-files names $file, which is not in the repository"
	ls "$patches/$nr"-*.patch >/dev/null 2>&1 || die "new-files puts $file in patch $nr, which does not exist"
	place[$file]=$nr
done < "$patches/new-files"
while IFS= read -r f; do
	[ -n "${place[$f]:-}" ] || die "$f is a new kernel file but kernel/patches/new-files does not place it"
done < <(cd "$top" && find include tools/testing Documentation/admin-guide Documentation/trace \
		-type f ! -name '*.orig' 2>/dev/null | sort)

# The scratch tree holds only what the series modifies: format-patch output
# (blob ids included) does not depend on the rest of the tree.
touched=$(for p in "${series[@]}"; do sed -n 's|^--- a/\([^	]*\).*|\1|p' "$patches/$p"; done | sort -u)
rm -rf "$work" "$out"
mkdir -p "$work" "$out"
tar -xf "$tarball" -C "$work" --strip-components=1 --wildcards \
	$(for f in $touched; do echo "*/$f"; done)
cd "$work"
git init -q
git config user.name "faulttune make-patches"
git config user.email "make-patches@localhost"
git add -A
git commit -q -m "Linux 6.12 (Debian linux-source-6.12), the files the series touches"
base=$(git rev-parse HEAD)

for p in "${series[@]}"; do
	nr=${p%%-*}
	git am -q --keep-cr "$patches/$p" || die "git am $p failed"
	added=
	for f in "${!place[@]}"; do
		[ "${place[$f]}" = "$nr" ] || continue
		mkdir -p "$(dirname "$f")"
		cp "$top/$f" "$f"
		git add "$f"
		added="$added $f"
	done
	[ -z "$added" ] || git commit -q --amend --no-edit
	echo "make-patches: $p${added:+ + $added}"
done

cover=()
[ -f "$patches/cover-letter" ] && cover=(--cover-letter)
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
cd "$top"
rm -rf "$work"

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
