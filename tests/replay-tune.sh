#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# replay-tune.sh [OUTDIR]: record single runs of QEMU's preallocation and
# of the built-in workload in one boot of the production-like patched
# kernel, at 32 and at the sizes tune picks for them, and replay tune's
# probing on them (tools/faulttune/tests/replay-tune) REPLAY_TUNES times
# (100): how often each size is picked, with tune's rule as built.  A
# tool for changing the decision rule (decide.c, tune.c's probe()), not a
# test: it takes the same runs for every rule, so two rules are compared
# on equal terms, where make bench-programs measures the rule on fresh
# runs in fresh boots.  About 5 minutes for the guest, a minute or two
# for the replays; recordings in OUTDIR (build/replay).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/replay}
kernel=${REPLAY_KERNEL:-$top/build/prod-patched/bzImage}
tunes=${REPLAY_TUNES:-100}
mkdir -p "$out"
[ -r "$kernel" ] || { echo "replay-tune: $kernel not found (make bench-programs builds it, or set REPLAY_KERNEL)" >&2; exit 1; }
make -s -C "$top/tools/faulttune" tests/replay-tune

VM_LOGDIR=$out/vm VM_KERNEL=prod-patched VM_TIMEOUT=${VM_TIMEOUT:-3000} \
	"$top/kernel/scripts/run-vm.sh" "$kernel" "$top/build/guest.cpio" '
knob=/sys/kernel/debug/hugetlb/num_fault_mutexes
[ -e $knob ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
cat > /tmp/qemu.sh <<Q
#!/bin/sh
echo quit | exec qemu-system-x86_64 -machine none -nodefaults -display none \
	-object memory-backend-memfd,id=m,size=256M,hugetlb=on,hugetlbsize=2097152,prealloc=on,prealloc-threads=4 \
	-monitor stdio >/dev/null
Q
chmod +x /tmp/qemu.sh
mkdir -p /tmp/rec
rec() {	# NAME SIZE N COMMAND...
	n=$1 s=$2 k=$3
	shift 3
	echo $s > $knob
	i=0
	while [ $i -lt $k ]; do
		i=$((i + 1))
		faulttune record -o /tmp/rec/$n-$s-$i.dat -- "$@" >/dev/null 2>/tmp/rec.err ||
			{ echo "replay-tune: record $n at $s failed"; cat /tmp/rec.err; }
	done
}
rec b 32 120 faulttune bench -t 4 -s 64M -r 1
rec q 32 80 /tmp/qemu.sh
for s in 128 256 512 1024; do
	rec b $s 15 faulttune bench -t 4 -s 64M -r 1
	rec q $s 15 /tmp/qemu.sh
done
echo 32 > $knob
cd /tmp && tar czf /tmp/rec.tgz rec
echo BEGIN-TGZ; base64 /tmp/rec.tgz; echo END-TGZ
' > "$out/guest.log" 2>&1 || { echo "replay-tune: the guest failed, see $out/guest.log" >&2; exit 1; }
rm -rf "$out/rec"
sed -n '/^BEGIN-TGZ/,/^END-TGZ/p' "$out/guest.log" | sed '1d;$d' | tr -d '\r' |
	base64 -d | tar xzf - -C "$out"
# the built-in workload: 4 threads, about 0.25 s a run in the guest;
# QEMU: about 1.2 s a run (tune's budget of 30 s ends its probing first)
r=$top/tools/faulttune/tests/replay-tune
"$r" "$out/rec" b "$tunes" 20 0.25 4 | tail -n 1
"$r" "$out/rec" q "$tunes" 20 1.2 0 | tail -n 1
