#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's own hugetlb selftests (tools/testing/selftests/mm, memfd,
# dma-buf/udmabuf), one TAP result per test, plus one per test for the huge
# page pool: HugePages_Free, _Rsvd and _Surp must be back to their starting
# values after it.  The host runs this on the patched kernel, then on the
# stock kernel the tests that failed there (FT_TESTS), and judges each
# patched failure by stock's result.
#
# Each test gets the pool it needs (../shared/peers.md): most run with the
# default pool, hugetlb_fault_after_madv and hugetlb_madv_vs_map with exactly
# one page, udmabuf with 1024.  uffd-stress runs 8 bounces, not
# run_vmtests.sh's 32: the same paths in a quarter of the time (32 take
# about 125 s each under TCG with lockdep).
#
# faulttune.suite=quick|long|all on the kernel command line (or FT_SUITE)
# picks the tests: "make check" runs quick on both kernels, "make
# check-long" the few slow ones (LONG below), a bare run all of them.
# A test outside the chosen set prints nothing: it is neither a pass nor a
# skip.

. "$(dirname "$0")/lib.sh"
pool_default=${FT_HUGEPAGES:-512}
suite=$(sed -n 's/.*faulttune\.suite=\([a-z]*\).*/\1/p' /proc/cmdline)
suite=${FT_SUITE:-${suite:-all}}
LONG=" hugetlb_fault_after_madv "
chosen() {
	# FT_TESTS="NAME...": only these (a quick look at a few)
	if [ -n "${FT_TESTS:-}" ]; then
		case " $FT_TESTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac
	fi
	case $suite in
	quick) case $LONG in *" $1 "*) return 1 ;; esac ;;
	long) case $LONG in *" $1 "*) ;; *) return 1 ;; esac ;;
	esac
	return 0
}

