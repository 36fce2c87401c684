# PyTorch: scatter_ with an index past the dimension.  One-hot encoding
# of labels 1..5 into 5 columns (labels counted from 1).  Truth: Warp
# Assert in the scatter/gather kernel (ScatterGatherKernel.cu), assertion
# `idx_dim >= 0 && idx_dim < index_size && "index out of bounds"`, bad
# value 5 for size 5, hint pytorch-scatter-gather; the user's line is
# torch_scatter.py:13 in one_hot.  Plain run: RuntimeError "CUDA error:
# device-side assert triggered", exit 1.
import torch


def one_hot(labels, n):
    out = torch.zeros(labels.numel(), n, device=labels.device)
    out.scatter_(1, labels.view(-1, 1), 1.0)  # fault
    return out


def main():
    labels = torch.arange(40, device="cuda") % 5 + 1  # 1..5, not 0..4
    print(one_hot(labels, 5).sum().item())


main()
