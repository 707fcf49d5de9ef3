#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the Debian 12 guest of tests/systemd-unit.sh, systemd being PID 1:
# faulttune-watch.service as make install put it there, driven the way
# an administrator drives it.  A drop-in shortens watch's interval and
# window; systemctl start; the textfile appears with the gauges prom.c
# gives for this kernel's source while faulttune bench faults hugetlb
# pages; systemctl stop leaves no faulttune kprobe and no instance; then
# the service's main process killed with SIGKILL in a window, and after
# systemd ran ExecStopPost (faulttune cleanup) nothing is left either.
# TAP on stdout.
#
# usage: guest.sh VARIANT   (patched or kprobe: what the kernel gives)
VARIANT=${1:?usage: guest.sh patched|kprobe}
T=/sys/kernel/tracing
U=faulttune-watch.service
D=/var/lib/prometheus/node-exporter
P=$D/faulttune.prom
BIN=$(command -v faulttune)
# how long to wait for each step: TCG on a loaded 2-core host
WAIT=${WAIT:-240}

n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); echo "not ok $n - $*"; fail=1; }
t() { if [ "$1" = 0 ]; then ok "$2"; else nok "$2"; fi; }
# poll SECONDS COMMAND...: until COMMAND succeeds, 0.2 s apart
poll() {
	_end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt $_end ] || return 1
		sleep 0.2
	done
}
probes() { grep -c '^[pr]:faulttune_' $T/kprobe_events; }
insts() { ls $T/instances | grep -c '^faulttune-'; }
state() { systemctl show -P "$1" $U; }
journal() { journalctl -q -o cat -u $U --no-pager; }
gauge() { sed -n "s/^$1 //p" $P 2>/dev/null; }
# a hugetlb workload that runs until stopped, so each window has faults
workload_start() {
	(while :; do faulttune bench -w threads -t 2 -s 32M -r 1 >/dev/null 2>&1 || sleep 1; done) &
	wl=$!
}
workload_stop() { kill $wl 2>/dev/null; wait $wl 2>/dev/null; }

systemctl list-jobs --no-pager 2>&1 | sed 's/^/# jobs at start: /'
[ "$(cat /proc/1/comm)" = systemd ]
t $? "systemd is PID 1 ($(cat /proc/1/comm), $(systemctl --version | head -1))"
echo "# kernel $(uname -r), $VARIANT expected; faulttune at $BIN; the test starts $(cut -d' ' -f1 /proc/uptime) s after boot"
poll $WAIT [ -w $T/kprobe_events ]
t $? "tracefs is mounted at $T (systemd's sys-kernel-tracing.mount)"

# the unit as installed, as systemd reads it: no unknown setting, no
# warning about it (--man=no: the guest has no man, the page is there)
f=$(systemctl show -P FragmentPath $U)
systemd-analyze verify --man=no "$f" > /tmp/verify 2>&1
rc=$?
sed 's/^/# verify: /' /tmp/verify
[ $rc = 0 ] && ! grep -q "faulttune-watch" /tmp/verify
t $? "systemd-analyze verify $f: exit 0, nothing said about the unit (rc=$rc)"

mkdir -p /etc/systemd/system/$U.d
cat > /etc/systemd/system/$U.d/window.conf <<EOF
[Service]
ExecStart=
ExecStart=$BIN watch --interval 6 --window 3 --textfile $D
EOF
systemctl daemon-reload

# --- no textfile directory (node_exporter not installed): watch's own
# message, not systemd's namespace setup failing on ReadWritePaths=
[ ! -e $D ]
t $? "no $D yet"
systemctl start $U
said() { journal | grep -q "bad --textfile '$D'"; }
poll $WAIT said
rc=$?
journal | tail -6 | sed 's/^/# journal: /'
t $rc "without $D the unit fails with watch's message naming it (journal: bad --textfile '$D')"
systemctl stop $U
systemctl reset-failed $U 2>/dev/null
[ "$(probes)" = 0 ] && [ "$(insts)" = 0 ]
t $? "and leaves no probe ($(probes)) and no instance ($(insts))"
# the textfile directory of prometheus-node-exporter's package (root's, 0755)
mkdir -p $D

# --- start, a window with data, the gauges -----------------------------------
workload_start
systemctl start $U
rc=$?
t $rc "systemctl start $U exits 0"
poll 60 [ "$(state ActiveState)" = active ]
rc=$?
t $rc "the unit is active ($(state ActiveState)/$(state SubState), main PID $(state MainPID))"
# nothing after this can pass: say why and stop
if [ $rc != 0 ]; then
	journal | tail -15 | sed 's/^/# journal: /'
	systemctl stop $U
	exit 1
fi
has_window() { [ "$(gauge faulttune_windows_total)" -ge 1 ] 2>/dev/null &&
	grep -q '^faulttune_lock_acquisitions_total{lock="fault_mutex",op="fault"} [1-9]' $P; }
# until a window is in, or the unit is no longer running
window_or_down() { has_window || [ "$(state ActiveState)" != active ]; }
poll $WAIT window_or_down
has_window
rc=$?
sed 's/^/# prom: /' $P 2>/dev/null | grep -v '^# prom: # HELP'
t $rc "the textfile $P appears with a window's fault_mutex acquisitions"
if [ $rc != 0 ]; then
	state Result | sed 's/^/# result: /'
	journal | tail -20 | sed 's/^/# journal: /'
