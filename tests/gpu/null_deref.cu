// A null pointer dereference: a table of row pointers where one row was
// never allocated.  Expected: CUDA_EXCEPTION_14 Warp Illegal Address in
// `row_sums` at null_deref.cu:14 (exception_name/pc fields in *stopped),
// the lane not named (lane-unknown note); memcheck names thread (3,0,0)
// of block (0,0,0) reading near address 0.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void row_sums(float **rows, int cols, float *out) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    const float *row = rows[r];
    float s = 0;
    for (int c = 0; c < cols; c++)
        s += row[c];
    out[r] = s;
}

int main() {
    const int nrows = 8, cols = 16;
    float *host_rows[nrows];
    for (int r = 0; r < nrows; r++) {
        if (r == 3) { host_rows[r] = nullptr; continue; }  // forgotten row
        cudaMalloc(&host_rows[r], cols * sizeof(float));
        cudaMemset(host_rows[r], 0, cols * sizeof(float));
    }
    float **rows, *out;
    cudaMalloc(&rows, sizeof host_rows);
    cudaMemcpy(rows, host_rows, sizeof host_rows, cudaMemcpyHostToDevice);
    cudaMalloc(&out, nrows * sizeof(float));
    row_sums<<<1, nrows>>>(rows, cols, out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
