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


def stop(sets, env=None, after=(), limit=120):
    """Time to the fault's *stopped record; then the AFTER commands run
    one by one at the stop, their time added (what a variant that defers
    work to the stop pays there).  Returns (seconds, errors, notes)."""
    t0 = time.monotonic()
    p = subprocess.Popen(["cuda-gdb", "--interpreter=mi3", "--nx", "-q",
                          "--args"] + PROG, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, start_new_session=True,
                         env=dict(os.environ, **(env or {})))
    for s in ["-gdb-set mi-async on"] + sets + ["-exec-run"]:
        p.stdin.write(s + "\n")
    p.stdin.flush()
    t, errs, notes = None, [], []
    for line in p.stdout:
        if line.startswith("^error"):
            errs.append(line.strip()[:120])
        if line.startswith("*stopped"):
            t = time.monotonic() - t0
            break
        if time.monotonic() - t0 > limit:
            break
    if t is not None and after:
        # the commands' answers: count the host frames that name an ATen
        # operator and whether the interpreter's symbol is known
        for cmd in after:
            p.stdin.write(cmd + "\n")
            p.stdin.flush()
            for line in p.stdout:
                if line.startswith("^"):
                    if line.startswith("^done,stack="):
                        notes.append("frames=%d" % line.count("frame={"))
                    if "at::_ops::" in line or "at::native::" in line:
                        notes.append("aten_frames=%d" % line.count("at::_ops::"))
                    if line.startswith("^done,value="):
                        notes.append("value=" + line[12:40].strip())
                    if line.startswith("^error"):
                        notes.append("error=" + line.strip()[:80])
                    break
                if time.monotonic() - t0 > limit:
                    break
        t = time.monotonic() - t0
    p.kill()
    p.wait()
    return t, errs, notes


base = plain()
print(f"variant=plain stop={base:.2f} ratio=1.00", flush=True)
cache = tempfile.mkdtemp()
lb = "-gdb-set cuda launch_blocking on"
# at the stop: the host stack (operator) and the interpreter (Python stack)
AT_STOP = ["-stack-list-frames --thread 1",
           '-data-evaluate-expression --thread 1 "(long)&Py_IsInitialized"']
# only the libraries those need (include/cudbg/session.h,
# SESSION_HOST_LIBS), or every library, at the stop
LOAD = ('-interpreter-exec console "sharedlibrary '
        'libpython\\\\|libtorch\\\\|libc10\\\\|libcuda\\\\.\\\\|libcudart"')
LOAD_ALL = '-interpreter-exec console "sharedlibrary"'
# the list without torch's CUDA library, and that library alone: which
# part of the load costs, and whether the stack is walked without it
LOAD_NO_CUDA = ('-interpreter-exec console "sharedlibrary '
                'libpython\\\\|libtorch_cpu\\\\|libtorch_python\\\\|libc10'
                '\\\\|libcuda\\\\.\\\\|libcudart"')
LOAD_TORCH_CUDA = '-interpreter-exec console "sharedlibrary libtorch_cuda"'
LOAD_TORCH_CPU = '-interpreter-exec console "sharedlibrary libtorch_cpu"'
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
    # what the report needs at the stop, with every library's symbols
    # loaded at start (today) and with them loaded only at the stop
    ("default_then_stack", [lb], None, AT_STOP),
    ("no_solib_then_load", [lb, "-gdb-set auto-solib-add off"], None,
     [LOAD] + AT_STOP),
    ("no_solib_then_all", [lb, "-gdb-set auto-solib-add off"], None,
     [LOAD_ALL] + AT_STOP),
    ("no_solib_then_no_cuda", [lb, "-gdb-set auto-solib-add off"], None,
     [LOAD_NO_CUDA] + AT_STOP),
    ("no_solib_then_torch_cuda", [lb, "-gdb-set auto-solib-add off"], None,
     [LOAD_TORCH_CUDA]),
    ("no_solib_then_torch_cpu", [lb, "-gdb-set auto-solib-add off"], None,
     [LOAD_TORCH_CPU]),
]
pick = os.environ.get("PYSPEED_VARIANTS", "").split()
for v in variants:
    name, sets, env = v[:3]
    after = v[3] if len(v) > 3 else ()
    if pick and name not in pick:
        continue
    t, errs, notes = stop(sets, env, after)
    ts = f"{t:.2f}" if t else "none"
    r = f"{t / base:.2f}" if t else "-"
    print(f"variant={name} stop={ts} ratio={r}" +
          (f" notes={' '.join(notes)}" if notes else "") +
          (f" errors={errs}" if errs else ""), flush=True)
shutil.rmtree(cache, ignore_errors=True)
