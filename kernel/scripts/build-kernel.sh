#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh DIR FRAGMENT...
#
# Configure DIR/obj from DIR/src and the fragments, build bzImage with
# ccache, and leave DIR/bzImage.  Incremental: kbuild decides what is stale.
set -euo pipefail

dir=$1
shift
scripts=$(cd "$(dirname "$0")" && pwd)
src=$dir/src obj=$dir/obj
jobs=${JOBS:-$(nproc)}

"$scripts/configure.sh" "$src" "$obj" "$@"
start=$(date +%s)
log=$dir/build.log
if ! make -s -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_USER=faulttune KBUILD_BUILD_HOST=qemu \
		-j"$jobs" bzImage >"$log" 2>&1; then
	grep -E 'error|Error' "$log" | head -20 >&2
	echo "build-kernel: $(basename "$dir") kernel failed to build; full log: $log" >&2
	exit 1
fi
if grep -q 'warning:' "$log"; then
	echo "build-kernel: compiler warnings:" >&2
	grep 'warning:' "$log" | head -20 >&2
fi
cp "$obj/arch/x86/boot/bzImage" "$dir/bzImage"
echo "build-kernel: $(basename "$dir") $(cat "$obj/include/config/kernel.release") in $(( $(date +%s) - start ))s -> $dir/bzImage"
