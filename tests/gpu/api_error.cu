// A launch the driver refuses: 2048 threads in a block (the limit is
// 1024), so the kernel never runs and nothing stops on the GPU.  The plain
// run and the cuda-gdb run both end with "launch: invalid configuration
// argument", exit 1: the auto policy follows the live run with the
// memcheck pass, whose compute-sanitizer names the failing API call
// (cudaErrorInvalidConfiguration on cudaLaunchKernel); it writes no
// coredump, there being no device fault.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(float *out, float v) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

int main() {
    float *out;
    cudaMalloc(&out, 2048 * sizeof(float));
    fill<<<1, 2048>>>(out, 1.0f);
    cudaError_t e = cudaGetLastError();
    printf("launch: %s\n", cudaGetErrorString(e));
    cudaDeviceSynchronize();
    return e != cudaSuccess;
}
