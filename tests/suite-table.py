#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""suite-table.py LOGDIR: the Markdown suite table of the last make check and
make check-long, from their logs in LOGDIR (build/check).

One row per suite: the kernel files check make check runs first (the
top-level copies are what the series leaves), the kernel's selftests and
stress-ng runs (selftests.t on the patched kernel, and on the stock one
those that failed on patched), the
project's guest tests (patched only: they need the patches), the tool's
tests.  For each: the number of
TAP results, the cases the suite itself counted (kselftest Totals,
uffd-unit-tests' summary, stress-ng's bogo ops), the stock and the patched
result, and for every failure the reason, which must be listed in KNOWN
below when stock fails too.  Nothing is typed by hand: every number comes
from the logs.
"""
import os
import platform
import re
import sys
import time

# Failures that stock 6.12 has too, with their reason (../shared/peers.md).
# A stock failure missing here is flagged "reason unknown".
KNOWN = {
    "memfd_test-hugetlbfs":
        "stock 6.12 too: hugetlbfs does not enforce F_SEAL_EXEC, memfd_test "
        "aborts at its SEAL-EXEC check (pre-existing, not a regression)",
}
# The same for stock 7.3 (a stock 7.3 failure missing here is flagged
# "reason unknown" too).
KNOWN_73 = {
    "memfd_test-hugetlbfs":
        "stock 7.3 too: memfd_test aborts (exit 134) on hugetlbfs, as on 6.12, "
        "whose cause is its SEAL-EXEC check (pre-existing, not a regression)",
}
# Skips, explained once.
SKIPS = {
    "uffd-unit-tests-wp-fork-pin": "every case needs CONFIG_GUP_TEST (not in the guest config)",
    "uffd-unit-tests-wp-fork-pin-with-event": "every case needs CONFIG_GUP_TEST (not in the guest config)",
    "hugetlb_fault_mutexes": "on stock: no knob (the test is the patches' own)",
}
POOL_NOTE = {
    "udmabuf": "pool not compared: racing UDMABUF_CREATE with faults underflows "
               "HugePages_Rsvd on stock 6.12 (fixed in 6.16)",
}

TAP = re.compile(r"^(not ok|ok)\b[ 0-9]*-? ?(.*)$")


def tap_lines(path):
    """[(status, desc, skip_reason, comment_lines_before)]"""
    out, comments = [], []
    if not os.path.exists(path):
        return None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = TAP.match(line)
            if not m:
                comments.append(line)
                continue
            status, desc = m.group(1), m.group(2)
            skip = None
            if " # SKIP" in desc:
                desc, skip = desc.split(" # SKIP", 1)
                skip = skip.strip()
                status = "skip"
            elif status == "ok":
                status = "pass"
            else:
                status = "fail"
            out.append((status, desc, skip, comments))
            comments = []
    return out


def suite_of_selftest(desc):
    # "selftests: NAME (12s)", "selftests: NAME: pool restored",
    # "selftests: stress-ng-pci: did work (150 bogo ops)"
    d = desc.split(": ", 1)[1] if desc.startswith("selftests: ") else desc
    d = re.sub(r" \(.*$", "", d)
    return d.split(": ", 1)[0]


def inner_counts(comments):
    """The suite's own count of cases, from its output in the log."""
    text = "\n".join(comments)
    m = re.findall(r"Totals: pass:(\d+) fail:(\d+) xfail:\d+ xpass:\d+ skip:(\d+)", text)
    if m:
        p, f, s = map(int, m[-1])
        return f"{p + f + s} cases: {p} pass, {f} fail, {s} skip"
    m = re.findall(r"Userfaults unit tests: pass=(\d+), skip=(\d+), fail=(\d+) \(total=(\d+)\)", text)
    if m:
        p, s, f, t = map(int, m[-1])
        return f"{t} cases: {p} pass, {f} fail, {s} skip"
    m = re.findall(r"bounces: (\d+), mode:", text)
    if m:
        return f"{len(m)} bounce rounds (log tail)"
    return ""


