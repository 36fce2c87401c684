/* Decoder speed: the 10.5 MB -cuda-info-threads line of big_grid (42,023
 * rows) parsed and decoded into a dec_table with every row read through
 * the typed accessor, against parsing alone in the same run.
 * Prints: measure=NAME value=X unit=U ref=Y ratio=R */
#include "cudbg/decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *find_line(const char *path, const char *prefix, size_t *out)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
	FILE *f = popen(cmd, "r");
	if (!f)
		return NULL;
	char *line = NULL, *best = NULL;
	size_t cap = 0, best_len = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) > 0) {
		char *lt = strstr(line, " < ");
		if (!lt || lt - line > 16 || strncmp(lt + 3, prefix, strlen(prefix)))
			continue;
		char *mi = lt + 3;
		size_t len = (size_t)(line + n - mi);
		if (len > best_len) {
			free(best);
			best = malloc(len + 1);
			memcpy(best, mi, len);
			best[len] = '\0';
			best_len = len;
		}
	}
	free(line);
	pclose(f);
	*out = best_len;
	return best;
}

struct run {
	bool decode;
	size_t rows;
	long threads;
};

static void on_record(void *ctx, const struct mi_record *r)
{
	struct run *run = ctx;
	if (!run->decode || r->kind != MI_REC_RESULT)
		return;
	struct dec_table t;
	if (dec_table_decode(r->results, &t) != 0)
		return;
	for (size_t i = 0; i < t.nr_rows; i++) {
		struct dec_thread_row row;
		if (dec_table_thread(&t, i, &row) == 0)
			run->threads += row.count;
	}
	run->rows = t.nr_rows;
	dec_table_free(&t);
}

static double once(const char *line, size_t len, struct run *run)
{
	struct mi_parser *p = mi_parser_new(on_record, run);
	double t0 = now();
	mi_parser_push(p, line, len);
	double t = now() - t0;
	mi_parser_free(p);
	return t;
}

int main(int argc, char **argv)
{
	const char *fixtures = getenv("CUDBG_FIXTURES");
	char path[4096];
	snprintf(path, sizeof path, "%s/big_grid.mi.log.gz",
		 argc > 1 ? argv[1] : fixtures ? fixtures : "tests/shared/fixtures");
	size_t len;
	char *line = find_line(path, "^done,CoalescedInfoCudaThreadsTable", &len);
	if (!line) {
		fprintf(stderr, "bench_decode: cannot read %s: set CUDBG_FIXTURES "
				"to the shared fixtures directory\n", path);
		return 2;
	}
	double best_parse = 1e9, best_dec = 1e9;
	struct run run = { 0 };
	for (int i = 0; i < 7; i++) {
		struct run parse_only = { 0 };
		double tp = once(line, len, &parse_only);
		run = (struct run){ .decode = true };
		double td = once(line, len, &run);
		if (tp < best_parse)
			best_parse = tp;
		if (td < best_dec)
			best_dec = td;
	}
	double mbps = (double)len / best_dec / 1e6;
	double ref = (double)len / best_parse / 1e6;
	printf("measure=decode_threads_10MB value=%.0f unit=MB/s ref=%.0f "
	       "ratio=%.3f rows=%zu threads=%ld decode_ms=%.1f parse_ms=%.1f\n",
	       mbps, ref, mbps / ref, run.rows, run.threads,
	       (best_dec - best_parse) * 1e3, best_parse * 1e3);
	free(line);
	return run.rows == 42023 ? 0 : 1;
}
