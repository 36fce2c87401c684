// A barrier in divergent code: only the first warp of the block reaches
// __syncthreads().  Expected under compute-sanitizer synccheck: "Barrier
// error detected. Divergent thread(s) in block" at sync.cu:9 in
// half_sync, hint san-sync.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void half_sync(int *out) {
    if (threadIdx.x < 32) __syncthreads();
    out[threadIdx.x] = threadIdx.x;
}

int main() {
    int *out;
    cudaMalloc(&out, 64 * sizeof(int));
    half_sync<<<1, 64>>>(out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
