/* Assertion-line parser and aggregator: both forms, chunking, thousands of
 * lines, bounds, and the T lines of every shared fixture. */
#include "cudbg/decode.h"
#include "cudbg/assertline.h"
#include "tests/harness.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char torch_line[] =
	"/pytorch/aten/src/ATen/native/cuda/Loss.cu:245: "
	"nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: "
	"[23,0,0] Assertion `t >= 0 && t < n_classes` failed.";
static const char c_line[] =
	"assert_label.cu:10: void nll_loss(const float *, const int *, float *, "
	"int, int): block: [1,0,0], thread: [5,0,0] Assertion `t >= 0 && t < "
	"num_classes` failed.";

static char *span(const char *s, size_t n)
{
	static char buf[8][512];
	static int k;
	char *b = buf[k++ % 8];
	snprintf(b, sizeof buf[0], "%.*s", (int)n, s);
	return b;
}

TEST(parses_pytorch_form)
{
	struct diag_assert_line l;
	CHECK_INT(diag_assert_parse(torch_line, strlen(torch_line), &l), 1);
	CHECK_STR(span(l.file, l.file_len),
		  "/pytorch/aten/src/ATen/native/cuda/Loss.cu");
	CHECK_INT(l.line, 245);
	CHECK_STR(span(l.kernel, l.kernel_len),
		  "nll_loss_forward_reduce_cuda_kernel_2d");
	CHECK_STR(span(l.expr, l.expr_len), "t >= 0 && t < n_classes");
	CHECK_INT(l.block.x, 0);
	CHECK_INT(l.thread.x, 23);
}

TEST(parses_cuda_c_form_with_signature)
{
	struct diag_assert_line l;
	CHECK_INT(diag_assert_parse(c_line, strlen(c_line), &l), 1);
	CHECK_STR(span(l.file, l.file_len), "assert_label.cu");
	CHECK_INT(l.line, 10);
	CHECK_STR(span(l.kernel, l.kernel_len),
		  "void nll_loss(const float *, const int *, float *, int, int)");
	CHECK_STR(span(l.expr, l.expr_len), "t >= 0 && t < num_classes");
	CHECK_INT(l.block.x, 1);
	CHECK_INT(l.thread.x, 5);
}

TEST(expression_with_backticks_colons_and_brackets)
{
	const char *s = "k.cu:7: void k<int>(int*): block: [3,2,1], thread: "
			"[31,1,0] Assertion `a[i] == b::c && `x` : y` failed.\r";
	struct diag_assert_line l;
	CHECK_INT(diag_assert_parse(s, strlen(s), &l), 1);
	CHECK_STR(span(l.expr, l.expr_len), "a[i] == b::c && `x` : y");
	CHECK_STR(span(l.kernel, l.kernel_len), "void k<int>(int*)");
	CHECK_INT(l.block.y, 2);
	CHECK_INT(l.block.z, 1);
	CHECK_INT(l.thread.y, 1);
}

TEST(rejects_other_lines)
{
	const char *bad[] = {
		"sync: no error",
		"Assertion `x` failed.",
		"k.cu:7: k: block: [1,2], thread: [1,0,0] Assertion `x` failed.",
		"k.cu:7: k: block: [1,0,0], thread: [1,0,0] Assertion `x",
		"k.cu: k: block: [1,0,0], thread: [1,0,0] Assertion `x` failed.",
		"k.cu:7: k: block: [1,0,0], thread: [a,0,0] Assertion `x` failed.",
		"k.cu:7: : block: [1,0,0], thread: [1,0,0] Assertion `x` failed.",
		"k.cu:7: k: block: [99999999999,0,0], thread: [1,0,0] Assertion `x` failed.",
		"",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct diag_assert_line l;
		CHECK_MSG(diag_assert_parse(bad[i], strlen(bad[i]), &l) == 0,
			  "accepted: %s", bad[i]);
	}
}

static void feed_chunks(struct diag_asserts *a, const char *s, size_t len,
			size_t chunk)
{
	for (size_t off = 0; off < len; off += chunk) {
		size_t n = len - off < chunk ? len - off : chunk;
		CHECK_INT(diag_asserts_feed(a, s + off, n), 0);
	}
	CHECK_INT(diag_asserts_finish(a), 0);
}

/* 4096 lines from 2 blocks x 2048 threads of one assert, plus a second
 * assert and noise, in several chunkings: one entry each, same counts. */
