// A CUDA graph replayed after its buffer was freed: the graph captured
// fill(buf) while buf was live; buf is freed and the graph launched
// again.  The kernel and its line are known at the stop; the user's line
// is main's cudaGraphLaunch (issue 28 item 1), the cause the cudaFree
// (item 5).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(float *buf, int n, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) buf[i] = v;
}

int main() {
    const int n = 1 << 22;
    float *buf;
    cudaMalloc(&buf, n * sizeof(float));
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaGraph_t g;
    cudaGraphExec_t ge;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    fill<<<n / 256, 256, 0, s>>>(buf, n, 1.0f);
    cudaStreamEndCapture(s, &g);
    cudaGraphInstantiate(&ge, g, 0);
    cudaGraphLaunch(ge, s);
    cudaStreamSynchronize(s);
    cudaFree(buf);
    cudaGraphLaunch(ge, s);
    cudaError_t e = cudaStreamSynchronize(s);
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
