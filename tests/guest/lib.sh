# SPDX-License-Identifier: GPL-2.0
# lib.sh: what every guest test shares; each sources it first
# (. "$(dirname "$0")/lib.sh").  Installed beside them by mkinitramfs.sh.

# --- TAP: numbered results; one failure makes the exit status 1 ---------------
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); echo "not ok $n - $*"; fail=1; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
# check DESC COMMAND...: ok when COMMAND succeeds
check() { d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }
# t STATUS DESC: ok when STATUS (the $? of what was tested) is 0
t() { if [ "$1" = 0 ]; then ok "$2"; else nok "$2"; fi; }

# --- probes -------------------------------------------------------------------
# the first "key":number in a JSON file
jnum() { grep -o "\"$1\":[0-9][0-9]*" "$2" | head -n 1 | cut -d: -f2; }
# faulttune's tracefs instances now ($T: the tracefs mount)
insts() { ls $T/instances | grep -c '^faulttune-'; }
as_nobody() { su -s /bin/sh nobody -c "$1"; }
# the huge page pool's free, reserved and surplus counts
pool() { awk '/^HugePages_(Free|Rsvd|Surp)/ { printf "%s=%s ", $1, $2 }' /proc/meminfo; }
# pool_after BEFORE: the pool once it is BEFORE again, or after 10 s as it
# is then.  A test's last pages can come back after it exits: a surplus page
# with vmemmap optimisation is freed from a workqueue, and stress-ng's
# children may still be tearing their mm down (511 of 512 was seen once).
pool_after() {
	local i=0
	while [ "$(pool)" != "$1" ] && [ $i -lt 50 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	pool
}
# the first memory BAR (IORESOURCE_MEM) of at least 64 KiB of any PCI
# device, as "RESOURCE-FILE START"; nothing when there is none
mem_bar() {
	local d i s e f
	for d in /sys/bus/pci/devices/*; do
		i=0
		while read -r s e f; do
			if [ $((f & 0x200)) -ne 0 ] && [ $((e - s)) -ge 65535 ] &&
			   [ -e $d/resource$i ]; then
				echo "$d/resource$i $s"
				return
			fi
			i=$((i + 1))
		done < $d/resource
	done
}
# qemu_prealloc FILE: write FILE, a program nobody here wrote faulting
# hugetlb pages: QEMU starting a VM with 256 MiB of 2 MiB pages,
# preallocated by 4 threads, then quitting
qemu_prealloc() {
	cat > "$1" <<'QEOF'
#!/bin/sh
echo quit | exec qemu-system-x86_64 -machine none -nodefaults -display none \
	-object memory-backend-memfd,id=m,size=256M,hugetlb=on,hugetlbsize=2097152,prealloc=on,prealloc-threads=4 \
	-monitor stdio >/dev/null
QEOF
	chmod +x "$1"
}
