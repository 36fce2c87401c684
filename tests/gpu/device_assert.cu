// A device assert: a histogram kernel checks that every bin index is in
// range; sample 700 maps to bin 16 of 16.  Expected under cudbg-tui:
// CUDA_EXCEPTION_12 Warp Assert in `histogram`, frame 1 at
// device_assert.cu:15, block (2,0,0) thread (188,0,0), assertion text
// "bin >= 0 && bin < nbins", hint device-assert.
#include <cassert>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void histogram(const int *samples, int n, int *bins, int nbins,
                          int width) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int bin = samples[i] / width;
    assert(bin >= 0 && bin < nbins);
    atomicAdd(&bins[bin], 1);
}

int main() {
    const int n = 1024, nbins = 16, width = 40;
    int h[n];
    for (int i = 0; i < n; i++) h[i] = (i * 7) % (nbins * width);
    h[700] = nbins * width;  // one sample past the last bin
    int *samples, *bins;
    cudaMalloc(&samples, sizeof h);
    cudaMalloc(&bins, nbins * sizeof(int));
    cudaMemcpy(samples, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemset(bins, 0, nbins * sizeof(int));
    histogram<<<4, 256>>>(samples, n, bins, nbins, width);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