fi
grep -q "^faulttune_kernel_info{variant=\"$VARIANT\",version=\"[^\"]*\"} 1\$" $P
t $? "faulttune_kernel_info says variant $VARIANT"
w=$(gauge faulttune_window_seconds)
[ "$w" = 3 ]
t $? "faulttune_window_seconds is the drop-in's window (3: '$w')"
pow2() { v=$1; [ "$v" -gt 0 ] 2>/dev/null || return 1; while [ $((v % 2)) = 0 ]; do v=$((v / 2)); done; [ $v = 1 ]; }
rec=$(gauge faulttune_recommended_table_size)
size=$(gauge faulttune_table_size)
pow2 "$rec" && pow2 "$size"
t $? "a recommended ($rec) and a current table size ($size), powers of two"
end=$(gauge faulttune_last_window_end_timestamp_seconds)
now=$(date +%s)
awk -v e="${end:-0}" -v n="$now" 'BEGIN { exit !(e > n - 600 && e <= n + 1) }'
t $? "the last window ended now, by the guest's clock ($end, now $now)"
for g in faulttune_windows_total faulttune_window_errors_total faulttune_lost_events_total \
	 faulttune_knob_overrides_total faulttune_knob_overridden \
	 faulttune_predicted_collision_wait_ratio faulttune_collision_wait_ratio \
	 faulttune_true_sharing_wait_ratio; do
	grep -q "^$g [0-9]" $P || missing="$missing $g"
done
[ -z "$missing" ]
t $? "the other gauges and counters of a window are there${missing:+ (missing:$missing)}"
[ "$(ls -A $D)" = faulttune.prom ]
t $? "nothing but faulttune.prom in $D ($(ls -A $D | tr '\n' ' '))"
[ "$(stat -c %a $P)" = 644 ]
t $? "the textfile is world-readable for node_exporter (mode $(stat -c %a $P))"
if [ $VARIANT = kprobe ]; then
	poll $WAIT [ "$(probes)" -gt 0 ]
	t $? "watch's kprobes are in kprobe_events during a window ($(probes))"
fi
[ "$(insts)" = 1 ]
t $? "watch's instance is under $T/instances ($(insts))"

# --- systemctl stop ------------------------------------------------------------
systemctl stop $U
rc=$?
t $rc "systemctl stop exits 0"
s="$(state ActiveState)/$(state Result)"
[ "$s" = inactive/success ]
t $? "the unit stopped cleanly ($s)"
grep '^[pr]:faulttune_' $T/kprobe_events | sed 's/^/# left: /'
[ "$(probes)" = 0 ]
t $? "no faulttune kprobe left in kprobe_events after stop ($(probes))"
ls $T/instances | grep '^faulttune-' | sed 's/^/# left: /'
[ "$(insts)" = 0 ]
t $? "no faulttune instance left after stop ($(insts))"

# --- SIGKILL of the main process, then ExecStopPost -------------------------------
systemctl start $U
t $? "systemctl start again exits 0"
pid=$(state MainPID)
# in a window: its instance, on stock its probes armed
in_window() {
	[ "$(insts)" = 1 ] || return 1
	[ $VARIANT = patched ] && return 0
	[ "$(probes)" -gt 0 ] && grep -q 1 $T/instances/faulttune-$pid/events/faulttune_$pid/*/enable 2>/dev/null
}
poll $WAIT in_window
t $? "watch (PID $pid) is in a window: its instance$([ $VARIANT = kprobe ] && echo ', its probes armed')"
n0=$(journal | grep -c 'faulttune cleanup:')
systemctl kill --kill-who=main -s KILL $U
t $? "systemctl kill --kill-who=main -s KILL exits 0"
# ExecStopPost ran once the unit left "deactivating": Restart=on-failure
# then waits RestartSec (auto-restart), or it is inactive/failed
stopped() { case $(state SubState) in auto-restart|dead|failed) true;; *) false;; esac; }
poll $WAIT stopped
t $? "systemd saw the kill and ran ExecStopPost ($(state ActiveState)/$(state SubState), result $(state Result))"
if kill -0 $pid 2>/dev/null; then nok "the main process $pid is gone"; else ok "the main process $pid is gone"; fi
journal | grep 'faulttune' | tail -8 | sed 's/^/# journal: /'
journal | grep -q "removed stale instance faulttune-$pid"
t $? "ExecStopPost's faulttune cleanup removed the killed watch's instance faulttune-$pid (journal)"
[ "$(journal | grep -c 'faulttune cleanup: [1-9][0-9]* left by killed runs removed')" -gt "$n0" ]
t $? "and said how many it removed (journal)"
grep '^[pr]:faulttune_' $T/kprobe_events | sed 's/^/# left: /'
[ "$(probes)" = 0 ]
t $? "no faulttune kprobe left after kill -9 and ExecStopPost ($(probes))"
ls $T/instances | grep '^faulttune-' | sed 's/^/# left: /'
[ "$(insts)" = 0 ]
t $? "no faulttune instance left after kill -9 and ExecStopPost ($(insts))"
# the pending restart is not left to start watch again behind the test
systemctl stop $U
[ "$(state ActiveState)" = inactive ] || [ "$(state ActiveState)" = failed ]
t $? "systemctl stop ends the pending restart ($(state ActiveState))"
workload_stop
[ "$(probes)" = 0 ] && [ "$(insts)" = 0 ]
t $? "still nothing left at the end"
echo "# $n tests; done $(cut -d' ' -f1 /proc/uptime) s after boot"
exit $fail
