# torchrun --standalone --nproc_per_node=2 mp_torchrun.py: two processes on
# one GPU with a gloo process group (NCCL refuses two ranks on one GPU).
# Rank 1 indexes past the end of a tensor; rank 0 waits for it in a
# barrier that never completes.  Expected with --job: the process with
# RANK=1 (LOCAL_RANK=1) wrote the coredump (Warp Assert, "index out of
# bounds"); torchrun's agent stops rank 0 itself (no grace stop needed).
import os

import torch
import torch.distributed as dist


def lookup(table, idx):
    return table[idx]  # mp_torchrun: the bad index


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.cuda.set_device(0)
    if rank == 1:
        table = torch.arange(10, device="cuda")
        idx = torch.tensor([int(os.environ.get("BAD_INDEX", "12"))], device="cuda")
        print("rank 1:", lookup(table, idx).item())
    dist.barrier()
    print("rank", rank, "done")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
