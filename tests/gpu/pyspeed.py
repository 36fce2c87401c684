#!/usr/bin/env python3
"""Where a PyTorch program's time under cuda-gdb goes (issue 11's speed
target): the time from process start to the fault's *stopped record of
bare cuda-gdb driven over MI, under debugger settings and environments
that might shorten it, against the program's plain run.

Each variant is one line:
  variant=NAME stop=S ratio=R (R = S / plain)
Usage: tests/gpu/pyspeed.py PROG.py   (from its directory; needs cuda-gdb
and PyTorch; PYSPEED_VARIANTS="NAME ..." runs only those)."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

PROG = ["python3", sys.argv[1]]


def plain():
    t0 = time.monotonic()
    subprocess.run(PROG, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=dict(os.environ, CUDA_LAUNCH_BLOCKING="1"))
    return time.monotonic() - t0


def stop(sets, env=None, limit=120):
    t0 = time.monotonic()
    p = subprocess.Popen(["cuda-gdb", "--interpreter=mi3", "--nx", "-q",
                          "--args"] + PROG, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, start_new_session=True,
                         env=dict(os.environ, **(env or {})))
    for s in ["-gdb-set mi-async on"] + sets + ["-exec-run"]:
        p.stdin.write(s + "\n")
    p.stdin.flush()
    t, errs = None, []
    for line in p.stdout:
        if line.startswith("^error"):
            errs.append(line.strip()[:120])
        if line.startswith("*stopped"):
            t = time.monotonic() - t0
            break
        if time.monotonic() - t0 > limit:
            break
    p.kill()
    p.wait()
    return t, errs


base = plain()
print(f"variant=plain stop={base:.2f} ratio=1.00", flush=True)
cache = tempfile.mkdtemp()
lb = "-gdb-set cuda launch_blocking on"
variants = [
    ("default", [], None),
    ("launch_blocking", [lb], None),
    ("no_solib_symbols", [lb, "-gdb-set auto-solib-add off"], None),
    ("index_cache_cold", [lb, "-gdb-set index-cache directory " + cache,
                          "-gdb-set index-cache enabled on"], None),
    ("index_cache_warm", [lb, "-gdb-set index-cache directory " + cache,
                          "-gdb-set index-cache enabled on"], None),
    ("module_loading_eager", [lb], {"CUDA_MODULE_LOADING": "EAGER"}),
    ("module_loading_lazy", [lb], {"CUDA_MODULE_LOADING": "LAZY"}),
    ("no_debuginfod", [lb, "-gdb-set debuginfod enabled off"], None),
    ("kernel_events_none", [lb, "-gdb-set cuda kernel_events none"], None),
    ("no_demangle_index", [lb, "-gdb-set max-completions 0",
                           "-gdb-set print demangle off"], None),
]
pick = os.environ.get("PYSPEED_VARIANTS", "").split()
for name, sets, env in variants:
    if pick and name not in pick:
        continue
    t, errs = stop(sets, env)
    ts = f"{t:.2f}" if t else "none"
    r = f"{t / base:.2f}" if t else "-"
    print(f"variant={name} stop={ts} ratio={r}" +
          (f" errors={errs}" if errs else ""), flush=True)
shutil.rmtree(cache, ignore_errors=True)
