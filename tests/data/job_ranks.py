# A job of two ranks for tests/sh/job_others.sh: the launcher starts
# itself twice with RANK set; rank 1 dies of SIGSEGV, rank 0 waits for it
# in a "collective" that never completes, as a DDP rank waits in an
# all-reduce for a dead peer.  Expected with --job: rank 1 is the
# faulting process (its line marked "rank 1's fault"); rank 0, stopped
# after the grace period, printed its stack at SIGTERM: in wait_for_peers
# ("the wait"), from your line in train ("rank 0's collective").  Rank 1
# faults only once rank 0 waits (a file in the job's directory): a rank
# still starting when the grace period ends prints no stack.
import ctypes
import os
import subprocess
import sys
import time
READY = os.path.join(os.environ.get("CUDBG_JOB_DIR", "."), "job_ranks.rank0")


def bad_step():
    time.sleep(0.3); [time.sleep(0.05) for _ in range(400) if not os.path.exists(READY)]
    ctypes.string_at(0)  # job_ranks: rank 1's fault


def wait_for_peers():
    open(READY, "w").close()  # rank 1 faults once rank 0 waits (slow start-ups)
    if os.environ.get("COLLECTIVE_TEXT"):
        sys.stderr.write(os.environ["COLLECTIVE_TEXT"] + "\n"); sys.stderr.flush()
    while True:
        time.sleep(0.05)  # job_ranks: the wait


def train():
    wait_for_peers()  # job_ranks: rank 0's collective


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "rank":
        bad_step() if os.environ["RANK"] == "1" else train()
        sys.exit(0)
    ranks = [subprocess.Popen([sys.executable, __file__, "rank"],
                              env=dict(os.environ, RANK=str(r)))
             for r in range(2)]
    # a launcher's monitor loop: it polls its ranks and never ends on its
    # own (an exit racing our SIGTERM would print no stack).  One line, no
    # comprehension: a SIGTERM that lands in the polls (in subprocess.py,
    # or a list comprehension's own frame) still has this line of
    # <module> as the user's, as one in the sleep has.  (A launcher with
    # no stack at all was the job's double SIGTERM: diag/job.c
    # signal_job.)
    while True:
        time.sleep(0.05); ranks[0].poll(); ranks[1].poll()  # job_ranks: the launcher's loop
