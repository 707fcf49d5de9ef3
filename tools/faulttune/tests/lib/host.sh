# SPDX-License-Identifier: GPL-2.0
# Sourced by the host test scripts (host-tracefs.sh, host-fallback.sh,
# host-watch.sh, prom-textfile.sh; sh or bash): results as "ok - ..." /
# "not ok - ..." lines ending in "N passed, N failed" (", N skipped"
# when some were skipped), tracefs mounted
# for the test when the host has it unmounted, and the bookkeeping of
# what a script starts.
#
# The script sets "trap cleanup EXIT" before it changes anything (before
# mount_tracefs: a skip after mounting must unmount too), then W (its
# temporary directory), adds the pid of each process it starts in the
# background to pids, and may define cleanup_more for what else it
# undoes (run after the servers are stopped, before W is removed and
# tracefs unmounted).
pass=0
fail=0
skipped=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
nok() { fail=$((fail + 1)); echo "not ok - $*"; }
# a skip is neither passed nor failed, and the summary counts it apart
skip() { skipped=$((skipped + 1)); echo "ok - $1 # SKIP $2"; }
check() { local d="$1"; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }
done_() {
	if [ $skipped = 0 ]; then
		echo "$pass passed, $fail failed"
	else
		echo "$pass passed, $fail failed, $skipped skipped"
	fi
	[ $fail = 0 ]
	exit
}

W=
pids=
mounted_here=
cleanup_more() { :; }
cleanup() {
	local p
	for p in $pids; do kill $p 2>/dev/null; done
	for p in $pids; do wait $p 2>/dev/null; done
	cleanup_more
	[ -z "$W" ] || rm -rf "$W"
	[ -z "$mounted_here" ] || umount $T 2>/dev/null
}

# mount_tracefs: tracefs at $T when it is not mounted there; cleanup
# unmounts it again, leaving the host as found
mount_tracefs() {
	if [ ! -d $T/instances ] && mount -t tracefs nodev $T 2>/dev/null; then
		mounted_here=1
	fi
}

# inst_mark (once W is set), then inst_count: the faulttune instances
# this test left behind: not there at inst_mark, and their owner gone (a
# watch or record running beside the test on this host is not this
# test's to count)
inst_mark() { ls $T/instances | grep '^faulttune-' > "$W/inst0"; }
inst_count() {
	ls $T/instances | grep '^faulttune-' | grep -vxF -f "$W/inst0" |
		while read -r i; do kill -0 "${i#faulttune-}" 2>/dev/null || echo "$i"; done |
		wc -l
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# wait_for SECONDS COMMAND...: until COMMAND succeeds
wait_for() {
	local t=$(( $1 * 10 )); shift
	while [ $t -gt 0 ]; do
		"$@" 2>/dev/null && return 0
		sleep 0.1
		t=$((t - 1))
	done
	return 1
}
