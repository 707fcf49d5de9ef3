#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mutation-check.sh [MUTANT.patch...]
#
# KVER (6.12 by default, or 7.3) picks the kernel: its patched build
# (build/ or build/7.3/) and, without arguments, the mutants whose
# "Kernel:" line names it (none means 6.12).  make mutation-check runs both.
#
# Show that the tests of the fault mutex table's mutual exclusion can fail:
# build the patched kernel once more for each deliberately broken variant in
# tests/mutants/ (a patch on top of the series), boot it and run the guest
# tests its "Test:" line names, tests/guest/kernel-race.t by default
# (same-page first-touch races across resizes, SIGBUS = overlap, and the
# trace replay), with what its "Append:" line adds to the kernel command
# line (the series is then booted with it too) and with the guest memory
# its "Memory:" line asks for, in MiB (the series' boot takes the most any
# mutant asks for).  Every mutant must be caught: a
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
kver=${KVER:-6.12}
case $kver in
6.12) build=$top/build; configs=("$top/kernel/config/systemd.config") ;;
7.3) build=$top/build/7.3; configs=("$top/kernel/config/7.3.config") ;;
*) echo "mutation-check: KVER must be 6.12 or 7.3, not '$kver'" >&2; exit 2 ;;
esac
configs=("$top/kernel/config/base.config" "$top/kernel/config/debug.config" "${configs[@]}")
# make mutation-check passes the fragments it builds the kernel with
# (KCONFIG_6.12, KCONFIG_7.3), so that a mutant builds as the series does
if [ -n "${MUTATION_KCONFIG:-}" ]; then
	read -r -a configs <<< "$MUTATION_KCONFIG"
fi
dir=$build/mutant
logs=$build/mutation
export VM_TIMEOUT=${VM_TIMEOUT_MUTANT:-600}
export VM_APPEND="${VM_APPEND:-} init_on_free=1 panic_on_warn=1"

# the kernel a mutant is for, from its "Kernel:" line
kernel_of() {
	local k
	k=$(sed -n 's/^Kernel: *//p' "$1" | head -n 1)
	echo "${k:-6.12}"
}
# the guest tests a mutant names on its "Test:" line
tests_of() {
	local t
	t=$(sed -n 's/^Test: *//p' "$1" | head -n 1)
	echo "${t:-kernel-race.t}"
}
# what a mutant's test needs on the kernel command line ("Append:"), if
# anything: the series is booted with it too, and must pass
append_of() {
	sed -n 's/^Append: *//p' "$1" | head -n 1
}
# the guest memory a mutant's test needs ("Memory:", MiB), if not run-vm's
mem_of() {
	sed -n 's/^Memory: *//p' "$1" | head -n 1
}
# run-tests on those tests
cmd_for() {
	local t c=run-tests
	for t in $1; do c="$c /ft/tests/$t"; done
	echo "$c"
}

[ -r "$build/patched/bzImage" ] && [ -d "$build/patched/src" ] ||
	{ echo "mutation-check: build the patched kernel first (make kernel)" >&2; exit 2; }
[ -r "$build/guest.cpio" ] || { echo "mutation-check: no guest image (make image)" >&2; exit 2; }
if [ $# -eq 0 ]; then
	for m in "$top"/tests/mutants/*.patch; do
		[ "$(kernel_of "$m")" = "$kver" ] && set -- "$@" "$m"
	done
	[ $# -gt 0 ] || { echo "mutation-check: no mutant for $kver in tests/mutants"; exit 0; }
fi
mkdir -p "$logs"
files=$(sed -n 's|^+++ b/||p' "$@" | sort -u)

n=0 bad=0
result() {	# result OK|NOTOK DESC
	n=$((n + 1))
	if [ "$1" = OK ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; bad=1; fi
}

# boot LABEL BZIMAGE TESTS [APPEND [MEM]]: run the tests, echo run-vm's
# exit status
boot() {
	VM_APPEND="$VM_APPEND${4:+ $4}" VM_MEM=${5:-${VM_MEM:-}} VM_LOGDIR=$logs/$1 VM_KERNEL=patched \
		"$scripts/run-vm.sh" "$2" "$build/guest.cpio" "$(cmd_for "$3")" \
		> "$logs/$1.log" 2> "$logs/$1.err"
	echo $?
}

start=$(date +%s)
all=$(for m in "$@"; do tests_of "$m"; done | tr ' ' '\n' | sort -u | tr '\n' ' ')
mem=$(for m in "$@"; do mem_of "$m"; done | sort -n | tail -n 1)
rc=$(boot series "$build/patched/bzImage" "$all" "" "$mem")
if [ "$rc" = 0 ]; then
	result OK "the series passes $all"
else
	result NOTOK "the series passes $all(run-vm exit $rc; $logs/series.log)"
	grep -E '^not ok' "$logs/series.log" | sed 's/^/# /'
fi

# the series with each mutant's own command line, where it has one
while IFS= read -r a; do
	[ -n "$a" ] || continue
	t=$(for m in "$@"; do [ "$(append_of "$m")" = "$a" ] && tests_of "$m"; done |
		tr ' ' '\n' | sort -u | tr '\n' ' ')
	t=${t% }
	rc=$(boot "series-${a//[^A-Za-z0-9]/_}" "$build/patched/bzImage" "$t" "$a")
	if [ "$rc" = 0 ]; then
		result OK "the series passes $t with $a"
	else
		result NOTOK "the series passes $t with $a (run-vm exit $rc)"
	fi
done < <(for m in "$@"; do append_of "$m"; done | sort -u)

for m in "$@"; do
	name=$(basename "$m" .patch)
	mkdir -p "$dir"
	rsync -a --delete "$build/patched/src/" "$dir/src/"
	if ! patch -s -p1 --fuzz=0 -d "$dir/src" --no-backup-if-mismatch < "$m"; then
		result NOTOK "mutant $name: does not apply to the series without fuzz"
		continue
	fi
	# rsync restored the series' mtimes: make every file a mutant changes
	# newer than the object the previous mutant left.
	for f in $files; do touch "$dir/src/$f"; done
	if ! "$scripts/build-kernel.sh" "$dir" "${configs[@]}" > "$logs/$name.build" 2>&1; then
		result NOTOK "mutant $name: does not build ($logs/$name.build)"
		continue
	fi
	t=$(tests_of "$m")
	rc=$(boot "$name" "$dir/bzImage" "$t" "$(append_of "$m")" "$(mem_of "$m")")
	case $rc in
	0) result NOTOK "mutant $name: NOT caught, $t passed" ;;
	1) result OK "mutant $name: caught by the test ($(grep -m1 -E '^not ok' "$logs/$name.log" | cut -c1-110))" ;;
	3) result OK "mutant $name: caught by the kernel log ($(grep -m1 -Eo 'WARNING:.*|BUG:.*|DEBUG_LOCKS_WARN_ON.*|possible [a-z ]*locking|Oops.*' "$logs/$name.err" | cut -c1-90))" ;;
	4) result OK "mutant $name: caught, the guest hung (past ${VM_TIMEOUT}s)" ;;
	*) result OK "mutant $name: caught, the guest died (run-vm exit $rc)" ;;
	esac
done
echo "1..$n"
echo "mutation-check: $(( $(date +%s) - start ))s, logs in $logs"
exit $bad
