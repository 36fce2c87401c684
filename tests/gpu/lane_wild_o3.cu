// build: nvcc -O3 -lineinfo -arch=sm_90 -o lane_wild_o3 lane_wild_o3.cu
// lane_wild.cu (one lane of a full warp with a wild index: thread 146,
// lane 18 of warp 4, writes 200 MB past `out`) built as a release build:
// -O3 -lineinfo, no locals, so the culprit lane is found from registers
// alone (issue 28 item 2).  The source is lane_wild.cu's own, so the
// lines the debugger names are lane_wild.cu's.
#include "lane_wild.cu"
