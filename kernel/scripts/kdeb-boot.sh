#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kdeb-boot.sh DEB|DIR INITRAMFS 'COMMAND'
#
# Boot the kernel of a linux-image package from "make kernel-deb" under
# QEMU and run COMMAND in the guest, as run-vm.sh does for the tree's own
# bzImage: this boots the image a user installs, taken out of the package,
# not the one left beside it in the object directory.  The guest is told
# it runs the patched kernel (FT_KERNEL=patched), so a missing knob or
# event fails the tests instead of skipping them.
#
# A config with jump labels (Debian's) boots with single-threaded TCG:
# multi-threaded TCG can run a stale copy of a patched jump (see
# kernel/config/base.config).  VM_ACCEL overrides; the other VM_* knobs
# are run-vm.sh's.
set -euo pipefail

die() { echo "kdeb-boot: $*" >&2; exit 1; }
[ $# = 3 ] || { echo "usage: kdeb-boot.sh DEB|DIR INITRAMFS 'COMMAND'" >&2; exit 2; }
deb=$1 initrd=$2 cmd=$3
scripts=$(cd "$(dirname "$0")" && pwd)

# a directory: the linux-image package make kernel-deb left in it
if [ -d "$deb" ]; then
	d=$deb
	deb=$(ls "$d"/linux-image-*.deb 2>/dev/null | grep -v -- '-dbg_' | head -n 1)
	[ -n "$deb" ] || die "$d: no linux-image package in it (make kernel-deb builds it)"
fi
[ -r "$deb" ] || die "$deb: no such package (make kernel-deb builds it)"
[ -r "$initrd" ] || die "$initrd: no guest image (make image builds it)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp" 2>/dev/null || die "$deb: dpkg-deb cannot unpack it: not a package"
img=$(ls "$tmp"/boot/vmlinuz-* 2>/dev/null | head -n 1)
[ -n "$img" ] || die "$deb has no /boot/vmlinuz-*: not a linux-image package"
accel=tcg,thread=multi
grep -qs '^CONFIG_JUMP_LABEL=y' "$tmp"/boot/config-* && accel=tcg,thread=single
echo "kdeb-boot: $(basename "$img") from $(basename "$deb") ($accel)"
VM_ACCEL=${VM_ACCEL:-$accel} VM_KERNEL=${VM_KERNEL:-patched} \
	"$scripts/run-vm.sh" "$img" "$initrd" "$cmd"
