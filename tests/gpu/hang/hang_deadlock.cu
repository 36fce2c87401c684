// Two blocks wait on each other: block 0 waits for block 1's flag and
// block 1 for block 0's; each sets its own flag only after its wait.
// Expected under cudbg-tui --batch --timeout 5: a hang in handshake, 2
// blocks with 32 threads each at hang_deadlock.cu:12 (spin-wait), hints
// hang-deadlock and hang-spin.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void handshake(volatile int *flags) {
    int me = blockIdx.x, other = 1 - blockIdx.x;
    // each block waits for the other one's flag, then sets its own
    while (flags[other] == 0) { }
    flags[me] = 1;
}

int main() {
    int *flags;
    cudaMalloc(&flags, 2 * sizeof(int));
    cudaMemset(flags, 0, 2 * sizeof(int));
    handshake<<<2, 32>>>(flags);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
