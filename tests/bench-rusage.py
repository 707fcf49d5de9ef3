#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-rusage.py COMMAND [ARGS...]: run COMMAND with stdout on /dev/null
and print one JSON object: wall seconds, user and system CPU seconds and
peak resident memory (KB) of COMMAND and the children it waited for, and
its exit status.  A fresh process per measurement: RUSAGE_CHILDREN keeps
the largest resident set of any child seen."""

import json
import resource
import subprocess
import sys
import time

t0 = time.monotonic()
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
wall = time.monotonic() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall_s": round(wall, 4), "user_s": round(ru.ru_utime, 4),
                  "sys_s": round(ru.ru_stime, 4), "maxrss_kb": ru.ru_maxrss,
                  "status": rc}))
