#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/systemd-unit.sh [stock|patched]...   (make check-systemd)
#
# faulttune-watch.service under a real systemd, where it is meant to run:
# a Debian 12 rootfs (mmdebstrap from the machine's Debian archive:
# essential, systemd and the libraries the built faulttune links), the
# tool installed into it from this tree as a user installs it (make
# install DESTDIR=..., the unit file included), booted under QEMU as an
# initramfs with systemd as init (rdinit=/lib/systemd/systemd) on the
# 6.12 test kernels (their config has kernel/config/systemd.config):
# stock (the kprobe recorder) and patched (the faulttune events).  In the guest (tests/systemd-unit/
# guest.sh): a drop-in shortens the window, systemctl start, the textfile
# with the source's gauges while faulttune bench faults hugetlb pages,
# systemctl stop leaves no probe and no instance, and neither does a
# SIGKILL of the main process once systemd ran ExecStopPost.
#
# The rootfs is built once per package list (and recipe) and cached as a
# cpio archive in /var/cache/faulttune/systemd-rootfs-KEY (FT_ROOTFS_CACHE
# for another directory); a machine without it builds it (a minute or
# two, the archive's packages downloaded).  Results come back over the
# second serial port.  TAP; ends with "N passed, N failed"; exit 1 when
# a test failed, 2 when it could not run.
#
# Environment: FT_BUILD (default build/), FT_ROOTFS_CACHE, FT_ARCHIVE
# (the Debian archive URI; default: the machine's), VM_TIMEOUT.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${FT_BUILD:-$top/build}
scripts=$top/kernel/scripts
tool=$top/tools/faulttune
logs=$build/systemd-unit
suite=bookworm
# change it when the way the rootfs is made changes: a new cache key
recipe=1

die() { echo "systemd-unit: $*" >&2; exit 2; }
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(stock patched)
for k in "${kernels[@]}"; do
	case $k in
	stock|patched) [ -r "$build/$k/bzImage" ] ||
		die "no $build/$k/bzImage: make kernel-6.12 kernel-stock-6.12 builds it" ;;
	*) die "unknown kernel '$k': stock or patched" ;;
	esac
done
[ "$(id -u)" = 0 ] || die "run as root (mmdebstrap, the cache in /var/cache/faulttune)"

