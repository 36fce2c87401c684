/* Decoder speed: the 10.5 MB -cuda-info-threads line of big_grid (42,023
 * rows) parsed and decoded into a dec_table with every row read through
 * the typed accessor, against parsing alone in the same run.
 * Prints: measure=NAME value=X unit=U ref=Y ratio=R */
#include "cudbg/decode.h"

#include "tests/bench/util.h"

#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv)
{
	size_t len;
	char *line = bench_threads_line("bench_decode", argc, argv, &len);
	if (!line)
		return 2;
	double best_parse = 1e9, best_dec = 1e9;
	struct run run = { 0 };
	for (int i = 0; i < 7; i++) {
		struct run parse_only = { 0 };
		double tp = bench_parse(line, len, on_record, &parse_only);
		run = (struct run){ .decode = true };
		double td = bench_parse(line, len, on_record, &run);
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
