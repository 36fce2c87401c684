// An uninitialised read: the input buffer is allocated but only its first
// half is copied in.  Expected under compute-sanitizer initcheck: an
// uninitialized __global__ read of size 4 at uninit.cu:8 in scale, by a
// thread of the second half, hint san-uninit.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(const float *in, float *out, int n) { int i = threadIdx.x; if (i < n) out[i] = in[i] * 2.0f; }

int main() {
    const int n = 64;
    float h[n / 2];
    for (int i = 0; i < n / 2; i++) h[i] = (float)i;
    float *in, *out;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    scale<<<1, n>>>(in, out, n);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
