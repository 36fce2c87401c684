# PyTorch: multinomial sampling with NaN probabilities.  Sampling the next
# token at temperature 0 divides the logits by 0: 0/0 gives NaN for the
# zero logits, and softmax spreads NaN over the whole row.  PyTorch checks
# one-sample draws on the host: no GPU fault, no kernel stops.  Truth: a
# host-side RuntimeError "probability tensor contains either `inf`, `nan`
# or element < 0" raised by torch.multinomial at torch_multinomial.py:14
# in sample, no device stop and no coredump, hint
# pytorch-multinomial-host.  Plain run: that RuntimeError, exit 1.
import torch


def sample(logits, temperature):
    probs = torch.softmax(logits / temperature, dim=-1)
    return torch.multinomial(probs, 1)  # fault


def main():
    logits = torch.zeros(4, 50, device="cuda")
    logits[:, 7] = 2.0
    print(sample(logits, 0.0).view(-1).tolist())


main()
