# PyTorch: advanced indexing with an index at the size of the dimension.
# A lookup table of 10 rows indexed with bucket ids computed by
# floor(x * 10) for x in [0, 1], so x = 1.0 gives bucket 10.  Truth: Warp
# Assert in PyTorch's indexing kernel (index_elementwise_kernel or
# vectorized_gather_kernel) with `index out of bounds` in the assertion,
# bad value 10 for a size of 10, hint pytorch-advanced-index; the user's
# line is torch_adv_index.py:14 in bucketize.  Plain run: RuntimeError
# "CUDA error: device-side assert triggered", exit 1.
import torch


def bucketize(table, x):
    ids = (x * 10).floor().long()
    return table[ids]  # fault


def main():
    table = torch.randn(10, 4, device="cuda")
    x = torch.linspace(0, 1, 101, device="cuda")  # ends with exactly 1.0
    print(bucketize(table, x).sum().item())


main()
