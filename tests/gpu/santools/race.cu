// A shared-memory race: each thread writes its slot, then reads its right
// neighbour's with no __syncthreads() in between.  Expected under
// compute-sanitizer racecheck: a race between the write at race.cu:10 and
// the read at race.cu:11 in shift_left (RAW), hint san-race.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void shift_left(int *out) {
    __shared__ int tile[64];
    tile[threadIdx.x] = threadIdx.x;
    int right = tile[(threadIdx.x + 1) % 64];
    out[threadIdx.x] = right;
}

int main() {
    int *out;
    cudaMalloc(&out, 64 * sizeof(int));
    shift_left<<<1, 64>>>(out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
