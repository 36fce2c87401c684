// A read one element past the end that the hardware does not catch: a
// 3-point stencil whose last thread reads in[n].  The plain run and the
// cuda-gdb run both end normally ("sync: no error", exit 0); only the
// memcheck pass sees it: Invalid __global__ read of size 4, thread
// (99,0,0) of block (1,0,0) (i = 199 = n - 1), just past the end of an
// allocation of 800 bytes, at off_by_one.cu:13; hint san-oob-after.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void smooth(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n)
        out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0f;  // in[n] when i == n-1
}

int main() {
    const int n = 200;
    float *in, *out;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    cudaMemset(in, 0, n * sizeof(float));
    smooth<<<2, 100>>>(in, out, n);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
