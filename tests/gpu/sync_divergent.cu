// cudbg-args: --timeout 10
// A warp barrier with a mask that leaves out threads that call it: a
// normalisation kernel keeps each lane's positive part in shared memory,
// then syncs the warp with __syncwarp(0x0000ffff) before every lane reads
// the whole row; lanes 16..31 call it although the mask names only lanes
// 0..15 (undefined behaviour: the plain run is bounded and not checked).
// Run 1 used a __syncthreads() reached by half the warp, which synccheck
// on sm_90 did not report (tests/fixtures/gpu/explore/README.md); this
// version was verified in runs 18-20.  Truth (synccheck): a barrier error
// in the warp of block (0,0,0) at the __syncwarp() in normalize_positive
// at sync_divergent.cu:22, hint san-sync.  Truth (live, run 20): Warp
// Illegal Instruction inside the toolkit's __syncwarp (mask = 65535)
// called at sync_divergent.cu:22, hint warp-sync-mask.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void normalize_positive(float *x) {
    __shared__ float part[32];
    float v = x[threadIdx.x];
    part[threadIdx.x] = v > 0.0f ? v : 0.0f;
    // the low half's mask, called by all 32 lanes
    __syncwarp(0x0000ffffu); // fault
    float total = 0.0f;
    for (int i = 0; i < 32; i++) total += part[i];
    x[threadIdx.x] = v / total;
}

int main() {
    float h[32], *x;
    for (int i = 0; i < 32; i++) h[i] = (i % 2) ? 1.0f : -1.0f;
    cudaMalloc(&x, sizeof h);
    cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
    normalize_positive<<<1, 32>>>(x);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
