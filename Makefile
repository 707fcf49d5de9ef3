# SPDX-License-Identifier: GPL-2.0
#
# faulttune: the only entry point.
#
#   make run      build everything, boot the patched kernel under QEMU, tune
#                 (KVER=7.3, mainline, by default; KVER=6.12 for the LTS series)
#   make check    the tests: tool, host tracefs, kernel build, guest suites
#   make check-long  the slowest tests, left out of make check
#   make check-systemd  faulttune-watch.service under systemd (Debian rootfs)
#   make bench    the performance table (patched vs stock, one run)
#
# Other targets: deps kernel kernel-stock kernel-norw kernel-files series-check patches tool
# selftests image vm mutation-check mutation-check-tool suite-table bench-programs
# bench-resize bench-machine bench-probe-cost clean.
# Installing: install uninstall (PREFIX=/usr/local DESTDIR=), deb (the tool as
# a Debian package), kernel-deb (the patched kernel as Debian packages).
# Guest knobs: VM_CPUS VM_MEM VM_HUGEPAGES VM_TIMEOUT VM_EXTRA KERNEL=patched|stock|norw
# Kernel: KVER=7.3|6.12 picks the kernel of kernel, kernel-stock, selftests,
# image, vm, run, series-check and patches (norw and bench are 6.12's;
# kernel-deb is 6.12's unless KVER is given); make check, kernel-files and
# mutation-check take both.
# Bench knobs: BENCH_ROUNDS BENCH_SIZE BENCH_REPS BENCH_TUNE_REPS BENCH_FAULTS
#              BENCH_SPEED=first|all|none (see tests/bench.sh)

TOP		:= $(CURDIR)
BUILD		:= $(TOP)/build
SCRIPTS		:= $(TOP)/kernel/scripts
JOBS		?= $(shell nproc)

# The two kernels: Debian 12's linux-source-6.12 (make deps) with the LTS
# series, and linux-source-7.3 from trixie-backports, fetched into
# /var/cache/faulttune by kernel/scripts/fetch-linux.sh, with the mainline
# series.  6.12 keeps the top of build/, 7.3 builds in build/7.3/.
KVER		?= 7.3
KVERS		:= 6.12 7.3
LINUX_TARBALL_6.12 := /usr/src/linux-source-6.12.tar.xz
LINUX_TARBALL_7.3 := /var/cache/faulttune/linux-7.3/usr/src/linux-source-7.3.tar.xz
PATCHES_DIR_6.12 := $(TOP)/kernel/patches
PATCHES_DIR_7.3	:= $(TOP)/kernel/patches-7.3
BUILD_6.12	:= $(BUILD)
BUILD_7.3	:= $(BUILD)/7.3
$(if $(filter $(KVERS),$(KVER)),,$(error KVER must be one of $(KVERS), not '$(KVER)'))
LINUX_TARBALL	:= $(LINUX_TARBALL_$(KVER))
BUILDK		:= $(BUILD_$(KVER))

