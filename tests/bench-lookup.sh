#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-lookup.sh: make bench's memtype-lookup section (issue 14).  The
# per-fault lookup_memtype() path (faulttune bench -w memtype-lookup on
# QEMU's ivshmem BAR2 through vfio-pci in no-IOMMU mode) at 1..VM_CPUS
# threads on production-like builds of each kernel of BENCH_LOOKUP_KERNELS:
#
#   stock	Linux 6.12 as Debian ships it
#   norw	the series without its last patch, the memtype read-lock one
#		(source: build/norw/src, prepare-tree.sh variant norw)
#   patched	the whole series
#
# The kernels boot interleaved (stock, norw, patched, stock, ...) for
# BENCH_ROUNDS rounds, so that drift on a noisy host hits all alike.  Each
# guest runs the workload untraced (the times: per-thread average time of
# a fault-pass) and then once recorded per thread count (faulttune record,
# report --json: the lookups' wait for memtype_lock, from the memtype
# events, or on stock from lock:contention through the fallback).
#
# Production-like: base.config without debug.config (no lockdep, no lock
# or list debugging), built by tests/bench-kernels.sh into
# build/prod-<kernel>, the kernels sections 1-10 boot.  Unlike the -icount
# kernels (bench.config) jump labels stay off, as in base.config: this
# workload needs multi-threaded TCG, where a jump label patch can leave a
# vCPU on a stale int3 (base.config's comment).  All kernels have the
# same config, so the comparison is like with like.
#
# Per round and thread count: the per-thread average fault-pass time
# divided by stock's of the same round, and the lookup wait share (the
# contended lookups' wait over the thread-time of the faulting passes).
# Medians over the rounds with the spread (min..max).  Writes
# build/bench/lookup.md (bench.sh appends it to Documentation/bench.md)
# and build/bench/lookup.json.
#
# Knobs: BENCH_LOOKUP_KERNELS ("stock norw patched" when build/norw/src
# or a norw variant of prepare-tree.sh exists, else "stock patched"),
# BENCH_ROUNDS (3), VM_CPUS (4), BENCH_LOOKUP_SIZE (64M: all of the BAR),
# BENCH_LOOKUP_PASSES (10 fault-passes per thread), BENCH_LOOKUP_REPS (3).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
out=$build/bench
rounds=${BENCH_ROUNDS:-3}
cpus=${VM_CPUS:-4}
size=${BENCH_LOOKUP_SIZE:-64M}
passes=${BENCH_LOOKUP_PASSES:-10}
reps=${BENCH_LOOKUP_REPS:-3}
if [ -z "${BENCH_LOOKUP_KERNELS:-}" ]; then
	if [ -d "$build/norw/src" ] || grep -q 'norw' "$top/kernel/scripts/prepare-tree.sh"; then
		BENCH_LOOKUP_KERNELS="stock norw patched"
	else
		BENCH_LOOKUP_KERNELS="stock patched"
	fi
fi
kernels=$BENCH_LOOKUP_KERNELS
mkdir -p "$out"
die() { echo "bench-lookup: $*" >&2; exit 1; }
start=$(date +%s)

[ "${kernels%% *}" = stock ] || die "BENCH_LOOKUP_KERNELS must start with stock (the ratios' base), not '$kernels'"
[ -r "$build/guest.cpio" ] || die "no $build/guest.cpio (make image)"

# production-like kernels from the trees the other targets unpack
for k in $kernels; do
	if [ ! -d "$build/$k/src" ]; then
		make -s -C "$top" "$build/$k/src.stamp" ||
			die "no source tree build/$k/src (make kernel-$k)"
	fi
done
# the same production-like kernels as sections 1-10 (build/prod-KERNEL)
"$top/tests/bench-kernels.sh" $kernels || die "the production-like kernels do not build"

