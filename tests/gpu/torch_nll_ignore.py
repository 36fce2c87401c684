# PyTorch: padding labels with the wrong ignore_index.  Sequences are
# padded with label -1, but nll_loss is called with the default
# ignore_index (-100), so the -1 labels reach the kernel as class ids.
# Truth: Warp Assert in nll_loss_forward_reduce_cuda_kernel_2d, assertion
# `t >= 0 && t < n_classes` (Loss.cu), bad value t = -1 (samples 44-47,
# the padded tail of sequence 2: in the one-block kernel, whose threads
# stride over the samples, block (0,0,0) threads 12-15 for a 32-thread
# block, 44-47 for a wider one), hint
# pytorch-class-index; the user's line is the nll_loss call,
# torch_nll_ignore.py:20 in token_loss.  Plain run: RuntimeError
# "CUDA error: device-side assert triggered", exit 1.
import torch
import torch.nn.functional as F

PAD = -1


def token_loss(logits, labels):
    logp = F.log_softmax(logits, dim=-1)
    return F.nll_loss(logp.view(-1, logp.size(-1)), labels.view(-1))  # fault


def main():
    torch.manual_seed(0)
    logits = torch.randn(4, 16, 10, device="cuda")
    labels = torch.randint(0, 10, (4, 16), device="cuda")
    labels[2, 12:] = PAD  # a short sequence, padded
    print("loss", token_loss(logits, labels).item())


main()