# Guest defaults: 4 vCPUs on TCG, 3 GiB, 512 free 2 MiB pages (1 GiB).
# VM_TIMEOUT has none here: run-vm.sh's (900 s) or each bench script's own.
VM_CPUS		?= 4
VM_MEM		?= 3072
VM_HUGEPAGES	?= 512
VM_EXTRA	?=
KERNEL		?= patched
$(if $(filter norw,$(KERNEL)),$(if $(filter 6.12,$(KVER)),,$(error KERNEL=norw is 6.12's: add KVER=6.12)))
CMD		?= uname -a; nproc; grep -i huge /proc/meminfo

# The kernel scripts get KVER, LINUX_TARBALL and PATCHES_DIR from each
# recipe (KENV_V below), never from here: one make check builds both.
export VM_CPUS VM_MEM VM_HUGEPAGES VM_TIMEOUT VM_EXTRA
# ccache sees paths relative to the clone, so two clones, and the stock and
# patched trees, share hits.  -fmacro-prefix-map only strips the tree's
# absolute path from __FILE__, so leaving it out of the hash is safe.
export CCACHE_BASEDIR := $(TOP)
export CCACHE_NOHASHDIR := 1
export CCACHE_IGNOREOPTIONS := -fmacro-prefix-map=*

# The shared fragments, then the kernel's own (options 7.3 names differently).
# 6.12's test kernels also boot systemd as init for faulttune-watch.service
# (tests/systemd-unit.sh): systemd.config, so that the unit's test needs no
# kernel builds of its own.
KCONFIG_TEST	:= $(TOP)/kernel/config/base.config $(TOP)/kernel/config/debug.config
KCONFIG_6.12	:= $(KCONFIG_TEST) $(TOP)/kernel/config/systemd.config
KCONFIG_7.3	:= $(KCONFIG_TEST) $(TOP)/kernel/config/7.3.config
KCONFIG		:= $(KCONFIG_$(KVER))

.PHONY: all deps kernel kernel-stock kernel-norw kernel-files series-check patches tool selftests image vm run \
	check check-long check-distro check-systemd mutation-check mutation-check-tool suite-table bench bench-programs bench-resize bench-machine bench-probe-cost clean install uninstall deb kernel-deb kernel-deb-boot \
	$(foreach v,$(KVERS),kernel-$(v) kernel-stock-$(v) selftests-$(v) image-$(v))

all: kernel tool image

deps:
	@$(SCRIPTS)/deps.sh
	@$(SCRIPTS)/fetch-linux.sh 7.3

# On a fresh machine the kernel source comes with the packages; 7.3's from
# trixie-backports, downloaded and unpacked, nothing installed.
$(LINUX_TARBALL_6.12):
	@$(SCRIPTS)/deps.sh
$(LINUX_TARBALL_7.3):
	@$(SCRIPTS)/fetch-linux.sh 7.3

# --- kernel trees, per kernel version: unpacked once per change of inputs -----
# kernel-V, kernel-stock-V: the patched and the stock kernel of version V;
# selftests-V, image-V: the selftests of V's patched tree and the guest
# image with them (the same faulttune binary in both images).

define kernel-version
KENV_$(1)	:= KVER=$(1) LINUX_TARBALL=$(LINUX_TARBALL_$(1)) PATCHES_DIR=$(PATCHES_DIR_$(1)) \
		   KERNEL_BASE=$(BUILD_$(1))/stock/src
# (and of its sub-series: 7.3's mm/ and x86/, each posted on its own)
PATCHES_$(1)	:= $$(wildcard $(PATCHES_DIR_$(1))/series $(PATCHES_DIR_$(1))/*.patch \
		   $(PATCHES_DIR_$(1))/*/series $(PATCHES_DIR_$(1))/*/*.patch)

$(BUILD_$(1))/stock/src.stamp: $(LINUX_TARBALL_$(1)) $(SCRIPTS)/prepare-tree.sh | deps
	$$(KENV_$(1)) $(SCRIPTS)/prepare-tree.sh stock $(BUILD_$(1))/stock/src
	@touch $$@

$(BUILD_$(1))/patched/src.stamp: $(LINUX_TARBALL_$(1)) $(SCRIPTS)/prepare-tree.sh $$(PATCHES_$(1)) | deps
	@[ -f $(PATCHES_DIR_$(1))/series ] || { echo "make: no $(PATCHES_DIR_$(1))/series: the $(1) series is not in this tree (KERNEL=stock, or another KVER)" >&2; exit 1; }
	$$(KENV_$(1)) $(SCRIPTS)/prepare-tree.sh patched $(BUILD_$(1))/patched/src
	@touch $$@

# The kernel build itself is always run: kbuild decides what is stale.
kernel-$(1): $(BUILD_$(1))/patched/src.stamp
	@$(SCRIPTS)/build-kernel.sh $(BUILD_$(1))/patched $(KCONFIG_$(1))

kernel-stock-$(1): $(BUILD_$(1))/stock/src.stamp
	@$(SCRIPTS)/build-kernel.sh $(BUILD_$(1))/stock $(KCONFIG_$(1))

# A version without a series yet (kernel/patches-7.3 still to come) has
# only its stock kernel: its image takes the stock tree's selftests.
ST_$(1)		:= $$(if $$(PATCHES_$(1)),patched,stock)

selftests-$(1): $(BUILD_$(1))/$$(ST_$(1))/src.stamp
	@$(SCRIPTS)/build-selftests.sh $(BUILD_$(1))/$$(ST_$(1))/src $(BUILD_$(1))/$$(ST_$(1))/obj $(BUILD_$(1))/selftests

image-$(1): tool selftests-$(1)
	@KHDR=$(BUILD_$(1))/$$(ST_$(1))/obj/usr/include KSRC=$(BUILD_$(1))/$$(ST_$(1))/src \
		$(SCRIPTS)/mkinitramfs.sh $(BUILD_$(1))/guest.cpio $(BUILD_$(1))/selftests
endef
$(foreach v,$(KVERS),$(eval $(call kernel-version,$(v))))

kernel: kernel-$(KVER)
kernel-stock: kernel-stock-$(KVER)
selftests: selftests-$(KVER)
image: image-$(KVER)

# The series without its last patch (memtype_lock read-locked on lookups),
# to measure that patch against the rest of the series (6.12).
$(BUILD)/norw/src.stamp: $(LINUX_TARBALL_6.12) $(SCRIPTS)/prepare-tree.sh $(PATCHES_6.12) | deps
	$(KENV_6.12) $(SCRIPTS)/prepare-tree.sh norw $(BUILD)/norw/src
	@touch $@

kernel-norw: $(BUILD)/norw/src.stamp
	@$(SCRIPTS)/build-kernel.sh $(BUILD)/norw $(KCONFIG_6.12)

# The patches are the only source of the kernel files the project adds; the
# copies at their kernel paths here (include/, tools/testing/,
# Documentation/{admin-guide,trace}/) are rewritten from the applied series.
# make check fails when they differ (kernel/scripts/kernel-files.sh check).
# Both series, each against its own stock tree.
KFILES_KVERS	:= $(foreach v,$(KVERS),$(if $(PATCHES_$(v)),$(v)))
kernel-files: $(foreach v,$(KFILES_KVERS),$(BUILD_$(v))/stock/src.stamp)
	@$(foreach v,$(KFILES_KVERS),$(KENV_$(v)) $(SCRIPTS)/kernel-files.sh update &&) true

# Each patch of the series on its own: applies, builds, checkpatch --strict.
series-check: $(LINUX_TARBALL) | deps
	@$(KENV_$(KVER)) $(SCRIPTS)/series-check.sh $(KCONFIG)

# --- userspace: the tool, the kernel's selftests, the guest image -------------

tool: | deps
	@if [ -f tools/faulttune/Makefile ]; then $(MAKE) -s -C tools/faulttune; \
	 else echo "tool: tools/faulttune not there yet, skipped"; fi

# --- the guest ----------------------------------------------------------------

vm: image $(if $(filter stock,$(KERNEL)),kernel-stock,$(if $(filter norw,$(KERNEL)),kernel-norw,kernel))
	@$(SCRIPTS)/run-vm.sh $(BUILDK)/$(KERNEL)/bzImage $(BUILDK)/guest.cpio '$(CMD)'

run: image kernel
	@$(SCRIPTS)/run-vm.sh $(BUILDK)/patched/bzImage $(BUILDK)/guest.cpio \
		'if command -v faulttune >/dev/null && [ -e /sys/kernel/debug/hugetlb/num_fault_mutexes ]; then faulttune tune; else uname -r; echo "cpus: $$(nproc)"; grep -i huge /proc/meminfo; fi'

# Both kernels, patched (where the version has its series) and stock.
CHECK_DEPS	:= tool $(foreach v,$(KVERS),image-$(v) kernel-stock-$(v) $(if $(PATCHES_$(v)),kernel-$(v)))

check: $(CHECK_DEPS)
	@$(TOP)/tests/check.sh quick

# the slowest parts, left out of make check: the resize storm and the
# selftests in selftests.t's LONG list, on both kernels
check-long: $(CHECK_DEPS)
	@$(TOP)/tests/check.sh long

# Debian's own kernel packages (bookworm 6.1, trixie 6.12, trixie-backports
# 7.3), fetched by name, booted with the guest image: the kprobe recorder
# on the kernels people run (tests/check.sh distro; also in check-long)
check-distro: tool image-6.12
	@$(TOP)/tests/check.sh distro

# faulttune-watch.service under a real systemd (Debian 12 rootfs from
# mmdebstrap, cached in /var/cache/faulttune) on the stock and patched 6.12
# kernels, whose config has kernel/config/systemd.config (also in
# check-long)
check-systemd: tool kernel-6.12 kernel-stock-6.12
	@$(TOP)/tests/systemd-unit.sh

# each deliberately broken kernel in tests/mutants must fail the guest test
# its Test: line names (kernel-race.t by default; kernel-paths.t), on the
# kernel its Kernel: line names (6.12 by default)
# (too slow for check-long: one kernel build and boot per mutant)
mutation-check: image-6.12 kernel-6.12 image-7.3 kernel-7.3
	@$(KENV_6.12) MUTATION_KCONFIG="$(KCONFIG_6.12)" $(SCRIPTS)/mutation-check.sh; a=$$?; \
	 $(KENV_7.3) MUTATION_KCONFIG="$(KCONFIG_7.3)" $(SCRIPTS)/mutation-check.sh; b=$$?; \
	 [ $$a = 0 ] && [ $$b = 0 ]

# each planted fault in tools/faulttune must fail the check it names
# (tools/faulttune/tests/mutation.py, Documentation/mutation.md): the host
# checks (root for host-tracefs.sh); MUTATION_GUEST=1 adds the guest ones,
# on the patched 6.12 kernel with the mutant's faulttune in its image;
# MUTANTS="NAME..." runs only those.
# Not in make check: one rebuild and one check run per mutant.
mutation-check-tool: tool $(if $(MUTATION_GUEST),image-6.12 kernel-6.12)
	@$(TOP)/tools/faulttune/tests/mutation.py $(if $(MUTATION_GUEST),--guest) $(MUTANTS)

# the suite table of the last make check / check-long, into the docs
suite-table:
	@$(TOP)/tests/suite-table.py $(BUILD)/check > $(BUILD)/check/suites.md
	@# the hand-kept part of testing.md, up to its marker line, stays
	@{ sed '/^<!-- make suite-table: generated below -->$$/q' $(TOP)/Documentation/testing.md; \
	   cat $(BUILD)/check/suites.md; } > $(BUILD)/check/testing.md
	@grep -q '^<!-- make suite-table: generated below -->$$' $(BUILD)/check/testing.md || \
		{ echo "suite-table: no marker line in Documentation/testing.md" >&2; exit 1; }
	@cp $(BUILD)/check/testing.md $(TOP)/Documentation/testing.md
	@echo "suite-table: Documentation/testing.md from the logs in build/check"

# The benchmarks measure the 6.12 kernels in build/{patched,stock,norw}.
# section 16 of make bench on its own: the stall a resize imposes on faults
# beside 1 GiB holds (tests/bench-resize.sh)
bench-resize: image-6.12 kernel-6.12
	@$(KENV_6.12) $(TOP)/tests/bench-resize.sh

# section 17 of make bench on its own: what a recorder costs a program
# that never touches hugetlb (tests/bench-machine.sh; KVER as given)
bench-machine: image kernel-stock
	@$(KENV_$(KVER)) $(TOP)/tests/bench-machine.sh

# section 18 of make bench on its own: what one kprobe event costs a hit,
# part by part (tests/bench-probe-cost.sh; KVER as given)
bench-probe-cost: image kernel-stock
	@$(KENV_$(KVER)) $(TOP)/tests/bench-probe-cost.sh

# section 13 of make bench on its own: tune on QEMU and stress-ng
bench-programs: image-6.12 kernel-6.12
	@$(KENV_6.12) $(TOP)/tests/bench-programs.sh

bench: image-6.12 kernel-6.12 kernel-stock-6.12 kernel-norw
	@if [ -x $(TOP)/tests/bench.sh ]; then $(KENV_6.12) $(TOP)/tests/bench.sh; \
	 else echo "bench: no benchmarks yet"; fi

# The series as one would post it (From:, Signed-off-by:, cover letter),
# checkpatched; 7.3's as two, build/7.3/patches/{mm,x86}, each on the base.
patches: $(BUILDK)/stock/src.stamp
	@$(KENV_$(KVER)) $(SCRIPTS)/make-patches.sh $(BUILDK)/patches

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
# build/kernel-deb/NAME/ (build/7.3/kernel-deb/NAME/ for 7.3).  It packages
# 6.12, the LTS series a Debian 12 machine runs, unless KVER is given on
# the command line or in the environment (make kernel-deb KVER=7.3).
# KDEB_CONFIG: the configuration to start from, by default Debian's own
# amd64 config of that kernel (linux-config-6.12, or linux-config-7.3
# fetched with the 7.3 source); any .config (or .config.xz) file; or
# "guest", the small guest kernel's (what make check packages).  See
# kernel/scripts/kernel-deb.sh.
KDEB_KVER	:= $(if $(filter command line environment environment override,$(origin KVER)),$(KVER),6.12)
KDEB_BUILD	:= $(BUILD_$(KDEB_KVER))
KDEB_DEBIAN_6.12 := /usr/src/linux-config-6.12/config.amd64_none_amd64.xz
KDEB_DEBIAN_7.3	:= /var/cache/faulttune/linux-7.3/usr/src/linux-config-7.3/config.amd64_none_amd64.xz
KDEB_DEBIAN	:= $(KDEB_DEBIAN_$(KDEB_KVER))
KDEB_CONFIG	?= $(KDEB_DEBIAN)
KDEB_NAME	:= $(if $(filter guest,$(KDEB_CONFIG)),guest,$(if $(filter $(KDEB_DEBIAN),$(KDEB_CONFIG)),debian,custom))

kernel-deb: $(KDEB_BUILD)/patched/src.stamp
	@$(KENV_$(KDEB_KVER)) $(SCRIPTS)/kernel-deb.sh $(KDEB_BUILD)/patched/src \
		$(KDEB_BUILD)/patched/kdeb-$(KDEB_NAME) $(KDEB_BUILD)/kernel-deb/$(KDEB_NAME) \
		$(KDEB_CONFIG) $(KCONFIG_$(KDEB_KVER))

# The packaged kernel (KDEB_CONFIG and KVER pick which, as above) booted
# with the guest image of its kernel, KDEB_TESTS run in it: the image a
# user installs, checked.
KDEB_TESTS	?= kernel-knob faulttune-record faulttune-tune
kernel-deb-boot: image-$(KDEB_KVER)
	@$(SCRIPTS)/kdeb-boot.sh $(KDEB_BUILD)/kernel-deb/$(KDEB_NAME) $(KDEB_BUILD)/guest.cpio \
		'run-tests $(foreach t,$(KDEB_TESTS),/ft/tests/$(t).t)'

clean:
	rm -rf $(BUILD) $(TOP)/faulttune_*.deb
	@if [ -f tools/faulttune/Makefile ]; then $(MAKE) -s -C tools/faulttune clean; fi