# The guest side: one "LOOKUP <what> <threads> <json>" line per result.
guest="tl=\$(seq -s, 1 $cpus)
ft_vfio bind > /dev/null || { echo 'LOOKUP error ft_vfio bind failed'; exit 1; }
faulttune bench -w memtype-lookup -t \$tl -s $size --iterations $passes -r $reps --json > /tmp/b.json || exit 1
echo \"LOOKUP bench 0 \$(cat /tmp/b.json)\"
for t in \$(seq 1 $cpus); do
	faulttune record -b 8192 -o /tmp/l.dat -- faulttune bench -w memtype-lookup -t \$t -s $size --iterations $passes -r 1 --json > /tmp/rb.json 2> /tmp/rb.err || { cat /tmp/rb.err; exit 1; }
	faulttune report --json /tmp/l.dat > /tmp/rr.json 2> /tmp/rr.err || { cat /tmp/rr.err; exit 1; }
	echo \"LOOKUP recbench \$t \$(grep '^{' /tmp/rb.json)\"
	echo \"LOOKUP report \$t \$(cat /tmp/rr.json)\"
	rm -f /tmp/l.dat
done
ft_vfio unbind"

: > "$out/lookup.txt"
for r in $(seq 1 "$rounds"); do
	for k in $kernels; do
		echo "bench-lookup: round $r/$rounds, $k kernel ($(( $(date +%s) - start )) s)"
		VM_LOGDIR=$out/lookup-$k-$r VM_KERNEL=$k VM_TIMEOUT=${VM_TIMEOUT:-1800} \
			"$top/kernel/scripts/run-vm.sh" "$build/prod-$k/bzImage" "$build/guest.cpio" "$guest" \
			> "$out/lookup-$k-$r.log" 2>&1 ||
			{ tail -20 "$out/lookup-$k-$r.log" >&2; die "the $k guest failed (round $r)"; }
		sed -n "s/^LOOKUP /$k $r /p" "$out/lookup-$k-$r.log" >> "$out/lookup.txt"
	done
done

python3 - "$out/lookup.txt" "$out/lookup.md" "$out/lookup.json" "$kernels" "$rounds" "$cpus" \
	"BENCH_LOOKUP_KERNELS='$kernels' BENCH_ROUNDS=$rounds VM_CPUS=$cpus BENCH_LOOKUP_SIZE=$size BENCH_LOOKUP_PASSES=$passes BENCH_LOOKUP_REPS=$reps tests/bench-lookup.sh" \
	"$(( $(date +%s) - start ))" <<'PY'
import json, statistics, sys

path, md, js, kernels, rounds, cpus, cmd, secs = sys.argv[1:9]
kernels = kernels.split()
rounds, cpus = int(rounds), int(cpus)
bench, rec, rep = {}, {}, {}
for line in open(path):
    k, r, what, t, text = line.rstrip("\n").split(" ", 4)
    r, t = int(r), int(t)
    if what == "error":
        sys.exit("bench-lookup: %s guest, round %d: %s" % (k, r, text))
    obj = json.loads(text)
    if what == "bench":
        for res in obj["results"]:
            bench[(k, r, res["threads"])] = res
    elif what == "recbench":
        rec[(k, r, t)] = obj["results"][0]
    elif what == "report":
        rep[(k, r, t)] = obj


def avg_pass_ns(res):
    """mean over the threads of their average fault-pass time"""
    return statistics.mean(p["avg_ns"] for p in res["per_thread"])


def fault_ns(res):
    """thread-time of every faulting loop: the passes, the fill, the read-back"""
    return sum(p["avg_ns"] * p["passes"] for p in res["per_thread"]) + res["untimed_fault_ns"]


def lookup_wait(report, res):
    """(contended lookups, their wait ns, lookups, source)"""
    if report["events"]["memtype"]:
        for op in report["memtype"]["ops"]:
            if op["name"] == "lookup":
                return op["contended"], op["wait_total_ns"], op["acquisitions"], "events"
    # stock: lock:contention through the fallback, contended waits only;
    # one lookup per fault (kernel-trace.t checks it on the patched kernel)
    lookups = res["faults"] + res["untimed_faults"]
    fb = report.get("fallback", {}).get("memtype_lock")
    for op in fb["ops"] if fb else []:
        if op["name"] == "lookup":
            return op["waits"], op["wait_total_ns"], lookups, "lock:contention"
    return 0, 0, lookups, "lock:contention"


