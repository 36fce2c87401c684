// Stack overflow by recursion: tree depths computed by a recursive device
// function over a parent array; node 4001 is its own parent (a cycle from
// a bad merge), so thread 4001 recurses (no node has 4001 as parent) until its stack (1 KiB by
// default) runs out.  Truth: CUDA_EXCEPTION_2 Lane User Stack Overflow in
// `tree_depths` (frames of `depth_of`, the recursive call at
// stack_overflow.cu:15), culprit block (15,0,0) thread (161,0,0)
// (4001 = 15*256+161; a lane exception, so the lane is known), bad value
// node = 4001 with parent[4001] = 4001, hint exc-stack-overflow.  Plain
// run: an error at sync, exit 1.
#include <cstdio>
#include <cuda_runtime.h>

__device__ int depth_of(const int *parent, int node) {
    if (parent[node] < 0) return 0;
    return 1 + depth_of(parent, parent[node]); // fault
}

__global__ void tree_depths(const int *parent, int n, int *depth) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) depth[i] = depth_of(parent, i);
}

int main() {
    const int n = 8192;
    static int h[n];
    for (int i = 0; i < n; i++) h[i] = (i % 2) ? i - 1 : -1; // depth 0 or 1
    h[4001] = 4001; // a cycle
    int *parent, *depth;
    cudaMalloc(&parent, sizeof h);
    cudaMemcpy(parent, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMalloc(&depth, sizeof h);
    tree_depths<<<n / 256, 256>>>(parent, n, depth);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
