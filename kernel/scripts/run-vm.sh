#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-vm.sh BZIMAGE INITRAMFS 'COMMAND'
#
# Boot the kernel under QEMU TCG, run COMMAND in the guest (busybox sh),
# stream its output here and exit with its status.  The run fails, with the
# relevant kernel log lines printed, when the guest panics, hangs past
# VM_TIMEOUT seconds, or its kernel log holds a WARNING, BUG, lockdep,
# KASAN or hung-task report.  Logs stay in $VM_LOGDIR (default build/vm).
# A failed run whose kernel log shows the host did not run the guest's
# vCPUs (RCU's own report that its timers did not fire) says so in one
# line, beside the log: a loaded host, not a kernel bug.
#
# Environment: VM_CPUS, VM_MEM (MiB), VM_HUGEPAGES, VM_TIMEOUT, VM_EXTRA
# (extra QEMU arguments), VM_APPEND (extra kernel command line), VM_KERNEL
# (label passed to the guest as $FT_KERNEL), VM_ACCEL (QEMU -accel,
# default tcg,thread=multi; make bench's instruction counts use
# tcg,thread=single with -icount in VM_EXTRA), VM_BOOT_TIMEOUT.
#
# VM_BOOT_TIMEOUT=N (0, off, unless set; make check sets it): a guest
# whose init has not said "init: ..." N seconds after QEMU started is
# stopped and booted once more, saying so; a second such boot fails
# (exit 6).  A boot here reaches init in 2-10 s; under multi-threaded TCG
# one 7.3 boot in a make check on 2026-12-04 stopped for good after the
# MTRR lines, and make check's VM_TIMEOUT of 2400 s would have waited it
# out.  Off by default: a deliberately broken kernel (mutation-check.sh)
# that hangs at boot must count as caught, not be booted again.
set -uo pipefail

kernel=$1 initrd=$2 cmd=$3
top=$(cd "$(dirname "$0")/../.." && pwd)
cpus=${VM_CPUS:-4} mem=${VM_MEM:-3072} pages=${VM_HUGEPAGES:-512}
timeout=${VM_TIMEOUT:-900}
logdir=${VM_LOGDIR:-$top/build/vm}
label=${VM_KERNEL:-$(basename "$(dirname "$kernel")")}

die() { echo "run-vm: $*" >&2; exit 2; }
[ -r "$kernel" ] || die "no kernel at $kernel (make kernel)"
[ -r "$initrd" ] || die "no initramfs at $initrd (make image)"

mkdir -p "$logdir"
console=$logdir/console.log out=$logdir/output.log
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%s\n' "$cmd" > "$work/cmd"
printf '%s' "$pages" > "$work/hugepages"
printf '%s' "$label" > "$work/kernel"

# RCU names a timer that fired thousands of jiffies late, or its kthread
# starved, only when the vCPU did not run (kernel/rcu/tree_stall.h): under
# TCG, a host too loaded to run QEMU's threads.  A hung task or an RCU stall
# without that report may be the kernel's own; on a loaded host say so,
# but do not blame it.
starved() {
	local why load
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	why=$(grep -Eo "timer wakeup didn't happen for [0-9]+ jiffies|kthread starved for [0-9]+ jiffies|Possible timer handling issue on cpu=[0-9]+" \
		"$console" | head -1)
	if [ -n "$why" ]; then
		echo "run-vm: the host starved the guest (load average $load on $(nproc) CPUs; the guest's log: \"$why\"), not a kernel bug; log: $console" >&2
	elif grep -Eq 'blocked for more than|detected stalls? on|self-detected stall' "$console" &&
	     awk -v n="$(nproc)" '{ exit !($1 > n) }' /proc/loadavg; then
		echo "run-vm: stall on a loaded host (load average $load on $(nproc) CPUs), no timer report: the host may have starved the guest; log: $console" >&2
	fi
	return 0
}
boot_timeout=${VM_BOOT_TIMEOUT:-0}
# watch_boot: stop this run's QEMU (found by its fw_cfg file, which no
# other QEMU names) when the guest's init has not spoken in time
watch_boot() {
	local i=0
	while [ $i -lt "$boot_timeout" ]; do
		sleep 1
		i=$((i + 1))
		grep -q '^init: ' "$console" 2>/dev/null && return 0
	done
	touch "$work/noinit"
	pkill -TERM -f -- "opt/faulttune/cmd,file=$work/cmd" 2>/dev/null
	return 0
}