# uffd_failed_mem LOG: "retry" when every failed case in an
# uffd-unit-tests log is on anon or shmem memory, else "no" (a hugetlb
# case failed, or a failure no "Testing X on MEM" line owns).
uffd_failed_mem() {
	awk '
	/Testing .* on [a-z-]+\.\.\. / {
		mem = $0
		sub(/\.\.\. .*/, "", mem)
		sub(/.* on /, "", mem)
	}
	/ERROR: |failed \[reason: / {
		failed++
		if (mem !~ /^(anon|shmem|shmem-private)$/)
			other++
	}
	END { print (failed && !other) ? "retry" : "no" }' "$1"
}
set_pool() {
	echo "$1" > /proc/sys/vm/nr_hugepages
	got=$(cat /proc/sys/vm/nr_hugepages)
	[ "$got" = "$1" ]
}

# The series' own selftest has nothing to skip on a patched kernel
# ($FT_KERNEL, from the boot's kernel label, as kernel-paths.t reads it):
# there a missing binary or a skipped case is a failure, not a skip.
strict() { [ "$1" = hugetlb_fault_mutexes ] && [ "${FT_KERNEL:-}" = patched ]; }

# run NAME POOL CHECK_POOL TIMEOUT CMD...: one result for the test, one for the pool
run() {
	name=$1 pages=$2 check_pool=$3 limit=$4
	shift 4
	ran=no
	chosen "$name" || return 1
	n=$((n + 1))
	if ! command -v "$1" >/dev/null; then
		if strict "$name"; then
			echo "not ok $n - $name ($1 was not built: the series' own test must run on the patched kernel)"
		else
			echo "ok $n - $name # SKIP $1 was not built"
		fi
		return
	fi
	if ! set_pool "$pages"; then
		echo "ok $n - $name # SKIP could not reserve $pages huge pages (got $(cat /proc/sys/vm/nr_hugepages))"
		set_pool "$pool_default"
		return
	fi
	before=$(pool)
	start=$(date +%s)
	timeout "$limit" "$@" > /tmp/selftest.log 2>&1
	rc=$?
	ran=yes
	secs=$(($(date +%s) - start))
	sed 's/^/# /' /tmp/selftest.log | tail -15
	# A kselftest_harness binary whose every case skipped exits 0: that is
	# a skip (hugetlb_fault_mutexes on the stock kernel), not a pass.
	if [ $rc = 0 ] && grep -q '^# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:[1-9]' /tmp/selftest.log; then
		rc=4
	fi
	# Likewise uffd-unit-tests whose every case skipped (the -pin tests
	# without CONFIG_GUP_TEST).
	if [ $rc = 0 ] && grep -q '^Userfaults unit tests: pass=0, skip=[1-9][0-9]*, fail=0' /tmp/selftest.log; then
		rc=4
	fi
	# uffd-unit-tests' events cases on anonymous and shmem memory race
	# UFFDIO_COPY against the fork event and fail now and then on stock
	# 6.12 too (peers.md; our series does not touch those paths): a run
	# whose every failed case is on anon or shmem memory gets up to two
	# more runs, and the result says so and after which error.  A failed
	# case on hugetlb memory, or a failure no case owns, is never run
	# again.  A case fails by "ERROR: ..." (err(), which exits) or by
	# "failed [reason: ...]", on its "Testing X on MEM... " line or on
	# the lines after it.
	again=
	tries=1
	while [ $rc != 0 ] && [ $rc != 124 ] && [ $rc != 143 ] && [ $tries -lt 3 ] &&
	      [ "$1" = uffd-unit-tests ] &&
	      [ "$(uffd_failed_mem /tmp/selftest.log)" = retry ]; do
		[ -n "$again" ] || again=$(grep -m1 -o 'ERROR: .*\|failed \[reason: .*' /tmp/selftest.log | cut -c1-100)
		timeout "$limit" "$@" > /tmp/selftest.log 2>&1
		rc=$?
		tries=$((tries + 1))
		sed "s/^/# run $tries: /" /tmp/selftest.log | tail -15
		secs=$(($(date +%s) - start))
	done
	# on the patched kernel, a case of the series' own test that skipped
	# did not test the series
	if strict "$name" && [ $rc = 0 -o $rc = 4 ] &&
	   grep -q '^# Totals: .* skip:[1-9]' /tmp/selftest.log; then
		rc=5
	fi
	case $rc in
	0) echo "ok $n - $name (${secs}s)${again:+ # passed on run $tries after: $again}" ;;
	5) echo "not ok $n - $name (skipped on the patched kernel: $(grep '^# Totals:' /tmp/selftest.log | cut -c3-80))" ;;
	4) echo "ok $n - $name # SKIP $(grep -i skip /tmp/selftest.log | grep -v Totals | tail -1 | cut -c1-100)" ;;
	124|143) echo "not ok $n - $name (timed out after ${limit}s)" ;;
	*) echo "not ok $n - $name (exit $rc)" ;;
	esac
	after=$(pool_after "$before")
	if [ "$check_pool" = yes ]; then
		n=$((n + 1))
		if [ "$before" = "$after" ]; then
			echo "ok $n - $name: pool restored"
		else
			echo "not ok $n - $name: pool restored (was $before, now $after)"
		fi
	fi
	set_pool "$pool_default"
}

# stressng NAME STRESSOR ARGS...: stress-ng with --verify, through run (exit
# status, pool), then one result saying that it really did work: bogo ops
# above 0 in --metrics-brief.
stressng() {
	name=$1 stressor=$2
	shift 2
	run "$name" "$pool_default" yes 120 stress-ng "$@" --verify --timeout 10s --metrics-brief
	[ "$ran" = yes ] || return 1
	n=$((n + 1))
	ops=$(sed -n "s/.*\] $stressor  *\([0-9][0-9]*\) .*/\1/p" /tmp/selftest.log | tail -1)
	if [ "${ops:-0}" -gt 0 ]; then
		echo "ok $n - $name: did work ($ops bogo ops)"
	else
		echo "not ok $n - $name: did work (bogo ops: ${ops:-no metrics line})"
	fi
}

