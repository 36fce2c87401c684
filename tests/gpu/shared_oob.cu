// A `__shared__` array indexed out of range: a per-block histogram of
// 256 bins in shared memory counts keys that should be < 256; key 777
// (block 3, thread 9) is 4096, 16 KiB past the block's shared array and
// outside the shared memory the block has.  Truth: CUDA_EXCEPTION_5 Warp
// Out-of-range Address in `block_histogram` at shared_oob.cu:18 (warp
// level: the hardware does not name the lane; culprit block (3,0,0)
// thread (9,0,0)), bad value keys[777] = 4096, hint exc-out-of-range;
// memcheck: Invalid __shared__ atomic of size 4 by thread (9,0,0) of
// block (3,0,0), no line (it names __iAtomicAdd).  Plain run: exit 1.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void block_histogram(const int *keys, int n, int *hist) {
    __shared__ int counts[256];
    counts[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counts[keys[i]], 1); // fault
    __syncthreads();
    atomicAdd(&hist[threadIdx.x], counts[threadIdx.x]);
}

int main() {
    const int n = 2048;
    int h[n];
    for (int i = 0; i < n; i++) h[i] = i % 256;
    h[777] = 4096; // a key from an unchecked input file
    int *keys, *hist;
    cudaMalloc(&keys, sizeof h);
    cudaMemcpy(keys, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMalloc(&hist, 256 * sizeof(int));
    cudaMemset(hist, 0, 256 * sizeof(int));
    block_histogram<<<n / 256, 256>>>(keys, n, hist);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
