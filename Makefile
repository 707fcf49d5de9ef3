# SPDX-License-Identifier: GPL-2.0
#
# faulttune: the only entry point.
#
#   make run      build everything, boot the patched kernel under QEMU, tune
#   make check    the tests: tool, host tracefs, kernel build, guest suites
#   make check-long  the slowest tests, left out of make check
#   make bench    the performance table (patched vs stock, one run)
#
# Other targets: deps kernel kernel-stock kernel-norw kernel-files series-check patches tool
# selftests image vm mutation-check suite-table bench-programs bench-resize clean.
# Installing: install uninstall (PREFIX=/usr/local DESTDIR=), deb (the tool as
# a Debian package), kernel-deb (the patched kernel as Debian packages).
# Guest knobs: VM_CPUS VM_MEM VM_HUGEPAGES VM_TIMEOUT VM_EXTRA KERNEL=patched|stock|norw
# Bench knobs: BENCH_ROUNDS BENCH_SIZE BENCH_REPS BENCH_TUNE_REPS BENCH_FAULTS
#              BENCH_SPEED=first|all|none (see tests/bench.sh)

TOP		:= $(CURDIR)
BUILD		:= $(TOP)/build
SCRIPTS		:= $(TOP)/kernel/scripts
LINUX_TARBALL	?= /usr/src/linux-source-6.12.tar.xz
JOBS		?= $(shell nproc)

# Guest defaults: 4 vCPUs on TCG, 3 GiB, 512 free 2 MiB pages (1 GiB).
# VM_TIMEOUT has none here: run-vm.sh's (900 s) or each bench script's own.
VM_CPUS		?= 4
VM_MEM		?= 3072
VM_HUGEPAGES	?= 512
VM_EXTRA	?=
KERNEL		?= patched
CMD		?= uname -a; nproc; grep -i huge /proc/meminfo

export LINUX_TARBALL VM_CPUS VM_MEM VM_HUGEPAGES VM_TIMEOUT VM_EXTRA
# ccache sees paths relative to the clone, so two clones, and the stock and
# patched trees, share hits.  -fmacro-prefix-map only strips the tree's
# absolute path from __FILE__, so leaving it out of the hash is safe.
export CCACHE_BASEDIR := $(TOP)
export CCACHE_NOHASHDIR := 1
export CCACHE_IGNOREOPTIONS := -fmacro-prefix-map=*

