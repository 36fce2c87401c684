// build: nvcc -O3 -lineinfo -arch=sm_90 -o release_device_assert release_device_assert.cu
// A release build (-O3 -lineinfo, no -G) of the device assert of device_assert.cu (block (2,0,0) thread (188,0,0), bin 16 of 16):
// the same source, included, so every line number is the original file's.
// Truth: CUDA_EXCEPTION_12 Warp Assert in `histogram`, the kernel frame
// at device_assert.cu:15 (from -lineinfo), block (2,0,0) thread (188,0,0),
// hint device-assert; no locals (no -G), and none claimed.
// Plain run: as the debug build, exit 1.
#include "device_assert.cu"
