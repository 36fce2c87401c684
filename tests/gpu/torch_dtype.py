# PyTorch: mixed precision by hand, a half activation met a float weight.
# Expected: no device stop; the program fails with PyTorch's error naming
# both types ("expected m1 and m2 to have the same dtype, but got:
# c10::Half != float" or "expected scalar type ..."), hint dtype-mismatch
# with that text as its evidence.
import torch


def forward(w, x):
    return x @ w  # x is half, w is float32: matmul refuses mixed dtypes


def main():
    w = torch.randn(16, 4, device="cuda")
    x = torch.randn(8, 16, device="cuda").half()
    print("sum", forward(w, x).sum().item())


main()