n=0 passed=0 failed=0
ok() { n=$((n + 1)); passed=$((passed + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
finish() {
	echo "# systemd-unit: $(( $(date +%s) - t0 )) s"
	echo "$passed passed, $failed failed"
	[ $failed = 0 ]
	exit
}
t0=$(date +%s)
mkdir -p "$logs"
work=$(mktemp -d /tmp/faulttune-systemd.XXXXXX)
trap 'rm -rf "$work"' EXIT

# --- what the host needs, by name from the archive ----------------------------
need=
command -v mmdebstrap >/dev/null || need="$need mmdebstrap"
command -v cpio >/dev/null || need="$need cpio"
command -v qemu-system-x86_64 >/dev/null || need="$need qemu-system-x86"
if [ -n "$need" ]; then
	echo "# installing$need"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $need \
		> "$logs/apt.log" 2>&1 || { tail -5 "$logs/apt.log" >&2; die "apt-get install$need failed"; }
fi

# --- the tool, installed the way a user does ----------------------------------
make -s -C "$tool" faulttune > "$logs/tool.log" 2>&1 ||
	{ tail -20 "$logs/tool.log" >&2; die "make -C tools/faulttune failed: $logs/tool.log"; }
ov=$work/overlay
mkdir -p "$ov"
chmod 0755 "$ov"
if make -s -C "$tool" install DESTDIR="$ov" > "$logs/install.log" 2>&1 &&
   [ -x "$ov/usr/local/bin/faulttune" ] && [ -f "$ov/usr/local/lib/systemd/system/faulttune-watch.service" ]; then
	ok "make install DESTDIR=...: /usr/local/bin/faulttune and /usr/local/lib/systemd/system/faulttune-watch.service"
else
	sed 's/^/# /' "$logs/install.log" | tail -20
	not_ok "make install DESTDIR=... installs the binary and the unit"
	finish
fi
grep -qx 'ExecStart=/usr/local/bin/faulttune watch --textfile /var/lib/prometheus/node-exporter' \
	"$ov/usr/local/lib/systemd/system/faulttune-watch.service" &&
	grep -qx 'ExecStopPost=/usr/local/bin/faulttune cleanup -q' \
	"$ov/usr/local/lib/systemd/system/faulttune-watch.service"
rc=$?
[ $rc = 0 ] && ok "the installed unit runs the installed binary (ExecStart=, ExecStopPost=)" ||
	not_ok "the installed unit runs the installed binary (ExecStart=, ExecStopPost=)"

# --- the rootfs: Debian 12, systemd, the libraries faulttune links ------------
# the packages holding what the binary's NEEDED entries resolve to here
libs=$(ldd "$tool/faulttune" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
	while read -r f; do dpkg -S "$(readlink -f "$f")" 2>/dev/null || dpkg -S "$f"; done |
	cut -d: -f1 | sort -u)
[ -n "$libs" ] || die "no package found for the libraries of $tool/faulttune (dpkg -S)"
pkgs=$(printf '%s\n' systemd $libs | sort -u | tr '\n' ' ')
key=$(printf 'suite %s\nrecipe %s\npackages %s\n' $suite $recipe "$pkgs" | sha256sum | cut -c1-16)
cache=${FT_ROOTFS_CACHE:-/var/cache/faulttune}/systemd-rootfs-$key
if [ -s "$cache/rootfs.cpio" ]; then
	echo "# rootfs: cached in $cache ($pkgs)"
else
	. "$scripts/apt-suite.sh"
	uri=${FT_ARCHIVE:-$(debian_archive | grep -m1 '/debian/\?$' || true)}
	[ -n "$uri" ] || die "no Debian archive in /etc/apt/sources.list{,.d} (set FT_ARCHIVE=URI)"
	echo "# rootfs: mmdebstrap $suite from $uri: $pkgs"
	t1=$(date +%s)
	tmp=$cache.new
	rm -rf "$tmp"
	mkdir -p "$tmp"
	# no documentation, manual pages or translations: a smaller initramfs
	if ! mmdebstrap --variant=essential --include="${pkgs// /,}" \
		--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
		$suite "$tmp/root" "deb $uri $suite main" > "$logs/mmdebstrap.log" 2>&1; then
		tail -20 "$logs/mmdebstrap.log" >&2
		rm -rf "$tmp"
		die "mmdebstrap of $suite failed; log: $logs/mmdebstrap.log"
	fi
	(cd "$tmp/root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) > "$tmp/rootfs.cpio" ||
		die "cpio of the rootfs failed"
	rm -rf "$tmp/root"
	echo "$pkgs" > "$tmp/PACKAGES"
	rm -rf "$cache"
	mv "$tmp" "$cache"
	echo "# rootfs: built in $(( $(date +%s) - t1 )) s, $(du -m "$cache/rootfs.cpio" | cut -f1) MB"
fi

# --- the guest's side: the test, and a oneshot unit that runs it ---------------
g=$ov/usr/local/lib/faulttune-test
install -D -m 0755 "$top/tests/systemd-unit/guest.sh" "$g/guest.sh"
cat > "$g/run" <<'EOF'
#!/bin/sh
# run-vm.sh's contract: the command from fw_cfg, its output and
# "FT-EXIT=status" on the second serial port, then power off
exec > /dev/ttyS1 2>&1
fw=/sys/firmware/qemu_fw_cfg/by_name/opt/faulttune
cat $fw/hugepages/raw > /proc/sys/vm/nr_hugepages
sh -c "$(cat $fw/cmd/raw)"
echo "FT-EXIT=$?"
systemctl --no-block poweroff
EOF
chmod 0755 "$g/run"
mkdir -p "$ov/etc/systemd/system/multi-user.target.wants"
cat > "$ov/etc/systemd/system/faulttune-unit-test.service" <<'EOF'
[Unit]
Description=faulttune: tests/systemd-unit.sh in the guest
# after basic.target (the default), not multi-user.target: without udev
# no device unit appears, and serial-getty@ttyS0 would hold that back
# for DefaultDeviceTimeoutSec (90 s) waiting for dev-ttyS0.device

[Service]
Type=oneshot
ExecStart=/usr/local/lib/faulttune-test/run
TimeoutStartSec=infinity
EOF
ln -s ../faulttune-unit-test.service "$ov/etc/systemd/system/multi-user.target.wants/"
# the kernel unpacks the archives of one initramfs one after the other
(cd "$ov" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$work/overlay.cpio" ||
	die "cpio of the overlay failed"
cat "$cache/rootfs.cpio" "$work/overlay.cpio" > "$work/initrd.cpio"

# --- boot each kernel ------------------------------------------------------------
for k in "${kernels[@]}"; do
	case $k in
	stock) variant=kprobe ;;
	patched) variant=patched ;;
	esac
	echo "# ==== systemd-unit/$k: faulttune-watch.service under systemd, $k 6.12 ($variant)"
	t1=$(date +%s)
	# single-threaded TCG on stock: watch arms and disarms its probes
	# every window (as check.sh's kwatch group); patched toggles none
	accel=tcg,thread=multi
	[ $k = stock ] && accel=tcg,thread=single
	# VM_BOOT_TIMEOUT=0: systemd is init here, and it prints no "init: "
	VM_ACCEL=$accel VM_CPUS=2 VM_MEM=2048 VM_HUGEPAGES=128 VM_BOOT_TIMEOUT=0 \
	VM_TIMEOUT=${VM_TIMEOUT:-600} VM_LOGDIR=$logs/$k VM_KERNEL=$k \
	VM_APPEND="rdinit=/lib/systemd/systemd systemd.show_status=0" \
		"$scripts/run-vm.sh" "$build/$k/bzImage" "$work/initrd.cpio" \
		"/usr/local/lib/faulttune-test/guest.sh $variant" > "$logs/$k.log" 2> "$logs/$k.err"
	rc=$?
	grep '^#' "$logs/$k.log"
	while IFS= read -r line; do
		case $line in
		"not ok "*) not_ok "$k: $(sed -E 's/^not ok [0-9]+ - //' <<<"$line")" ;;
		"ok "*) ok "$k: $(sed -E 's/^ok [0-9]+ - //' <<<"$line")" ;;
		esac
	done < "$logs/$k.log"
	if [ $rc = 0 ] || [ $rc = 1 ]; then
		ok "$k: the guest booted systemd, ran the test and powered off; kernel log clean ($(( $(date +%s) - t1 )) s)"
	else
		sed 's/^/# /' "$logs/$k.err"
		not_ok "$k: the guest booted systemd, ran the test and powered off (run-vm exit $rc; console: $logs/$k/console.log)"
	fi
done
finish
