# SPDX-License-Identifier: GPL-2.0
# Sourced by the host test scripts (host-tracefs.sh, host-fallback.sh,
# host-watch.sh, prom-textfile.sh; sh or bash): results as "ok - ..." /
# "not ok - ..." lines ending in "N passed, N failed", and the
# bookkeeping of what a script starts.
#
# The script sets W (its temporary directory), adds the pid of each
# process it starts in the background to pids, may define cleanup_more
# for what else it undoes (run after the servers are stopped, before W is
# removed), and then sets "trap cleanup EXIT".
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
nok() { fail=$((fail + 1)); echo "not ok - $*"; }
skip() { echo "ok - $1 # SKIP $2"; }
check() { local d="$1"; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }
done_() { echo "$pass passed, $fail failed"; [ $fail = 0 ]; exit; }

pids=
cleanup_more() { :; }
cleanup() {
	local p
	for p in $pids; do kill $p 2>/dev/null; done
	for p in $pids; do wait $p 2>/dev/null; done
	cleanup_more
	rm -rf "$W"
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
