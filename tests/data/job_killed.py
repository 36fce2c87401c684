# A Python job whose worker is killed by SIGKILL (as the OOM killer kills
# a DataLoader worker) and whose other workers end by _exit(), as every
# multiprocessing child does; the parent reaps them all (Process.join),
# for tests/sh/job_deaths.sh.  Expected: the worker "killed by SIGKILL",
# "1 killed", the others "exited 0 (its parent's wait)", none "ended
# unseen": the death reporter in the parent wrote what its wait saw.
import multiprocessing as mp
import os
import signal
import time


def work(i):
    if i == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.2)


if __name__ == "__main__":
    ctx = mp.get_context("fork")
    ps = [ctx.Process(target=work, args=(i,)) for i in range(3)]
    for p in ps:
        p.start()
    for p in ps:
        p.join()
    print("exit codes", [p.exitcode for p in ps], flush=True)
