// A null pointer from an unchecked failed cudaMalloc: the program asks
// for 1 TiB of scratch, the allocation fails (cudaErrorMemoryAllocation)
// and leaves the pointer null, and the kernel (one warp) writes through
// it.  Truth: CUDA_EXCEPTION_14 Warp Illegal Address in `clear_scratch`
// at null_alloc_failed.cu:15; every lane of the one warp writes near
// address 0 (the hardware does not name the lane); memcheck: invalid
// __global__ write of size 4 at an address near 0 (san-null) by a thread
// of block (0,0,0), after an Api record for cudaMalloc (out of memory).
// Plain run: "sync: an illegal memory access was encountered", exit 1.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void clear_scratch(float *scratch, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) scratch[i] = 0.0f; // fault
}

int main() {
    float *scratch = nullptr;
    cudaMalloc(&scratch, (size_t)1 << 40); // 1 TiB: fails, not checked
    clear_scratch<<<1, 32>>>(scratch, 32);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
