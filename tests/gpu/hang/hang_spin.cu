// A spin-wait that never ends: block 3 waits for a flag nobody sets, the
// other 7 blocks finish.  Expected under cudbg-tui --batch --timeout 5:
// "Hang: kernel wait_flag still running after 5 s", block (3,0,0) with
// 64 threads at hang_spin.cu:11 (spin-wait), hint hang-spin.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void wait_flag(volatile int *flag, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x == 3)
        while (*flag == 0) { }
    out[i] = i;
}

int main() {
    int *flag, *out;
    cudaMalloc(&flag, sizeof(int));
    cudaMalloc(&out, 8 * 64 * sizeof(int));
    cudaMemset(flag, 0, sizeof(int));
    wait_flag<<<8, 64>>>(flag, out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
