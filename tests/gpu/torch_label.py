# PyTorch: a class label equal to the number of classes.  A classifier
# with 4 outputs trained on labels 1..4 (counted from 1).  Expected: Warp
# Assert in nll_loss_forward_reduce_cuda_kernel_2d, assertion
# `t >= 0 && t < n_classes` (Loss.cu), hint pytorch-class-index; with the
# memcheck report the Python call line is torch_label.py:12 in train_step,
# run from torch_label.py:24 (<module>).
import torch


def train_step(model, x, y):
    logits = model(x)
    return torch.nn.functional.cross_entropy(logits, y)


def main():
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                                torch.nn.Linear(16, 4)).cuda()
    x = torch.randn(64, 8, device="cuda")
    y = torch.arange(64, device="cuda") % 4 + 1  # labels 1..4, not 0..3
    loss = train_step(model, x, y)
    print("loss", loss.item())


main()
