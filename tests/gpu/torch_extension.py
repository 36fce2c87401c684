# PyTorch: a custom CUDA extension with an out-of-bounds write.  The
# extension (torch.utils.cpp_extension.load_inline, compiled at run time
# with -lineinfo; needs ninja and nvcc, and TORCH_EXTENSIONS_DIR says
# where it is cached) scatters rows into an output by index without a
# bounds check; idx[300] = -(1<<40) (block 2, thread 44 of 128) writes
# 4 TiB before the output, far from any mapping.  Run 1 used 1<<30 (4 GiB
# past): the plain run got "Warp Invalid Address Space" and under cuda-gdb
# the address was mapped (exit 0), so this version is UNVERIFIED until the
# next GPU run.  Truth: CUDA_EXCEPTION_14 Warp Illegal Address in
# `scatter_rows_kernel` at line 9 of cuda.cu (6 of SOURCE plus load_inline's
# three #include lines; the hardware does not name the lane), culprit
# block (2,0,0) thread (44,0,0), bad value idx[300] = -1099511627776;
# memcheck: invalid __global__ write of size 4 by that thread (san-oob or
# san-oob-before); the user's Python line is torch_extension.py:49 in
# scatter.  Plain run: illegal memory access, exit 1 (no ninja: exit 3).
import sys

import torch
import torch.utils.cpp_extension as ext

SOURCE = r"""
#include <torch/extension.h>
__global__ void scatter_rows_kernel(const float *src, const long *idx, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[idx[i]] = src[i];
}
torch::Tensor scatter_rows(torch::Tensor src, torch::Tensor idx, int64_t size) {
    auto out = torch::zeros({size}, src.options());
    int n = src.numel();
    scatter_rows_kernel<<<(n + 127) / 128, 128>>>(src.data_ptr<float>(),
        idx.data_ptr<long>(), out.data_ptr<float>(), n);
    return out;
}
"""
DECL = "torch::Tensor scatter_rows(torch::Tensor src, torch::Tensor idx, int64_t size);"


def build():
    if not ext.is_ninja_available():
        print("MISSING: ninja (load_inline needs it to build the extension: "
              "pip install ninja)", flush=True)
        sys.exit(3)
    return ext.load_inline("cudbg_scatter_ext", cpp_sources=DECL, cuda_sources=SOURCE,
                           functions=["scatter_rows"], extra_cuda_cflags=["-lineinfo"])


def scatter(mod, src, idx, size):
    out = mod.scatter_rows(src, idx, size)  # fault
    torch.cuda.synchronize()
    return out


def main():
    mod = build()
    src = torch.ones(512, device="cuda")
    idx = torch.arange(512, device="cuda")
    idx[300] = -(1 << 40)
    print(scatter(mod, src, idx, 512).sum().item())


main()
