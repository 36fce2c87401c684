// build: nvcc -O3 -lineinfo -arch=sm_90 -o lane_wild_o3 lane_wild_o3.cu
// One lane of a full warp has a wild index: scatter_add's thread 146
// (lane 18 of warp 4) reads key 50000000 from its input and writes
// 200 MB past `out`; the other 255 threads write inside it.  A warp-wide
// Warp Illegal Address names lane 0 (cuda-gdb is imprecise about the
// lane); the culprit is found from the faulting instruction's address
// register in every lane (issue 28 item 2).  The -O3 -lineinfo build of lane_wild.cu (no locals: registers only).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scatter_add(float *out, const int *keys, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int key = keys[i];
    out[key] += 1.0f;
}

int main() {
    const int n = 256, bins = 64;
    int host_keys[n];
    for (int i = 0; i < n; i++) host_keys[i] = i % bins;
    host_keys[146] = 50000000;  // the one bad key
    int *keys;
    float *out;
    cudaMalloc(&keys, sizeof host_keys);
    cudaMemcpy(keys, host_keys, sizeof host_keys, cudaMemcpyHostToDevice);
    cudaMalloc(&out, bins * sizeof(float));
    cudaMemset(out, 0, bins * sizeof(float));
    scatter_add<<<1, n>>>(out, keys, n);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
