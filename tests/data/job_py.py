# A Python job for tests/sh/job.sh (no GPU): the launcher starts two
# workers and exits at once (they are orphans, reaped by the job's
# keeper).  Worker 1 aborts in fault() as the CUDA driver aborts a process
# after writing its GPU coredump; worker 0 runs on.  With "fork" the
# launcher forks one child instead, which aborts the same way (its Python
# stack must land in its own file, not its parent's).
import os
import subprocess
import sys
import time


def fault(rank):
    os.abort()  # job_py: the abort


def worker(rank):
    if rank == 1:
        time.sleep(0.3)
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
