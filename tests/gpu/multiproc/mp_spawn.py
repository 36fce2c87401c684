# torch.multiprocessing.spawn of two workers on one GPU; worker 1 indexes
# past the end of a tensor (index 12 of 10 elements) while worker 0 keeps
# the GPU busy.  Expected with --job: worker 1's process (its command line
# ends in --multiprocessing-fork; spawn sets no rank variable) wrote the
# coredump; a Warp Assert in an index kernel, assertion "index out of
# bounds" (IndexKernel.cu); the parent ended with exit 1 after spawn
# reported worker 1 killed by SIGABRT.
import time

import torch
import torch.multiprocessing as mp


def busy(seconds):
    a = torch.randn(512, 512, device="cuda")
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        a = (a @ a).tanh()
    torch.cuda.synchronize()


def lookup(table, idx):
    return table[idx]  # mp_spawn: the bad index


def worker(rank):
    if rank == 1:
        time.sleep(1.0)
        table = torch.arange(10, device="cuda")
        idx = torch.tensor([12], device="cuda")
        print("worker 1:", lookup(table, idx).item())
    else:
        busy(6.0)
        print("worker 0 done")


if __name__ == "__main__":
    mp.spawn(worker, nprocs=2)
