#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test: faulttune bench -w memtype-lookup, the per-fault
# lookup_memtype() workload, on QEMU's ivshmem device bound to vfio-pci in
# no-IOMMU mode (ft_vfio, tests/guest/progs).  Runs on the stock and the
# patched kernel (tests/check.sh): what each thread writes through the
# mapping it reads back, across remaps; a wrong byte fails the run; bad
# input gets one line and changes nothing; the device and the vfio
# parameter are given back at the end.  TAP output.
W=/tmp/ft-lookup.$$
PARAM=/sys/module/vfio/parameters/enable_unsafe_noiommu_mode
. "$(dirname "$0")/lib.sh"
# one line on stderr holding every word given, nothing on stdout
one_error() { # stdout-file stderr-file word...
	o=$1 e=$2
	shift 2
	[ ! -s "$o" ] && [ "$(wc -l < "$e")" -eq 1 ] || return 1
	for w in "$@"; do grep -q -- "$w" "$e" || return 1; done
}
driver() { basename "$(readlink "/sys/bus/pci/devices/$1/driver" 2>/dev/null)" 2>/dev/null; }
state() { echo "$(cat $PARAM 2>/dev/null) $(driver "$1")"; }

mkdir -p $W
iv=
for d in /sys/bus/pci/devices/*; do
	[ "$(cat $d/vendor)" = 0x1af4 ] && [ "$(cat $d/device)" = 0x1110 ] && iv=$(basename $d)
done
if [ -z "$iv" ] || [ ! -d /sys/bus/pci/drivers/vfio-pci ]; then
	echo "1..1"
	echo "not ok 1 - the guest has an ivshmem device ($iv) and vfio-pci (CONFIG_VFIO_PCI in kernel/config/base.config)"
	exit 1
fi
before=$(state $iv)
echo "# ivshmem at $iv; vfio no-IOMMU parameter and driver before: $before"

# --- bad input, before the device is handed to vfio-pci ----------------------
faulttune bench -w memtype-lookup -t 1 --iterations 1 -r 1 > $W/o 2> $W/e
rc=$?
sed 's/^/# /' $W/e
check "no vfio-pci device: exit 1 (got $rc)" [ $rc = 1 ]
check "no vfio-pci device: one line naming enable_unsafe_noiommu_mode, driver_override and $iv" \
	one_error $W/o $W/e enable_unsafe_noiommu_mode driver_override "$iv"
check "nothing changed ($(state $iv))" [ "$(state $iv)" = "$before" ]

# --- hand the device to vfio-pci ----------------------------------------------
bdf=$(ft_vfio bind 2> $W/e)
rc=$?
sed 's/^/# /' $W/e
if [ $rc != 0 ] || [ "$bdf" != "$iv" ]; then
	nok "ft_vfio bind: $iv bound to vfio-pci (exit $rc)"
	echo "1..$n"
	exit 1
fi
trap 'ft_vfio unbind' EXIT
ok "ft_vfio bind: $iv bound to vfio-pci, no-IOMMU mode $(cat $PARAM)"
check "a no-IOMMU vfio group appeared" sh -c 'ls /dev/vfio/noiommu-* > /dev/null 2>&1'

faulttune bench -w memtype-lookup --device 0000:00:1f.7 -t 1 --iterations 1 -r 1 > $W/o 2> $W/e
rc=$?
check "--device of a missing device: exit 1 (got $rc), one line naming it" \
	eval '[ $rc = 1 ] && one_error $W/o $W/e 0000:00:1f.7'
faulttune bench -w memtype-lookup --device 00:04.0 > $W/o 2> $W/e
rc=$?
check "--device not a PCI address: exit 2 (got $rc), one line" \
	eval '[ $rc = 2 ] && one_error $W/o $W/e 00:04.0 0000:00:04.0'
vga=
for d in /sys/bus/pci/devices/*; do
	[ "$(cat $d/class)" = 0x030000 ] && vga=$(basename $d)
done
if [ -n "$vga" ]; then
	faulttune bench -w memtype-lookup --device $vga -t 1 --iterations 1 -r 1 > $W/o 2> $W/e
	rc=$?
	check "--device $vga (not vfio-pci): exit 1 (got $rc), one line saying what to set up" \
		eval '[ $rc = 1 ] && one_error $W/o $W/e "$vga" "not vfio-pci" driver_override'
fi
as_nobody "faulttune bench -w memtype-lookup -t 1 --iterations 1 -r 1" > $W/o 2> $W/e
rc=$?
sed 's/^/# /' $W/e
check "not root: exit 1 (got $rc), one line saying root" eval '[ $rc = 1 ] && one_error $W/o $W/e root'

# --- the workload: data right, numbers consistent ---------------------------
# 4 MiB = 1024 pages: 1 thread x 1024 pages, 4 threads x 256 pages; 3 passes
faulttune bench -w memtype-lookup -t 1,4 -s 4M --iterations 3 -r 2 --json > $W/j 2> $W/e
rc=$?
sed 's/^/# /' $W/e
check "bench -w memtype-lookup -t 1,4 --json: exit 0 (got $rc)" [ $rc = 0 ]
check "JSON names the device and BAR2" grep -q "\"device\":\"$iv BAR2 " $W/j
# faults = threads x pages per thread x passes x reps
f1=$(sed -n 's/.*"results":\[{"threads":1,"faults":\([0-9]*\).*/\1/p' $W/j)
f4=$(sed -n 's/.*{"threads":4,"faults":\([0-9]*\).*/\1/p' $W/j)
check "faults: 1 thread 1024 x 3 x 2 = 6144 (got $f1), 4 threads 4 x 256 x 3 x 2 = 6144 (got $f4)" \
	[ "$f1" = 6144 -a "$f4" = 6144 ]
