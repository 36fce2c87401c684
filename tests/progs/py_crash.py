# The live Python stack test (tests/sh/python_live.sh): a script whose
# "loss" crashes the process in C, with tensor-like locals (host memory)
# so that the bad value is read the way a CUDA tensor's is.  It prints a
# PyTorch class-index assert line first, which makes the diagnosis look
# for the bad label.  Expected: the report names py_crash.py:41 in
# train_step, run from py_crash.py:60, and "labels[5] = 4, the model has
# 4 classes".
import ctypes
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "pylib", "site-packages"))
import fakeloss  # noqa: E402


class Tensor:
    """Duck-typed like torch.Tensor: shape, stride(), dtype, device,
    data_ptr(), element_size(); its data lives in host memory."""

    def __init__(self, values, shape, dtype, ctype):
        self._buf = (ctype * len(values))(*values)
        self.shape, self.dtype, self.device = shape, dtype, "cpu"
        strides, step = [], 1
        for n in reversed(shape):
            strides.insert(0, step)
            step *= n
        self._strides = tuple(strides)

    def stride(self):
        return self._strides

    def data_ptr(self):
        return ctypes.addressof(self._buf)

    def element_size(self):
        return ctypes.sizeof(self._buf._type_)


def train_step(logits, labels):
    return fakeloss.nll_loss(logits, labels)


def pause_here(n):
    # PY_CRASH_MODE=break: a C function no interpreter start-up calls, for
    # `--break labs` (a breakpoint stop in a Python program).
    return ctypes.CDLL(None).labs(n)


def main():
    if os.environ.get("PY_CRASH_MODE") == "break":
        print("labs", pause_here(-7))
        return
    logits = Tensor([0.5] * 32, (8, 4), "torch.float32", ctypes.c_float)
    labels = Tensor([0, 1, 2, 3, 0, 4, 1, 2], (8,), "torch.int64", ctypes.c_int64)
    print("/src/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.", flush=True)
    train_step(logits, labels)


main()
