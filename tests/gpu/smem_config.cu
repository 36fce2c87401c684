// A launch with a bad configuration: 64 KiB of dynamic shared memory
// requested without raising cudaFuncAttributeMaxDynamicSharedMemorySize
// (the default limit is 48 KiB), so the launch is refused and the kernel
// never runs.  Truth: no device stop; the runtime error
// cudaErrorInvalidValue ("invalid argument") from cudaLaunchKernel,
// launched at smem_config.cu:25, hint cuda-error-no-stop live,
// san-api-error with memcheck; no coredump.  Plain run: "launch: invalid
// argument", exit 1.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void tile_transpose(const float *in, float *out, int n) {
    extern __shared__ float tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tile[threadIdx.x] = in[i];
    __syncthreads();
    if (i < n) out[i] = tile[blockDim.x - 1 - threadIdx.x];
}

int main() {
    const int n = 1 << 20;
    float *in, *out;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    tile_transpose<<<n / 256, 256, 64 * 1024>>>(in, out, n); // fault
    cudaError_t e = cudaGetLastError();
    printf("launch: %s\n", cudaGetErrorString(e));
    cudaDeviceSynchronize();
    return e != cudaSuccess;
}
