#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# faulttune host tests against the real tracefs of this machine (root).
# Uses lock:contention_begin/end (or the faulttune events if the kernel has
# them); no mocks.  Ends with "N passed, N failed".
#
# usage: tests/host-tracefs.sh ./faulttune
FT=${1:-./faulttune}
case $FT in /*) ;; *) FT=$(pwd)/$FT ;; esac
T=/sys/kernel/tracing
. "$(dirname "$0")/lib/host.sh"
nr0=		# nr_hugepages as found, once the tune tests reserve some
cleanup_more() {
	[ -n "$nr0" ] && echo "$nr0" > $HP/nr_hugepages
}
trap cleanup EXIT
# stopped PID: exited (a zombie not yet waited for counts: kill -0 says
# it is there)
stopped() { [ ! -e /proc/$1/stat ] || [ "$(sed 's/.*) //; s/ .*//' /proc/$1/stat)" = Z ]; }
# failed cleanly: non-zero, not killed by a signal (130 = our SIGINT exit)
clean_fail() { [ "$1" -ne 0 ] && { [ "$1" -lt 128 ] || [ "$1" = 130 ]; }; }

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: host tracefs tests need root"
	echo "0 passed, 0 failed"
	[ -n "$FT_REQUIRE_TRACEFS" ] && exit 1
	exit 0
fi
command -v trace-cmd >/dev/null || { echo "trace-cmd not installed (apt-get install trace-cmd)"; exit 1; }
mount_tracefs	# leave the host as found: unmounted at exit
if [ ! -d $T/instances ]; then
	echo "SKIP: no tracefs at $T"
	echo "0 passed, 0 failed"
	[ -n "$FT_REQUIRE_TRACEFS" ] && exit 1
	exit 0
fi

W=$(mktemp -d /tmp/faulttune-host.XXXXXX)
inst_mark
state() { cat $T/tracing_on $T/buffer_size_kb $T/set_event $T/current_tracer $T/trace_clock; }
state > "$W/before"
n0=$(inst_count)

# 1: instance exists while recording, gone afterwards, file readable
"$FT" record -o "$W/a.dat" -- sh -c "ls $T/instances > $W/during; sleep 0.3" 2>"$W/a.err"
rc=$?
check "record -- COMMAND exits 0" [ $rc = 0 ]
check "instance faulttune-<pid> exists during the run" grep -q '^faulttune-' "$W/during"
check "no instance left after the run" [ "$(inst_count)" = "$n0" ]
check "trace-cmd report reads the file" eval 'trace-cmd report "$W/a.dat" > "$W/a.txt" 2>&1'

# 2: marker round trip through the instance's trace_marker
tok="faulttune-roundtrip-$$"
"$FT" record -o "$W/m.dat" -- sh -c "echo $tok > \$FAULTTUNE_MARKER" 2>/dev/null
check "marker written via FAULTTUNE_MARKER is in trace-cmd report" \
	sh -c "trace-cmd report '$W/m.dat' 2>/dev/null | grep -q '$tok'"
check "record's own phase markers are in the file" \
	sh -c "trace-cmd report '$W/m.dat' 2>/dev/null | grep -q 'phase=record-end'"
"$FT" report --json "$W/m.dat" >"$W/m.json" 2>&1
check "faulttune report counts 3 markers" grep -q '"markers":3' "$W/m.json"

# 3: event counts agree between trace-cmd report and faulttune report
"$FT" record -o "$W/c.dat" -- sh -c 'for i in 1 2 3 4; do dd if=/dev/zero of=/dev/null bs=64k count=2000 2>/dev/null & done; wait' 2>/dev/null
tc=$(trace-cmd report "$W/c.dat" 2>/dev/null | grep -cE ' (contention_begin|contention_end|hugetlb_fault_mutex_[a-z_]+|memtype_lock_[a-z_]+):')
fj=$("$FT" report --json "$W/c.dat" 2>/dev/null | sed -n 's/.*"events":{"hugetlb":\([0-9]*\),"memtype":\([0-9]*\),"lock_contention":\([0-9]*\).*/\1 \2 \3/p')
fc=$(echo $fj | awk '{print $1 + $2 + $3}')
echo "# trace-cmd report: $tc events, faulttune report: $fc events"
check "event counts agree (trace-cmd $tc, faulttune $fc)" [ -n "$fc" -a "$tc" = "$fc" ]