# ivshmem-plain gives the guest a 64 MiB PCI BAR next to std VGA's, both
# real memtype_lock users; the console is ttyS0, the command's output ttyS1.
# No keyboard or mouse behind q35's i8042: the guest kernels have no input
# drivers (base.config), and a packaged kernel's (make kernel-deb-boot)
# registers no port to probe.  no_timer_check: the IO-APIC timer check
# counts ticks over a busy-wait, and a vCPU a loaded host does not run sees
# none ("IO-APIC + timer doesn't work!", a panic at boot under TCG).
for attempt in 1 2; do
	rm -f "$work/noinit"
	watcher=
	if [ "$boot_timeout" -gt 0 ] 2>/dev/null; then
		watch_boot &
		watcher=$!
	fi
	timeout -k 10 "$timeout" qemu-system-x86_64 \
		-accel "${VM_ACCEL:-tcg,thread=multi}" -cpu max -smp "$cpus" -m "$mem" \
		-machine q35 -nodefaults -vga std -display none -no-reboot \
		-object memory-backend-ram,id=shm0,size=64M \
		-device ivshmem-plain,memdev=shm0 \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 oops=panic loglevel=6 hung_task_panic=0 i8042.nokbd i8042.noaux no_timer_check ${VM_APPEND:-}" \
		-fw_cfg name=opt/faulttune/cmd,file="$work/cmd" \
		-fw_cfg name=opt/faulttune/hugepages,file="$work/hugepages" \
		-fw_cfg name=opt/faulttune/kernel,file="$work/kernel" \
		-serial file:"$console" -serial stdio ${VM_EXTRA:-} < /dev/null |
		sed -u 's/\r$//' | tee "$out" | grep --line-buffered -v '^FT-EXIT='
	qemu=${PIPESTATUS[0]}
	if [ -n "$watcher" ]; then
		kill "$watcher" 2>/dev/null
		wait "$watcher" 2>/dev/null
	fi
	[ -e "$work/noinit" ] || break
	cp "$console" "$logdir/console-noinit-$attempt.log"
	echo "run-vm: the guest's init did not start within ${boot_timeout}s (VM_BOOT_TIMEOUT), boot $attempt of 2; its log: $logdir/console-noinit-$attempt.log; last kernel line: $(tail -n 1 "$console")" >&2
	if [ $attempt = 2 ]; then
		starved
		exit 6
	fi
done

status=$(sed -n 's/^FT-EXIT=\([0-9]*\)$/\1/p' "$out" | tail -1)

bad='WARNING:|BUG:|BUG |Oops|Kernel panic|general protection fault|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|DEBUG_LOCKS_WARN_ON|lock held when returning|bad unlock balance|held lock freed|INFO: task .* blocked|KASAN|UBSAN|list_add corruption|list_del corruption|MAX_LOCK_DEPTH too low|soft lockup|hard LOCKUP|rcu_.*detected stall'
if grep -Eq "$bad" "$console"; then
	echo "run-vm: the guest kernel reported a problem (full log: $console):" >&2
	grep -En -A12 "$bad" "$console" | head -60 >&2
	starved
	exit 3
fi
if [ "$qemu" = 124 ] || [ "$qemu" = 137 ]; then
	echo "run-vm: the guest did not finish within ${timeout}s (VM_TIMEOUT); last kernel lines:" >&2
	tail -15 "$console" >&2
	starved
	exit 4
fi
if [ -z "$status" ]; then
	echo "run-vm: the guest died before the command finished (qemu exit $qemu); last kernel lines:" >&2
	tail -25 "$console" >&2
	starved
	exit 5
fi
[ "$status" = 0 ] || starved
exit "$status"
