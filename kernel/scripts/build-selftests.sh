#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-selftests.sh SRCDIR OBJDIR OUTDIR
#
# Build, static, the kernel's own selftests that exercise hugetlb and the
# fault mutex paths (mm, memfd, dma-buf/udmabuf), plus the project's
# kselftest when the series has created it, from the patched tree.  They need
# the tree's UAPI headers (Debian 12 ships 6.1 ones), so "make headers" runs
# first, into OBJDIR: an in-tree run would make the tree unusable for O=
# kernel builds.  Incremental: make skips what is up to date.
set -euo pipefail
# Called from make: the selftests' lib.mk only sets OUTPUT at MAKELEVEL 0.
unset MAKELEVEL MAKEFLAGS MFLAGS

src=$1 obj=$2 out=$3
khdr="-isystem $obj/usr/include"
mkdir -p "$out"
log=$out/build.log
: > "$log"

make -s -C "$src" O="$obj" ARCH=x86_64 headers >>"$log" 2>&1 ||
	{ tail -20 "$log" >&2; echo "build-selftests: make headers failed" >&2; exit 1; }

mm="hugetlb-madvise hugetlb_dio hugetlb_fault_after_madv hugetlb_madv_vs_map
    uffd-stress uffd-unit-tests"
# 7.3 renamed hugepage-mmap, -shm and -mremap to hugetlb-*, folded
# map_hugetlb into hugetlb-mmap and has no hugepage-vmemmap
if [ -f "$src/tools/testing/selftests/mm/hugetlb-mmap.c" ]; then
	mm="hugetlb-mmap hugetlb-shm hugetlb-mremap $mm"
else
	mm="hugepage-mmap hugepage-shm map_hugetlb hugepage-mremap hugepage-vmemmap $mm"
fi
[ -f "$src/tools/testing/selftests/mm/hugetlb_fault_mutexes.c" ] && mm="$mm hugetlb_fault_mutexes"

failed=
build() {	# DIR TARGET...
	local dir=$src/tools/testing/selftests/$1 t
	shift
	for t in "$@"; do
		if make -C "$dir" LDFLAGS=-static CC="ccache gcc" KHDR_INCLUDES="$khdr" "$dir/$t" >>"$log" 2>&1; then
			cp "$dir/$t" "$out/$t"
		else
			failed="$failed $t"
		fi
	done
}
build mm $mm
build memfd memfd_test
build drivers/dma-buf udmabuf

if [ -n "$failed" ]; then
	grep -E 'error' "$log" | head -20 >&2
	echo "build-selftests: failed to build:$failed (log: $log)" >&2
	exit 1
fi
echo "build-selftests: $(ls "$out" | grep -vc build.log) programs in $out"
