// build: nvcc -g -G -arch=sm_90 -o cublas_freed cublas_freed.cu -lcublas
// A library kernel on freed memory: matrix A is freed before the
// cublasSgemm that reads it.  The fault is in cuBLAS's own kernel (no line
// info): the user's line is main's second cublasSgemm call (line 29), read from
// the host stack at the stop (issue 28 item 1), and the cause is the
// cudaFree at line 28 (item 5).
#include <cstdio>
#include <cublas_v2.h>
#include <cuda_runtime.h>

int main() {
    const int n = 2048;
    size_t bytes = (size_t)n * n * sizeof(float);
    float *a, *b, *c;
    cudaMalloc(&a, bytes);
    cudaMalloc(&b, bytes);
    cudaMalloc(&c, bytes);
    cudaMemset(a, 0, bytes);
    cudaMemset(b, 0, bytes);
    cublasHandle_t h;
    cublasCreate(&h);
    const float one = 1.0f, zero = 0.0f;
    /* a first product, fine */
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n,
                &zero, c, n);
    cudaDeviceSynchronize();
    /* a is freed, then used */
    cudaFree(a);
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n,
                &zero, c, n);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    cublasDestroy(h);
    return e != cudaSuccess;
}
