#!/usr/bin/env python3
"""GPU performance ratios for docs/performance.md (needs a GPU, cuda-gdb,
compute-sanitizer; run from the repository root after `make`).

  time to the fault stop: cudbg-tui (the *stopped line reaching its
      --record file) against bare cuda-gdb driven over MI the same way
      (the *stopped line on its stdout), both from process start;
  whole diagnosis: cudbg-tui --batch --memcheck=always (memcheck pass,
      coredump opened, hints) against one bare compute-sanitizer pass,
      and against the pass exactly as cudbg-tui runs it (with
      --generate-coredump: the floor of the diagnosis);
  phases of the diagnosis (CUDBG_TIMING=1, medians, seconds from the
      start): the debugger starts with the pass and is ready during it,
      so after the pass only the core open, the report and the exit remain.

Each measure is the median of RUNS runs (1 for Python programs), and one
line per measure is printed:
  measure=NAME value=X unit=s ref=Y ratio=R
and one "phases_NAME k=v ..." line.
Usage: tests/gpu/perf.py BIN PROG [ARGS...]   (env RUNS, default 3)
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

BIN, PROG = sys.argv[1], sys.argv[2:]
RUNS = int(os.environ.get("RUNS", "1" if PROG[0].startswith("python") else "3"))
NAME = os.path.basename(PROG[-1] if PROG[0].startswith("python") else PROG[0])


def bare_gdb_stop():
    t0 = time.monotonic()
    p = subprocess.Popen(["cuda-gdb", "--interpreter=mi3", "--nx", "-q",
                          "--args"] + PROG, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, start_new_session=True)
    p.stdin.write("-gdb-set mi-async on\n-exec-run\n")
    p.stdin.flush()
    t = None
    for line in p.stdout:
        if line.startswith("*stopped"):
            t = time.monotonic() - t0
            break
    p.kill()
    p.wait()
    return t


def ours_stop():
    d = tempfile.mkdtemp()
    rec = os.path.join(d, "r.mi.log")
    t0 = time.monotonic()
    p = subprocess.Popen([BIN, "--batch", "--memcheck=never", "--record", rec]
                         + PROG, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    t = None
    while p.poll() is None and t is None:
        try:
            with open(rec) as f:
                if "*stopped" in f.read():
                    t = time.monotonic() - t0
        except OSError:
            pass
        time.sleep(0.002)
    p.wait()
    return t


def timed(cmd, env=None):
    t0 = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=env)
    return time.monotonic() - t0


def median(fn):
    vals = [v for v in (fn() for _ in range(RUNS)) if v is not None]
    return statistics.median(vals) if vals else float("nan")


env = dict(os.environ)
if PROG[0].startswith("python"):
    env["PYTORCH_NO_CUDA_MEMORY_CACHING"] = "1"
ref = median(bare_gdb_stop)
val = median(ours_stop)
print(f"measure=time_to_fault_stop_{NAME} value={val:.3f} unit=s "
      f"ref={ref:.3f} ratio={val / ref:.3f} runs={RUNS}")
tmp = tempfile.mkdtemp()
xml = os.path.join(tmp, "r.xml")
ref = median(lambda: timed(["compute-sanitizer", "--tool", "memcheck",
                            "--xml", "--save", xml] + PROG, env))
core = os.path.join(tmp, "c.nvcudmp")
floor = median(lambda: timed(["compute-sanitizer", "--tool", "memcheck",
                              "--xml", "--save", xml, "--generate-coredump",
                              "--coredump-name", core, "--print-limit",
                              "100"] + PROG, env))
phases = []


def ours_diagnosis():
    t0 = time.monotonic()
    p = subprocess.run([BIN, "--batch", "--memcheck=always"] + PROG,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, env=dict(os.environ, CUDBG_TIMING="1"))
    t = time.monotonic() - t0
    for line in p.stderr.splitlines():
        if line.startswith("cudbg-tui timing:"):
            phases.append(dict(kv.split("=", 1) for kv in line.split()[2:]))
    return t


val = median(ours_diagnosis)
print(f"measure=diagnosis_vs_sanitizer_{NAME} value={val:.3f} unit=s "
      f"ref={ref:.3f} ratio={val / ref:.3f} runs={RUNS}")
print(f"measure=diagnosis_vs_pass_with_coredump_{NAME} value={val:.3f} "
      f"unit=s ref={floor:.3f} ratio={val / floor:.3f} runs={RUNS}")


def phase(key):
    vals = [float(p[key]) for p in phases if p.get(key, "-") != "-"]
    return statistics.median(vals) if vals else float("nan")


keys = ["debugger_started", "pass_start", "debugger_ready", "pass_end",
        "stop", "diagnosis", "report", "end"]
med = {k: phase(k) for k in keys}
after = med["end"] - med["pass_end"]
print(f"measure=after_pass_{NAME} value={after:.3f} unit=s "
      f"ref={med['pass_end'] - med['pass_start']:.3f} "
      f"ratio={after / (med['pass_end'] - med['pass_start']):.3f} "
      f"runs={RUNS}")
print(f"phases_{NAME} " + " ".join(f"{k}={med[k]:.3f}" for k in keys) +
      f" core_open={med['stop'] - med['pass_end']:.3f}"
      f" exit={med['end'] - med['report']:.3f}"
      f" core={','.join(p.get('core', '?') for p in phases)}")
