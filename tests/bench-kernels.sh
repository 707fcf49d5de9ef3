#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-kernels.sh VARIANT...
#
# The production-like kernels make bench boots with several vCPUs: the
# source tree of each variant (build/VARIANT/src: stock, patched, ...)
# configured with kernel/config/base.config alone, no debug.config: no
# lockdep, no lock, list or atomic-sleep debugging.  Lockdep's global graph
# lock and its per-acquisition bookkeeping would serialise and inflate the
# very lock traffic the benchmarks measure; the debug kernels are for the
# tests.  base.config keeps CONFIG_JUMP_LABEL=n, which multi-threaded TCG
# needs (see its comment); tests/bench-icount.sh builds its own kernels with
# jump labels for single-threaded TCG.  Leaves build/prod-VARIANT/bzImage.
# KVER picks the kernel (kernel/scripts/kver.sh): 6.12, the default, in
# build/, or 7.3 in build/7.3/ with its own fragment, kernel/config/7.3.config,
# merged after base.config as the Makefile does.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/kernel/scripts/kver.sh"
build=$top/build
[ "$KVER" = 6.12 ] || build=$top/build/$KVER
kfrag=$top/kernel/config/$KVER.config
[ -f "$kfrag" ] || kfrag=
for k in "$@"; do
	[ -d "$build/$k/src" ] || { echo "bench-kernels: no source tree $build/$k/src (make KVER=$KVER kernel, kernel-stock)" >&2; exit 1; }
	mkdir -p "$build/prod-$k"
	ln -sfn "$build/$k/src" "$build/prod-$k/src"
	"$top/kernel/scripts/build-kernel.sh" "$build/prod-$k" "$top/kernel/config/base.config" $kfrag ||
		{ echo "bench-kernels: the production-like $k kernel does not build" >&2; exit 1; }
done
