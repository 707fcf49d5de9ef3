#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test: the users of the hugetlb fault mutex table that kernel-race.t
# never runs, each beside a thread resizing the table back to back
# (tests/guest/progs/ft_paths.c; make mutation-check breaks each one):
#
#  - uffd: userfaultfd MISSING faults on a hugetlb memfd resolved by
#    UFFDIO_COPY (the fault hands its mutex back before it waits);
#  - wp: copy-on-write by the owner of a private mapping with no free huge
#    page, which drops the mutex to unmap the child's pages and takes it
#    again (hugetlb_wp());
#  - wpgiga: issue 39's deadlock, reached: the owner's copy-on-write on
#    pages spread over every 1 GiB range, beside 1 GiB surplus faults
#    held until none succeeds (7.3 then migrates the owner's in-use
#    pages, waiting for their folio locks under a fault mutex) and the
#    resizes.  A retake that waits for a pending resize with the old folio
#    locked deadlocks (tests/mutants/wp-retake-waits-for-resize.patch: a
#    race each episode may win, caught in 9 of 9 boots of 6 GiB with 10
#    episodes, 2 of 3 with 3 episodes); the case also checks that some
#    gigantic fault moved the owner's pages, so a run that did not reach
#    the state fails instead of passing.  Runs first, on the memory as
#    booted.  Needs a guest with free 1 GiB ranges (6 GiB in check-long);
#    where no 1 GiB page can be faulted (6.12 allocates no gigantic
#    surplus page), a skip that says so;
#  - fallocate: fallocate() of absent and of present pages, and punch,
#    racing faults on them;
#  - memfd: udmabuf pinning an unfaulted hugetlb memfd (mm/memfd.c), last:
#    it can leave HugePages_Rsvd wrong on 6.12 (a known, older bug).
#
# Each fails when its pages read back wrong, or when no resize completes
# for 20 s (120 s beside the gigantic faults, whose clearing of 1 GiB holds
# the read side; each case prints its longest wait) (a mutex or the
# table's read side left held), or when the run does not end.
# FT_PATHS_ROUNDS (default 60) sets the rounds per case.
KNOB=/sys/kernel/debug/hugetlb/num_fault_mutexes
NR=/proc/sys/vm/nr_hugepages
ROUNDS=${FT_PATHS_ROUNDS:-60}
. "$(dirname "$0")/lib.sh"

if [ ! -w $KNOB ] || ! command -v ft_paths > /dev/null; then
	echo "1..1"
	if [ "$FT_KERNEL" = patched ]; then
		echo "not ok 1 - fault mutex users across resizes: no $KNOB or no ft_paths"
		exit 1
	fi
	echo "ok 1 - fault mutex users across resizes # SKIP no $KNOB (kernel without the faulttune patches)"
	exit 0
fi
orig=$(cat $KNOB)
OUT=/tmp/kernel-paths.out.$$

# paths CASE DESC: ft_paths CASE beside its resizer, at most 300 s.  A run
# stuck in the kernel cannot be killed, and it holds back every later
# fault mutex user, so the test ends there.
paths() {
	ft_paths "$1" "$ROUNDS" > $OUT 2>&1 &
	pid=$!
	i=0
	while kill -0 $pid 2> /dev/null && [ $i -lt 300 ] &&
	      ! grep -q 'no resize completed' $OUT; do
		sleep 1
		i=$((i + 1))
	done
	if kill -0 $pid 2> /dev/null; then
		sed 's/^/# /' $OUT
		nok "$2: stuck after $i s, left behind; the cases after it cannot run"
		echo "1..$n"
		exit 1
	fi
	wait $pid
	rc=$?
	sed 's/^/# /' $OUT
	if [ $rc = 77 ]; then
		skip "$2" "$(tail -n 1 $OUT)"
		return
	fi
	check "$2, $ROUNDS rounds ($(grep -o 'resizes=.*' $OUT))" [ $rc -eq 0 ]
}

# wp beside 1 GiB surplus pages, as many as the guest has room for: first,
# while the guest's memory is as it booted (the cases before it left
# unmovable pages in the 1 GiB ranges, and a guest with one range left
# gets one gigantic fault an episode, which seldom meets a retake)
G=/sys/kernel/mm/hugepages/hugepages-1048576kB
if [ -w $G/nr_overcommit_hugepages ]; then
	gover=$(cat $G/nr_overcommit_hugepages)
	echo 16 > $G/nr_overcommit_hugepages
	gnr=$(cat $NR)
	paths wpgiga "owner's copy-on-write beside 1 GiB surplus faults, across resizes"
	echo "$gover" > $G/nr_overcommit_hugepages
	echo "$gnr" > $NR
	if [ $rc = 0 ]; then
		moving=$(sed -n "s/.*moving the owner's pages=\([0-9]*\).*/\1/p" $OUT)
		check "the gigantic faults migrated the owner's pages (the deadlock's state reached): ${moving:-none} faults" \
			[ "${moving:-0}" -ge 1 ]
	fi
else
	skip "owner's copy-on-write beside 1 GiB surplus faults, across resizes" \
		"no 1 GiB hstate on this kernel ($G)"
fi

paths uffd "userfaultfd MISSING + UFFDIO_COPY on hugetlb across resizes"

# hugetlb_wp's owner path needs the pool used up: shrink it to 4 free pages
nr=$(cat $NR)
free=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages)
echo $((nr - free + 4)) > $NR
paths wp "private copy-on-write by the owner with the pool used up across resizes"
# That the owner's path ran, seen: only hugetlb_wp()'s drop and retake
# reports op=wp, once a page each round.  With the events on, so the
# lock's traced variant (the run above took the untraced one).
T=/sys/kernel/tracing
[ -d $T/instances ] || mount -t tracefs nodev $T 2> /dev/null
I=$T/instances/ft_paths_$$
if mkdir $I 2> /dev/null; then
	echo 1 > $I/events/hugetlb/hugetlb_fault_mutex_start_locking/enable
	ft_paths wp 4 > $OUT 2>&1
	rc=$?
	echo 0 > $I/events/hugetlb/hugetlb_fault_mutex_start_locking/enable
	c=$(grep -c 'hugetlb_fault_mutex_start_locking: .* op=wp\( \|$\)' $I/trace)
	rmdir $I
	check "the owner's copy-on-write drops and retakes its mutex: op=wp traced, 4 rounds of 4 pages (rc=$rc, $c events)" \
		eval '[ $rc = 0 ] && [ "$c" -ge 16 ]'
else
	nok "the owner's copy-on-write drops and retakes its mutex: no tracefs instance ($I)"
fi

echo "$nr" > $NR

paths fallocate "fallocate, fallocate over present pages and punch, racing faults, across resizes"
paths memfd "udmabuf pinning an unfaulted hugetlb memfd, then faults, across resizes"

rm -f $OUT
echo $orig > $KNOB
check "size restored to $orig" [ "$(cat $KNOB)" = "$orig" ]
echo "1..$n"
exit $fail
