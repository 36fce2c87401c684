// cudbg-args: --timeout 10
// A kernel that never ends, at a barrier in a divergent branch: in a
// producer/consumer block the producer warp (threads 0-31) calls
// __syncthreads() inside its branch to wait for the consumers, but the
// consumers (threads 32-255) never reach a barrier: they spin until the
// producer raises `ready`, which it does only after the barrier.  Truth:
// a hang, no exception; interrupted after the timeout, block (0,0,0) of
// `stage_rows` has warp 0 waiting at the __syncthreads() at
// hang_barrier.cu:21 (the cause) and warps 1-7 spinning on `ready`,
// hint hang-barrier.  Plain run: never ends (`timeout 20`, exit 124).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void stage_rows(const float *in, float *out) {
    __shared__ float row[32];
    __shared__ volatile int ready;
    if (threadIdx.x == 0) ready = 0;
    __syncthreads();
    if (threadIdx.x < 32) { // producer warp
        row[threadIdx.x] = in[threadIdx.x];
        __syncthreads(); // fault
        if (threadIdx.x == 0) ready = 1;
    } else {
        while (!ready) { } // consumers
        out[threadIdx.x] = row[threadIdx.x % 32];
    }
}

int main() {
    float *in, *out;
    cudaMalloc(&in, 32 * sizeof(float));
    cudaMalloc(&out, 256 * sizeof(float));
    cudaMemset(in, 0, 32 * sizeof(float));
    stage_rows<<<1, 256>>>(in, out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
