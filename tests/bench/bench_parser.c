/* Parser speed: the 10.5 MB -cuda-info-threads line of big_grid against a
 * plain byte-by-byte scan of the same bytes in the same run (the machines
 * are noisy, so only the ratio is meaningful across runs).
 * Prints: measure=NAME value=X unit=U ref=Y ratio=R */
#include "cudbg/mi.h"

#include "tests/bench/util.h"

#include <stdio.h>
#include <stdlib.h>

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
	double t0 = bench_now();
	size_t quotes = 0;
	for (size_t i = 0; i < len; i++)
		quotes += ((const volatile char *)buf)[i] == '"';
	sink = quotes;
	return bench_now() - t0;
}

int main(int argc, char **argv)
{
	size_t len;
	char *line = bench_threads_line("bench_parser", argc, argv, &len);
	if (!line)
		return 2;
	/* Best of several runs for both, interleaved, to dampen noise. */
	double best_parse = 1e9, best_scan = 1e9;
	size_t rows = 0;
	for (int i = 0; i < 7; i++) {
		rows = 0;
		double tp = bench_parse(line, len, count_nodes, &rows);
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