# 4: SIGINT stops cleanly: exit 0, valid file, nothing left behind
"$FT" record -o "$W/i.dat" 2>/dev/null &
p=$!
check "instance faulttune-$p present while recording" wait_for 30 [ -d $T/instances/faulttune-$p ]
kill -INT $p
wait $p
rc=$?
check "SIGINT: record exits 0" [ $rc = 0 ]
check "SIGINT: instance removed" [ ! -d $T/instances/faulttune-$p ]
check "SIGINT: file readable by trace-cmd report" eval 'trace-cmd report "$W/i.dat" >/dev/null 2>&1'
check "SIGINT: file readable by faulttune report" eval '"$FT" report "$W/i.dat" >/dev/null 2>&1'
check "SIGINT: end marker says interrupted" \
	sh -c "trace-cmd report '$W/i.dat' 2>/dev/null | grep -q 'interrupted=1'"

# 5: SIGTERM while a command runs: forwarded to the command (which says
# so from its trap: SIGKILL, record's fallback 5 s later, cannot be
# trapped), file valid, instance removed.  The command says when its trap
# is set; record is signalled only then.
"$FT" record -o "$W/t.dat" -- sh -c 'trap "echo TERM > $1/t.got; exit 0" TERM
	echo $$ > $1/t.ready; while :; do sleep 0.1; done' sh "$W" 2>/dev/null &
p=$!
if wait_for 30 [ -s "$W/t.ready" ]; then
	c=$(cat "$W/t.ready")
	t0=$(date +%s)
	kill -TERM $p
	# bounded: a record that does not forward waits for its command forever
	if ! wait_for 20 stopped $p; then
		nok "SIGTERM: record still running 20 s after SIGTERM"
		kill -KILL $p $c
	fi
	wait $p
	rc=$?
	secs=$(( $(date +%s) - t0 ))
	check "SIGTERM: the command got SIGTERM from record (forwarded)" grep -qx TERM "$W/t.got"
	check "SIGTERM: the command is gone" eval '! kill -0 $c 2>/dev/null'
	check "SIGTERM: record ends in under 5 s, not by its SIGKILL fallback (${secs}s)" [ $secs -lt 5 ]
	check "SIGTERM: record exits cleanly (rc=$rc)" [ $rc -lt 128 ]
else
	nok "SIGTERM: the recorded command never started"
	kill -TERM $p
	wait $p
fi
check "SIGTERM: instance removed" [ ! -d $T/instances/faulttune-$p ]
check "SIGTERM: file readable by trace-cmd report" eval 'trace-cmd report "$W/t.dat" >/dev/null 2>&1'

# 6: a SIGKILLed run leaves its instance; the next run removes it
"$FT" record -o "$W/k.dat" 2>/dev/null &
p=$!
wait_for 30 [ -d $T/instances/faulttune-$p ]
kill -KILL $p
wait $p 2>/dev/null
check "SIGKILL leaves faulttune-$p behind" [ -d $T/instances/faulttune-$p ]
"$FT" record -o "$W/k2.dat" -d 0.2 2>"$W/k.err"
check "next run removes the stale instance" [ ! -d $T/instances/faulttune-$p ]
check "next run says so" grep -q "removed stale instance faulttune-$p" "$W/k.err"
rm -f "$W"/k.dat*

# 6b: a live recording in another PID namespace is not "stale": its pid
# means nothing here (kill(pid, 0) said ESRCH and the instance was removed
# under the running recording).  The inner run gets a pid near pid_max,
# which is free in this namespace.
if command -v unshare >/dev/null; then
	pmax=$(cat /proc/sys/kernel/pid_max)
	ipid=$((pmax - 50))
	while kill -0 $ipid 2>/dev/null || [ -d $T/instances/faulttune-$ipid ]; do
		ipid=$((ipid - 1))
	done
	unshare --pid --fork --mount-proc sh -c \
		'echo $(($1 - 1)) > /proc/sys/kernel/ns_last_pid; shift; "$@"; exit $?' \
		sh $ipid "$FT" record -o "$W/ns.dat" -d 3 2>"$W/ns.err" &
	p=$!
	check "pidns: the inner recording runs as faulttune-$ipid" wait_for 30 [ -d $T/instances/faulttune-$ipid ]
	"$FT" record -o "$W/ns2.dat" -d 0.2 2>"$W/ns2.err"
	check "pidns: another run leaves it alone" [ -d $T/instances/faulttune-$ipid ]
	check "pidns: and leaves it tracing" [ "$(cat $T/instances/faulttune-$ipid/tracing_on)" = 1 ]
	check "pidns: and says why" grep -q "faulttune-$ipid belongs to a running" "$W/ns2.err"
	wait $p
	rc=$?
	check "pidns: the inner recording ends normally (rc=$rc)" [ $rc = 0 ]
	check "pidns: its file is readable" eval 'trace-cmd report "$W/ns.dat" >/dev/null 2>&1'
	check "pidns: its instance is gone" [ ! -d $T/instances/faulttune-$ipid ]
