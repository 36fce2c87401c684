// An uninitialised global read (for initcheck): accumulators for n values
// plus one running-total slot are allocated (n + 1 floats) but only n are
// cleared, so the thread for the total (i = n = 1024: block (4,0,0)
// thread (0,0,0)) adds into memory nothing ever wrote.  No fault: plain
// and live runs end normally (exit 0).  Truth (initcheck): Uninitialized
// __global__ memory read of size 4 by thread (0,0,0) of block (4,0,0) in
// `accumulate` at uninit_read.cu:15, hint san-uninit.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void accumulate(const float *x, float *acc, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > n) return;
    float add = (i < n) ? x[i] : 1.0f;
    acc[i] = acc[i] + add; // fault
}

int main() {
    const int n = 1024;
    float *x, *acc;
    cudaMalloc(&x, n * sizeof(float));
    cudaMemset(x, 0, n * sizeof(float));
    cudaMalloc(&acc, (n + 1) * sizeof(float));
    cudaMemset(acc, 0, n * sizeof(float)); // the total slot is left out
    accumulate<<<n / 256 + 1, 256>>>(x, acc, n);
    float total;
    cudaMemcpy(&total, acc + n, sizeof total, cudaMemcpyDeviceToHost);
    printf("total slot: %g\n", total);
    return 0;
}
