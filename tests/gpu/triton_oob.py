# Triton (JIT): scale_rows reads row `pid` with a stride bug (the row
# length in elements used as bytes x4), so the last rows read far past the
# tensor.  Triton's line info points into this file (the tl.load line);
# the launch line is main's scale_rows[...] call, which no device frame
# holds (issue 28 item 1: read from the host's Python stack, or from the
# program's own traceback after it runs on).
import torch
import triton
import triton.language as tl


@triton.jit
def scale_rows(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + pid * stride * 4096 + cols, mask=mask)
    tl.store(y_ptr + pid * n_cols + cols, x * 2.0, mask=mask)


def main():
    rows, n = 4096, 256
    x = torch.randn(rows, n, device="cuda")
    y = torch.empty_like(x)
    scale_rows[(rows,)](x, y, n, x.stride(0), BLOCK=256)
    torch.cuda.synchronize()
    print("sum", y.sum().item())


main()
