#!/usr/bin/env python3
"""Where cuda-gdb spends the 8 s of `sharedlibrary libtorch_cuda`
(issue 11's batch speed).  In the recordings, gdb prints "(No debugging
symbols found in .../libtorch_cuda.so)" 0.6 s after "Reading symbols
from", and answers ^done 8-9 s later: the ELF symbol table is read
quickly, and something after it takes the time.

For each variant: a fresh cuda-gdb over MI runs PROG with launch
blocking and `auto-solib-add off` to the fault, then reads torch's CUDA
library alone, timed.  Meanwhile the debugger process is looked at from
outside: its CPU time (user, system), its threads, the bytes it read, and
in the first variant three samples of its own stacks (a second cuda-gdb
attached to it in batch mode: a poor man's profiler).

Prints "variant=NAME read=S cpu_user=S cpu_sys=S threads=N io_read=MB",
the samples, and the console text of `maint set per-command time on`.
Usage: tests/gpu/solibprof.py PROG.py   (from its directory)."""
import os
import subprocess
import sys
import threading
import time

PROG = ["python3", sys.argv[1]]
LB = ["-gdb-set cuda launch_blocking on", "-gdb-set auto-solib-add off"]
READ = '-interpreter-exec console "sharedlibrary libtorch_cuda"'


def proc_cpu(pid):
    """(user, system) CPU seconds of PID, threads included."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def proc_io_read(pid):
    try:
        with open(f"/proc/{pid}/io") as f:
            for line in f:
                if line.startswith("read_bytes:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def sample_stacks(pid, at, out):
    """At each offset in AT (seconds), attach a second debugger to PID
    and keep its threads' stacks."""
    t0 = time.monotonic()
    for when in at:
        time.sleep(max(0, t0 + when - time.monotonic()))
        r = subprocess.run(["cuda-gdb", "-q", "-nx", "-batch", "-p", str(pid),
                            "-ex", "thread apply all bt 25"],
                           capture_output=True, text=True, timeout=60)
        out.append(f"--- sample at +{when:.1f} s\n" + r.stdout[-6000:])


def run(name, sets, sample=False, limit=120):
    p = subprocess.Popen(["cuda-gdb", "--interpreter=mi3", "--nx", "-q",
                          "--args"] + PROG, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, start_new_session=True)
    for s in ["-gdb-set mi-async on"] + LB + sets + ["-exec-run"]:
        p.stdin.write(s + "\n")
    p.stdin.flush()
    t0 = time.monotonic()
    stopped = False
    for line in p.stdout:
        if line.startswith("*stopped"):
            stopped = True
            break
        if time.monotonic() - t0 > limit:
            break
    if not stopped:
        print(f"variant={name} no stop", flush=True)
        p.kill()
        return
    u0, s0 = proc_cpu(p.pid)
    io0 = proc_io_read(p.pid)
    samples = []
    th = None
    if sample:
        th = threading.Thread(target=sample_stacks,
                              args=(p.pid, [1.5, 4.0, 6.5], samples))
        th.start()
    t1 = time.monotonic()
    p.stdin.write(READ + "\n")
    p.stdin.flush()
    console = []
    threads = 0
    for line in p.stdout:
        if line.startswith("~"):
            console.append(line.strip()[:200])
        try:
            threads = max(threads, len(os.listdir(f"/proc/{p.pid}/task")))
        except OSError:
            pass
        if line.startswith("^"):
            break
    dt = time.monotonic() - t1
    u1, s1 = proc_cpu(p.pid)
    io1 = proc_io_read(p.pid)
    print(f"variant={name} read={dt:.2f} cpu_user={u1 - u0:.2f} "
          f"cpu_sys={s1 - s0:.2f} threads={threads} "
          f"io_read={(io1 - io0) / 1e6:.0f}MB", flush=True)
    for c in console[-8:]:
        print("  console " + c, flush=True)
    if th:
        th.join()
        for s in samples:
            print(s, flush=True)
    p.kill()
    p.wait()


variants = [
    ("base", ["-interpreter-exec console \"maint set per-command time on\""], True),
    ("worker_threads_0", ["-interpreter-exec console \"maint set worker-threads 0\""]),
    ("auto_load_off", ["-interpreter-exec console \"set auto-load off\""]),
    ("kernel_events_none", ["-gdb-set cuda kernel_events none"]),
]
pick = os.environ.get("SOLIBPROF_VARIANTS", "").split()
for v in variants:
    if pick and v[0] not in pick:
        continue
    run(v[0], v[1], len(v) > 2 and v[2])
