#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kdeb-boot.sh DEB|DIR INITRAMFS 'COMMAND'
#
# Boot the kernel of a linux-image package from "make kernel-deb" (or a
# distribution's, from fetch-distro-kernel.sh, with VM_KERNEL=stock) under
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

# a directory: the linux-image package make kernel-deb left in it, or a
# distribution kernel's packages (fetch-distro-kernel.sh): Debian's 7.3
# splits its image into linux-binary-* (usr/lib/modules/V/vmlinuz) and
# linux-modules-*, and all of them are unpacked
debs=$deb
if [ -d "$deb" ]; then
	d=$deb
	debs=$(ls "$d"/linux-image-*.deb "$d"/linux-binary-*.deb "$d"/linux-modules-*.deb \
		2>/dev/null | grep -v -- '-dbg_' || true)
	[ -n "$debs" ] || die "$d: no linux-image package in it (make kernel-deb builds it)"
	deb=$(echo "$debs" | head -n 1)
fi
[ -r "$deb" ] || die "$deb: no such package (make kernel-deb builds it)"
[ -r "$initrd" ] || die "$initrd: no guest image (make image builds it)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for p in $debs; do
	dpkg-deb -x "$p" "$tmp" 2>/dev/null || die "$p: dpkg-deb cannot unpack it: not a package"
done
img=$(ls "$tmp"/boot/vmlinuz-* "$tmp"/usr/lib/modules/*/vmlinuz 2>/dev/null | head -n 1 || true)
[ -n "$img" ] || die "$deb has no /boot/vmlinuz-* (nor usr/lib/modules/*/vmlinuz): not a linux-image package"
config=$(ls "$tmp"/boot/config-* "$tmp"/usr/lib/modules/*/config 2>/dev/null | head -n 1 || true)
# without a config to tell, a distribution's kernel: jump labels, as Debian's
accel=tcg,thread=multi
if [ -z "$config" ] || grep -qs '^CONFIG_JUMP_LABEL=y' "$config"; then
	accel=tcg,thread=single
fi

# The guest's init reads its command from fw_cfg's sysfs files: a config
# that builds them as a module (Debian's) gets the package's module in a
# second cpio after the guest image (the kernel unpacks both), which the
# init loads.  Uncompressed here: busybox's insmod reads it as it is.
ko=$(find "$tmp/lib/modules" "$tmp/usr/lib/modules" -name 'qemu_fw_cfg.ko*' 2>/dev/null | head -n 1 || true)
if grep -qs '^CONFIG_FW_CFG_SYSFS=m' "$config" || { [ -z "$config" ] && [ -n "$ko" ]; }; then
	[ -n "$ko" ] || die "$deb: CONFIG_FW_CFG_SYSFS=m but no qemu_fw_cfg module in it"
	mkdir -p "$tmp/extra/lib/modules"
	case $ko in
	*.xz)	xz -dc "$ko" ;;
	*.zst)	zstd -dcq "$ko" ;;
	*.gz)	gzip -dc "$ko" ;;
	*)	cat "$ko" ;;
	esac > "$tmp/extra/lib/modules/qemu_fw_cfg.ko" || die "cannot unpack $ko"
	(cd "$tmp/extra" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) |
		cat "$initrd" - > "$tmp/initrd.cpio"
	initrd=$tmp/initrd.cpio
fi

echo "kdeb-boot: $(basename "$img") from $(basename "$deb") ($accel)"
VM_ACCEL=${VM_ACCEL:-$accel} VM_KERNEL=${VM_KERNEL:-patched} \
	"$scripts/run-vm.sh" "$img" "$initrd" "$cmd"
