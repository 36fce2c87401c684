/* tests/sh/alloc_watch.sh: a buffer used after it was freed (argv[1]
 * "uaf", the default), or a wild pointer that no allocation ever held
 * ("wild").  Other buffers come and go first, so the lookup must pick the
 * right one. */
#include <stdio.h>
#include <string.h>
#include <stddef.h>

int cudaMalloc(void **out, size_t n);
int cudaFree(void *p);

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "uaf";
	float *stats, *other;
	cudaMalloc((void **)&stats, 1 << 20); /* MARK_ALLOC */
	for (int i = 0; i < 3; i++) {
		cudaMalloc((void **)&other, 1 << 20);
		cudaFree(other);
	}
	cudaFree(stats); /* MARK_FREE */
	if (strcmp(mode, "wild") == 0)
		stats = (float *)(size_t)0x10;
	stats[17] = 1.0f; /* MARK_USE */
	printf("done\n");
	return 0;
}
