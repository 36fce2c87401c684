# CuPy RawKernel (NVRTC): no line info at all.  One thread stores through
# a wild index; cuda-gdb reported Warp Invalid Address Space
# (CUDA_EXCEPTION_7) for such a store.  The launch line is main's
# kernel(...) call
# (issue 28 item 1).  Built by CuPy at run time, as users' kernels are.
import cupy as cp

src = r'''
extern "C" __global__ void poke(float *out, const int *idx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[idx[i]] = 1.0f;
}
'''


def main():
    n = 128
    poke = cp.RawKernel(src, "poke")
    idx = cp.arange(n, dtype=cp.int32)
    idx[77] = 1 << 30
    out = cp.zeros(n, dtype=cp.float32)
    poke((1,), (n,), (out, idx, cp.int32(n)))
    cp.cuda.runtime.deviceSynchronize()
    print("sum", float(out.sum()))


main()