KCONFIG		:= $(TOP)/kernel/config/base.config $(TOP)/kernel/config/debug.config
PATCHES		:= $(wildcard $(TOP)/kernel/patches/series $(TOP)/kernel/patches/*.patch)

.PHONY: all deps kernel kernel-stock kernel-norw kernel-files series-check patches tool selftests image vm run \
	check check-long mutation-check suite-table bench bench-programs bench-resize clean install uninstall deb kernel-deb kernel-deb-boot

all: kernel tool image

deps:
	@$(SCRIPTS)/deps.sh

# On a fresh machine the kernel source comes with the packages.
$(LINUX_TARBALL):
	@$(SCRIPTS)/deps.sh

# --- kernel trees: unpacked once per change of their inputs -------------------

$(BUILD)/stock/src.stamp: $(LINUX_TARBALL) $(SCRIPTS)/prepare-tree.sh | deps
	$(SCRIPTS)/prepare-tree.sh stock $(BUILD)/stock/src
	@touch $@

$(BUILD)/patched/src.stamp: $(LINUX_TARBALL) $(SCRIPTS)/prepare-tree.sh $(PATCHES) | deps
	$(SCRIPTS)/prepare-tree.sh patched $(BUILD)/patched/src
	@touch $@

# The series without its last patch (memtype_lock read-locked on lookups),
# to measure that patch against the rest of the series.
$(BUILD)/norw/src.stamp: $(LINUX_TARBALL) $(SCRIPTS)/prepare-tree.sh $(PATCHES) | deps
	$(SCRIPTS)/prepare-tree.sh norw $(BUILD)/norw/src
	@touch $@

# The kernel build itself is always run: kbuild decides what is stale.
kernel: $(BUILD)/patched/src.stamp
	@$(SCRIPTS)/build-kernel.sh $(BUILD)/patched $(KCONFIG)

kernel-stock: $(BUILD)/stock/src.stamp
	@$(SCRIPTS)/build-kernel.sh $(BUILD)/stock $(KCONFIG)

kernel-norw: $(BUILD)/norw/src.stamp
	@$(SCRIPTS)/build-kernel.sh $(BUILD)/norw $(KCONFIG)

# The patches are the only source of the kernel files the project adds; the
# copies at their kernel paths here (include/, tools/testing/,
# Documentation/{admin-guide,trace}/) are rewritten from the applied series.
# make check fails when they differ (kernel/scripts/kernel-files.sh check).
kernel-files: $(BUILD)/stock/src.stamp
	@$(SCRIPTS)/kernel-files.sh update

# Each patch of the series on its own: applies, builds, checkpatch --strict.
series-check: | deps
	@$(SCRIPTS)/series-check.sh $(KCONFIG)

# --- userspace: the tool, the kernel's selftests, the guest image -------------

tool: | deps
	@if [ -f tools/faulttune/Makefile ]; then $(MAKE) -s -C tools/faulttune; \
	 else echo "tool: tools/faulttune not there yet, skipped"; fi

selftests: $(BUILD)/patched/src.stamp
	@$(SCRIPTS)/build-selftests.sh $(BUILD)/patched/src $(BUILD)/patched/obj $(BUILD)/selftests

image: tool selftests
	@KHDR=$(BUILD)/patched/obj/usr/include $(SCRIPTS)/mkinitramfs.sh $(BUILD)/guest.cpio $(BUILD)/selftests

# --- the guest ----------------------------------------------------------------

vm: image $(if $(filter stock norw,$(KERNEL)),kernel-$(KERNEL),kernel)
	@$(SCRIPTS)/run-vm.sh $(BUILD)/$(KERNEL)/bzImage $(BUILD)/guest.cpio '$(CMD)'

run: image kernel
	@$(SCRIPTS)/run-vm.sh $(BUILD)/patched/bzImage $(BUILD)/guest.cpio \
		'if command -v faulttune >/dev/null && [ -e /sys/kernel/debug/hugetlb/num_fault_mutexes ]; then faulttune tune; else uname -r; echo "cpus: $$(nproc)"; grep -i huge /proc/meminfo; fi'

check: image kernel kernel-stock
	@$(TOP)/tests/check.sh quick

# the slowest parts, left out of make check: the resize storm and the
# selftests in selftests.t's LONG list, on both kernels
check-long: image kernel kernel-stock
	@$(TOP)/tests/check.sh long

# each deliberately broken kernel in tests/mutants must fail the guest test
# its Test: line names (kernel-race.t by default; kernel-paths.t)
# (too slow for check-long: one kernel build and boot per mutant)
mutation-check: image kernel
	@$(SCRIPTS)/mutation-check.sh

# the suite table of the last make check / check-long, into the docs
suite-table:
	@$(TOP)/tests/suite-table.py $(BUILD)/check > $(BUILD)/check/suites.md
	@cp $(BUILD)/check/suites.md $(TOP)/Documentation/testing.md
	@echo "suite-table: Documentation/testing.md from the logs in build/check"

# section 16 of make bench on its own: the stall a resize imposes on faults
# beside 1 GiB holds (tests/bench-resize.sh)
bench-resize: image kernel
	@$(TOP)/tests/bench-resize.sh

# section 13 of make bench on its own: tune on QEMU and stress-ng
bench-programs: image kernel
	@$(TOP)/tests/bench-programs.sh

bench: image kernel kernel-stock kernel-norw
	@if [ -x $(TOP)/tests/bench.sh ]; then $(TOP)/tests/bench.sh; \
	 else echo "bench: no benchmarks yet"; fi

# The series as one would post it (From:, Signed-off-by:, cover letter),
# checkpatched.
patches: $(BUILD)/stock/src.stamp
	@$(SCRIPTS)/make-patches.sh $(BUILD)/patches

# --- installing on this machine (as trace-cmd's make install) -----------------
# The binary, faulttune(1) and the bash completion; PREFIX and DESTDIR as
# usual.  No deps: a missing library or rst2man is named by the tool's Makefile.
PREFIX		?= /usr/local

install uninstall:
	@$(MAKE) -s -C tools/faulttune $@ PREFIX=$(PREFIX)

# The tool as a Debian package (debian/, dpkg-buildpackage, lintian), copied
# here for "apt install ./faulttune_*.deb".
# Only what building the package needs (debian/control's Build-Depends,
# lintian): none of the kernel's or the guest's packages.
DEB_DEPS	:= build-essential pkg-config libtracefs-dev libtraceevent-dev libtracecmd-dev \
		   python3-docutils debhelper dpkg-dev lintian
deb:
	@$(SCRIPTS)/deps.sh $(DEB_DEPS)
	@$(SCRIPTS)/tool-deb.sh $(BUILD)/deb $(TOP)

# The patched kernel as Debian packages (make bindeb-pkg) into
# build/kernel-deb/NAME/.  KDEB_CONFIG: the configuration to start from,
# by default Debian's own for 6.12 amd64 (package linux-config-6.12); any
# .config (or .config.xz) file; or "guest", the small guest kernel's (what
# make check packages).  See kernel/scripts/kernel-deb.sh.
KDEB_DEBIAN	:= /usr/src/linux-config-6.12/config.amd64_none_amd64.xz
KDEB_CONFIG	?= $(KDEB_DEBIAN)
KDEB_NAME	:= $(if $(filter guest,$(KDEB_CONFIG)),guest,$(if $(filter $(KDEB_DEBIAN),$(KDEB_CONFIG)),debian,custom))

kernel-deb: $(BUILD)/patched/src.stamp
	@$(SCRIPTS)/kernel-deb.sh $(BUILD)/patched/src $(BUILD)/patched/kdeb-$(KDEB_NAME) \
		$(BUILD)/kernel-deb/$(KDEB_NAME) $(KDEB_CONFIG) $(KCONFIG)

# The packaged kernel (KDEB_CONFIG picks which, as above) booted with the
# guest image, KDEB_TESTS run in it: the image a user installs, checked.
KDEB_TESTS	?= kernel-knob faulttune-record faulttune-tune
kernel-deb-boot: image
	@$(SCRIPTS)/kdeb-boot.sh $(BUILD)/kernel-deb/$(KDEB_NAME) $(BUILD)/guest.cpio \
		'run-tests $(foreach t,$(KDEB_TESTS),/ft/tests/$(t).t)'

clean:
	rm -rf $(BUILD) $(TOP)/faulttune_*.deb
	@if [ -f tools/faulttune/Makefile ]; then $(MAKE) -s -C tools/faulttune clean; fi
