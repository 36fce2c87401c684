// build: nvcc -O3 -lineinfo -arch=sm_90 -o release_int_overflow release_int_overflow.cu
// A release build (-O3 -lineinfo, no -G) of the 32-bit offset overflow of int_overflow.cu (record 524,288):
// the same source, included, so every line number is the original file's.
// Truth: CUDA_EXCEPTION_14 Warp Illegal Address in `stamp_records` at
// int_overflow.cu:20, culprit block (2048,0,0) thread (0,0,0); memcheck:
// write of size 1 by that thread 2 GiB before the buffer (san-oob-before).
// Plain run: as the debug build, exit 1.
#include "int_overflow.cu"
