# A DataLoader with two workers.
#   main:   the workers prepare batches (CPU work) while the main process
#           looks up embeddings on the GPU; batch 3 holds id 100 for a
#           table of 100 rows.  Expected with --job: the main process (the
#           command itself) wrote the coredump: Warp Assert in an
#           indexSelect kernel, "srcIndex < srcSelectDimSize".
#   worker: the workers (spawn context) use the GPU themselves; item 5
#           indexes past the end of a tensor in a worker.  Expected: a
#           worker's process (--multiprocessing-fork) wrote the coredump
#           (Warp Assert, "index out of bounds"); the DataLoader in the
#           main process reports the worker killed by SIGABRT.
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Ids(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        time.sleep(0.02)  # the workers' CPU work
        return torch.tensor(100 if i == 25 else i % 100)


class GpuItems(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        table = torch.arange(8, device="cuda")
        idx = torch.tensor([i + 3 if i == 5 else i % 8], device="cuda")
        return table[idx].cpu()  # mp_dataloader: the worker's bad index


def main_fault():
    emb = torch.nn.Embedding(100, 16).cuda()
    loader = DataLoader(Ids(), batch_size=8, num_workers=2)
    for step, ids in enumerate(loader):
        out = emb(ids.cuda())  # mp_dataloader: the main process's bad id
        print("step", step, float(out.sum()))


def worker_fault():
    loader = DataLoader(GpuItems(), batch_size=2, num_workers=2,
                        multiprocessing_context="spawn")
    for step, x in enumerate(loader):
        print("step", step, x.tolist())


if __name__ == "__main__":
    main_fault() if sys.argv[1:] != ["worker"] else worker_fault()
