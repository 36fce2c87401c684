/* Parser speed: the 10.5 MB -cuda-info-threads line of big_grid against a
 * plain byte-by-byte scan of the same bytes in the same run (the machines
 * are noisy, so only the ratio is meaningful across runs).
 * Prints: measure=NAME value=X unit=U ref=Y ratio=R */
#include "cudbg/mi.h"

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

/* Finds the longest `<` line with the given prefix in the transcript. */
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
		if (!lt || lt - line > 16)
			continue;
		char *mi = lt + 3;
		if (strncmp(mi, prefix, strlen(prefix)) != 0)
			continue;
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

static void count_nodes(void *ctx, const struct mi_record *r)
{
	size_t *rows = ctx;
	const struct mi_node *t = r->results;
	const struct mi_node *body = t ? mi_find_children(t->child, "body") : NULL;
	for (; body; body = body->next)
		(*rows)++;
}

static volatile size_t sink;

static double byte_scan(const char *buf, size_t len)
{
	double t0 = now();
	size_t quotes = 0;
	for (size_t i = 0; i < len; i++)
		quotes += ((const volatile char *)buf)[i] == '"';
	sink = quotes;
	return now() - t0;
}

static double parse_once(const char *line, size_t len, size_t *rows)
{
	struct mi_parser *p = mi_parser_new(count_nodes, rows);
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
		fprintf(stderr, "bench_parser: cannot read %s: set CUDBG_FIXTURES "
				"to the shared fixtures directory\n", path);
		return 2;
	}
	/* Best of several runs for both, interleaved, to dampen noise. */
	double best_parse = 1e9, best_scan = 1e9;
	size_t rows = 0;
	for (int i = 0; i < 7; i++) {
		rows = 0;
		double tp = parse_once(line, len, &rows);
		double ts = byte_scan(line, len);
		if (tp < best_parse)
			best_parse = tp;
		if (ts < best_scan)
			best_scan = ts;
	}
	double mbps = (double)len / best_parse / 1e6;
	double ref = (double)len / best_scan / 1e6;
	printf("measure=mi_parse_threads_10MB value=%.0f unit=MB/s ref=%.0f "
	       "ratio=%.3f rows=%zu bytes=%zu\n", mbps, ref, mbps / ref, rows, len);
	free(line);
	return rows == 42023 ? 0 : 1;
}