def summarise(results):
    """pass / FAIL (n of m) / skip: reason"""
    fails = [r for r in results if r[0] == "fail"]
    skips = [r for r in results if r[0] == "skip"]
    if fails:
        return f"**FAIL** ({len(fails)} of {len(results)})"
    if skips and len(skips) == len(results):
        return "skip"
    if skips:
        return f"pass ({len(skips)} skipped)"
    return "pass"


def selftest_rows(logdir, sfx, make, pre=""):
    stock = tap_lines(os.path.join(logdir, f"{pre}selftests{sfx}-stock.log"))
    patched = tap_lines(os.path.join(logdir, f"{pre}selftests{sfx}-patched.log"))
    if stock is None and patched is None:
        return []
    order, by = [], {}
    for kernel, lines in (("stock", stock or []), ("patched", patched or [])):
        for status, desc, skip, comments in lines:
            name = suite_of_selftest(desc)
            if name not in by:
                order.append(name)
                by[name] = {"stock": [], "patched": [], "inner": "", "ops": ""}
            by[name][kernel].append((status, desc, skip))
            inner = inner_counts(comments)
            if inner and kernel == "patched":
                by[name]["inner"] = inner
            m = re.search(r"did work \((\d+) bogo ops\)", desc)
            if m and kernel == "patched":
                by[name]["ops"] = f"{m.group(1)} bogo ops (patched)"
            m = re.search(r"read mapped BARs \((\d+) devices\)", desc)
            if m and kernel == "patched":
                by[name]["ops"] += f", {m.group(1)} devices' BARs"
            m = re.search(r"took memtype_lock to reserve \((\d+) events", desc)
            if m:
                by[name]["ops"] += f", {m.group(1)} memtype_lock reserves"
    rows = []
    for name in order:
        s, p = by[name]["stock"], by[name]["patched"]
        kind = "stress-ng" if name.startswith("stress-ng") else "selftest"
        notes = []
        sfail = any(r[0] == "fail" for r in s)
        pfail = any(r[0] == "fail" for r in p)
        if sfail or pfail:
            known = KNOWN_73 if pre else KNOWN
            if sfail and name in known:
                notes.append(known[name])
            elif sfail and pfail:
                notes.append("fails on stock too: reason unknown, add it to KNOWN")
            elif pfail:
                notes.append("**regression**: passes on stock, fails patched")
            else:
                notes.append("fails on stock only")
        if any(r[0] == "skip" for r in s + p):
            reason = SKIPS.get(name) or next(r[2] for r in s + p if r[0] == "skip")
            notes.append("skip: " + reason)
        if name in POOL_NOTE:
            notes.append(POOL_NOTE[name])
        cases = by[name]["inner"] or by[name]["ops"].lstrip(", ")
        rows.append((name, kind, make, str(max(len(s), len(p))), cases,
                     summarise(s) if s else ("not run" if pfail or not p else "not needed"),
                     summarise(p) if p else "not run",
                     "; ".join(notes)))
    return rows


def guest_rows(logdir, log, make, kernel="patched"):
    lines = tap_lines(os.path.join(logdir, log))
    if lines is None:
        return []
    # run-tests ends each script with "# ---- NAME: N s": where a boot's
    # time goes
    took = {}
    for line in open(os.path.join(logdir, log), errors="replace"):
        m = re.match(r"# ---- (\S+): (\d+) s$", line)
        if m:
            took[m.group(1)] = int(m.group(2))
    order, by = [], {}
    for status, desc, skip, _ in lines:
        name = desc.split(": ", 1)[0]
        if name not in by:
            order.append(name)
            by[name] = []
        by[name].append((status, desc, skip))
    rows = []
    for name in order:
        r = by[name]
        notes = []
        skips = [x for x in r if x[0] == "skip"]
        if name in took:
            notes.append(f"took {took[name]} s")
        if skips:
            notes.append(f"skip: {skips[0][2]}")
        if kernel == "stock":
            rows.append((name + " (stock part)", "guest test", make, str(len(r)), "",
                         summarise(r), "its patched part: above", "; ".join(notes)))
        else:
            rows.append((name, "guest test", make, str(len(r)), "",
                         "not run (needs the patches)", summarise(r), "; ".join(notes)))
    return rows


