// A local (per-thread) array indexed out of range: each thread evaluates
// a polynomial whose order comes from the input, with coefficients in a
// local array of 8; element 1234 (block 4, thread 210) has order 100000,
// far outside the array and the thread's local memory.  Truth: a warp
// exception in `eval_poly` at local_oob.cu:18 (Warp Out-of-range Address
// or Warp Illegal Address, for the local window; the hardware does not
// name the lane; culprit block (4,0,0) thread (210,0,0)), bad value
// order = 100000; memcheck (H200): Invalid __global__ read of size 4 by thread
// (210,0,0) of block (4,0,0), past the local window.  Plain run: exit 1.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void eval_poly(const int *order, const float *x, int n, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float coeff[8] = {1.0f, 0.5f, 0.25f, 0.125f, 0.0625f, 0.03125f, 0.015625f, 0.0078125f};
    int k = order[i];
    float c = coeff[k]; // fault
    y[i] = c * x[i];
}

int main() {
    const int n = 2048;
    int h[n];
    for (int i = 0; i < n; i++) h[i] = i % 8;
    h[1234] = 100000; // a corrupt order field
    int *order;
    float *x, *y;
    cudaMalloc(&order, sizeof h);
    cudaMemcpy(order, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    cudaMemset(x, 0, n * sizeof(float));
    eval_poly<<<n / 256, 256>>>(order, x, n, y); // launch
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
