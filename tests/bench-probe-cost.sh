#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-probe-cost.sh: what one kprobe event costs, part by part (issue
# 38), so that the stock recorder's cost per acquisition can be set
# against what any placement of its probes could reach.  As in
# tests/bench-summary.sh: QEMU with -icount shift=0,sleep=off and
# single-threaded TCG, one vCPU, so 1 ns is 1 instruction, on the
# production-like stock kernel (base.config + bench.config: no lock
# debugging, jump labels on, CONFIG_OPTPROBES as distributions have it).
# In one boot, BENCH_PROBE_REPS runs of `bench_refault fault 8 FAULTS 1`
# (page-cache-hit hugetlb refaults) with nothing recording, then with one
# kprobe event at a time, made by hand in the top instance:
#
#   call0	on hugetlb_fault()'s call of hugetlb_fault_mutex_hash(), the
#		key's place on a stock kernel: a breakpoint, no argument
#   call1	the same with one argument (%di, x64)
#   call2	two (%di x64, %si u64): the key's shape
#   call2f	call2 with a two-compare filter that passes, as the unlock
#		probes had one until this script measured it
#   jump0	on an instruction at least 5 bytes before that call, where
#		the kernel can optimize the probe into a jump (checked in
#		debugfs' kprobes/list: the row says when it could not)
#   entry0	on hugetlb_fault_mutex_hash()'s entry: an ftrace site; the
#		stock kernel hashes more than once a refault, so its cost is
#		divided by the hits per refault counted in the buffer
#
# Each probe's cost per hit is its refault's instructions less off's, over
# its hits per refault (from the events in the buffer, which must number
# the refaults' hits: a lost or extra hit fails the run).  Prints the
# table, writes build/bench/probe-cost.md with the floor it implies for a
# recorder that needs two events a hold (the key's two arguments and the
# release's one), and exits 1 when a run failed.  Knobs:
# BENCH_PROBE_FAULTS (20000), BENCH_PROBE_REPS (3).  KVER picks the kernel
# as in tests/bench-icount.sh.
set -uo pipefail

faults=${BENCH_PROBE_FAULTS:-20000}
reps=${BENCH_PROBE_REPS:-3}
die() { echo "bench-probe-cost: $*" >&2; exit 1; }
. "$(dirname "$0")/bench-env.sh"
bench_kernel stock

