// cudbg-args: --timeout 10
// A kernel that never ends, spinning on a flag: block 0 waits for the
// producer block to publish its tile through ready[0], but the producer
// sets ready[1] (the wrong slot), so thread (0,0,0) of block (0,0,0) spins
// forever while the other threads of block 0 wait at the barrier after
// the loop.  Truth: a hang, no exception; interrupted after the timeout,
// block (0,0,0) of `consume_tile` is at the spin loop hang_spin.cu:22
// (thread (0,0,0), ready[0] = 0), the producer block has ended, hint
// hang-spin.  Plain run: never ends (ended by `timeout 20`, exit 124).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void consume_tile(volatile int *ready, float *tile, float *out) {
    if (blockIdx.x == 1) { // producer
        tile[threadIdx.x] = threadIdx.x;
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0) ready[1] = 1; // bug: the consumer watches ready[0]
        return;
    }
    if (threadIdx.x == 0)
        while (ready[0] == 0) { } // fault
    __syncthreads();
    out[threadIdx.x] = tile[threadIdx.x] * 2.0f;
}

int main() {
    int *ready;
    float *tile, *out;
    cudaMalloc(&ready, 2 * sizeof(int));
    cudaMemset(ready, 0, 2 * sizeof(int));
    cudaMalloc(&tile, 128 * sizeof(float));
    cudaMalloc(&out, 128 * sizeof(float));
    consume_tile<<<2, 128>>>(ready, tile, out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
