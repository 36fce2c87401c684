// cudbg-args: --timeout 10
// A barrier in divergent code (for synccheck): a normalisation kernel
// sums the positive elements of its warp and calls __syncthreads() inside
// `if (v > 0)`, which only half the lanes take.  What the hardware does
// with it is undefined (it may go on, or hang: the plain run is bounded
// by `timeout 20` and not checked).  Truth (synccheck): a barrier error,
// divergent threads in the warp of block (0,0,0) at the __syncthreads()
// in `normalize_positive` at sync_divergent.cu:19, hint san-sync.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void normalize_positive(float *x) {
    __shared__ float total;
    if (threadIdx.x == 0) total = 0.0f;
    __syncthreads();
    float v = x[threadIdx.x];
    if (v > 0.0f) {
        atomicAdd(&total, v);
        __syncthreads(); // fault
    }
    x[threadIdx.x] = v / total;
}

int main() {
    float h[32], *x;
    for (int i = 0; i < 32; i++) h[i] = (i % 2) ? 1.0f : -1.0f;
    cudaMalloc(&x, sizeof h);
    cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
    normalize_positive<<<1, 32>>>(x);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
