#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mutation-check.sh [MUTANT.patch...]
#
# Show that the tests of the fault mutex table's mutual exclusion can fail:
# build the patched kernel once more for each deliberately broken variant in
# tests/mutants/ (a patch on top of the series), boot it and run
# tests/guest/kernel-race.t (same-page first-touch races across resizes,
# SIGBUS = overlap, and the trace replay).  Every mutant must be caught: a
# failed test, a kernel log with a WARNING/BUG/lockdep line, a crash or a
# hang past VM_TIMEOUT.  The real series (build/patched) must pass the same
# run.  All guests boot with init_on_free=1, so that a mutex used after its
# table was freed reads as garbage (DEBUG_MUTEXES then warns) instead of
# passing by luck, and panic_on_warn=1, so that a kernel that warned ends
# there instead of hanging until VM_TIMEOUT.  One TAP line per kernel;
# exit 1 unless all are as expected.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
scripts=$top/kernel/scripts
build=$top/build
dir=$build/mutant
logs=$build/mutation
export VM_TIMEOUT=${VM_TIMEOUT_MUTANT:-600}
export VM_APPEND="${VM_APPEND:-} init_on_free=1 panic_on_warn=1"
cmd="run-tests /ft/tests/kernel-race.t"

[ -r "$build/patched/bzImage" ] && [ -d "$build/patched/src" ] ||
	{ echo "mutation-check: build the patched kernel first (make kernel)" >&2; exit 2; }
[ -r "$build/guest.cpio" ] || { echo "mutation-check: no guest image (make image)" >&2; exit 2; }
if [ $# -eq 0 ]; then
	set -- "$top"/tests/mutants/*.patch
fi
mkdir -p "$logs"

n=0 bad=0
result() {	# result OK|NOTOK DESC
	n=$((n + 1))
	if [ "$1" = OK ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; bad=1; fi
}

# boot LABEL BZIMAGE: run the race test, echo run-vm's exit status
boot() {
	VM_LOGDIR=$logs/$1 VM_KERNEL=patched "$scripts/run-vm.sh" "$2" "$build/guest.cpio" "$cmd" \
		> "$logs/$1.log" 2> "$logs/$1.err"
	echo $?
}

start=$(date +%s)
rc=$(boot series "$build/patched/bzImage")
if [ "$rc" = 0 ]; then
	result OK "the series passes kernel-race.t"
else
	result NOTOK "the series passes kernel-race.t (run-vm exit $rc; $logs/series.log)"
	grep -E '^not ok' "$logs/series.log" | sed 's/^/# /'
fi

for m in "$@"; do
	name=$(basename "$m" .patch)
	mkdir -p "$dir"
	rsync -a --delete "$build/patched/src/" "$dir/src/"
	if ! patch -s -p1 -d "$dir/src" --no-backup-if-mismatch < "$m"; then
		result NOTOK "mutant $name: does not apply to the series"
		continue
	fi
	# rsync restored the series' mtime: make the mutated file newer than
	# the object the previous mutant left.
	touch "$dir/src/mm/hugetlb.c"
	if ! "$scripts/build-kernel.sh" "$dir" "$top/kernel/config/base.config" \
			"$top/kernel/config/debug.config" > "$logs/$name.build" 2>&1; then
		result NOTOK "mutant $name: does not build ($logs/$name.build)"
		continue
	fi
	rc=$(boot "$name" "$dir/bzImage")
	case $rc in
	0) result NOTOK "mutant $name: NOT caught, kernel-race.t passed" ;;
	1) result OK "mutant $name: caught by the test ($(grep -m1 -E '^not ok' "$logs/$name.log" | cut -c1-110))" ;;
	3) result OK "mutant $name: caught by the kernel log ($(grep -m1 -Eo 'WARNING:.*|BUG:.*|DEBUG_LOCKS_WARN_ON.*|possible [a-z ]*locking|Oops.*' "$logs/$name.err" | cut -c1-90))" ;;
	4) result OK "mutant $name: caught, the guest hung (past ${VM_TIMEOUT}s)" ;;
	*) result OK "mutant $name: caught, the guest died (run-vm exit $rc)" ;;
	esac
done
echo "1..$n"
echo "mutation-check: $(( $(date +%s) - start ))s, logs in $logs"
exit $bad
