#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# configure.sh SRCDIR OBJDIR FRAGMENT...
#
# x86_64 tinyconfig with the fragments merged on top, then olddefconfig.
# Every option a fragment sets must survive olddefconfig (a missing
# dependency silently drops it otherwise); the first one that did not is
# named and the build stops.  OBJDIR/.config is only rewritten when its
# content changes, so an unchanged configuration rebuilds nothing.
set -euo pipefail

src=$1 obj=$2
shift 2
tmp=$obj/.config.new.d
die() { echo "configure: $*" >&2; exit 1; }

rm -rf "$tmp"
mkdir -p "$tmp"
make -s -C "$src" O="$tmp" ARCH=x86_64 tinyconfig >/dev/null
(cd "$tmp" && "$src/scripts/kconfig/merge_config.sh" -m -O "$tmp" .config "$@" >/dev/null)
make -s -C "$src" O="$tmp" ARCH=x86_64 olddefconfig >/dev/null

for frag in "$@"; do
	while IFS= read -r line; do
		case $line in
		CONFIG_*=n) opt=${line%%=*}
			grep -q "^$opt=" "$tmp/.config" && die "$opt is set in .config but $frag asks =n";;
		CONFIG_*=*) grep -qxF "$line" "$tmp/.config" ||
			die "$line from $(basename "$frag") did not survive olddefconfig (unmet dependency?); .config has: $(grep "^${line%%=*}=\|# ${line%%=*} is not set" "$tmp/.config" || echo nothing)";;
		esac
	done < "$frag"
done

mkdir -p "$obj"
if ! cmp -s "$tmp/.config" "$obj/.config"; then
	cp "$tmp/.config" "$obj/.config"
	echo "configure: new .config in $obj"
fi
rm -rf "$tmp"
