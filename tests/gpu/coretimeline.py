#!/usr/bin/env python3
"""When compute-sanitizer's output, XML report and GPU coredump come.

Runs the memcheck pass's command line (as diag/memcheck.c builds it) on
one program and prints a timeline: each line of the sanitizer's output
as it arrived through a pipe, and every 0.1 s the sizes of the XML
report and of the coredump.  With --stop-after S it stops the sanitizer
(SIGKILL to its process group) S seconds after the coredump file
appeared and keeps the XML as it was, to show what a pass that gives up
on a slow coredump still has (docs/performance.md, "The memcheck pass's
coredump").

    python3 tests/gpu/coretimeline.py [--stop-after S] OUTDIR PROG ARGS...
"""
import os
import shutil
import signal
import subprocess
import sys
import threading
import time


def size(path):
    try:
        return os.stat(path).st_size
    except OSError:
        return -1


def main():
    args = sys.argv[1:]
    stop_after = None
    if args[:1] == ["--stop-after"]:
        stop_after = float(args[1])
        args = args[2:]
    out, prog = args[0], args[1:]
    os.makedirs(out, exist_ok=True)
    xml = os.path.join(out, "report.xml")
    core = os.path.join(out, "core.nvcudmp")
    for p in (xml, core):
        if os.path.exists(p):
            os.unlink(p)
    cmd = ["compute-sanitizer", "--tool", "memcheck", "--xml", "--save", xml,
           "--generate-coredump", "--coredump-name", core,
           "--print-limit", "100"] + prog
    t0 = time.monotonic()
    log = []

    def note(s):
        log.append("%8.3f %s" % (time.monotonic() - t0, s))

    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, start_new_session=True)

    def reader():
        for line in p.stdout:
            note("out| " + line.decode(errors="replace").rstrip("\n"))

    th = threading.Thread(target=reader)
    th.start()
    last = None
    core_seen = None
    stopped = False
    while p.poll() is None:
        now = (size(xml), size(core))
        if now != last:
            note("sizes xml=%d core=%d" % now)
            last = now
        if now[1] >= 0 and core_seen is None:
            core_seen = time.monotonic()
        if (stop_after is not None and core_seen is not None and not stopped
                and time.monotonic() - core_seen > stop_after):
            note("SIGKILL to the sanitizer's process group")
            os.killpg(p.pid, signal.SIGKILL)
            stopped = True
            shutil.copy(xml, os.path.join(out, "report.at-kill.xml"))
        time.sleep(0.1)
    th.join()
    note("exit %d; sizes xml=%d core=%d" % (p.returncode, size(xml), size(core)))
    if os.path.exists(core):
        os.unlink(core)
    with open(os.path.join(out, "timeline.txt"), "w") as f:
        f.write(" ".join(cmd) + "\n" + "\n".join(log) + "\n")
    print("\n".join(log))


if __name__ == "__main__":
    main()
