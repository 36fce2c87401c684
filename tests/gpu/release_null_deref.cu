// build: nvcc -O3 -lineinfo -arch=sm_90 -o release_null_deref release_null_deref.cu
// A release build (-O3 -lineinfo, no -G) of the null row pointer of null_deref.cu (row 3):
// the same source, included, so every line number is the original file's.
// Truth: CUDA_EXCEPTION_14 Warp Illegal Address in `row_sums` at
// null_deref.cu:14 (the line table of -lineinfo; the load may be moved
// by -O3 but belongs to that line), the lane not named; memcheck: read
// near address 0 by thread (3,0,0) of block (0,0,0), hint san-null.
// Plain run: as the debug build, exit 1.
#include "null_deref.cu"
