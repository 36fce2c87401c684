// A negative index: a 3-point smoothing kernel reads in[i - 1] with no
// guard for i = 0, 4 bytes before the buffer.  Whether the hardware
// faults depends on what lies before the allocation (usually nothing is
// caught: the run ends normally, exit 0).  Truth (memcheck): Invalid
// __global__ read of size 4 by thread (0,0,0) of block (0,0,0) at
// negative_index.cu:14, 4 bytes before the 4096-byte allocation, bad
// value i - 1 = -1, hint san-oob-before.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void smooth3(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n - 1) return;               // guards the right edge only
    float left = in[i - 1]; // fault
    out[i] = (left + in[i] + in[i + 1]) / 3.0f;
}

int main() {
    const int n = 1024;
    float *in, *out;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    cudaMemset(in, 0, n * sizeof(float));
    smooth3<<<n / 256, 256>>>(in, out, n);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
