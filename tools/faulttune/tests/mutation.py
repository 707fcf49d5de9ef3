#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mutation.py [--guest] [--list] [NAME...]: the tool's planted faults.

The tool-side counterpart of kernel/scripts/mutation-check.sh (issue 42):
each mutant below is one deliberate fault in tools/faulttune, given as an
exact old text and its replacement, and the check that must fail on it.
The old text is looked for in every file under tools/faulttune, wherever
it lives (the sources may move between folders): it must occur exactly
once in the whole tree, else the mutant is reported STALE (a failure, not
a pass) and must be brought up to date with the code.

For each mutant the tree is copied (objects included) to
build/mutation-tool/, the text replaced, faulttune rebuilt and the check
run in the copy.  A "host" check is a shell command run in the copy's
directory; a "guest" check is a guest test (tests/guest/*.t) run by
kernel/scripts/run-vm.sh on the patched 6.12 kernel of build/, with the
mutant's faulttune laid over the guest image's (a second cpio archive
appended to build/guest.cpio), booted as check.sh boots that test (what
the check adds to the kernel command line and before run-tests); guest
mutants run only with --guest.  A fault of the image rather than of the
tool is an overlay: files laid over the image's the same way, the tool
left as it is.
Before any mutant, every check it uses must pass on the unmodified copy:
a check that fails on the real code proves nothing about a mutant.

A mutant is caught when its check exits non-zero (or times out).  TAP,
one line per baseline check and per mutant; exits 1 unless every check
passed on the real code and every mutant run was caught.  Logs in
build/mutation-tool/logs/.
"""

import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
TOOL = os.path.join(TOP, "tools", "faulttune")
WORK = os.environ.get("FT_MUTATION_DIR", os.path.join(TOP, "build", "mutation-tool"))
TIMEOUT = int(os.environ.get("FT_MUTATION_TIMEOUT", "900"))

UNIT = "make -s tests/unit && ./tests/unit"
KPAIR = "make -s tests/kpair-test && ./tests/kpair-test"
BADFILES = "make -s tests/synth && ./tests/badfiles.sh ./faulttune ./tests/synth"
TRACEFS = "./tests/host-tracefs.sh ./faulttune"

# name, the fault, the check ("host", command) or ("guest", test[, what
# the test's boot adds to the kernel command line[, what goes before
# run-tests]]), then old and new, or overlay: {path in the guest image:
# (mode, text)}, files laid over the image's for a fault of the image
# the harness builds rather than of the tool (the tool is left as it is)
MUTANTS = [
    dict(name="sharing-as-collision",
         fault="a contended acquisition behind the same key (true sharing) "
               "is classified as a hash collision",
         check=("host", UNIT),
         old="""bs->index == ev->index) ? 2 : 1;""",
         new="""bs->index == ev->index) ? 1 : 1;"""),
    dict(name="sharing-as-collision-in-tune",
         fault="the same fault as sharing-as-collision, seen where a user "
               "sees it: tune of the share workload (every fault on one "
               "page, which cannot collide) measures collisions and may "
               "leave the current size",
         check=("guest", "faulttune-tune.t"),
         old="""bs->index == ev->index) ? 2 : 1;""",
         new="""bs->index == ev->index) ? 1 : 1;"""),
    dict(name="fallback-wait-scaled",
         fault="the lock:contention fallback times its waits three times "
               "their length (a clock or unit error): the fault mutex "
               "wait it reports is not the faulttune events' of the "
               "same recording",
         check=("guest", "faulttune-fallback.t"),
         old="""	wait = ev->ts > w.ts ? ev->ts - w.ts : 0;""",
         new="""	wait = ev->ts > w.ts ? 3 * (ev->ts - w.ts) : 0;"""),
    dict(name="release-lost-one-in-16",
         fault="the kprobe recorder's reader loses one release in 16 "
               "(its acquisition is never paired): a partial loss, not "
               "the whole recording's",
         check=("guest", "kernel-lockdown.t",
                "lockdown=integrity hugetlb_fault_mutexes=64"),
         old="""	if (t->bucket != bucket)
		kp->bucket_mismatch++;""",
         new="""	if (t->bucket != bucket)
		kp->bucket_mismatch++;
	{
		static unsigned int lost;

		if (++lost % 16 == 0) {
			drop(kp, t);
			return 0;
		}
	}"""),
    dict(name="kselftest-not-built",
         fault="the guest image has no runnable hugetlb_fault_mutexes (a "
               "harness that did not build the series' own kselftest)",
         check=("guest", "selftests.t", "", "FT_TESTS=hugetlb_fault_mutexes"),
         overlay={"ft/selftests/hugetlb_fault_mutexes": (0o644, "")}),
    dict(name="kselftest-all-skipped",
         fault="the series' own kselftest skips every case on the patched "
               "kernel and exits 0, as kselftest_harness does when nothing "
               "ran",
         check=("guest", "selftests.t", "", "FT_TESTS=hugetlb_fault_mutexes"),
         overlay={"ft/selftests/hugetlb_fault_mutexes": (0o755, """#!/bin/sh
echo "TAP version 13"
echo "1..1"
echo "ok 1 resize # SKIP planted"
echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0"
""")}),
    dict(name="jump-scale-dropped",
         fault="a release probed before its call as a jump takes the "
               "register for the mutex's offset unscaled (lea's x8 lost)",
         check=("host", KPAIR),
         old="""	return found(j, at, idx, 1U << (b[10] >> 6));""",
         new="""	return found(j, at, idx, 1);"""),
    dict(name="jump-outside-accepted",
         fault="releases probed before their call whose mutex lies outside "
               "the table are dropped without a word: a wrong decode is "
               "not refused",
         check=("host", KPAIR),
         old="""		kp->jump_outside += jump;""",
         new="""		(void)jump;"""),
    dict(name="tune-picks-wander",
         fault="tune's pick moves by a factor of 4 from one run to the next "
               "(a counter in /tmp stands for whatever makes it unstable) "
               "and every run says it could not separate any size: "
               "inconsistent answers passed off as unsure ones",
         check=("guest", "faulttune-programs.t"),
         old=r"""	for (i = d->first; i <= d->last && i < d->nsizes; i++)
		fprintf(f, "%s%u", i == d->first ? "" : ",", d->sizes[i]);
	fputs("]}", f);
	fprintf(f, ",\"current_verdict\":{\"verdict\":\"%s\",\"more_runs\":",
		verdict_str(d->cur_verdict));
	if (d->more_runs)
		fprintf(f, "%d", d->more_runs);
	else
		fputs("null", f);
	fprintf(f, ",\"measured\":%s", d->cur_known ? "true" : "false");
	if (d->cur_known)
		fprintf(f, ",\"measured_lo_pct\":%.4f,\"measured_up_pct\":%.4f,"
			"\"model_fits\":%s", d->cur_meas_lo, d->cur_meas_up,
			d->cur_model_fails ? "false" : "true");
	fputc('}', f);
	if (adv->pick.idx >= 0 && adv->nholds)
		fprintf(f, ",\"recommended\":%u,\"keep\":%s,\"target_met\":%s}",
			adv->rows[adv->pick.idx].size,
""",
         new=r"""	for (i = 0; i < d->nsizes; i++)
		fprintf(f, "%s%u", i == 0 ? "" : ",", d->sizes[i]);
	fputs("]}", f);
	fprintf(f, ",\"current_verdict\":{\"verdict\":\"%s\",\"more_runs\":",
		verdict_str(d->cur_verdict));
	if (d->more_runs)
		fprintf(f, "%d", d->more_runs);
	else
		fputs("null", f);
	fprintf(f, ",\"measured\":%s", d->cur_known ? "true" : "false");
	if (d->cur_known)
		fprintf(f, ",\"measured_lo_pct\":%.4f,\"measured_up_pct\":%.4f,"
			"\"model_fits\":%s", d->cur_meas_lo, d->cur_meas_up,
			d->cur_model_fails ? "false" : "true");
	fputc('}', f);
	if (adv->pick.idx >= 0 && adv->nholds)
		fprintf(f, ",\"recommended\":%u,\"keep\":%s,\"target_met\":%s}",
			adv->rows[adv->pick.idx].size << ({
				FILE *runs = fopen("/tmp/ft-mutant-runs", "a+");
				long n = 0;

				if (runs) {
					fseek(runs, 0, SEEK_END);
					n = ftell(runs);
					fputc('x', runs);
					fclose(runs);
				}
				2 * (n % 3);
			}),
"""),
    dict(name="wrong-bucket-accepted",
         fault="an event whose bucket is not hash & (nbuckets - 1) is not counted",
         check=("host", UNIT),
         old="""		    (ev->hash & (ev->nbuckets - 1)) != ev->bucket)
			a->hash_mismatch++;""",
         new="""		    (ev->hash & (ev->nbuckets - 1)) != ev->bucket)
			(void)0;"""),
    dict(name="wrong-hash-accepted",
         fault="an acquisition whose hash is not jhash2(mapping, index) is not counted",
         check=("host", UNIT),
         old="""	if (ft_fault_hash(ev->mapping, ev->index) != ev->hash)
		a->jhash_mismatch++;""",
         new="""	if (ft_fault_hash(ev->mapping, ev->index) != ev->hash)
		(void)0;"""),
    dict(name="lost-count-as-one",
         fault="a page's count of lost events is counted as one event",
         check=("host", UNIT),
         old="""		a->lost_events += missed;""",
         new="""		a->lost_events += 1;"""),
    dict(name="lost-stored-count-ignored",
         fault="the in-place reader ignores the count stored after a page's "
               "data (RB_MISSED_STORED): nothing lost is reported",
         check=("host", UNIT),
         old="""			memcpy(&lost, c->pd + c->size, 8);""",
         new="""			lost = 0;"""),
    dict(name="lost-warning-dropped",
         fault="report's verdict says nothing of lost events",
         check=("host", UNIT),
         old="""	if (a->lost_events || a->lost_unknown) {
		if (!a->lost_events)""",
         new="""	if (0) {
		if (!a->lost_events)"""),
    dict(name="mismatch-warning-dropped",
         fault="report's verdict says nothing of events whose bucket or hash "
               "is not the kernel's",
         check=("host", UNIT),
         old='\tif (a->hash_mismatch || a->jhash_mismatch)\n'
             '\t\tft_wrap(f, 2, "WARNING: %llu events whose bucket or hash is not the "',
         new='\tif (0)\n'
             '\t\tft_wrap(f, 2, "WARNING: %llu events whose bucket or hash is not the "'),
    dict(name="kprobe-decode-refusal-removed",
         fault="the kprobe recorder's decode is not refused when releases "
               "are of another bucket than their key's hash",
         check=("host", KPAIR),
         old="""	if (too_many(kp->bucket_mismatch, kp->acquisitions)) {""",
         new="""	if (0 && too_many(kp->bucket_mismatch, kp->acquisitions)) {"""),
    dict(name="kprobe-wrong-bucket-accepted",
         fault="the kprobe recorder does not count a release of another "
               "bucket than its key's (so never refuses)",
         check=("host", KPAIR),
         old="""	if (t->bucket != bucket)
		kp->bucket_mismatch++;""",
         new="""	if (t->bucket != bucket)
		(void)0;"""),
    dict(name="badfile-common-type-accepted",
         fault="a file whose formats disagree on common_type is read, not refused",
         check=("host", BADFILES),
         old="""				       ref[k] ? ref[k]->size : 0);
				return -1;""",
         new="""				       ref[k] ? ref[k]->size : 0);
				break;"""),
    dict(name="badfile-refusal-spins",
         fault="the reader refuses a bad file only after seconds of CPU "
               "(a loop where it should stop at once)",
         check=("host", BADFILES),
         old="""				       ref[k] ? ref[k]->size : 0);
				return -1;""",
         new="""				       ref[k] ? ref[k]->size : 0);
				for (volatile unsigned long spin = 0; spin < 3000000000UL; spin++)
					;
				return -1;"""),
    dict(name="record-no-forward",
         fault="record does not forward SIGINT/SIGTERM to its COMMAND "
               "(only the SIGKILL 5 s later remains)",
         check=("host", TRACEFS),
         old="""		kill(child, ft_stop_sig ? ft_stop_sig : SIGTERM);""",
         new="""		(void)0;"""),
    dict(name="record-forward-sigkill",
         fault="record stops its COMMAND with SIGKILL instead of forwarding "
               "the signal it got",
         check=("host", TRACEFS),
         old="""		kill(child, ft_stop_sig ? ft_stop_sig : SIGTERM);""",
         new="""		kill(child, SIGKILL);"""),
    dict(name="tune-no-pages-check",
         fault="tune does not check for free huge pages before it starts "
               "(no line saying how to get them)",
         check=("host", TRACEFS),
         old="""	if (!c->cmd && ft_bench_check_pages(&c->bench, c->threads))
		return -1;""",
         new="""	if (0 && ft_bench_check_pages(&c->bench, c->threads))
		return -1;"""),
    dict(name="bench-pages-hint-dropped",
         fault="too few huge pages: the error no longer says how to get them",
         check=("host", TRACEFS),
         old="""		       "echo %llu > /sys/kernel/mm/hugepages/hugepages-%llukB/"
		       "nr_hugepages%s",""",
         new="""		       "raise %llu in /sys/kernel/mm/hugepages/hugepages-%llukB/"
		       "nr_hugepages%s","""),
    dict(name="tune-no-restore-on-signal",
         fault="stopped by SIGINT or SIGTERM, tune leaves the knob at the "
               "size it was probing and still says it restored it",
         check=("guest", "faulttune-signals.t"),
         old="""		if (ft_knob_write(c->knob, v))
			ft_err("cannot restore""",
         new="""		if (!ft_stop && ft_knob_write(c->knob, v))
			ft_err("cannot restore"""),
    dict(name="tune-no-restore-on-error",
         fault="tune leaves the knob as it was probing when it fails "
               "(the COMMAND fails, or a run errors)",
         check=("guest", "faulttune-tune.t"),
         old="""out:
	if (exit_code)
		c.apply = 0;
	tune_restore();""",
         new="""out:
	if (exit_code)
		_exit(exit_code);
	tune_restore();"""),
]


def text_files(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        for f in files:
            if f.endswith((".c", ".h", ".sh", ".py", ".t")) or f == "Makefile":
                yield os.path.join(d, f)


def find(root, old):
    """[(path, count)] of the files holding old."""
    hits = []
    for p in text_files(root):
        if os.path.basename(p) == "mutation.py":
            continue
        try:
            with open(p, encoding="utf-8", errors="surrogateescape") as f:
                n = f.read().count(old)
        except OSError:
            continue
        if n:
            hits.append((p, n))
    return hits


def sh(cmd, cwd, log, timeout=TIMEOUT, env=None):
    """exit status of cmd (124 on timeout), its output in log"""
    with open(log, "w") as out:
        try:
            p = subprocess.run(["sh", "-c", cmd], cwd=cwd, stdout=out,
                               stderr=subprocess.STDOUT, timeout=timeout,
                               env=env, start_new_session=True)
            return p.returncode
        except subprocess.TimeoutExpired:
            out.write("\nmutation: timed out after %d s\n" % timeout)
            return 124


def why(log):
    """the first failing line of a check's output"""
    lines = open(log, errors="replace").read().splitlines()
    for pat in ("not ok", "FAIL", "faulttune:", "mutation:"):
        for line in lines:
            if line.startswith(pat) or (pat == "FAIL" and "FAIL" in line):
                return line.strip()[:140]
    return (lines[-1].strip()[:140] if lines else "no output")


n = 0
bad = 0


def result(ok, desc):
    global n, bad
    n += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", n, desc), flush=True)
    if not ok:
        bad = 1


def sync(src, dst):
    subprocess.run(["rsync", "-a", "--delete", src + "/", dst + "/"], check=True)


def guest_cpio(tree, name, overlay=None):
    """build/guest.cpio with tree's faulttune (and overlay's files) laid
    over the guest's"""
    ov = os.path.join(WORK, "overlay-" + name)
    shutil.rmtree(ov, ignore_errors=True)
    os.makedirs(os.path.join(ov, "ft", "bin"))
    shutil.copy2(os.path.join(tree, "faulttune"), os.path.join(ov, "ft", "bin", "faulttune"))
    for path, (mode, text) in (overlay or {}).items():
        dst = os.path.join(ov, path)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "w") as f:
            f.write(text)
        os.chmod(dst, mode)
    out = os.path.join(WORK, "guest-%s.cpio" % name)
    with open(out, "wb") as f:
        with open(os.path.join(TOP, "build", "guest.cpio"), "rb") as g:
            shutil.copyfileobj(g, f)
        f.flush()
        subprocess.run("find ft | cpio -o -H newc --quiet", shell=True, cwd=ov,
                       stdout=f, check=True)
    shutil.rmtree(ov, ignore_errors=True)
    return out


def run_check(check, tree, name, log, overlay=None):
    kind, what = check[:2]
    if kind == "host":
        return sh(what, tree, log)
    cpio = guest_cpio(tree, name, overlay)
    # a test that needs its own boot (check.sh's VM_APPEND for it)
    append = (os.environ.get("VM_APPEND", "") + " " +
              (check[2] if len(check) > 2 else "")).strip()
    before = check[3] + " " if len(check) > 3 else ""
    env = dict(os.environ, VM_LOGDIR=os.path.join(WORK, "logs", "vm-" + name),
               VM_APPEND=append,
               VM_KERNEL="patched", VM_CPUS=os.environ.get("VM_CPUS", "4"),
               VM_TIMEOUT=os.environ.get("VM_TIMEOUT", "900"))
    rc = sh("%s %s %s '%srun-tests /ft/tests/%s'" % (
        os.path.join(TOP, "kernel", "scripts", "run-vm.sh"),
        os.path.join(TOP, "build", "patched", "bzImage"), cpio, before, what),
        TOP, log, timeout=int(env["VM_TIMEOUT"]) + 120, env=env)
    os.unlink(cpio)
    return rc


def plant(m, mut):
    """replace m's old text by its new in the copy mut: the file's path
    relative to it, or None (a failed result said why)"""
    hits = find(mut, m["old"])
    total = sum(c for _, c in hits)
    if total != 1:
        result(False, "mutant %s: STALE, its old text is in %s" % (
            m["name"], ", ".join("%s (%dx)" % (os.path.relpath(p, mut), c)
                                 for p, c in hits) or "no file"))
        return None
    path = hits[0][0]
    if m["new"] == m["old"]:
        result(False, "mutant %s: its new text is its old" % m["name"])
        return None
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        s = f.read()
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(s.replace(m["old"], m["new"]))
    return os.path.relpath(path, mut)


def main():
    args = sys.argv[1:]
    guest = "--guest" in args
    if "--list" in args:
        for m in MUTANTS:
            print("%-30s %-6s %-45s %s" % (m["name"], m["check"][0], m["check"][1], m["fault"]))
        return 0
    names = [a for a in args if not a.startswith("-")]
    todo = [m for m in MUTANTS if not names or m["name"] in names]
    if names and len(todo) != len(names):
        print("mutation: unknown mutant in %s (--list)" % names, file=sys.stderr)
        return 2
    if guest and not (os.path.exists(os.path.join(TOP, "build", "patched", "bzImage")) and
                      os.path.exists(os.path.join(TOP, "build", "guest.cpio"))):
        print("mutation: --guest needs build/patched/bzImage and build/guest.cpio "
              "(make kernel image)", file=sys.stderr)
        return 2
    start = time.time()
    logs = os.path.join(WORK, "logs")
    pristine, mut = os.path.join(WORK, "pristine"), os.path.join(WORK, "mutant")
    os.makedirs(logs, exist_ok=True)
    sync(TOOL, pristine)
    if sh("make -s -j2 faulttune", pristine, os.path.join(logs, "build.log")):
        result(False, "the real tool builds (%s)" % os.path.join(logs, "build.log"))
        return 1

    # the checks must pass on the real code first
    checks = []
    for m in todo:
        if m["check"] not in checks and (guest or m["check"][0] == "host"):
            checks.append(m["check"])
    base_ok = {}
    for i, c in enumerate(checks):
        log = os.path.join(logs, "baseline-%d.log" % i)
        rc = run_check(c, pristine, "baseline", log)
        base_ok[c] = rc == 0
        result(rc == 0, "the real tool passes %s check '%s'%s" % (
            c[0], c[1], "" if rc == 0 else " (exit %d: %s; %s)" % (rc, why(log), log)))

    for m in todo:
        name, (kind, what) = m["name"], m["check"][:2]
        sync(pristine, mut)
        if "overlay" in m:
            where = "image: " + ", ".join(sorted(m["overlay"]))
        else:
            where = plant(m, mut)
            if not where:
                continue
        if kind == "guest" and not guest:
            result(True, "mutant %s (%s): %s check %s # SKIP guest check, not run "
                   "without --guest" % (name, where, kind, what))
            continue
        if not base_ok.get(m["check"]):
            result(False, "mutant %s: not run, its check fails on the real tool" % name)
            continue
        log = os.path.join(logs, name + ".log")
        if sh("make -s -j2 faulttune", mut, log):
            result(False, "mutant %s (%s): does not build (%s)" % (name, where, log))
            continue
        t0 = time.time()
        rc = run_check(m["check"], mut, name, log, m.get("overlay"))
        if rc:
            result(True, "mutant %s (%s): caught by %s (exit %d, %.0f s: %s)" % (
                name, where, what, rc, time.time() - t0, why(log)))
        else:
            result(False, "mutant %s (%s): SURVIVED, %s passed" % (name, where, what))
    print("1..%d" % n)
    print("mutation: %.0f s, logs in %s" % (time.time() - start, logs))
    return bad


if __name__ == "__main__":
    sys.exit(main())
