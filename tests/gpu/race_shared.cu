// A shared-memory race (for racecheck): a tree reduction in shared memory
// with the __syncthreads() missing inside the loop, so a thread reads
// s[tid + stride] while another warp may still be writing it.  No fault:
// plain and live runs end normally (exit 0; the sum may even be right).
// Truth (racecheck): a hazard between a write and a read of shared
// memory in `block_sum` at race_shared.cu:16 (both accesses on that
// line, threads of different warps of the same block), hint san-race.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void block_sum(const float *x, float *out) {
    __shared__ float s[256];
    s[threadIdx.x] = x[blockIdx.x * 256 + threadIdx.x];
    __syncthreads();
    for (int stride = 128; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride]; // fault
        // missing: __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

int main() {
    const int blocks = 4;
    static float h[blocks * 256];
    for (int i = 0; i < blocks * 256; i++) h[i] = 1.0f;
    float *x, *out, sums[blocks];
    cudaMalloc(&x, sizeof h);
    cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMalloc(&out, sizeof sums);
    block_sum<<<blocks, 256>>>(x, out);
    cudaMemcpy(sums, out, sizeof sums, cudaMemcpyDeviceToHost);
    printf("sum of block 0: %g (256 expected)\n", sums[0]);
    return 0;
}
