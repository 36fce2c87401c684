// Dynamic shared memory used but not given at launch: a block sum keeps
// one partial per warp in `extern __shared__` memory, and the launch
// forgets the third <<<>>> argument (0 bytes instead of one float per
// warp).  One warp, so lane 0 alone writes partial[0].  Truth: the write
// at dyn_shared.cu:19 in `warp_partials` by thread (0,0,0) of block
// (0,0,0) is outside the block's shared memory; memcheck: Invalid
// __shared__ write of size 4 by thread (0,0,0) of block (0,0,0) (a
// shared-memory out-of-bounds, not a global one).  Whether the hardware
// also faults (Warp Out-of-range Address) depends on the shared-memory
// allocation granularity, so the live pass pins no class.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void warp_partials(const float *x, float *out) {
    extern __shared__ float partial[]; // one float per warp, sized at launch
    float v = x[blockIdx.x * blockDim.x + threadIdx.x];
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) partial[warp] = v; // fault
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

int main() {
    float *x, *out;
    cudaMalloc(&x, 32 * sizeof(float));
    cudaMalloc(&out, sizeof(float));
    cudaMemset(x, 0, 32 * sizeof(float));
    warp_partials<<<1, 32>>>(x, out); // forgot: , 1 * sizeof(float)
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
