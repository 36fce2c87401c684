# PyTorch: binary_cross_entropy given a raw score instead of a
# probability.  Expected: Warp Assert in the BCE kernel, assertion
# `input_val >= zero && input_val <= one` (Loss.cu), hint pytorch-bce-range;
# the live Python stack names torch_bce.py:12 in loss_fn and the bad value
# pred[7] = 1.5.
import torch
import torch.nn.functional as F


def loss_fn(pred, target):
    # pred should have gone through a sigmoid
    return F.binary_cross_entropy(pred, target)


def main():
    pred = torch.rand(32, device="cuda")
    pred[7] = 1.5  # a raw score, not a probability
    target = torch.ones(32, device="cuda")
    loss = loss_fn(pred, target)
    print("loss", loss.item())


main()
