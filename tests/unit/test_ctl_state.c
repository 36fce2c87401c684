/* Controller operations the state panes rely on, over replays of real
 * cuda-gdb transcripts: table errors, the warp watch across lanes (with
 * lane switches the recording lacks), the host stack of a device stop. */
#include "cudbg/model.h"
#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct run {
	struct dbg_ctl *c;
	const struct dbg_model *m;
	char path[4096];
	struct session_config sc;
};

static bool ready_pred(void *ctx)
{
	struct run *r = ctx;
	return session_ready(ctl_session(r->c)) || r->m->state == MODEL_GONE;
}

/* Stopped, and every refresh answered. */
static bool settled_pred(void *ctx)
{
	struct run *r = ctx;
	return r->m->state == MODEL_GONE ||
	       (r->m->state == MODEL_STOPPED && !ctl_busy(r->c));
}

static void wait_for(struct run *r, bool (*pred)(void *))
{
	int rc = ctl_run_until(r->c, pred, r, 10000);
	CHECK_MSG(rc >= 0, "ctl_run_until: %d", rc);
	CHECK(r->m->state != MODEL_GONE);
}

/* Replays `fixture` to its first stop. */
static void run_to_stop(struct run *r, const char *fixture)
{
	char err[512] = "";
	struct dbg_ctl_config cfg;

	memset(r, 0, sizeof *r);
	snprintf(r->path, sizeof r->path, "%s/%s", test_fixtures_dir(), fixture);
	r->sc.backend = SESSION_REPLAY;
	r->sc.replay = r->path;
	memset(&cfg, 0, sizeof cfg);
	cfg.session = &r->sc;
	r->c = ctl_new(&cfg, err, sizeof err, NULL);
	CHECK_MSG(r->c != NULL, "ctl_new: %s", err);
	r->m = ctl_model(r->c);
	wait_for(r, ready_pred);
	CHECK(ctl_run(r->c) > 0);
	wait_for(r, settled_pred);
}

TEST(table_refresh_error_is_kept)
{
	struct run r;
	run_to_stop(&r, "step_kernel.mi.log");
	/* step_kernel never asked for the threads table: both the block
	 * page and the whole-grid fallback are refused. */
	const char *e = r.m->table_error[MODEL_T_THREADS];
	CHECK(e != NULL);
	CHECK_MSG(strstr(e, "not in this recording") != NULL, "%s", e);
	CHECK_INT(r.m->tables[MODEL_T_THREADS].nr_rows, 0);
	/* A page that fails says so and keeps the table. */
	CHECK(ctl_threads_page(r.c, (struct dec_dim3){ 3, 0, 0, true }) > 0);
	wait_for(&r, settled_pred);
	CHECK(r.m->error && strstr(r.m->error, "-cuda-info-threads block (3,0,0)"));
	ctl_free(r.c);
}

TEST(table_error_cleared_by_a_table)
{
	struct run r;
	run_to_stop(&r, "seed_py.mi.log");
	CHECK(r.m->table_error[MODEL_T_THREADS] == NULL);
	CHECK(r.m->table_error[MODEL_T_KERNELS] == NULL);
	CHECK_INT(r.m->tables[MODEL_T_KERNELS].nr_rows, 1);
	ctl_free(r.c);
}

static bool warp_done(void *ctx)
{
	struct run *r = ctx;
	return r->m->state == MODEL_GONE || (!r->m->warp_busy && !ctl_busy(r->c));
}

TEST(warp_watch_every_lane)
{
	struct run r;
	run_to_stop(&r, "warp_watch.mi.log");
	CHECK_INT(r.m->focus.lane, 0);
	CHECK_INT(ctl_warp_watch(r.c, "xi"), 0);
	CHECK(r.m->warp_busy);
	wait_for(&r, warp_done);
	CHECK_INT(r.m->nlanes, 32);
	int ok = 0, refused = 0;
	for (size_t i = 0; i < r.m->nlanes; i++) {
		const struct model_lane_value *l = &r.m->lanes[i];
		CHECK_INT(l->lane, (int)i);
		CHECK(l->active);
		CHECK(l->value != NULL);
		if (!l->error) {
			CHECK_STR(l->value, "0");
			ok++;
		} else {
			/* the recording switched only to lanes 1, 2 and 31 */
			CHECK_MSG(strstr(l->value, "cannot switch to lane") != NULL, "%s", l->value);
			refused++;
		}
	}
	CHECK_INT(ok, 4); /* lane 0 (no switch), 1, 2, 31 */
	CHECK_INT(refused, 28);
	CHECK(!r.m->lanes[0].error && !r.m->lanes[1].error && !r.m->lanes[31].error);
	CHECK(r.m->lanes[3].error);
	ctl_free(r.c);
}

struct got_stack {
	int calls;
	size_t n;
	char first_from[256];
	char err[256];
};

static void stack_got(void *ctx, struct dec_stack *st, const char *err)
{
	struct got_stack *g = ctx;
	g->calls++;
	if (st) {
		g->n = st->n;
		if (st->n && st->frames[0].from)
			snprintf(g->first_from, sizeof g->first_from, "%s", st->frames[0].from);
	} else {
		snprintf(g->err, sizeof g->err, "%s", err ? err : "");
	}
}

TEST(host_stack_of_a_device_stop)
{
	struct run r;
	struct got_stack g = { 0 };
	run_to_stop(&r, "filters.mi.log");
	CHECK(ctl_host_stack(r.c, "x1", stack_got, &g) == CTL_EINVAL);
	CHECK(ctl_host_stack(r.c, NULL, stack_got, &g) > 0);
	wait_for(&r, settled_pred);
	CHECK_INT(g.calls, 1);
	CHECK_MSG(g.n >= 8, "frames %zu err %s", g.n, g.err);
	CHECK(strstr(g.first_from, "libcuda.so") != NULL);
	ctl_free(r.c);
}

TEST(host_stack_refused_thread)
{
	struct run r;
	struct got_stack g = { 0 };
	run_to_stop(&r, "seed_py.mi.log");
	/* seed_py never selected thread 7: the error reaches the pane */
	CHECK(ctl_host_stack(r.c, "7", stack_got, &g) > 0);
	wait_for(&r, settled_pred);
	CHECK_INT(g.calls, 1);
	CHECK_INT(g.n, 0);
	CHECK_MSG(strstr(g.err, "not in this recording") != NULL, "%s", g.err);
	ctl_free(r.c);
}

TEST(uncoalesced_block_on_request)
{
	struct run r;
	run_to_stop(&r, "filters.mi.log");
	CHECK(ctl_threads_uncoalesced(r.c, (struct dec_dim3){ 0 }) == CTL_EINVAL);
	/* filters recorded this block's table (coalesced: the recording
	 * never turned coalescing off); the setting commands it lacks are
	 * refused without harm */
	CHECK(ctl_threads_uncoalesced(r.c, (struct dec_dim3){ 132, 0, 0, true }) > 0);
	wait_for(&r, settled_pred);
	CHECK(r.m->threads_block.valid && r.m->threads_block.x == 132);
	CHECK(r.m->tables[MODEL_T_THREADS].nr_rows > 0);
	CHECK(r.m->table_error[MODEL_T_THREADS] == NULL);
	ctl_free(r.c);
}
