// 32-bit index overflow on a large buffer: 524,289 records of 4096 bytes
// (2 GiB + 4 KiB) are stamped by one thread each, but the byte offset is
// computed in 32 bits; record 524,288 gives 2^31, which wraps to
// -2147483648 as an int, so that thread writes 2 GiB before the buffer.
// Truth: CUDA_EXCEPTION_14 Warp Illegal Address in `stamp_records` at
// int_overflow.cu:20, culprit block (2048,0,0) thread (0,0,0)
// (524288 = 2048*256; the only live thread of its warp), bad value
// off = -2147483648; memcheck: invalid __global__ write of size 1 by that
// thread, 2,147,483,648 bytes before the allocation (san-oob-before).
// Plain run: "sync: an illegal memory access was encountered", exit 1.
#include <cstdio>
#include <cuda_runtime.h>

#define RECORD 4096u

__global__ void stamp_records(unsigned char *buf, int nrec, unsigned char tag) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrec) return;
    int off = (blockIdx.x * blockDim.x + threadIdx.x) * RECORD; // wraps past 2^31
    buf[off] = tag; // fault
}

int main() {
    const int nrec = 524289;
    unsigned char *buf;
    cudaError_t e = cudaMalloc(&buf, (size_t)nrec * RECORD);
    if (e != cudaSuccess) { printf("malloc: %s\n", cudaGetErrorString(e)); return 2; }
    stamp_records<<<(nrec + 255) / 256, 256>>>(buf, nrec, 0x5a);
    e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
