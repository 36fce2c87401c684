// build: nvcc -g -G -arch=sm_90 --extended-lambda -o lambda_assert lambda_assert.cu
// A device assert inside a __device__ lambda passed to a kernel template:
// `transform` applies a log with a positivity check to 4096 values, and
// x[3000] (block 11, thread 184) is -1.  Truth: CUDA_EXCEPTION_12 Warp
// Assert in kernel `transform<...>` (its name includes the lambda type),
// stopped in the lambda (frame #1), the assertion `v > 0.0f` at
// lambda_assert.cu:24 (in log_in_place, not the template), culprit block (11,0,0)
// thread (184,0,0) (3000 = 11*256+184), bad value v = -1, hint
// device-assert.  Plain run: the assertion text and "sync: device-side
// assert triggered", exit 1.
#include <cassert>
#include <cstdio>
#include <cuda_runtime.h>

template <typename F>
__global__ void transform(float *x, int n, F f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = f(x[i]);
}

// log of every value in place, checking each is positive
cudaError_t log_in_place(float *x, int n) {
    auto safe_log = [] __device__(float v) {
        assert(v > 0.0f); // fault
        return logf(v);
    };
    transform<<<(n + 255) / 256, 256>>>(x, n, safe_log);
    return cudaDeviceSynchronize();
}

int main() {
    const int n = 4096;
    static float h[n];
    for (int i = 0; i < n; i++) h[i] = 1.0f + i;
    h[3000] = -1.0f; // a bad sample
    float *x;
    cudaMalloc(&x, sizeof h);
    cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
    cudaError_t e = log_in_place(x, n);
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