def med(v):
    return statistics.median(v) if v else None


def spread(v):
    return "%.3f..%.3f" % (min(v), max(v)) if v else "n/a"


res = {"command": cmd, "kernels": kernels, "rounds": rounds, "rows": []}
rows = []
for t in range(1, cpus + 1):
    for k in kernels:
        ratios, shares, cshares, nsf = [], [], [], []
        src = set()
        for r in range(1, rounds + 1):
            b, s = bench.get((k, r, t)), bench.get(("stock", r, t))
            if b and s:
                ratios.append(avg_pass_ns(b) / avg_pass_ns(s))
            if b:
                nsf.append(avg_pass_ns(b) / b["pages_per_pass"])
            if (k, r, t) in rep and (k, r, t) in rec:
                cont, wait, lookups, how = lookup_wait(rep[(k, r, t)], rec[(k, r, t)])
                src.add(how)
                shares.append(100.0 * wait / fault_ns(rec[(k, r, t)]))
                cshares.append(100.0 * cont / lookups)
        row = {"kernel": k, "threads": t,
               "ns_per_fault": round(med(nsf), 1) if nsf else None,
               "ratio_vs_stock": round(med(ratios), 4) if ratios else None,
               "ratio_min": round(min(ratios), 4) if ratios else None,
               "ratio_max": round(max(ratios), 4) if ratios else None,
               "lookup_wait_pct": round(med(shares), 3) if shares else None,
               "lookup_wait_pct_min": round(min(shares), 3) if shares else None,
               "lookup_wait_pct_max": round(max(shares), 3) if shares else None,
               "lookup_contended_pct": round(med(cshares), 3) if cshares else None,
               "wait_from": sorted(src)}
        res["rows"].append(row)
        rows.append("| %d | %s | %s | %s | %s | %s | %s | %s |" % (
            t, k, "%.0f" % row["ns_per_fault"] if nsf else "n/a",
            "%.3f" % row["ratio_vs_stock"] if ratios else "n/a", spread(ratios),
            "%.2f%%" % row["lookup_wait_pct"] if shares else "n/a",
            "%.2f..%.2f%%" % (min(shares), max(shares)) if shares else "n/a",
            "%.2f%%" % row["lookup_contended_pct"] if cshares else "n/a"))
with open(md, "w") as o:
    o.write("\n## memtype-lookup: the per-fault lookup_memtype() path\n\n")
    o.write("`faulttune bench -w memtype-lookup`: T threads fault the 4 KiB pages of their "
            "slices of QEMU's ivshmem BAR2 through vfio-pci (no-IOMMU mode), one "
            "`lookup_memtype()` under `memtype_lock` per fault; only the fault-passes are "
            "timed.  Production-like kernels (base.config, no debug.config), booted "
            "interleaved (%s) for %d rounds, %d vCPUs, multi-threaded TCG.  *time/fault*: "
            "median per-thread average fault-pass time over the pages of a pass; *vs stock*: "
            "that average over stock's in the same round, median and min..max over the rounds; "
            "*lookup wait*: the contended lookups' total wait for `memtype_lock` over the "
            "thread-time of all the faulting loops (passes, fill, read-back), from one recorded "
            "run per round and thread count (memtype events; on stock `lock:contention` "
            "through the fallback, contended waits only, one lookup per fault); "
            "*contended*: contended share of the lookups, median.  TCG timings: ratios between kernels of one run, not "
            "absolute speeds.  Made by `%s` in %s s.\n\n" % (
                ", ".join(kernels), rounds, cpus, cmd, secs))
    o.write("| threads | kernel | time/fault (ns) | vs stock | spread | lookup wait | spread | contended |\n")
    o.write("|---:|---|---:|---:|---|---:|---|---:|\n")
    o.write("\n".join(rows) + "\n")
json.dump(res, open(js, "w"), indent=1)
print(open(md).read())
PY
