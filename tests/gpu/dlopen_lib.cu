// The shared library of dlopen_kernel (not a program by itself: it has
// no .expect).  launch_gather() runs `gather_rows`, which reads
// src[idx[i]] without checking idx against the table size.
#include <cuda_runtime.h>

__global__ void gather_rows(const float *src, const int *idx, int n, float *dst) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[idx[i]]; // fault
}

extern "C" int launch_gather(const float *src, const int *idx, int n, float *dst) {
    gather_rows<<<(n + 127) / 128, 128>>>(src, idx, n, dst);
    return (int)cudaDeviceSynchronize();
}
