# PyTorch: a custom CUDA extension (load_inline, built at run time with
# -lineinfo; needs ninja and nvcc, TORCH_EXTENSIONS_DIR caches it) scatters
# rows by index without a bounds check; idx[300] = -(1<<40) (block 2,
# thread 44 of 128) writes 4 TiB before the output.  Seen on the H200 (run
# 2, tests/fixtures/gpu/run2/reports): plain run "an illegal memory access
# was encountered" at torch.cuda.synchronize() (line 50), exit 1 (no
# ninja: exit 3).  Under cuda-gdb the write did not fault (nor in run 1):
# it printed 511.0 and exited 0.  memcheck: invalid __global__ write of
# size 4 by block (2,0,0) thread (44,0,0) at cuda.cu:9 (6 of SOURCE plus
# load_inline's three #include lines), 4,398,046,504,960 bytes before the
# nearest allocation; the user's line is torch_extension.py:49 in scatter.
# The driver's coredump: "CUDA Exception: Warp Illegal Address" at a PC in
# scatter_rows_kernel (cuda.cu:9); cuda-gdb 13.0 aborted while opening it
# (internal std::out_of_range).  compute-sanitizer's coredump stops thread
# (44,0,0) of block (2,0,0) at cuda.cu:9.
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
