// A misaligned read: records packed as bytes are read as float2 from an
// odd offset.  Expected: CUDA_EXCEPTION_6 Warp Misaligned Address in
// `read_points` at misaligned.cu:13; memcheck reports a misaligned
// access of size 8; hint exc-misaligned (live) / san-misaligned (memcheck).
#include <cstdio>
#include <cuda_runtime.h>

// Each record: 1 tag byte followed by two floats (9 bytes, packed).
__global__ void read_points(const unsigned char *buf, float *xs, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float2 *p = reinterpret_cast<const float2 *>(buf + i * 9 + 1);
        xs[i] = p->x + p->y;
    }
}

int main() {
    const int n = 64;
    unsigned char *buf;
    float *xs;
    cudaMalloc(&buf, n * 9 + 16);
    cudaMemset(buf, 0, n * 9 + 16);
    cudaMalloc(&xs, n * sizeof(float));
    read_points<<<1, n>>>(buf, xs, n);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
