#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh OUT.cpio SELFTESTS_DIR
#
# The guest's root: static busybox, the init, the guest tests and their
# helper programs, the kernel's selftests, and the dynamic programs the
# guest runs for real (faulttune, trace-cmd, stress-ng) with every library
# ldd names.  An uncompressed newc cpio: QEMU loads it as it is.
set -euo pipefail

out=$1 selftests=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
root=$out.d
die() { echo "mkinitramfs: $*" >&2; exit 1; }

rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,root,ft/bin,ft/tests,ft/selftests}

cp /bin/busybox "$root/bin/busybox"
for app in $("$root/bin/busybox" --list-full); do
	[ -e "$root/$app" ] || ln -s /bin/busybox "$root/$app"
done
install -m 755 "$top/kernel/guest/init" "$root/init"
echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/sh' >> "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"

# Dynamic program plus the libraries ldd resolves, at their host paths.
add_dynamic() {
	local bin=$1 dest=$2 lib
	install -D -m 755 "$bin" "$root/$dest"
	for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
		[ -e "$root/$lib" ] || install -D -m 755 "$(readlink -f "$lib")" "$root/$lib"
	done
}

add_dynamic "$(command -v trace-cmd)" usr/bin/trace-cmd
add_dynamic "$(command -v stress-ng)" usr/bin/stress-ng
# QEMU preallocating hugetlb guest memory, as a VM host starts a VM: a
# program of somebody else's for faulttune tune to tune.  Its TCG
# accelerator is a module, loaded from the directory the package puts it
# in; without it QEMU cannot run -machine none either.
qemu=$(command -v qemu-system-x86_64) || die "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"
add_dynamic "$qemu" usr/bin/qemu-system-x86_64
for mod in /usr/lib/x86_64-linux-gnu/qemu/accel-tcg-x86_64.so; do
	[ -e "$mod" ] || die "$mod not found (apt-get install qemu-system-x86)"
	add_dynamic "$mod" "${mod#/}"
done
if [ -x "$top/tools/faulttune/faulttune" ]; then
	add_dynamic "$top/tools/faulttune/faulttune" ft/bin/faulttune
fi
# trace-cmd loads its event plugins from here; without them it still works.
[ -d /usr/lib/x86_64-linux-gnu/traceevent ] &&
	cp -a /usr/lib/x86_64-linux-gnu/traceevent "$root/usr/lib/x86_64-linux-gnu/" 2>/dev/null || true

# The event docs: kernel-trace.t checks them against the format files.
mkdir -p "$root/usr/share/doc/faulttune"
# Those of the patched tree the kernel was built from, KSRC (the top-level
# copies are the same when make check's kernel-files group passes).
docs=${KSRC:-$top/build/patched/src}/Documentation/trace
[ -d "$docs" ] || docs=$top/Documentation/trace
for doc in "$docs"/events-*.rst "$top"/Documentation/faulttune.rst; do
	[ -e "$doc" ] && cp "$doc" "$root/usr/share/doc/faulttune/"
done

install -m 755 "$top/kernel/guest/run-tests" "$root/ft/bin/run-tests"
for t in "$top"/tests/guest/*.t; do
	[ -e "$t" ] && install -m 755 "$t" "$root/ft/tests/"
done
install -m 644 "$top/tests/guest/lib.sh" "$root/ft/tests/"	# what they source
# Guest helper programs: static, built against the kernel's UAPI headers (KHDR).
progs=$(dirname "$out")/progs
if ls "$top"/tests/guest/progs/*.c >/dev/null 2>&1; then
	mkdir -p "$progs"
	for c in "$top"/tests/guest/progs/*.c; do
		p=$progs/$(basename "$c" .c)
		if [ ! -x "$p" ] || [ "$c" -nt "$p" ]; then
			gcc -static -O2 -Wall -pthread -isystem "${KHDR:?KHDR: the UAPI headers directory}" \
				-o "$p" "$c" || die "cannot build guest program $c"
		fi
		install -m 755 "$p" "$root/ft/bin/"
	done
fi
if [ -d "$selftests" ]; then
	cp -a "$selftests/." "$root/ft/selftests/"
fi

(cd "$root" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) > "$out.tmp"
mv "$out.tmp" "$out"
echo "mkinitramfs: $out ($(du -h "$out" | cut -f1))"