tr '{' '\n' < $W/j | grep '"thread":' > $W/pt
check "per-thread times: 1 + 4 threads ($(wc -l < $W/pt))" [ "$(wc -l < $W/pt)" = 5 ]
bad=0
while IFS= read -r l; do
	p=$(echo "$l" | sed -n 's/.*"passes":\([0-9]*\).*/\1/p')
	mi=$(echo "$l" | sed -n 's/.*"min_ns":\([0-9]*\).*/\1/p')
	ma=$(echo "$l" | sed -n 's/.*"max_ns":\([0-9]*\).*/\1/p')
	av=$(echo "$l" | sed -n 's/.*"avg_ns":\([0-9]*\).*/\1/p')
	[ "$p" = 6 ] && [ "$mi" -gt 0 ] && [ "$mi" -le "$av" ] && [ "$av" -le "$ma" ] || bad=$((bad + 1))
done < $W/pt
check "each thread: 6 passes, 0 < min <= avg <= max ($bad bad)" [ $bad = 0 ]

faulttune bench -w memtype-lookup -t 2 -s 1M --iterations 2 -r 1 > $W/t 2> $W/e
rc=$?
sed 's/^/# /' $W/t
check "text output: exit 0 (got $rc), the table and 'thread N: min X max Y avg Z' for 2 threads" \
	eval '[ $rc = 0 ] && grep -Eq "^ +2 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+$" $W/t &&
	      [ "$(grep -Ec "^  thread [01]: min [0-9.]+[mun]?s max [0-9.]+[mun]?s avg [0-9.]+[mun]?s$" $W/t)" = 2 ]'

# --- the data check fails when the data is wrong -----------------------------
# Another writer overwrites the first MiB of the BAR through the sysfs
# resource file while the bench runs: what a pass wrote is not what the
# next one reads.
ft_vfio scribble 60 1048576 &
sc=$!
sleep 1
faulttune bench -w memtype-lookup -t 2 -s 1M --iterations 1000 -r 1 > $W/o 2> $W/e
rc=$?
kill $sc 2>/dev/null
wait $sc 2>/dev/null
sed 's/^/# /' $W/e
check "a foreign writer on the BAR: exit 1 (got $rc), 'data check failed'" \
	eval '[ $rc = 1 ] && grep -q "data check failed" $W/e'
faulttune bench -w memtype-lookup -t 2 -s 1M --iterations 2 -r 1 > $W/o 2> $W/e
check "without it the same run passes again" [ $? = 0 ]

# --- the device and the parameter are given back ------------------------------
trap - EXIT
ft_vfio unbind
check "ft_vfio unbind: exit 0" [ $? = 0 ]
check "driver and no-IOMMU parameter as before ($(state $iv), was $before)" [ "$(state $iv)" = "$before" ]
check "the no-IOMMU vfio group is gone" sh -c '! ls /dev/vfio/noiommu-* > /dev/null 2>&1'
check "resource2 of $iv mmaps again through sysfs (stress-ng --pci)" ft_vfio scribble 0 4096

rm -rf $W
echo "1..$n"
exit $fail
