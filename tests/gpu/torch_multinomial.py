# PyTorch: multinomial sampling with NaN probabilities.  Sampling the next
# token at temperature 0 divides the logits by 0: 0/0 gives NaN for the
# zero logits; PyTorch 2.11 checks the weights on the device (H200).
# Truth: CUDA_EXCEPTION_12 Warp Assert in `_assert_async_cuda_kernel`,
# thread (0,0,0) of block (0,0,0), assertion "probability tensor contains
# either `inf`, `nan` or element < 0" at ATen's TensorCompare.cu:109, from
# torch.multinomial at torch_multinomial.py:14 in sample, hint
# pytorch-multinomial.  Plain run: that assertion, exit 1.
import torch


def sample(logits, temperature):
    probs = torch.softmax(logits / temperature, dim=-1)
    return torch.multinomial(probs, 1)  # fault


def main():
    logits = torch.zeros(4, 50, device="cuda")
    logits[:, 7] = 2.0
    print(sample(logits, 0.0).view(-1).tolist())


main()
