/* Streaming of big table lines: items handed out as they complete give the
 * same rows as the whole-line parse, in any chunking, with the buffer kept
 * small; declined lines and malformed streamed lines behave. */
#include "cudbg/mi.h"
#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct acc {
	uint64_t sum;       /* order-sensitive hash of every row's strings */
	size_t rows;
	size_t records, errors, streamed;
	uint32_t body_count;
	bool want;
	char klass[16], name[64];
};

static void hash_node(struct acc *a, const struct mi_node *n)
{
	for (; n; n = n->next) {
		if (n->name)
			for (const char *p = n->name; *p; p++)
				a->sum = a->sum * 131 + (unsigned char)*p;
		if (n->kind == MI_NODE_STRING) {
			for (uint32_t i = 0; i < n->len; i++)
				a->sum = a->sum * 131 + (unsigned char)n->str[i];
		} else {
			a->sum = a->sum * 131 + n->kind;
			hash_node(a, n->child);
		}
	}
}

static bool want(void *ctx, bool has_token, uint64_t token, const char *klass,
		 const char *name)
{
	struct acc *a = ctx;
	(void)has_token;
	(void)token;
	snprintf(a->klass, sizeof a->klass, "%s", klass);
	snprintf(a->name, sizeof a->name, "%s", name);
	return a->want;
}

static void item(void *ctx, bool has_token, uint64_t token,
		 const struct mi_node *n)
{
	struct acc *a = ctx;
	(void)has_token;
	(void)token;
	a->rows++;
	struct mi_node copy = *n;
	copy.next = NULL;
	hash_node(a, &copy);
}

static void record(void *ctx, const struct mi_record *r)
{
	struct acc *a = ctx;
	a->records++;
	if (r->kind == MI_REC_ERROR) {
		a->errors++;
		return;
	}
	if (r->streamed)
		a->streamed++;
	const struct mi_node *t = r->results;
	const struct mi_node *body = t ? mi_find(t->child, "body") : NULL;
	if (!body)
		return;
	a->body_count = body->count;
	if (!r->streamed)
		for (const struct mi_node *row = body->child; row; row = row->next) {
			a->rows++;
			struct mi_node copy = *row;
			copy.next = NULL;
			hash_node(a, &copy);
		}
}

static struct acc run(const char *text, size_t len, size_t chunk, bool w)
{
	struct acc a = { .want = w };
	struct mi_parser *p = mi_parser_new(record, &a);
	mi_parser_set_stream(p, 1 << 16, want, item);
	for (size_t off = 0; off < len; off += chunk)
		mi_parser_push(p, text + off, len - off < chunk ? len - off : chunk);
	mi_parser_finish(p);
	mi_parser_free(p);
	return a;
}

/* The `<` lines of big_grid that are tables, one per call. */
static char *big_lines(size_t *len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/big_grid.mi.log.gz", test_fixtures_dir());
	size_t n;
	char *t = test_read_file(path, &n);
	char *out = malloc(n + 1);
	size_t w = 0;
	for (char *line = t; line < t + n;) {
		char *nl = memchr(line, '\n', (size_t)(t + n - line));
		char *eol = nl ? nl : t + n;
		/* memmem within the line: strstr would scan (and ASan's
		 * interceptor strlen) the whole rest of the file per line. */
		char *lt = memmem(line, (size_t)(eol - line), " < ", 3);
		if (lt && (size_t)(eol - lt) > (1u << 20)) {
			memcpy(out + w, lt + 3, (size_t)(eol - lt - 3));
			w += (size_t)(eol - lt - 3);
			out[w++] = '\n';
		}
		line = eol + 1;
	}
	free(t);
	*len = w;
	return out;
}

TEST_TIMEOUT(streamed_rows_equal_whole_parse, 600)
{
	size_t len;
	char *text = big_lines(&len);
	CHECK_MSG(len > 60000000, "big_grid has the two big tables (%zu)", len);
	struct acc whole = run(text, len, len, false);
	CHECK_INT(whole.errors, 0);
	CHECK_INT(whole.streamed, 0);
	CHECK_INT(whole.rows, 42023 + 270305);
	/* A pipe's 4 KiB and an odd size; each pass is 70 MB (slow under
	 * ASan and valgrind). */
	size_t chunks[] = { 4096, 1000003 };
	for (size_t i = 0; i < 2; i++) {
		struct acc s = run(text, len, chunks[i], true);
		CHECK_MSG(s.errors == 0, "chunk %zu: %zu errors", chunks[i], s.errors);
		CHECK_INT(s.streamed, 2);
		CHECK_INT(s.rows, whole.rows);
		CHECK_MSG(s.sum == whole.sum, "chunk %zu: rows differ", chunks[i]);
		CHECK_INT(s.body_count, 270305);
		CHECK_STR(s.klass, "done");
		CHECK_STR(s.name, "UncoalescedInfoCudaThreadsTable");
	}
	free(text);
}

