// A deliberate __trap(): a weight check aborts the kernel when it meets a
// NaN; weights[5000] is NaN (block 19, thread 136).  Truth: a device trap
// (cuda-gdb stops with SIGTRAP and a CUDA focus) in `check_weights` at
// trap.cu:16, culprit block (19,0,0) thread (136,0,0) (5000 = 19*256+136,
// the only thread of its warp in the branch), bad value w[5000] = nan,
// hint device-trap.  Plain run: "sync: unspecified launch failure" (or
// another launch failure), exit 1.
#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void check_weights(const float *w, int n, float *norm) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = w[i];
    if (isnan(v)) __trap(); // fault
    atomicAdd(norm, v * v);
}

int main() {
    const int n = 8192;
    static float h[n];
    for (int i = 0; i < n; i++) h[i] = 0.01f;
    h[5000] = nanf(""); // a diverged weight
    float *w, *norm;
    cudaMalloc(&w, sizeof h);
    cudaMemcpy(w, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMalloc(&norm, sizeof(float));
    cudaMemset(norm, 0, sizeof(float));
    check_weights<<<n / 256, 256>>>(w, n, norm);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
