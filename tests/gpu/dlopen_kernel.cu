// build: nvcc -g -G -arch=sm_90 -cudart shared -Xcompiler -fPIC -shared -o libdlopen_lib.so dlopen_lib.cu && nvcc -g -G -arch=sm_90 -cudart shared -o dlopen_kernel dlopen_kernel.cu -ldl
// A kernel in a shared library loaded with dlopen (a plugin): the host
// program loads libdlopen_lib.so from its own directory and calls
// launch_gather with an index table whose entry 100 is 1<<28, a row far
// past the 1024-float source table.  Truth: CUDA_EXCEPTION_14 Warp
// Illegal Address in `gather_rows` at dlopen_lib.cu:8 (the library's
// source, not this file) in the plain run and its driver coredump; under
// cuda-gdb (H200 run 1) the same line stopped with CUDA_EXCEPTION_4 Warp
// Illegal Instruction instead (to be seen again on the next GPU run),
// culprit block (0,0,0) thread (100,0,0) (the
// hardware does not name the lane), bad value idx[100] = 268435456;
// memcheck: invalid __global__ read of size 4 by thread (100,0,0) of
// block (0,0,0), 1 GiB after the 4096-byte allocation (san-oob-after).
// Plain run: "gather: an illegal memory access was encountered", exit 1.
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <unistd.h>
#include <cuda_runtime.h>

typedef int (*gather_fn)(const float *, const int *, int, float *);

int main() {
    char self[4096] = {0};
    if (readlink("/proc/self/exe", self, sizeof self - 1) < 0) return 2;
    std::string dir(self);
    dir = dir.substr(0, dir.rfind('/'));
    void *lib = dlopen((dir + "/libdlopen_lib.so").c_str(), RTLD_NOW);
    if (!lib) { printf("dlopen: %s\n", dlerror()); return 2; }
    gather_fn gather = (gather_fn)dlsym(lib, "launch_gather");
    if (!gather) { printf("dlsym: %s\n", dlerror()); return 2; }
    const int rows = 1024, n = 256;
    int h[n];
    for (int i = 0; i < n; i++) h[i] = (i * 7) % rows;
    h[100] = 1 << 28; // a corrupt index
    float *src, *dst;
    int *idx;
    cudaMalloc(&src, rows * sizeof(float));
    cudaMemset(src, 0, rows * sizeof(float));
    cudaMalloc(&idx, sizeof h);
    cudaMemcpy(idx, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMalloc(&dst, n * sizeof(float));
    int e = gather(src, idx, n, dst);
    printf("gather: %s\n", cudaGetErrorString((cudaError_t)e));
    return e != 0;
}
