// A device assert in a 2-D grid: a kernel over a 1024x768 class map
// (64x48 blocks of 16x16 threads) looks up each pixel's class weight and
// asserts the class id is inside the 8-entry table; pixel (x=517, y=300)
// holds a corrupt class id 9.  Truth: CUDA_EXCEPTION_12 Warp Assert in
// `class_weights`, culprit block (32,18,0) thread (5,12,0) (517 = 32*16+5,
// 300 = 18*16+12), assertion `cls < nclasses` at assert_2d.cu:19, bad
// value cls = 9 (nclasses = 8), hints label-range-assert then device-assert.
// Plain run: the assertion text, "sync: device-side assert triggered", exit 1.
#include <cassert>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void class_weights(const unsigned char *cls_map, const float *weights,
                              int nclasses, int w, int h, float *out) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int cls = cls_map[y * w + x];
    assert(cls < nclasses); // fault
    out[y * w + x] = weights[cls];
}

int main() {
    const int w = 1024, h = 768, nclasses = 8;
    unsigned char *hmap = new unsigned char[w * h];
    for (int i = 0; i < w * h; i++) hmap[i] = i % nclasses;
    hmap[300 * w + 517] = 9; // one corrupt pixel
    unsigned char *map;
    float *weights, *out;
    cudaMalloc(&map, w * h);
    cudaMemcpy(map, hmap, w * h, cudaMemcpyHostToDevice);
    cudaMalloc(&weights, nclasses * sizeof(float));
    cudaMemset(weights, 0, nclasses * sizeof(float));
    cudaMalloc(&out, w * h * sizeof(float));
    dim3 block(16, 16), grid(w / 16, h / 16);
    class_weights<<<grid, block>>>(map, weights, nclasses, w, h, out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    delete[] hmap;
    return e != cudaSuccess;
}
