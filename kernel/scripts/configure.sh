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
#
# A fragment for a newer kernel may say that an option of an earlier
# fragment no longer exists there (7.3 folded CONFIG_PROC_SYSCTL into
# CONFIG_SYSCTL) with a line
#	# configure: gone CONFIG_NAME
# That option is then not checked, and it must really be gone: if the
# tree's Kconfig still defines it, the build stops.
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

gone=$(sed -n 's/^# configure: gone \(CONFIG_[A-Za-z0-9_]*\)$/\1/p' "$@")
for opt in $gone; do
	! grep -rqx --include='Kconfig*' "\(menu\)\?config ${opt#CONFIG_}" "$src" ||
		die "$opt is marked gone, but $src's Kconfig still defines it"
done
# Each option as its last fragment sets it (merge_config's rule: a later
# fragment overrides an earlier one, as systemd.config turns NET on).
seen=" "
for ((i = $#; i >= 1; i--)); do
	frag=${!i}
	while IFS= read -r line; do
		case $line in CONFIG_*=*) ;; *) continue;; esac
		case " $gone " in *" ${line%%=*} "*) continue;; esac
		case $seen in *" ${line%%=*} "*) continue;; esac
		case $line in
		CONFIG_*=n) opt=${line%%=*}
			grep -q "^$opt=" "$tmp/.config" && die "$opt is set in .config but $frag asks =n";;
		CONFIG_*=*) grep -qxF "$line" "$tmp/.config" ||
			die "$line from $(basename "$frag") did not survive olddefconfig (unmet dependency?); .config has: $(grep "^${line%%=*}=\|# ${line%%=*} is not set" "$tmp/.config" || echo nothing)";;
		esac
		seen="$seen${line%%=*} "
	done < <(tac "$frag")
done

mkdir -p "$obj"
if ! cmp -s "$tmp/.config" "$obj/.config"; then
	cp "$tmp/.config" "$obj/.config"
	echo "configure: new .config in $obj"
fi
rm -rf "$tmp"