def kernel_files_rows(logdir, pre=""):
    """kernel/scripts/kernel-files.sh check, the group make check runs first:
    the series applies to the stock files, and each top-level copy of a
    kernel file is what the series leaves (one TAP line each)."""
    path = os.path.join(logdir, f"{pre}kernel-files.log")
    lines = tap_lines(path)
    if lines is None:
        return []
    r = [(status, desc, skip) for status, desc, skip, _ in lines]
    notes = []
    if not r:
        # kernel-files.sh stopped before its first result (make check
        # reports its exit status): its error is the log's first line
        first = next((l.strip() for l in open(path, errors="replace") if l.strip()), "empty log")
        return [("kernel files", "series (host)", "check", "0", "", "n/a (host)",
                 "**FAIL** (no results)", first)]
    fails = [x[1].replace("kernel files: ", "", 1) for x in r if x[0] == "fail"]
    if fails:
        notes.append("not ok: " + "; ".join(fails))
    skips = [x for x in r if x[0] == "skip"]
    if skips:
        notes.append(f"skip: {skips[0][2]}")
    return [("kernel files", "series (host)", "check", str(len(r)), "",
             "n/a (host)", summarise(r), "; ".join(notes))]


def tool_rows(logdir):
    rows = []
    for target, what in (("test", "unit tests"), ("test-tracefs", "host tracefs tests"),
                         ("fuzz", "report fuzz run (ASan/UBSan)")):
        path = os.path.join(logdir, f"tool-{target}.log")
        if not os.path.exists(path):
            continue
        text = open(path, errors="replace").read()
        m = re.findall(r"^(\d+) passed, (\d+) failed", text, re.M)
        if not m:
            continue
        # one summary per test program the target runs
        p = sum(int(x[0]) for x in m)
        f = sum(int(x[1]) for x in m)
        res = "pass" if f == 0 and p > 0 else f"**FAIL** ({f} of {p + f})"
        rows.append((f"faulttune {what}", "tool (host)", "check", str(p + f), "",
                     "n/a (host)", res, ""))
    return rows


def kernel_rows(logdir, pre):
    """The rows of one kernel version's logs: 6.12's have no prefix, 7.3's
    start with 7.3- (tests/check.sh), and 7.3 runs the guest tests it
    leaves out of make check in make check-long (7.3-guest-rest)."""
    rows = kernel_files_rows(logdir, pre)
    if not pre:
        rows += tool_rows(logdir)
    rows += guest_rows(logdir, f"{pre}guest.log", "check")
    # 7.3 runs these in make check-long (labels ending in -long)
    lsfx, lmake = ("-long", "check-long") if pre else ("", "check")
    if pre:
        rows += guest_rows(logdir, f"{pre}guest-rest-long.log", "check-long")
    rows += guest_rows(logdir, f"{pre}fallback-stock{lsfx}.log", lmake, "stock")
    rows += guest_rows(logdir, f"{pre}memtype-stock{lsfx}.log", lmake, "stock")
    rows += guest_rows(logdir, f"{pre}guest-long.log", "check-long")
    rows += selftest_rows(logdir, "", "check", pre)
    rows += selftest_rows(logdir, "-long", "check-long", pre)
    return rows


