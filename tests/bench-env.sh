# SPDX-License-Identifier: GPL-2.0
#
# bench-env.sh: what the -icount benchmarks share, sourced after they set
# die().  KVER picks the kernel (kernel/scripts/kver.sh): 6.12 in build/,
# another in build/KVER/.  Sets top, build (that kernel's), out
# (build/bench) and kfrag (the kernel's config fragment, if any), and
# refuses a run without the guest image.
#
#   bench_kernel K	the production-like K kernel (stock or patched:
#			base.config + bench.config, no lock debugging, jump
#			labels on) in build/bench-K, built from build/K/src
#			(prepared if missing) when missing or out of date
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$top/kernel/scripts/kver.sh"
build=$top/build
[ "$KVER" = 6.12 ] || build=$top/build/$KVER
out=$build/bench
kfrag=$top/kernel/config/$KVER.config
[ -f "$kfrag" ] || kfrag=
[ -r "$build/guest.cpio" ] || die "no guest image ${build#$top/}/guest.cpio (make KVER=$KVER image)"
mkdir -p "$out"

bench_kernel() {
	grep -v '^CONFIG_JUMP_LABEL=' "$top/kernel/config/base.config" > "$out/base-bench.config"
	[ -d "$build/$1/src" ] || make -s -C "$top" KVER="$KVER" "$build/$1/src.stamp" ||
		die "no source tree build/$1/src"
	mkdir -p "$build/bench-$1"
	ln -sfn "$build/$1/src" "$build/bench-$1/src"
	"$top/kernel/scripts/build-kernel.sh" "$build/bench-$1" \
		"$out/base-bench.config" "$top/kernel/config/bench.config" $kfrag ||
		die "the production-like $1 kernel does not build"
}
