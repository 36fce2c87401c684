// A device assert in a 3-D grid: a 64^3 density volume (blocks of 8x8x4
// threads, grid 8x8x16) is converted to opacity; the kernel asserts every
// density is non-negative and voxel (x=21, y=50, z=37) holds -0.5.
// Truth: CUDA_EXCEPTION_12 Warp Assert in `density_to_alpha`, culprit
// block (2,6,9) thread (5,2,1) (21 = 2*8+5, 50 = 6*8+2, 37 = 9*4+1),
// assertion `d >= 0.0f && "negative density"` at assert_3d.cu:19, bad
// value d = -0.5, hint device-assert.  Plain run: the assertion text and
// "sync: device-side assert triggered", exit 1.
#include <cassert>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void density_to_alpha(const float *density, int n, float step, float *alpha) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    int v = (z * n + y) * n + x;
    float d = density[v];
    assert(d >= 0.0f && "negative density"); // fault
    alpha[v] = 1.0f - expf(-d * step);
}

int main() {
    const int n = 64, nv = n * n * n;
    float *h = new float[nv];
    for (int i = 0; i < nv; i++) h[i] = 0.25f;
    h[(37 * n + 50) * n + 21] = -0.5f; // a bad voxel from the reconstruction
    float *density, *alpha;
    cudaMalloc(&density, nv * sizeof(float));
    cudaMemcpy(density, h, nv * sizeof(float), cudaMemcpyHostToDevice);
    cudaMalloc(&alpha, nv * sizeof(float));
    dim3 block(8, 8, 4), grid(n / 8, n / 8, n / 4);
    density_to_alpha<<<grid, block>>>(density, n, 0.1f, alpha);
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    delete[] h;
    return e != cudaSuccess;
}
