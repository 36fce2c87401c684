// An assert in a __device__ helper: row_norm's thread 19 passes
// partial = -1 to check_partial, whose assert fails.  At the stop in
// __assert_fail the helper's arguments live in registers that the
// assert's call reused: cuda-gdb showed partial = 4.48415509e-44,
// row = 32 where the truth is -1, 19 (docs/tool-quirks.md); only the
// kernel's @parameter values are reliable there (issue 28 item 3).
#include <cassert>
#include <cstdio>
#include <cuda_runtime.h>

__device__ float check_partial(float partial, int row) {
    assert(partial >= 0.0f);
    return partial * (float)row;
}

__global__ void row_norm(const float *vals, float *out, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    float partial = vals[row];
    out[row] = check_partial(partial, row);
}

int main() {
    const int n = 32;
    float host[n];
    for (int i = 0; i < n; i++) host[i] = (float)i;
    host[19] = -1.0f;
    float *vals, *out;
    cudaMalloc(&vals, sizeof host);
    cudaMemcpy(vals, host, sizeof host, cudaMemcpyHostToDevice);
    cudaMalloc(&out, sizeof host);
    row_norm<<<1, n>>>(vals, out, n);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
