#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-deb.sh SRCDIR OBJDIR OUTDIR CONFIG [FRAGMENT...]
#
# The patched tree in SRCDIR as Debian packages (the kernel's own
# "make bindeb-pkg"), built in OBJDIR, the .debs moved to OUTDIR.
#
# CONFIG is the configuration to start from: a .config file (.xz is
# unpacked), Debian's own being /usr/src/linux-config-6.12/
# config.amd64_none_amd64.xz (7.3's: linux-config-7.3, which
# kernel/scripts/fetch-linux.sh fetches beside the source); or "guest": the small guest kernel of
# "make kernel" (tinyconfig + the FRAGMENTs), what make check packages.
# On top of it: LOCALVERSION=-faulttune (KDEB_LOCALVERSION), so that the
# packages never replace Debian's own kernel (linux-image-6.12.*-faulttune);
# "guest" keeps the guest's empty one instead: the .config is then the one
# build/patched/obj was built with, and ccache hits in direct mode (any
# change to include/generated/autoconf.h would make every file a
# preprocessor run, 10 minutes instead of 1-2 on this host); no trusted or
# revocation key files (Debian's config names certificates that only
# Debian's build has); and, unless KDEB_DEBUG_INFO=keep, no debug info: with
# it Debian's config also builds BTF (pahole) and a linux-image-*-dbg
# package of several GB.
#
# The package's docs get the project's kernel documentation (the knob, the
# boot parameter, the events) through a dpkg-buildpackage hook:
# bindeb-pkg regenerates debian/ on every run, so it cannot be added before.
#
# OBJDIR should be a sibling of the tree's other object directories
# (build/patched/obj): ccache then sees the same relative paths and a
# guest-config package rebuilds from the cache.
set -euo pipefail

[ $# -ge 4 ] || { echo "usage: kernel-deb.sh SRCDIR OBJDIR OUTDIR CONFIG [FRAGMENT...]" >&2; exit 2; }
src=$1 obj=$2 out=$3 config=$4
shift 4
scripts=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$scripts/../.." && pwd)
jobs=${JOBS:-$(nproc)}
localversion=${KDEB_LOCALVERSION--faulttune}

die() { echo "kernel-deb: $*" >&2; exit 1; }

[ -f "$src/Makefile" ] || die "$src is not a kernel tree (make kernel prepares it)"
for t in dpkg-buildpackage dh_installdocs; do
	command -v $t >/dev/null || die "$t not found: apt-get install dpkg-dev debhelper (make deps)"
done

mkdir -p "$obj" "$out"
new=$obj/.config.kdeb
case $config in
guest)
	localversion=${KDEB_LOCALVERSION-}
	"$scripts/configure.sh" "$src" "$obj/guest-config" "$@" >/dev/null
	cp "$obj/guest-config/.config" "$new" ;;
*.xz)
	[ -r "$config" ] || die "config $config not found (Debian's: linux-config-6.12 from make deps, linux-config-7.3 from kernel/scripts/fetch-linux.sh 7.3)"
	xz -dc "$config" > "$new" ;;
*)
	[ -r "$config" ] || die "config $config not found: give a .config file, an .xz one, or 'guest'"
	grep -q '^CONFIG_' "$config" || die "config $config has no CONFIG_ line: not a kernel .config"
	cp "$config" "$new" ;;
esac

cfg() { "$src/scripts/config" --file "$new" "$@"; }
cfg --set-str LOCALVERSION "$localversion" --disable LOCALVERSION_AUTO \
    --set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS ""
if [ "${KDEB_DEBUG_INFO:-}" != keep ] && grep -q '^CONFIG_DEBUG_INFO=y' "$new"; then
	cfg --disable DEBUG_INFO --disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
	    --disable DEBUG_INFO_DWARF4 --disable DEBUG_INFO_DWARF5 \
	    --disable DEBUG_INFO_BTF --enable DEBUG_INFO_NONE
fi
# only a changed configuration makes kbuild rebuild anything
if ! cmp -s "$new" "$obj/.config.kdeb-input"; then
	cp "$new" "$obj/.config.kdeb-input"
	cp "$new" "$obj/.config"
fi
rm -f "$new"
make -s -C "$src" O="$obj" ARCH=x86_64 olddefconfig >/dev/null
for opt in HUGETLBFS DEBUG_FS TRACEPOINTS; do
	grep -q "^CONFIG_$opt=y" "$obj/.config" ||
		die "CONFIG_$opt is off in $config: the knob and the events need it"
done

# Each package's docs: the project's own kernel documents.
docs=$obj/faulttune-docs
rm -rf "$docs"
mkdir -p "$docs"
for f in Documentation/admin-guide/mm/hugetlb_fault_mutexes.rst \
	 Documentation/trace/events-hugetlb.rst Documentation/trace/events-memtype.rst; do
	[ -f "$src/$f" ] && cp "$src/$f" "$docs/"
done
# run by dpkg-buildpackage in OBJDIR, after bindeb-pkg wrote debian/
hook=$obj/faulttune-docs-hook
cat > "$hook" <<'EOF'
#!/bin/sh
for p in $(dh_listpackages); do
	case $p in
	linux-image-*-dbg) ;;
	linux-image-*) ls -d faulttune-docs/* > "debian/$p.docs" ;;
	esac
done
EOF
chmod +x "$hook"

release=$(make -s -C "$src" O="$obj" ARCH=x86_64 kernelrelease)
log=$out/build.log
start=$(date +%s)
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
parent=$(dirname "$obj")
echo "kernel-deb: building linux-image-$release from $config ($jobs jobs; log: $log)"
if ! make -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_USER=faulttune KBUILD_BUILD_HOST=faulttune \
		DPKG_FLAGS="--hook-binary=$hook" \
		-j"$jobs" bindeb-pkg > "$log" 2>&1; then
	grep -E 'error|Error' "$log" | head -20 >&2
	die "bindeb-pkg failed; full log: $log"
fi
# dpkg-buildpackage leaves its results beside the object directory
shopt -s nullglob
moved=0
for f in "$parent"/*"$release"*.deb "$parent"/linux-libc-dev_*.deb \
	 "$parent"/linux-upstream_*.changes "$parent"/linux-upstream_*.buildinfo; do
	[ -e "$f" ] || continue		# matched by two patterns
	mv "$f" "$out/"
	moved=$((moved + 1))
done
[ $moved -gt 0 ] || die "bindeb-pkg left no package in $parent; log: $log"
echo "kernel-deb: $release in $(( $(date +%s) - start ))s -> $out:"
ls -1 "$out"/*.deb | sed 's/^/  /'
