// Use after cudaFree: the statistics buffer (256 MiB, its own mapping)
// is freed right after the pass that fills it, and the finishing kernel,
// one thread, still reads the last slot.  Truth: CUDA_EXCEPTION_14 Warp
// Illegal Address in `finish_stats` at use_after_free.cu:20 (the only
// thread, block (0,0,0) thread (0,0,0)), cause: the buffer was freed
// (dangling pointer `stats`); memcheck: an invalid __global__ read of
// size 4 by thread (0,0,0) of block (0,0,0) at that line, in memory
// already freed (san-use-after-free, or an out-of-bounds read when the
// sanitizer cannot tell the freed range).  Plain run: "sync: an illegal
// memory access was encountered", exit 1.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill_stats(float *stats, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) stats[i] = 1.0f;
}

__global__ void finish_stats(const float *stats, size_t n, float *mean) {
    float total = stats[n - 1]; // fault
    *mean = total / n;
}

int main() {
    const size_t n = 64u << 20; // 64 Mi floats
    float *stats, *mean;
    cudaMalloc(&stats, n * sizeof(float)); // fault
    cudaMalloc(&mean, sizeof(float));
    fill_stats<<<(unsigned)((n + 255) / 256), 256>>>(stats, n);
    cudaFree(stats); /* freed too early: finish_stats needs it */ // fault
    finish_stats<<<1, 1>>>(stats, n, mean);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
