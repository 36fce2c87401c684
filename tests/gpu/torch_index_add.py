# PyTorch: index_add_ with a destination row past the end.  Summing
# per-token gradients into a 64-row table with token ids from a batch that
# contains id 64.  Truth: Warp Assert in the index_add kernel
# (indexFuncSmallIndex or indexFuncLargeIndex, Indexing.cu), assertion
# `dstIndex < dstAddDimSize`, bad value 64 for 64 rows, hint
# pytorch-index-select (the rule for the index kernels); the user's line
# is torch_index_add.py:13 in accumulate.  Plain run: RuntimeError
# "CUDA error: device-side assert triggered", exit 1.
import torch


def accumulate(table, ids, grads):
    table.index_add_(0, ids, grads)  # fault
    return table


def main():
    table = torch.zeros(64, 8, device="cuda")
    ids = torch.arange(100, device="cuda") % 64
    ids[77] = 64
    grads = torch.ones(100, 8, device="cuda")
    print(accumulate(table, ids, grads).sum().item())


main()