def print_table(rows, kver):
    print(f"| suite | kind | in | TAP results | cases (the suite's own count) | stock {kver} | patched {kver} | reason / note |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
    print()


def main():
    logdir = sys.argv[1] if len(sys.argv) > 1 else "build/check"
    rows = kernel_rows(logdir, "")
    rows73 = kernel_rows(logdir, "7.3-")
    if not rows and not rows73:
        sys.exit(f"suite-table: no logs in {logdir} (run make check first)")

    def read(name):
        try:
            return open(os.path.join(logdir, name)).read().strip()
        except OSError:
            return None

    cpus = os.cpu_count()
    model = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    logs = [os.path.join(logdir, f) for f in os.listdir(logdir) if f.endswith(".log")]
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(max(os.path.getmtime(f) for f in logs)))
    print("# Test suites: stock vs patched\n")
    print("Generated by `make suite-table` (tests/suite-table.py) from the logs of the last "
          "`make check` and `make check-long` in `build/check/`; do not edit by hand.\n")
    print(f"- logs of: {when}")
    print(f"- host: {cpus} CPUs ({model}), {platform.system()} {platform.release()}; "
          "guest: QEMU TCG, 4 vCPUs, 3 GiB, 512 huge pages")
    for sfx, make in (("", "make check"), ("-long", "make check-long")):
        summ, secs = read(f"summary{sfx}"), read(f"check{sfx}.secs")
        if summ:
            t = f" in {int(secs) // 60} min {int(secs) % 60} s" if secs else ""
            print(f"- `{make}`: {summ}{t}")
        else:
            print(f"- `{make}`: no complete run in these logs")
    boots = (("selftests-stock", "selftests, stock"), ("selftests-patched", "selftests, patched"),
             ("guest", "guest tests"), ("fallback-stock", "fallback, stock"),
             ("memtype-stock", "pat_memtype_list, stock"),
             ("guest-long", "resize storm (kernel-storm)"),
             ("selftests-long-stock", "long selftests, stock"),
             ("selftests-long-patched", "long selftests, patched"))
    for pre, kver in (("", "6.12"), ("7.3-", "7.3")):
        # 7.3 boots lockdown in make check, and the rest in check-long
        extra = (("lockdown", "lockdown=integrity"),
                 ("guest-rest-long", "the other guest tests"),
                 ("paths-long", "kernel-paths"),
                 ("fallback-stock-long", "fallback, stock"),
                 ("memtype-stock-long", "pat_memtype_list, stock")) if pre else ()
        for label, what in boots + extra:
            secs = read(f"{pre}{label}.secs")
            if secs:
                print(f"- boot `{pre}{label}` ({what}, {kver}): {secs} s")
    # check-long's boots of Debian's kernel packages (2 vCPUs,
    # single-threaded TCG: kdeb-boot.sh) and of systemd
    for label, what in (("distro-6.1-long", "Debian's 6.1 package, kprobe recorder, 2 vCPUs single-threaded"),
                        ("distro-6.12-long", "Debian's 6.12 package, kprobe recorder, 2 vCPUs single-threaded"),
                        ("distro-7.3-long", "Debian's 7.3 package, kprobe recorder, 2 vCPUs single-threaded"),
                        ("systemd-unit-long", "faulttune-watch.service, stock and patched 6.12")):
        secs = read(f"{label}.secs")
        if secs:
            print(f"- boot `{label}` ({what}): {secs} s")
    print()
    if rows:
        print("## Linux 6.12 (the LTS series)\n")
        print_table(rows, "6.12")
    if rows73:
        print("## Linux 7.3 (the mainline series)\n")
        print_table(rows73, "7.3")
    print("TAP results: one per test and one per huge page pool check (HugePages_Free/Rsvd/Surp "
          "back to their starting values), plus for stress-ng one saying that it did work. "
          "A patched failure that stock does not have fails `make check`; a failure stock has "
          "too is reported as a skip with its reason here. The stock kernel runs only the "
          "tests that failed on patched (\"not needed\": it passed on patched).")


if __name__ == "__main__":
    main()
