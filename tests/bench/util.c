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

char *bench_threads_line(const char *prog, int argc, char **argv, size_t *len)
{
	const char *fixtures = getenv("CUDBG_FIXTURES");
	char path[4096];
	char *line;

	snprintf(path, sizeof path, "%s/big_grid.mi.log.gz",
		 argc > 1 ? argv[1] : fixtures ? fixtures : "tests/shared/fixtures");
	line = bench_find_line(path, "^done,CoalescedInfoCudaThreadsTable", len);
	if (!line)
		fprintf(stderr, "%s: cannot read %s: set CUDBG_FIXTURES "
				"to the shared fixtures directory\n", prog, path);
	return line;
}

double bench_parse(const char *line, size_t len, mi_record_fn fn, void *ctx)
{
	struct mi_parser *p = mi_parser_new(fn, ctx);
	double t0 = bench_now();
	mi_parser_push(p, line, len);
	mi_parser_push(p, "\n", 1);
	double t = bench_now() - t0;
	mi_parser_free(p);
	return t;
}
