# torchrun --standalone --nproc_per_node=2 mp_ddp.py: a DistributedDataParallel
# training step on one GPU with a gloo process group (NCCL refuses two
# ranks on one GPU; run 29 kept its words in tests/fixtures/gpu/run29).
# Rank 1's batch holds the label 12 for 10 classes: its loss asserts in
# nll_loss; rank 0 goes on to backward(), where DDP's gradient all-reduce
# waits for rank 1.  Expected with --job: rank 1 (RANK=1) wrote the
# coredump (the nll_loss assert, loss line 20); rank 0 is stopped by
# torchrun's agent while it waits in the all-reduce of backward() (line 21).
import datetime
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


def train_step(model, opt, x, y):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)  # mp_ddp: rank 1's bad label
    loss.backward()  # mp_ddp: DDP's all-reduce
    opt.step()
    return loss


def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
    rank = dist.get_rank()
    torch.cuda.set_device(0)
    torch.manual_seed(0)
    model = DDP(torch.nn.Linear(16, 10).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(8, 16, device="cuda")
    y = torch.randint(0, 10, (8,), device="cuda")
    if rank == 1:
        y[5] = int(os.environ.get("BAD_LABEL", "12"))
    print("rank", rank, "loss", train_step(model, opt, x, y).item())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
