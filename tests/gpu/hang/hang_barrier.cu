// A barrier in divergent code: in the one block, warp 0 waits at
// __syncthreads() for warp 1, which spins on a flag that warp 0 sets
// only after the barrier.  Expected under cudbg-tui --batch --timeout 5:
// a hang in barrier_split, 32 threads at hang_barrier.cu:13 (barrier)
// and 32 at hang_barrier.cu:16 (spin-wait), hint hang-barrier.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void barrier_split(volatile int *flag, int *out) {
    __shared__ int tile[64];
    tile[threadIdx.x] = threadIdx.x;
    if (threadIdx.x < 32) {
        __syncthreads();
        *flag = 1;
    } else {
        while (*flag == 0) { }
    }
    out[threadIdx.x] = tile[63 - threadIdx.x];
}

int main() {
    int *flag, *out;
    cudaMalloc(&flag, sizeof(int));
    cudaMalloc(&out, 64 * sizeof(int));
    cudaMemset(flag, 0, sizeof(int));
    barrier_split<<<1, 64>>>(flag, out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
