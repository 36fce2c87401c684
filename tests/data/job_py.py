# A Python job for tests/sh/job.sh (no GPU): the launcher starts two
# workers and exits at once (they are orphans, reaped by the job's
# keeper).  Worker 1 aborts in fault() as the CUDA driver aborts a process
# after writing its GPU coredump; worker 0 runs on.  With "fork" the
# launcher forks one child instead, which aborts the same way (its Python
# stack must land in its own file, not its parent's).
#
# Standing in for the driver as tests/progs/job_tree.c does: with
# CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 and JOB_PY_CORE=1 a gdb attached to
# the faulting worker writes its core (CUDA_COREDUMP_FILE, %p its pid) at
# the SIGABRT, then lets the signal through.
import os
import subprocess
import sys
import time


def arm_coredump():
    pattern = os.environ.get("CUDA_COREDUMP_FILE")
    if (os.environ.get("CUDA_ENABLE_COREDUMP_ON_EXCEPTION") != "1" or
            not pattern or os.environ.get("JOB_PY_CORE") != "1"):
        return
    path = pattern.replace("%p", str(os.getpid()))
    subprocess.Popen(["gdb", "-nx", "-batch", "-p", str(os.getpid()),
                      "-ex", "continue", "-ex", "gcore " + path,
                      "-ex", "signal SIGABRT"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(1000):
        with open("/proc/self/status") as f:
            if any(l.startswith("TracerPid:") and l.split()[1] != "0"
                   for l in f):
                return
        time.sleep(0.01)


def fault(rank):
    os.abort()  # job_py: the abort


def worker(rank):
    if rank == 1:
        time.sleep(0.3)
        arm_coredump()
        fault(rank)
    time.sleep(0.8)
    print("worker", rank, "done", flush=True)


def main():
    if sys.argv[1:2] == ["worker"]:
        worker(int(sys.argv[2]))
    elif sys.argv[1:2] == ["fork"]:
        if os.fork() == 0:
            time.sleep(0.3)
            fault(7)
    else:
        for rank in (0, 1):
            env = dict(os.environ, RANK=str(rank))
            subprocess.Popen([sys.executable, __file__, "worker", str(rank)],
                             env=env)


main()
