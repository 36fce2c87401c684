/* Runs a fuzz target over every file of a corpus directory without
 * libFuzzer, so the committed corpora run in every test pass (and under
 * ASan/valgrind).  Prints one PASS or FAIL line. */
#include "tests/fuzz/fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	size_t r;
	while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf)
		return -1;
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/');
	name = name ? name + 1 : argv[0];
	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", name);
		return 2;
	}
	DIR *d = opendir(argv[1]);
	if (!d) {
		printf("FAIL corpus/%s: no corpus directory %s\n", name, argv[1]);
		return 1;
	}
	struct dirent *de;
	int files = 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", argv[1], de->d_name);
		if (run_file(path) == 0)
			files++;
	}
	closedir(d);
	if (files == 0) {
		printf("FAIL corpus/%s: empty corpus %s\n", name, argv[1]);
		return 1;
	}
	printf("PASS corpus/%s (%d inputs)\n", name, files);
	return 0;
}
