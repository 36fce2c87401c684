# PyTorch: advanced indexing with an index past the end.  Expected: Warp
# Assert in an indexing kernel (index_elementwise_kernel or
# vectorized_gather_kernel), assertion `index >= -sizes[i] && index <
# sizes[i] && "index out of bounds"` or `ind >=0 && ind < ind_dim_size`;
# the live Python stack names torch_index.py:11 in pick and the bad value
# index 12 at idx[2] (the dimension has 10 entries).
import torch


def pick(scores, idx):
    return scores[idx]


def main():
    scores = torch.randn(10, device="cuda")
    idx = torch.tensor([1, 3, 12, 5], device="cuda")
    out = pick(scores, idx)
    print("sum", out.sum().item())


main()