TEST(aggregates_thousands_in_any_chunking)
{
	size_t cap = 1 << 21, len = 0;
	char *text = malloc(cap);
	for (unsigned b = 0; b < 2; b++)
		for (unsigned t = 0; t < 2048; t++)
			len += (size_t)snprintf(text + len, cap - len,
				"Loss.cu:245: nll: block: [%u,0,0], thread: [%u,%u,0] "
				"Assertion `t >= 0 && t < n_classes` failed.\r\n",
				b + 4, t % 1024, t / 1024);
	len += (size_t)snprintf(text + len, cap - len,
		"noise line\nk.cu:9: void k(): block: [7,8,9], thread: "
		"[1,2,3] Assertion `p != 0` failed.");
	size_t chunks[] = {len, 1, 7, 4096};
	for (size_t c = 0; c < 4; c++) {
		struct diag_asserts *a = diag_asserts_new();
		feed_chunks(a, text, len, chunks[c]);
		CHECK_INT(diag_asserts_count(a), 2);
		CHECK_INT(diag_asserts_total(a), 4097);
		const struct diag_assert_entry *e = diag_asserts_get(a, 0);
		CHECK_INT(e->count, 4096);
		CHECK_INT(e->block_min.x, 4);
		CHECK_INT(e->block_max.x, 5);
		CHECK_INT(e->thread_min.x, 0);
		CHECK_INT(e->thread_max.x, 1023);
		CHECK_INT(e->thread_max.y, 1);
		CHECK_INT(e->n_examples, DIAG_ASSERT_EXAMPLES);
		CHECK_INT(e->first_thread[1].x, 1);
		CHECK_INT(e->full_signature, 0);
		CHECK_STR(e->kernel_short, "nll");
		e = diag_asserts_get(a, 1);
		CHECK_INT(e->count, 1);
		CHECK_STR(e->expr, "p != 0");
		CHECK_STR(e->kernel_short, "k");
		CHECK_INT(e->full_signature, 1);
		CHECK_INT(e->block_min.z, 9);
		diag_asserts_free(a);
	}
	free(text);
}

TEST(entry_bound_and_long_lines)
{
	struct diag_asserts *a = diag_asserts_new();
	char line[256];
	for (unsigned i = 0; i < DIAG_ASSERT_MAX_ENTRIES + 10; i++) {
		int n = snprintf(line, sizeof line,
				 "f.cu:%u: k: block: [0,0,0], thread: [0,0,0] "
				 "Assertion `x` failed.\n", i + 1);
		diag_asserts_feed(a, line, (size_t)n);
	}
	CHECK_INT(diag_asserts_count(a), DIAG_ASSERT_MAX_ENTRIES);
	CHECK_INT(diag_asserts_dropped(a), 10);
	diag_asserts_free(a);

	/* A 1 MB line without newline, then a real one: the long line is
	 * dropped, memory stays bounded, the next line still parses. */
	a = diag_asserts_new();
	char *junk = malloc(1 << 20);
	memset(junk, 'x', 1 << 20);
	for (int i = 0; i < 4; i++)
		diag_asserts_feed(a, junk, 1 << 18);
	diag_asserts_feed(a, "\n", 1);
	diag_asserts_feed(a, c_line, strlen(c_line));
	diag_asserts_feed(a, "\n", 1);
	CHECK_INT(diag_asserts_count(a), 1);
	free(junk);
	diag_asserts_free(a);
}

struct hook_seen {
	int lines;
	int sync;
};

static void on_line(void *ctx, const char *s, size_t n)
{
	struct hook_seen *h = ctx;
	h->lines++;
	if (n == 14 && memcmp(s, "sync: no error", 14) == 0)
		h->sync++;
}

TEST(other_lines_reach_the_hook_without_cr)
{
	struct diag_asserts *a = diag_asserts_new();
	struct hook_seen h = {0};
	diag_asserts_set_line_hook(a, on_line, &h);
	const char *s = "sync: no error\r\nsync: no";
	diag_asserts_feed(a, s, strlen(s));
	diag_asserts_feed(a, " error", 6);
	diag_asserts_finish(a);
	CHECK_INT(h.lines, 2);
	CHECK_INT(h.sync, 2);
	diag_asserts_free(a);
}

/* Every T line of every shared transcript: the assertion ones parse into
 * the expected entries, the others do not. */
