# A Python job whose worker dies of SIGSEGV and is reaped by its own
# parent (multiprocessing, as a DataLoader worker is), for tests/sh/job.sh:
# --job never sees the worker's status, only its fatal-error report
# (faulthandler through the job's sitecustomize).  Expected: the worker
# is "killed by SIGSEGV (its report)", the faulting process, with its
# Python line job_reaped.py:12.
import ctypes
import multiprocessing as mp


def work():
    ctypes.string_at(0)


if __name__ == "__main__":
    ctx = mp.get_context("fork")
    p = ctx.Process(target=work)
    p.start()
    p.join()
    print("worker exitcode", p.exitcode, flush=True)
    raise SystemExit(1)