# The call and an instruction before it, from the kernel's own text: the
# last instruction that starts at least 5 bytes (a jump's length) before
# the call, with no call or jump between them (a jump would be copied
# into the detour, which the kernel refuses to optimize).
read -r call jump < <(objdump -d --no-show-raw-insn "$build/bench-stock/obj/vmlinux" \
	--disassemble=hugetlb_fault 2>/dev/null | python3 -c '
import re, sys
base, ins = None, []
for line in sys.stdin:
    m = re.match(r"^([0-9a-f]+) <hugetlb_fault>:", line)
    if m:
        base = int(m.group(1), 16)
        continue
    m = re.match(r"^\s*([0-9a-f]+):\s+(.*)", line)
    if base is None or not m:
        continue
    a, text = int(m.group(1), 16) - base, m.group(2)
    if re.search(r"call.*<hugetlb_fault_mutex_hash>", text):
        jump = "-"
        for at, t in reversed(ins):
            if re.match(r"(call|j[a-z]+|ret)\b", t):
                break
            if a - at >= 5:
                jump = hex(at)
                break
        print(hex(a), jump)
        break
    ins.append((a, text))
')
[ -n "${call:-}" ] || die "no call of hugetlb_fault_mutex_hash() in hugetlb_fault() (objdump)"
echo "bench-probe-cost: the call at hugetlb_fault+$call, the jump's place hugetlb_fault+$jump"

guest="T=/sys/kernel/tracing
K=\$T/kprobe_events
mount -t debugfs none /sys/kernel/debug 2>/dev/null
echo 65536 > \$T/buffer_size_kb
run() { for i in \$(seq $reps); do echo \"PROBE \$1 refault \$(bench_refault fault 8 $faults 1)\"; done; }
probe() { # NAME PLACE [ARGS]: one probe on, the refaults, its hits
	name=\$1 place=\$2; shift 2
	echo \"p:pc/\$name \$place \$*\" >> \$K || { echo \"PROBE \$name failed\"; return; }
	[ \$name = call2f ] && echo 'a >= 0xff00000000000000 && a < 0xffffffffffffffff' > \$T/events/pc/\$name/filter
	echo > \$T/trace
	echo 1 > \$T/events/pc/\$name/enable
	sleep 1
	grep -q \"\$place.*OPTIMIZED\" /sys/kernel/debug/kprobes/list && echo \"PROBE \$name optimized\"
	run \$name
	echo 0 > \$T/events/pc/\$name/enable
	echo \"PROBE \$name hits \$(grep -c \" \$name: \" \$T/trace) lost \$(grep -o 'overrun: [0-9]*' \$T/per_cpu/cpu0/stats | cut -d' ' -f2)\"
	echo \"-:pc/\$name\" >> \$K
}
run off
probe call0 hugetlb_fault+$call
probe call1 hugetlb_fault+$call a=%di:x64
probe call2 hugetlb_fault+$call a=%di:x64 b=%si:u64
probe call2f hugetlb_fault+$call a=%di:x64 b=%si:u64
[ $jump != - ] && probe jump0 hugetlb_fault+$jump
probe entry0 hugetlb_fault_mutex_hash"

img=$build/bench-stock/bzImage
echo "bench-probe-cost: production-like stock kernel, $reps x $faults refaults per probe"
VM_LOGDIR=$out/probe-cost VM_KERNEL=stock VM_CPUS=1 VM_HUGEPAGES=16 \
	VM_ACCEL=tcg,thread=single VM_EXTRA="-icount shift=0,sleep=off" \
	VM_TIMEOUT=${VM_TIMEOUT:-1800} \
	"$top/kernel/scripts/run-vm.sh" "$img" "$build/guest.cpio" "$guest" \
	> "$out/probe-cost.log" 2>&1 ||
	{ tail -20 "$out/probe-cost.log" >&2; die "the guest failed"; }
sed -n "s/^PROBE //p" "$out/probe-cost.log" > "$out/probe-cost.txt"

python3 - "$out/probe-cost.txt" "$faults" "$reps" "$out/probe-cost.md" "$KVER" <<'PY'
import statistics, sys
path, faults, reps, md, kver = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
ipr, hits, opt, bad = {}, {}, set(), []
for line in open(path):
    f = line.split()
    kv = dict(x.split("=", 1) for x in f[2:] if "=" in x)
    if f[1] == "refault":
        ipr.setdefault(f[0], []).append(float(kv["seconds"]) * 1e9 / faults)
    elif f[1] == "hits":
        hits[f[0]] = int(f[2])
        if len(f) > 4 and f[4] not in ("", "0"):
            bad.append("%s lost %s events" % (f[0], f[4]))
    elif f[1] == "optimized":
        opt.add(f[0])
    elif f[1] == "failed":
        bad.append("%s: the kernel refused the probe" % f[0])
if "off" not in ipr:
    sys.exit("bench-probe-cost: no run with nothing recording")
off = statistics.median(ipr["off"])
per = {}
rows = []
what = {
    "call0": "breakpoint on the call, no argument",
    "call1": "the same, one argument",
    "call2": "the same, two arguments (the key's shape)",
    "call2f": "two arguments and a two-compare filter",
    "jump0": "optimized into a jump, before the call, no argument",
    "entry0": "ftrace site (the hash's entry), no argument",
}
for m in ("call0", "call1", "call2", "call2f", "jump0", "entry0"):
    if m not in ipr:
        continue
    v = statistics.median(ipr[m])
    h = hits.get(m, 0) / (faults * reps)
    # every hit is one refault's: a whole number of hits per refault
    if h < 0.99 or abs(h - round(h)) > 0.01:
        bad.append("%s: %.3f hits per refault" % (m, h))
        continue
    h = round(h)
    per[m] = (v - off) / h
    note = ""
    if m == "jump0" and m not in opt:
        note = " (the kernel did not optimize it: a breakpoint)"
    rows.append("| %s | %s%s | %.0f | %d | %.0f |" % (m, what[m], note, v, h, per[m]))
with open(md, "w") as o:
    o.write("\n## What one probe hit costs%s\n\n" % ("" if kver == "6.12" else " on Linux " + kver))
    o.write("Instructions per page-cache-hit refault with one kprobe event on, and per hit of it "
            "(`tests/bench-probe-cost.sh`: -icount shift=0,sleep=off, single-threaded TCG, one vCPU, "
            "the production-like stock kernel, %d x %d refaults each, median; nothing recording: "
            "%.0f).\n\n" % (reps, faults, off))
    o.write("| probe | what | instructions/refault | hits/refault | instructions/hit |\n|---|---|---:|---:|---:|\n")
    o.write("\n".join(rows) + "\n")
    if all(k in per for k in ("call0", "call1", "call2", "call2f")):
        arg = (per["call2"] - per["call0"]) / 2
        filt = per["call2f"] - per["call2"]
        o.write("\nAn argument costs %.0f instructions a hit, a filter %.0f. " % (arg, filt))
        if "jump0" in per and "jump0" in opt:
            o.write("A probe the kernel optimizes into a jump saves %.0f against a breakpoint. "
                    % (per["call0"] - per["jump0"]))
        floor = 2 * min(per[k] for k in per if k in ("call0", "jump0")) + 3 * arg
        o.write("A recorder of holds needs two events an acquisition: the key (two arguments) "
                "and the release (one, the mutex). At the cheapest placement measured here "
                "that is %.0f instructions, %.3fx of a refault with nothing recording.\n"
                % (floor, (off + floor) / off))
print(open(md).read())
if bad:
    print("bench-probe-cost: " + "; ".join(bad), file=sys.stderr)
    sys.exit(1)
PY