TEST(shared_fixture_T_lines)
{
	struct {
		const char *file, *expr, *kernel_short;
		unsigned line, bx, tx;
	} want[] = {
		{"assert_label.cu", "t >= 0 && t < num_classes", "nll_loss", 10, 1, 5},
		{"cluster.cu", "v >= 0", "pairwise", 14, 6, 9},
		{"big_grid.cu", "acc == -1", "busy", 16, 132, 77},
		{"/pytorch/aten/src/ATen/native/cuda/Loss.cu",
		 "t >= 0 && t < n_classes",
		 "nll_loss_forward_reduce_cuda_kernel_2d", 245, 0, 23},
	};
	char path[4096];
	snprintf(path, sizeof path, "%s", test_fixtures_dir());
	DIR *d = opendir(path);
	CHECK(d);
	struct diag_asserts *a = diag_asserts_new();
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 7 || strcmp(de->d_name + n - 7, ".mi.log") != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", test_fixtures_dir(),
			 de->d_name);
		size_t len;
		char *text = test_read_file(path, &len);
		for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
			char *t = strstr(l, " T ");
			if (!t || t - l > 12)
				continue;
			diag_asserts_feed(a, t + 3, strlen(t + 3));
			diag_asserts_feed(a, "\n", 1);
		}
		free(text);
	}
	closedir(d);
	CHECK_INT(diag_asserts_count(a), 4);
	for (size_t i = 0; i < 4; i++) {
		const struct diag_assert_entry *e = NULL;
		for (size_t j = 0; j < diag_asserts_count(a); j++)
			if (strcmp(diag_asserts_get(a, j)->file, want[i].file) == 0)
				e = diag_asserts_get(a, j);
		CHECK_MSG(e, "no entry for %s", want[i].file);
		CHECK_STR(e->expr, want[i].expr);
		CHECK_STR(e->kernel_short, want[i].kernel_short);
		CHECK_INT(e->line, want[i].line);
		CHECK_INT(e->block_min.x, want[i].bx);
		CHECK_INT(e->thread_min.x, want[i].tx);
	}
	diag_asserts_free(a);
}

TEST(kernel_basename)
{
	char b[128];
	dec_func_short("void at::native::(anonymous namespace)::"
			     "nll_loss_forward_reduce_cuda_kernel_2d<float, "
			     "float, long>(float*, float*, float const*, long "
			     "const*, float const*, bool, long, long, long, long)",
			     b, sizeof b);
	CHECK_STR(b, "nll_loss_forward_reduce_cuda_kernel_2d");
	dec_func_short("apply(Params, float*)", b, sizeof b);
	CHECK_STR(b, "apply");
	dec_func_short("sum_next", b, sizeof b);
	CHECK_STR(b, "sum_next");
	dec_func_short("void ns::S<int>::run(int) const", b, sizeof b);
	CHECK_STR(b, "run");
	dec_func_short("((((", b, sizeof b);
	CHECK_STR(b, "((((");
	CHECK_INT(dec_func_short("abcdef", b, 4), 6);
	CHECK_STR(b, "abc");
}

/* A lambda's body is "operator()": not a function named "operator"
 * (issue 10, item 6). */
TEST(kernel_basename_of_lambdas_and_templates)
{
	char b[128];
	dec_func_short("operator()", b, sizeof b);
	CHECK_STR(b, "operator()");
	dec_func_short("main::{lambda(int)#1}::operator()(int) const", b,
			     sizeof b);
	CHECK_STR(b, "{lambda(int)#1}::operator()");
	dec_func_short("Functor<float>::operator()(float*) const", b,
			     sizeof b);
	CHECK_STR(b, "Functor<float>::operator()");
	dec_func_short("void launch<main::{lambda(int)#1}>(main::"
			     "{lambda(int)#1})", b, sizeof b);
	CHECK_STR(b, "launch");
	dec_func_short("void k<(int)2, float>(float*)", b, sizeof b);
	CHECK_STR(b, "k");
	dec_func_short("void k<(int)2>(const float *) [with T = float]",
			     b, sizeof b);
	CHECK_STR(b, "k");
	dec_func_short("cooperator(int)", b, sizeof b);
	CHECK_STR(b, "cooperator");
	/* nvcc's device lambda in an assertion line (lambda_assert, H200):
	 * was "->auto" */
	dec_func_short("lambda [](float)->auto::operator()(float)->auto",
			     b, sizeof b);
	CHECK_STR(b, "lambda [](float)->auto::operator()");
	dec_func_short("auto f(int)->int", b, sizeof b);
	CHECK_STR(b, "f");
}

TEST(parses_lambda_and_template_functions)
{
	struct diag_assert_line l;
	const char *s = "/src/lam.cu:9: operator(): block: [0,0,0], thread: "
			"[3,0,0] Assertion `v >= 0` failed.";
	CHECK_INT(diag_assert_parse(s, strlen(s), &l), 1);
	CHECK_INT(l.line, 9);
	CHECK(l.kernel_len == 10 && memcmp(l.kernel, "operator()", 10) == 0);
	CHECK(l.thread.x == 3);
	s = "/src/t.cu:12: void k<(int)2>(const float *) [with T = float]: "
	    "block: [1,0,0], thread: [0,0,0] Assertion `a[i] > 0` failed.";
	CHECK_INT(diag_assert_parse(s, strlen(s), &l), 1);
	CHECK_INT(l.line, 12);
	CHECK(l.expr_len == 8 && memcmp(l.expr, "a[i] > 0", 8) == 0);
	CHECK(l.kernel_len == 46);
}
