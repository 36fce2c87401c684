# PyTorch: binary_cross_entropy on raw logits (the sigmoid forgotten), so
# inputs fall outside [0, 1].  Truth: Warp Assert in the BCE elementwise
# kernel (Loss.cu), assertion `input_val >= zero && input_val <= one`,
# bad value an input above 1 or below 0, hint pytorch-bce-range; the
# user's line is torch_bce.py:13 in bce_step.  Plain run: RuntimeError
# "CUDA error: device-side assert triggered", exit 1.
import torch
import torch.nn.functional as F


def bce_step(model, x, y):
    logits = model(x).squeeze(1)
    return F.binary_cross_entropy(logits, y)  # fault


def main():
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1).cuda()
    with torch.no_grad():
        model.bias.fill_(3.0)  # logits well above 1
    x = torch.randn(32, 4, device="cuda")
    y = (torch.arange(32, device="cuda") % 2).float()
    print("loss", bce_step(model, x, y).item())


main()