else
	nok "pidns: unshare (util-linux) not installed"
fi

# 7: the top-level buffer was never touched
state > "$W/after"
check "top-level tracing_on/buffer/set_event/tracer/clock unchanged" cmp -s "$W/before" "$W/after"
check "no faulttune instance left at the end" [ "$(inst_count)" = "$n0" ]

# 8: truncated and corrupt files fail cleanly
sz=$(stat -c %s "$W/c.dat")
head -c $((sz / 3)) "$W/c.dat" > "$W/trunc.dat"
"$FT" report "$W/trunc.dat" >/dev/null 2>"$W/trunc.err"
rc=$?
check "truncated file: non-zero exit, no crash (rc=$rc)" clean_fail $rc
check "truncated file: one-line error" grep -q 'faulttune: ' "$W/trunc.err"
head -c 64 /dev/urandom > "$W/garbage.dat"
"$FT" report "$W/garbage.dat" >/dev/null 2>&1
rc=$?
check "garbage file: non-zero exit, no crash (rc=$rc)" clean_fail $rc

# 8b: a full disk: the command writes 512 KB of markers itself, so the
# recording outgrows the 64 KB tmpfs whatever this host's kernel records
# (a test must not depend on that).  Clear error naming the file and
# ENOSPC, non-zero exit, no partial file, no instance, top-level settings
# untouched.
mkdir -p "$W/full"
if mount -t tmpfs -o size=64k faulttune-full "$W/full" 2>/dev/null; then
	"$FT" record -b 2048 -o "$W/full/f.dat" -- sh -c 'l=$(printf "%01000d" 0); i=0; while [ $i -lt 512 ]; do echo "$l" > "$FAULTTUNE_MARKER"; i=$((i + 1)); done' 2>"$W/full.err"
	rc=$?
	sed 's/^/# /' "$W/full.err"
	check "full disk: record fails cleanly (rc=$rc)" clean_fail $rc
	check "full disk: the error names the file and ENOSPC" \
		grep -q "faulttune: writing $W/full/f.dat.*: No space left on device" "$W/full.err"
	check "full disk: no partial trace.dat or capture file left" [ -z "$(ls "$W/full")" ]
	check "full disk: no instance left" [ "$(inst_count)" = "$n0" ]
	state > "$W/after-full"
	check "full disk: top-level tracing settings unchanged" cmp -s "$W/before" "$W/after-full"
	umount "$W/full"
else
	nok "full disk: cannot mount a tmpfs at $W/full"
fi

# 9: bench and tune.  First what needs no huge pages, on any host: too
# few of them is one line saying how to get them, the knob left alone and
# no instance left.
HP=/sys/kernel/mm/hugepages/hugepages-2048kB
"$FT" bench -s 64G >/dev/null 2>"$W/b.err"
rc=$?
check "bench: too few huge pages is a clean error (rc=$rc)" clean_fail $rc
check "bench: the error says how to get them" grep -q 'echo [0-9]* > .*nr_hugepages' "$W/b.err"
echo 8 > "$W/knob"
"$FT" tune --knob "$W/knob" -r 1 -W 0 -s 64G -t 2 -m 4 >/dev/null 2>"$W/tune.err"
rc=$?
sed 's/^/# /' "$W/tune.err"
check "tune: too few huge pages: exit 1 (rc=$rc)" [ $rc = 1 ]
check "tune: too few huge pages: says how to get them" grep -q '^faulttune: .*echo [0-9]* > .*nr_hugepages' "$W/tune.err"
check "tune: too few huge pages: knob left at 8" [ "$(cat "$W/knob")" = 8 ]
check "tune: too few huge pages: no instance left" [ "$(inst_count)" = "$n0" ]

# Then the workloads: reserve 2 MB huge pages if needed, give them back
# at exit.  tune's sweep and its signal handling need the hugetlb fault
# mutex events; on a host kernel without them (CI's) tune stops at once
# with one line naming the patch, and the checks of a knob restored after
# a change are counted skips here: they run in the guest
# (faulttune-signals.t, faulttune-tune.t).
free=$(cat $HP/free_hugepages 2>/dev/null || echo 0)
if [ "$free" -lt 8 ] && [ -w $HP/nr_hugepages ]; then
	nr0=$(cat $HP/nr_hugepages)
	echo $((nr0 + 8 - free)) > $HP/nr_hugepages
	free=$(cat $HP/free_hugepages)
	echo "# reserved huge pages for the tune tests: nr_hugepages $nr0 -> $(cat $HP/nr_hugepages) (restored at exit)"
