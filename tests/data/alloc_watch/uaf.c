/* tests/sh/alloc_watch.sh: a buffer used after it was freed (argv[1]
 * "uaf", the default), a wild pointer that no allocation ever held
 * ("wild"), a live buffer written by host code ("host"), N more
 * buffers that come and go and a clean end ("churn" N: the watch's
 * budget), or those and then a use after free ("late" N).  Other buffers come and go first, so the lookup
 * must pick the right one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>

int cudaMalloc(void **out, size_t n);
int cudaFree(void *p);

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "uaf";
	float *stats, *other;
	cudaMalloc((void **)&stats, 1 << 20); /* MARK_ALLOC */
	if (strcmp(mode, "host") == 0)
		stats[5] = 1.0f; /* MARK_HOST */
	for (int i = 0; i < 3; i++) {
		cudaMalloc((void **)&other, 1 << 20);
		cudaFree(other);
	}
	cudaFree(stats); /* MARK_FREE */
	if (strcmp(mode, "churn") == 0 || strcmp(mode, "late") == 0) {
		for (int i = 0; i < (argc > 2 ? atoi(argv[2]) : 0); i++) {
			cudaMalloc((void **)&other, 1 << 20);
			cudaFree(other);
		}
		if (strcmp(mode, "churn") == 0)
			return 0;
		/* past the watch's budget: a use after a free it cannot see */
		cudaMalloc((void **)&stats, 1 << 20);
		cudaFree(stats);
	}
	if (strcmp(mode, "wild") == 0)
		stats = (float *)(size_t)0x10;
	stats[17] = 1.0f; /* MARK_USE */
	printf("done\n");
	return 0;
}
