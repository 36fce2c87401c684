/* Parser speed: the 10.5 MB -cuda-info-threads line of big_grid against a
 * plain byte-by-byte scan of the same bytes in the same run (the machines
 * are noisy, so only the ratio is meaningful across runs).
 * Prints: measure=NAME value=X unit=U ref=Y ratio=R */
#include "cudbg/base.h"
#include "cudbg/mi.h"

#include "tests/bench/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void count_nodes(void *ctx, const struct mi_record *r)
{
	size_t *rows = ctx;
	const struct mi_node *t = r->results;
	const struct mi_node *body = t ? mi_find_children(t->child, "body") : NULL;
	for (; body; body = body->next)
		(*rows)++;
}

static volatile size_t sink;

/* Never inlined, and aligned: where its loop lands in the parse's code
 * moved its speed by a third between two builds of the same source. */
__attribute__((noinline, aligned(64)))
static double byte_scan(const char *buf, size_t len)
{
	double t0 = bench_now();
	size_t quotes = 0;
	for (size_t i = 0; i < len; i++)
		quotes += ((const volatile char *)buf)[i] == '"';
	sink = quotes;
	return bench_now() - t0;
}

/* --line FILE: the file's bytes as one record (tests/bench/mi_peers.sh
 * gives the same inputs to other parsers). */
static char *read_line_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct dbuf b = {0};
	char buf[1 << 16];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		dbuf_put(&b, buf, n);
	fclose(f);
	while (b.len && (b.s[b.len - 1] == '\n' || b.s[b.len - 1] == '\r'))
		b.s[--b.len] = '\0';
	*len = b.len;
	return dbuf_take(&b);
}

static void count_records(void *ctx, const struct mi_record *r)
{
	(void)r;
	(*(size_t *)ctx)++;
}

static size_t stream_items;

static bool want_all(void *ctx, bool has_token, uint64_t token,
		     const char *klass, const char *name)
{
	(void)ctx, (void)has_token, (void)token, (void)klass, (void)name;
	return true;
}

static void count_item(void *ctx, bool has_token, uint64_t token,
		       const struct mi_node *item)
{
	(void)ctx, (void)has_token, (void)token, (void)item;
	stream_items++;
}

/* The line as a session gets a big table: in 256 KiB reads, streamed
 * (each row handed out and forgotten, mi_parser_set_stream). */
static double parse_streamed(struct mi_parser *p, const char *line, size_t len)
{
	double t0 = bench_now();
	for (size_t at = 0; at < len; at += 256 * 1024) {
		size_t n = len - at < 256 * 1024 ? len - at : 256 * 1024;
		mi_parser_push(p, line + at, n);
	}
	mi_parser_push(p, "\n", 1);
	return bench_now() - t0;
}

/* One line from a file: the best of 7 parses and byte scans, and the
 * first (cold) parse apart; stream: as a session reads a big table. */
static int line_mode(const char *path, bool stream)
{
	size_t len;
	char *line = read_line_file(path, &len);
	if (!line) {
		fprintf(stderr, "bench_parser: cannot read %s\n", path);
		return 2;
	}
	double best_parse = 1e9, best_scan = 1e9, cold = 0;
	size_t recs = 0;
	/* one parser for every round, as a session has one: the first parse
	 * meets fresh memory (cold), the next ones its reused line buffer
	 * and node arena (warm) */
	struct mi_parser *p = mi_parser_new(count_records, &recs);
	if (stream)
		mi_parser_set_stream(p, 64 * 1024, want_all, count_item);
	for (int i = 0; i < 7; i++) {
		recs = 0;
		double tp;
		if (stream) {
			tp = parse_streamed(p, line, len);
		} else {
			double t0 = bench_now();
			mi_parser_push(p, line, len);
			mi_parser_push(p, "\n", 1);
			tp = bench_now() - t0;
		}
		double ts = byte_scan(line, len);
		if (i == 0)
			cold = tp;
		if (tp < best_parse)
			best_parse = tp;
		if (ts < best_scan)
			best_scan = ts;
	}
	mi_parser_free(p);
	printf("measure=mi_parse_line%s value=%.0f unit=MB/s cold=%.0f ref=%.0f "
	       "ratio=%.3f records=%zu bytes=%zu\n", stream ? "_streamed" : "",
	       (double)len / best_parse / 1e6,
	       (double)len / cold / 1e6, (double)len / best_scan / 1e6,
	       best_scan / best_parse, recs, len);
	free(line);
	return recs == 1 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--line") == 0)
		return line_mode(argv[2], false);
	if (argc == 3 && strcmp(argv[1], "--stream") == 0)
		return line_mode(argv[2], true);
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
