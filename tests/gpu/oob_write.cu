// One past the end, a write: a shift-right kernel copies in[i] to
// out[i + 1] for every i < n, so the last thread writes out[n], one
// element past a 1000-float buffer.  The hardware does not catch it (the
// allocation is rounded up): plain and live runs end normally, exit 0.
// Truth (memcheck): Invalid __global__ write of size 4 by thread
// (231,0,0) of block (3,0,0) (i = 999 = 3*256+231) at oob_write.cu:13,
// 0 bytes after the 4000-byte allocation, hint san-oob-after.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void shift_right(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i + 1] = in[i]; // fault
}

int main() {
    const int n = 1000;
    float *in, *out;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    cudaMemset(in, 0, n * sizeof(float));
    shift_right<<<(n + 255) / 256, 256>>>(in, out, n);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