echo "TAP version 13"
if command -v hugetlb-mmap > /dev/null; then
	# 7.3's tree: hugepage-{mmap,shm,mremap} renamed hugetlb-*, map_hugetlb in hugetlb-mmap, no hugepage-vmemmap
	run hugetlb-mmap	"$pool_default" yes 300 hugetlb-mmap
	run hugetlb-shm		"$pool_default" yes 300 hugetlb-shm
	run hugetlb-mremap	"$pool_default" yes 300 hugetlb-mremap
else
	run hugepage-mmap	"$pool_default" yes 300 hugepage-mmap
	run hugepage-shm	"$pool_default" yes 300 hugepage-shm
	run map_hugetlb		"$pool_default" yes 300 map_hugetlb
	run hugepage-mremap	"$pool_default" yes 300 hugepage-mremap
	run hugepage-vmemmap	"$pool_default" yes 300 hugepage-vmemmap
fi
run hugetlb-madvise		"$pool_default" yes 300 hugetlb-madvise
run hugetlb_dio			"$pool_default" yes 300 hugetlb_dio
run hugetlb_fault_after_madv	1 yes 900 hugetlb_fault_after_madv
run hugetlb_madv_vs_map		1 yes 300 hugetlb_madv_vs_map
run uffd-stress-hugetlb		"$pool_default" yes 300 uffd-stress hugetlb 128 8
run uffd-stress-hugetlb-private	"$pool_default" yes 300 uffd-stress hugetlb-private 128 8
for t in register-ioctls zeropage wp-fork wp-fork-with-event wp-fork-pin \
	 wp-fork-pin-with-event minor minor-wp sigbus sigbus-wp events events-wp; do
	run "uffd-unit-tests-$t"	"$pool_default" yes 600 uffd-unit-tests -f "$t"
done
# peers.md: above 16 mmaps a failing MAP_HUGETLB falls back to plain memory
stressng stress-ng-mmaphuge mmaphuge --mmaphuge 4 --mmaphuge-mmaps 16
# every /sys/bus/pci/devices/*/resource* (std VGA, ivshmem): memtype_lock
# reserve/free on each mmap/munmap.  On the patched kernel the memtype
# events, in an instance of their own, show that the lock was taken.
I=/sys/kernel/tracing/instances/ft-selftests-pci
if chosen stress-ng-pci && [ -d /sys/kernel/tracing/events/memtype ] && mkdir $I 2>/dev/null; then
	echo 1 > $I/events/memtype/memtype_lock_acquire_returned/enable
else
	I=
fi
if stressng stress-ng-pci pci --pci 4; then
	n=$((n + 1))
	bars=$(awk '$4 == "pci:" && $5 ~ /^[0-9a-f]+:[0-9a-f]+:[0-9a-f]+\.[0-9]$/ && $7 + 0 > 0' /tmp/selftest.log | wc -l)
	if [ "$bars" -gt 0 ]; then
		echo "ok $n - stress-ng-pci: read mapped BARs ($bars devices)"
	else
		echo "not ok $n - stress-ng-pci: read mapped BARs (no device with a resource read rate)"
	fi
fi
if [ -n "$I" ]; then
	echo 0 > $I/events/memtype/memtype_lock_acquire_returned/enable
	c=$(grep -c 'op=reserve' $I/trace)
	rmdir $I
	n=$((n + 1))
	if [ "$c" -gt 0 ]; then
		echo "ok $n - stress-ng-pci: took memtype_lock to reserve ($c events in the buffer)"
	else
		echo "not ok $n - stress-ng-pci: took memtype_lock to reserve (no memtype_lock_acquire_returned op=reserve)"
	fi
fi
run memfd_test-hugetlbfs	"$pool_default" yes 300 memfd_test hugetlbfs
run hugetlb_fault_mutexes	"$pool_default" yes 600 hugetlb_fault_mutexes
# Last: racing UDMABUF_CREATE with faults underflows HugePages_Rsvd on stock
# 6.12 (fixed in 6.16), so its pool is not compared.
run udmabuf			1024 no 300 udmabuf
echo "1..$n"
