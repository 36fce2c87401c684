// A launch the runtime refuses: 2048 threads in a block (the limit is
// 1024), so the kernel never runs and nothing stops on the GPU.  With CUDA
// 13 on an H200 the plain run and the cuda-gdb run both end with "launch:
// invalid argument" (cudaErrorInvalidValue from cudaLaunchKernel; cuda-gdb
// also warns "Cuda Runtime API error detected"), exit 1.  In the screen the
// auto policy follows that run with the memcheck pass, whose
// compute-sanitizer names the failing API calls (Api records for
// cudaLaunchKernel and cudaGetLastError); it writes no coredump, there
// being no device fault.
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
