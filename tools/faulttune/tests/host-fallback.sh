#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The lock:contention fallback on this machine's own kernel (root): what
# record stores and what report claims.  The host kernel differs from
# machine to machine, so only properties are asserted: locks and callers
# named where the file's kallsyms can, hold never a number, waits
# paired with their stacks, the verdict's share recomputable from its
# inputs, and fault mutex waits of the share workload (when the kernel
# lets us reserve huge pages and the run contends) attributed to faults.
# Ends with "N passed, N failed".
#
# usage: tests/host-fallback.sh ./faulttune
FT=${1:-./faulttune}
case $FT in /*) ;; *) FT=$(pwd)/$FT ;; esac
T=/sys/kernel/tracing
. "$(dirname "$0")/lib/host.sh"
hp=/proc/sys/vm/nr_hugepages
hp0=		# nr_hugepages as found, put back at exit once we change it
cleanup_more() {
	[ -n "$hp0" ] && echo "$hp0" > $hp 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$(id -u)" != 0 ]; then
	skip "fallback host tests" "need root"
	done_
fi
mount_tracefs
if [ ! -d $T/events/lock/contention_begin ]; then
	skip "fallback host tests" "this kernel has no lock:contention_begin"
	done_
fi
if [ -d $T/events/hugetlb ] || [ -d $T/events/memtype ]; then
	skip "fallback host tests" "this kernel has the faulttune events (no fallback)"
	done_
fi

W=$(mktemp -d /tmp/faulttune-fallback.XXXXXX)

# Contention we make ourselves: writers on one pipe (its mutex), and the
# share workload's processes faulting the same huge pages when the
# kernel gives us some (the pool is put back at exit).
hp0=$(cat $hp 2>/dev/null)
echo 64 > $hp 2>/dev/null
free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
cat > "$W/load.sh" <<EOF
(for i in 1 2 3 4; do dd if=/dev/zero bs=512 count=4000 2>/dev/null & done; wait) |
	dd of=/dev/null bs=4k 2>/dev/null &
if [ "${free:-0}" -ge 32 ]; then
	"$FT" bench -w share -t 2 -s 32M -r 2 >/dev/null
fi
wait
EOF
"$FT" record -o "$W/f.dat" -- sh "$W/load.sh" 2>"$W/rec.err"
rc=$?
sed 's/^/# /' "$W/rec.err"
check "record on this kernel exits 0 (rc=$rc)" [ $rc = 0 ]
check "record says it falls back to lock:contention" grep -q "falling back to lock:contention" "$W/rec.err"

# A kernel built without kprobe events (CONFIG_KPROBE_EVENTS=n, as this
# machine's may be): the kprobe recorder, asked for, refuses in one line
# naming the option and leaves nothing behind; auto said why it passed it
# over before falling back.
if [ -e $T/kprobe_events ]; then
	skip "kprobe recorder refusal without kprobe_events" "this kernel has kprobe_events"
else
	inst_mark
	n0=$(inst_count)
	"$FT" record --source=kprobe -o "$W/k.dat" -- true >/dev/null 2>"$W/k.err"
	rc=$?
	sed 's/^/# /' "$W/k.err"
	check "--source=kprobe without kprobe_events: exit 1 with one line naming CONFIG_KPROBE_EVENTS (rc=$rc)" \
		eval '[ $rc = 1 ] && [ "$(wc -l < "$W/k.err")" = 1 ] &&
		grep -q "^faulttune: --source=kprobe: no kprobe_events in tracefs (kernel without CONFIG_KPROBE_EVENTS)$" "$W/k.err"'
	check "  and nothing left behind: no instance, no file" \
		eval '[ "$(inst_count)" = "$n0" ] && ! ls "$W"/k.dat* >/dev/null 2>&1'
	check "auto: record said why it did not use the kprobe recorder" \
		grep -q "^faulttune: kprobe recorder not used: no kprobe_events in tracefs (kernel without CONFIG_KPROBE_EVENTS)$" "$W/rec.err"
fi
check "trace-cmd report reads the file" sh -c "trace-cmd report '$W/f.dat' > '$W/f.txt' 2>/dev/null"

"$FT" report -v "$W/f.dat" > "$W/f.rep" 2>"$W/f.rerr"
check "report -v exits 0" [ $? = 0 ]
# the default output: the fallback's verdict first, short and narrow; the
# tables (checked below on -v's text) are not in it
"$FT" report "$W/f.dat" > "$W/f.short" 2>/dev/null
check "report exits 0" [ $? = 0 ]
check "report: at most 20 lines of 100 columns ($(wc -l < "$W/f.short") x $(wc -L < "$W/f.short"))" \
	sh -c "[ \$(wc -l < '$W/f.short') -le 20 ] && [ \$(wc -L < '$W/f.short') -le 100 ]"
check "report: the verdict in the first 5 lines, no table" \
	sh -c "head -n 5 '$W/f.short' | grep -q '^verdict: [a-z-]*: ' && ! grep -q '^contended locks' '$W/f.short'"
sed 's/^/# /' "$W/f.short"
"$FT" report --json "$W/f.dat" > "$W/f.json" 2>>"$W/f.rerr"
check "report --json exits 0 and is JSON" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$W/f.json"
sed -n '/^lock:contention/,$p' "$W/f.rep" | head -30 | sed 's/^/# /'

# the properties, from the JSON and the text side by side
(python3 - "$W/f.json" "$W/f.rep" "$W/f.txt" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
rep = open(sys.argv[2]).read()
txt = open(sys.argv[3]).read()
fb = d.get("fallback")
def check(desc, cond):
    print(("ok - " if cond else "not ok - ") + desc)
if fb is None:
    check("report has a fallback member", False)
    sys.exit(0)
check("the file carries kallsyms (%d symbols)" % fb["kallsyms_symbols"],
      fb["kallsyms"] and fb["kallsyms_symbols"] > 1000)
check("hold is not measured and says so", fb["hold_measured"] is False)
holds = [l["hold"] for l in fb["locks"]] + \
        [o["hold"] for o in fb["hugetlb_fault_mutex"]["ops"] + fb["memtype_lock"]["ops"]]
check("every hold in the JSON is null, never a number", all(h is None for h in holds))
check("no hold percentile in the fallback JSON",
      re.search(r'"hold_p[0-9]', json.dumps(fb)) is None)
rows = re.search(r"contended locks.*?\n(.*?)\n\n", rep, re.S)
lines = [l for l in rows.group(1).split("\n")[1:]] if rows else []
check("every lock row of the text shows hold n/a (%d rows)" % len(lines),
      bool(lines) and all(" n/a " in l for l in lines))
check("no hold column number: no '0ns' where hold is",
      all(not re.search(r"\s0ns\s+\S*$", l) for l in lines))
w = fb["waits"]
check("waits recorded by the contention we made (%d)" % w, w > 0)
# The kernel skips a trigger's stack now and then (no stack where RCU is
# not watching, or past the stack buffers' nesting depth): how many waits
# have one is the host's business; that every wait is counted on one side,
# that no stack is used twice, and that the text says the same, is ours.
ws, wo = fb["waits_with_stack"], fb["waits_without_stack"]
check("every wait counted with or without its stack (%d + %d = %d)" % (ws, wo, w),
      ws + wo == w)
check("no more waits with a stack (%d) than stacks recorded (%d)" % (ws, fb["stacks"]),
      ws <= fb["stacks"])
if d["lost_events"] == 0 and w:
    check("stacks paired with their waits: most waits have one (%d of %d)" % (ws, w),
          2 * ws >= w)
check("the text gives the same count of waits with a stack",
      re.search(r"waits with one %d of %d\b" % (ws, w), rep) is not None)
named = [l for l in fb["locks"] if l["caller"]]
check("callers named from kallsyms (%d of %d locks)" % (len(named), len(fb["locks"])),
      len(named) > 0)
check("trace-cmd report prints the stacks with names",
      re.search(r"=> [a-z_][a-z0-9_.]+ \(ffff", txt) is not None)
types = {"spinlock", "rwlock:R", "rwlock:W", "rwsem:R", "rwsem:W", "rt-mutex",
         "rwlock-rt:R", "rwlock-rt:W", "pcpu-sem:R", "pcpu-sem:W", "mutex",
         "mutex-spin"}
check("every lock has a type from its flags",
      all(l["type"] in types or l["type"].startswith("flags=") for l in fb["locks"]))
sites = {"hugetlb_fault", "hugetlb_wp", "hugetlbfs_fallocate", "remove_inode_hugepages",
         "hugetlbfs_punch_hole", "hugetlb_vmtruncate", "hugetlbfs_evict_inode",
         "memfd_alloc_folio", "mfill_atomic_hugetlb"}
fm = [l for l in fb["locks"] if l["class"] == "hugetlb_fault_mutex"]
check("fault mutex locks are mutexes called from a fault mutex site",
      all(l["type"] in ("mutex", "mutex-spin") and
          l["caller"].split(".")[0] in sites for l in fm))
tot = fb["hugetlb_fault_mutex"]["total"]
check("fault mutex waits by op add up to the total",
      sum(o["waits"] for o in fb["hugetlb_fault_mutex"]["ops"]) == tot["waits"] and
      sum(o["wait_total_ns"] for o in fb["hugetlb_fault_mutex"]["ops"]) == tot["wait_total_ns"])
if tot["waits"]:
    # the share workload faults, and truncates when its file goes away
    op = {o["name"]: o["waits"] for o in fb["hugetlb_fault_mutex"]["ops"]}
    check("share workload: its %d fault mutex waits are faults (%d) and "
          "teardown truncation (%d)" % (tot["waits"], op["fault"], op["punch"]),
          op["fault"] > 0 and op["fault"] + op["punch"] == tot["waits"])
    check("the text names them fault mutexes",
          "hugetlb fault mutex" in rep or "hugetlb_fault_mutex_table[" in rep)
else:
    print("ok - share workload: fault mutex waits attributed # SKIP no fault mutex "
          "contention in this run (or no huge pages)")
k = fb["on_this_kernel"]
cap = k["duration_ns"] * k["cpus"]
check("the verdict's share is wait / (duration x CPUs)",
      cap > 0 and abs(100.0 * k["fault_mutex_wait_ns"] / cap - k["fault_mutex_pct"]) < 0.001)
check("the verdict is one of the stated ones with a reason",
      k["verdict"] in ("not-limiting", "may-limit", "unknown") and len(k["reason"]) > 20)
check("the text closes with 'on this kernel' and the same verdict",
      re.search(r"\non this kernel\n(.|\n)*verdict: " + k["verdict"] + ": ", rep) is not None)
t = fb["table"]
check("buckets: base from kcore or not claimed, with what is not known",
      (t["base"] is None and t["nbuckets"] is None) or
      (t["base_from"] == "kcore" and t["nbuckets"] and t["mutex_bytes"]))
EOF
) > "$W/props" 2>&1
prc=$?
cat "$W/props"
# a SKIP line is neither a pass nor a failure
pass=$((pass + $(grep '^ok' "$W/props" | grep -vc ' # SKIP ')))
fail=$((fail + $(grep -c '^not ok' "$W/props")))
grep -q '^ok\|^not ok' "$W/props" || nok "property checks ran"
# an exception part way through drops the checks after it: not a pass
check "the property checks ran to their end (exit $prc)" [ $prc = 0 ]
done_
