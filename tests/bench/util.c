/* Helpers the benchmarks share: a clock and the big lines of big_grid. */
#include "tests/bench/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

char *bench_find_line(const char *path, const char *prefix, size_t *out)
{
	char cmd[4096], *line = NULL, *best = NULL;
	size_t cap = 0, best_len = 0;
	ssize_t n;
	FILE *f;

	snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
	if (!(f = popen(cmd, "r")))
		return NULL;
	while ((n = getline(&line, &cap, f)) > 0) {
		char *lt = strstr(line, " < ");
		if (!lt || lt - line > 16 || strncmp(lt + 3, prefix, strlen(prefix)) != 0)
			continue;
		size_t len = (size_t)(line + n - (lt + 3));
		while (len && (lt[3 + len - 1] == '\n' || lt[3 + len - 1] == '\r'))
			len--;
		if (len > best_len) {
			free(best);
			best = malloc(len + 1);
			if (!best)
				break;
			memcpy(best, lt + 3, len);
			best[len] = '\0';
			best_len = len;
		}
	}
	free(line);
	pclose(f);
	*out = best ? best_len : 0;
	return best;
}
