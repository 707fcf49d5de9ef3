#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh [PACKAGE...]: install the Debian packages faulttune needs (or
# only the ones named), by name, if any is missing.  One apt-get update,
# then one apt-get install.  Nothing is installed when everything is
# present, so this is cheap to call from every make target that needs it.
set -euo pipefail

pkgs=(
	# the kernel and its build
	linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
	cpio xz-utils rsync kmod ccache pkg-config python3
	# the guest
	qemu-system-x86 busybox-static
	# the tool and the trace files it writes
	libtracefs-dev libtraceevent-dev libtracecmd-dev trace-cmd
	# peer workloads, plots, and make bench's peak-memory measurement
	stress-ng gnuplot-nox time
	# installing: faulttune(1), the Debian packages of the tool and of the
	# kernel (Debian's own 6.12 config by default), their checks; 7.3's
	# bindeb-pkg also declares libdw-dev as a build dependency
	python3-docutils man-db bash-completion debhelper dpkg-dev lintian
	linux-config-6.12 libdw-dev
)

# deps.sh PACKAGE...: only those (make deb needs none of the kernel's)
[ $# -gt 0 ] && pkgs=("$@")

missing=()
for p in "${pkgs[@]}"; do
	case $p in '#'*) continue;; esac
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages: ${missing[*]}" >&2
	echo "deps: run 'make deps' as root, or: apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done"
