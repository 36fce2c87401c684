# PyTorch: sampling from probabilities with a NaN (an overflowed logit).
# Expected: either PyTorch's host check ("probability tensor contains
# either `inf`, `nan` or element < 0", hint pytorch-multinomial-host) or,
# on the kernel path (replacement, several samples), a device assert in a
# multinomial kernel (hint pytorch-multinomial) where the live Python stack
# names torch_multinomial.py:12 in sample and the bad value probs[1, 3].
import torch


def sample(probs):
    # several samples with replacement: the kernel path
    return torch.multinomial(probs, 5, replacement=True)


def main():
    logits = torch.randn(4, 10, device="cuda")
    probs = torch.softmax(logits, dim=-1)
    probs[1, 3] = float("nan")
    print("sum", sample(probs).sum().item())


main()