fi
# knob_moved FILE: tune has set the knob to another size than 8
knob_moved() { [ "$(cat "$1")" != 8 ]; }
sweep_checks="tune: finishes and recommends a size;tune: knob restored after a normal run"
for sig in INT TERM; do
	sweep_checks="$sweep_checks;tune: SIG$sig after the knob changed: exits non-zero, no crash;tune: SIG$sig restores the knob;tune: SIG$sig removes the instance"
done
# skip_all "CHECK1;CHECK2..." REASON
skip_all() {
	local d IFS=';'
	for d in $1; do skip "$d" "$2"; done
}
if [ "$free" -ge 8 ]; then
	"$FT" bench -t 1,2 -s 8M -r 1 --json >"$W/b.json" 2>"$W/b.err"
	check "bench: threads workload runs (json)" grep -q '"threads":2,"faults":4,' "$W/b.json"
	"$FT" bench -w share -t 2 -s 8M -r 1 >"$W/b.txt" 2>&1
	check "bench: share workload prints the table" grep -q 'faults/wall-s' "$W/b.txt"
	"$FT" bench -w punch -t 2 -s 8M -r 1 --iterations 3 >/dev/null 2>&1
	check "bench: punch workload runs" [ $? = 0 ]
	echo 8 > "$W/knob"
	if [ -e $T/events/hugetlb/hugetlb_fault_mutex_acquire_returned ]; then
		"$FT" tune --knob "$W/knob" -r 1 -W 0 -s 8M -t 2 -m 4 --json >"$W/tune.json" 2>"$W/tune.err"
		check "tune: finishes and recommends a size" grep -q '"recommended":' "$W/tune.json"
		check "tune: knob restored after a normal run" [ "$(cat "$W/knob")" = 8 ]
		check "tune: no instance left" [ "$(inst_count)" = "$n0" ]
		for sig in INT TERM; do
			echo 8 > "$W/knob"
			"$FT" tune --knob "$W/knob" -r 1000 -W 0 -s 8M -t 2 -m 4 >/dev/null 2>"$W/tune.err" &
			p=$!
			# signal only once the sweep has moved the knob: a restore
			# of a knob that never changed proves nothing
			if wait_for 120 knob_moved "$W/knob"; then
				check "tune: instance present mid-sweep ($sig)" [ -d $T/instances/faulttune-$p ]
			else
				nok "tune: the sweep moved the knob from 8 within 120 s ($sig)"
			fi
			kill -$sig $p
			wait $p
			rc=$?
			check "tune: SIG$sig after the knob changed: exits non-zero, no crash (rc=$rc)" clean_fail $rc
			check "tune: SIG$sig restores the knob" [ "$(cat "$W/knob")" = 8 ]
			check "tune: SIG$sig removes the instance" [ ! -d $T/instances/faulttune-$p ]
		done
	else
		# tune's model needs the hugetlb fault mutex events: without them
		# (this kernel) one line naming the patch, and everything as found
		"$FT" tune --knob "$W/knob" -r 1 -W 0 -s 8M -t 2 -m 4 >"$W/tune.out" 2>"$W/tune.err"
		rc=$?
		check "tune: no hugetlb events: exit 1 (rc=$rc)" [ $rc = 1 ]
		check "tune: no hugetlb events: the error names the patch" grep -q "^faulttune: tune: the kernel has no hugetlb fault mutex events (patch " "$W/tune.err"
		check "tune: no hugetlb events: knob left at 8" [ "$(cat "$W/knob")" = 8 ]
		check "tune: no instance left after the error" [ "$(inst_count)" = "$n0" ]
		skip_all "$sweep_checks" "this host kernel has no hugetlb fault mutex events: tune's sweep runs in the guest (faulttune-signals.t, faulttune-tune.t)"
	fi
	state > "$W/after2"
	check "tune: top-level tracefs settings unchanged" cmp -s "$W/before" "$W/after2"
else
	skip_all "bench: threads workload runs (json);bench: share workload prints the table;bench: punch workload runs;$sweep_checks" \
		"need 8 free 2 MB huge pages (echo 8 > /proc/sys/vm/nr_hugepages)"
fi

# a knob that does not read as a size: one line naming it and why, unchanged
echo 'not a size' > "$W/badknob"
"$FT" tune --knob "$W/badknob" -r 1 -W 0 -s 8M -t 2 >/dev/null 2>"$W/bad.err"
rc=$?
check "tune: unreadable knob: exit 1 (rc=$rc)" [ $rc = 1 ]
check "tune: unreadable knob: named with the reason" grep -q "^faulttune: cannot read $W/badknob: Invalid argument" "$W/bad.err"
check "tune: unreadable knob: left as it was" [ "$(cat "$W/badknob")" = 'not a size' ]

done_
