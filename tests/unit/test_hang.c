/* The hang summary (diag/hang.c): what a line waits on, and the per-line
 * summary of a real full-device threads table (big_grid: 264 blocks of
 * 1024 threads, most of them spinning at `while (!go) { }`). */
#include "cudbg/diag.h"
#include "cudbg/hang.h"
#include "cudbg/model.h"
#include "tests/harness.h"
#include "tests/unit/fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

TEST(spin_lines)
{
	CHECK(diag_hang_line_spins("    while (*flag == 0) { }"));
	CHECK(diag_hang_line_spins("    while (!go) { }")); /* big_grid.cu:17 */
	CHECK(diag_hang_line_spins("while (flags[other] == 0) {}"));
	CHECK(diag_hang_line_spins("while (atomicAdd(&count, 0) < n)"));
	CHECK(diag_hang_line_spins("while (!ready);"));
	CHECK(diag_hang_line_spins("for (;;) { if (p->done) break; }"));
	/* counted loops and plain code are no waits */
	CHECK(!diag_hang_line_spins("for (int k = 0; k < n; k++) {"));
	CHECK(!diag_hang_line_spins("while (i < n) {"));
	CHECK(!diag_hang_line_spins("acc += k * t;"));
	CHECK(!diag_hang_line_spins("// while (*flag) { }"));
	CHECK(!diag_hang_line_spins(NULL));
}

TEST(barrier_lines)
{
	CHECK(diag_hang_line_barrier("        __syncthreads();"));
	CHECK(diag_hang_line_barrier("__syncwarp(mask);"));
	CHECK(diag_hang_line_barrier("    grid.sync();"));
	CHECK(diag_hang_line_barrier("asm volatile(\"bar.sync 0;\");"));
	CHECK(!diag_hang_line_barrier("x = 1; // before __syncthreads()"));
	CHECK(!diag_hang_line_barrier("out[i] = tile[i];"));
}

static void do_table(const struct mi_record *r, void *out)
{
	CHECK_INT(dec_table_decode(r->results, out), 0);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

TEST_TIMEOUT(summary_of_a_full_device, 120)
{
	struct dbg_model m;
	model_init(&m, 0, 0);
	struct dec_table t;
	fx_decode("big_grid.mi.log.gz", "-cuda-info-kernels", "^done", 0,
		  do_table, &t);
	model_take_table(&m, MODEL_T_KERNELS, &t);
	fx_decode("big_grid.mi.log.gz", "-cuda-info-threads", "^done", 0,
		  do_table, &t);
	model_take_table(&m, MODEL_T_THREADS, &t);
	m.state = MODEL_STOPPED;
	m.focus.valid = true;
	m.focus.kernel = 0;
	struct diag *d = diag_new();
	const char *ex = getenv("CUDBG_EXAMPLES");
	diag_add_source_dir(d, ex ? ex : "data/examples");
	double t0 = now_s();
	CHECK_INT(diag_hang_from_model(d, &m, 12, false, 0), 0);
	double secs = now_s() - t0;
	const struct diag_hang *h = diag_hang_of(d);
	CHECK(h && h->device);
	CHECK_INT(h->blocks_total, 264);
	CHECK_INT(h->block_size, 1024);
	CHECK_INT(h->blocks_live, 264);
	long sum = 0;
	const struct diag_hang_group *spin = NULL;
	for (size_t i = 0; i < h->n_groups; i++) {
		sum += h->groups[i].threads;
		if (h->groups[i].line == 17)
			spin = &h->groups[i];
	}
	CHECK_INT(sum, h->threads_live);
	CHECK(h->threads_live > 0 && h->threads_live <= 264L * 1024);
	/* the waiting threads, read from the source line */
	CHECK(spin && spin->wait == DIAG_HANG_SPIN);
	CHECK(spin && spin->source && strstr(spin->source, "while (!go)"));
	CHECK(h->spin);
	/* the loop over k is work, not a wait: not all threads wait */
	CHECK(!h->all_waiting);
	CHECK(!h->barrier_divergent);
	char *lines = diag_hang_lines(h, NULL);
	CHECK(lines && strstr(lines, "big_grid.cu:17 (spin-wait)"));
	free(lines);
	char head[128];
	diag_hang_headline(h, head, sizeof head);
	CHECK_STR(head, "Hang: kernel busy still running after 12 s");
	/* 42,023 rows: about 0.01 s here, next to the 1.2 s cuda-gdb takes
	 * to list them (a cost for the benchmarks, not a test: valgrind
	 * makes it 7 s) */
	(void)secs;
	/* the analysis is of kind hang, the interrupt no exception */
	const struct diag_fault *f = diag_analyze(d);
	CHECK_INT(f->kind, DIAG_FAULT_HANG);
	CHECK(f->flags[DIAG_F_HANG] && f->flags[DIAG_F_SPIN_WAIT]);
	diag_free(d);
	model_free(&m);
}

TEST(copy_and_take)
{
	struct dbg_model m;
	model_init(&m, 0, 0);
	struct dec_table t;
	fx_decode("big_grid.mi.log.gz", "-cuda-info-kernels", "^done", 0,
		  do_table, &t);
	model_take_table(&m, MODEL_T_KERNELS, &t);
	m.state = MODEL_STOPPED;
	m.focus.valid = true;
	m.focus.kernel = 0;
	struct diag *d = diag_new();
	CHECK_INT(diag_hang_from_model(d, &m, 3, true, 0), 0);
	struct diag_hang *h = diag_hang_take(d);
	CHECK(h && !diag_hang_of(d));
	struct diag *e = diag_new();
	CHECK_INT(diag_hang_set(e, h), 0);
	CHECK(diag_hang_of(e)->recorded && diag_hang_of(e)->seconds == 3);
	char *lines = diag_hang_lines(diag_hang_of(e), NULL);
	CHECK(lines && strstr(lines, "no thread of the kernel was listed"));
	free(lines);
	diag_hang_free(h);
	free(h);
	diag_free(e);
	diag_free(d);
	model_free(&m);
	/* not stopped: no summary */
	struct dbg_model r;
	model_init(&r, 0, 0);
	struct diag *g = diag_new();
	CHECK_INT(diag_hang_from_model(g, &r, 1, false, 0), DIAG_ESTATE);
	diag_free(g);
	model_free(&r);
}
