// build: nvcc -O3 -lineinfo -arch=sm_90 -o release_int_overflow release_int_overflow.cu
// A release build (-O3 -lineinfo, no -G) of the 32-bit offset overflow of int_overflow.cu (record 524,288):
// the same source, included, so every line number is the original file's.
// Truth: the plain run faults (illegal memory access, exit 1), and so
// does memcheck: write of size 1 by thread (0,0,0) of block (2048,0,0),
// 2 GiB before the buffer (san-oob-before), at int_overflow.cu:20; the
// driver's coredump has CUDA_EXCEPTION_14 Warp Illegal Address in
// `stamp_records` at int_overflow.cu:20.  Under cuda-gdb (H200 run 1) this
// release build did NOT fault: the address 2 GiB before the buffer was
// mapped in that process and the program exited 0, so the live pass
// accepts either a Warp Illegal Address in `stamp_records` or a normal
// exit.  cuda-gdb 13.0 aborted (SIGABRT) opening its driver coredump.
#include "int_overflow.cu"