TEST(small_lines_never_stream)
{
	const char *t = "5^done,T={nr_rows=\"1\",hdr=[],body=[R={a=\"1\"}]}\n";
	struct acc a = run(t, strlen(t), 3, true);
	CHECK_INT(a.streamed, 0);
	CHECK_INT(a.rows, 1);
	CHECK_INT(a.errors, 0);
}

static char *synthetic_table(size_t rows, const char *tail)
{
	size_t cap = rows * 64 + 256;
	char *t = malloc(cap);
	size_t n = (size_t)sprintf(t, "7^done,T={nr_rows=\"%zu\",hdr=[{c=\"x\"}],"
				   "body=[", rows);
	for (size_t i = 0; i < rows; i++)
		n += (size_t)sprintf(t + n, "%sR={a=\"%zu\",b=\"q\\\"]}\"}",
				     i ? "," : "", i);
	strcpy(t + n, tail);
	return t;
}

TEST(declined_lines_parse_whole)
{
	char *t = synthetic_table(5000, "]}\n^done\n");
	struct acc a = run(t, strlen(t), 777, false);
	CHECK_INT(a.streamed, 0);
	CHECK_INT(a.rows, 5000);
	CHECK_INT(a.records, 2);
	free(t);
}

TEST(streamed_synthetic_with_escapes_and_trailer)
{
	char *t = synthetic_table(5000, "],more=\"x\"}\n^done\n");
	struct acc a = run(t, strlen(t), 777, true);
	struct acc w = run(t, strlen(t), strlen(t), false);
	CHECK_INT(a.errors, 0);
	CHECK_INT(a.streamed, 1);
	CHECK_INT(a.rows, 5000);
	CHECK(a.sum == w.sum);
	CHECK_INT(a.records, 2);
	free(t);
}

TEST(malformed_streamed_line_is_one_error_then_resync)
{
	char *t = synthetic_table(5000, "]}\n^done\n");
	char *bad = strstr(t, "R={a=\"2500\"");
	bad[1] = '!'; /* R!{ : not a result */
	struct acc a = run(t, strlen(t), 4096, true);
	CHECK_INT(a.errors, 1);
	CHECK_INT(a.records, 2);
	free(t);
	t = synthetic_table(5000, "]}junk\n^done\n");
	a = run(t, strlen(t), 4096, true);
	CHECK_INT(a.errors, 1);
	CHECK_INT(a.records, 2);
	free(t);
	t = synthetic_table(5000, "");
	a = run(t, strlen(t), 4096, true); /* EOF inside the body */
	CHECK_INT(a.errors, 1);
	free(t);
}

/* Rows of three kinds: plain (parsed where they lie at once), with an
 * escape (the careful path), and one of 700 cells (more overwritten
 * bytes than the first parse's undo log holds: the careful path too). */
static char *mixed_table(size_t rows, size_t *len)
{
	size_t cap = rows * 64 + 60 * 8000 + 256;
	char *t = malloc(cap);
	size_t n = (size_t)sprintf(t, "7^done,T={nr_rows=\"%zu\",hdr=[],body=[",
				   rows);
	for (size_t i = 0; i < rows; i++) {
		n += (size_t)sprintf(t + n, "%sR={a=\"%zu\"", i ? "," : "", i);
		if (i % 3 == 1)
			n += (size_t)sprintf(t + n, ",b=\"q\\\"]}\"");
		if (i % 50 == 7)
			for (int k = 0; k < 700; k++)
				n += (size_t)sprintf(t + n, ",c%d=\"%d\"", k, k);
		n += (size_t)sprintf(t + n, ",l=[\"x\",{d=\"y\"}]}");
	}
	n += (size_t)sprintf(t + n, "]}\n^done\n");
	*len = n;
	return t;
}

/* Every cut of the bytes (a read may end anywhere, in a name, a string,
 * an escape) gives the rows a whole-line parse gives. */
TEST(streamed_rows_equal_whole_parse_at_every_chunk_size)
{
	size_t len;
	char *t = mixed_table(2000, &len);
	struct acc w = run(t, len, len, false);
	CHECK_INT(w.errors, 0);
	CHECK_INT(w.rows, 2000);
	size_t chunks[] = { 1, 2, 3, 5, 13, 64, 333, 4096, 65536 };
	for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
		struct acc s = run(t, len, chunks[i], true);
		CHECK_MSG(s.errors == 0 && s.streamed == 1 && s.rows == 2000 &&
				  s.sum == w.sum,
			  "chunk %zu: %zu errors, %zu streamed, %zu rows, %s",
			  chunks[i], s.errors, s.streamed, s.rows,
			  s.sum == w.sum ? "same rows" : "rows differ");
	}
	free(t);
}
