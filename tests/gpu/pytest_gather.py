# A PyTorch device assert under pytest, which captures file descriptor 2:
# the assertion's printed line goes to pytest's capture, not the terminal.
# The gather index 12 is out of range for a dimension of 10.  The report
# must still name the assert (kernel + operator: the gather rule) and the
# test's line (issue 28 item 4).  Run as pytest runs it: this file is the
# test module, pytest.main() its entry.
import sys

import pytest
import torch


def test_gather_labels():
    logits = torch.randn(4, 10, device="cuda")
    idx = torch.tensor([[1], [2], [12], [3]], device="cuda")
    picked = torch.gather(logits, 1, idx)
    torch.cuda.synchronize()
    assert picked.shape == (4, 1)


if __name__ == "__main__":
    sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", __file__]))
