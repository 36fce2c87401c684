/* Replay to fault from a precise stop, no memcheck finding (diag/
 * refault_stop.c): the target from a replayed device assert
 * (assert_label.mi.log) and from compute-sanitizer's coredump
 * (core_small_oob.mi.log), none from a hardware exception
 * (null_write.mi.log), and the coredump's target driven to the thread on
 * the recorded recipe (replay_to_fault.mi.log): i = 99 is real there. */
#include "cudbg/mi.h"
#include "cudbg/model.h"
#include "cudbg/refault.h"
#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct waiter {
	struct dbg_ctl *c;
	unsigned stops;
	struct diag_refault *rf;
};

static bool settled(void *ctx)
{
	struct waiter *w = ctx;
	const struct dbg_model *m = ctl_model(w->c);
	if (m->state == MODEL_GONE)
		return true;
	if (!session_ready(ctl_session(w->c)) || ctl_busy(w->c))
		return false;
	/* a core is stopped from the start (no *stopped of a run) */
	bool stopped = m->stop_count > w->stops ||
		       (m->is_core && m->state == MODEL_STOPPED);
	return stopped && ctl_refreshed(w->c);
}

/* The debugger has answered its start and nothing is in flight: ready
 * for the run.  (A stop predicate here would never hold before the run
 * and waited out its whole bound, 10 s a test.) */
static bool ready(void *ctx)
{
	struct waiter *w = ctx;
	return ctl_model(w->c)->state == MODEL_GONE ||
	       (session_ready(ctl_session(w->c)) && !ctl_busy(w->c));
}

static void on_record(void *ctx, const struct mi_record *rec)
{
	struct waiter *w = ctx;
	if (w->rf)
		diag_refault_on_async(w->rf, rec);
}

static struct dbg_ctl *replay(const char *fixture, struct waiter *w)
{
	static char path[4096];
	snprintf(path, sizeof path, "%s/%s", test_fixtures_dir(), fixture);
	struct session_config sc = { .backend = SESSION_REPLAY, .replay = path };
	struct dbg_ctl_config cfg = { .session = &sc };
	cfg.hooks.ctx = w;
	cfg.hooks.on_record = on_record;
	char err[512] = "";
	struct dbg_ctl *c = ctl_new(&cfg, err, sizeof err, NULL);
	CHECK_MSG(c, "ctl_new: %s", err);
	w->c = c;
	return c;
}

/* Runs a launch (a core stops by itself) to its first settled stop. */
static void to_stop(struct dbg_ctl *c, struct waiter *w, bool run)
{
	w->stops = 0;
	if (run) {
		CHECK_INT(ctl_run_until(c, ready, w, 10000), 1);
		CHECK(ctl_run(c) > 0);
	}
	CHECK_MSG(ctl_run_until(c, settled, w, 20000) == 1, "no stop: %s",
		  model_state_name(ctl_model(c)->state));
}

TEST_TIMEOUT(target_from_a_device_assert, 60)
{
	struct waiter w = {0};
	struct dbg_ctl *c = replay("assert_label.mi.log", &w);
	to_stop(c, &w, true);
	const struct dbg_model *m = ctl_model(c);
	CHECK(diag_refault_stop_precise(m));
	struct diag_refault_target t;
	CHECK_INT(diag_refault_target_from_stop(m, &t), 0);
	/* the thread the assertion text names: block [1,0,0], thread [5,0,0]
	 * at assert_label.cu:10, the assert's own line in frame 1 */
	CHECK_STR(t.file, "assert_label.cu");
	CHECK_INT(t.line, 10);
	CHECK_INT(t.block.x, 1);
	CHECK_INT(t.thread.x, 5);
	CHECK_STR(t.kernel, "nll_loss");
	CHECK_INT(t.block_dim.x, 128);
	char cond[256];
	diag_refault_condition(&t, cond, sizeof cond);
	CHECK_STR(cond, "blockIdx.x == 1 && threadIdx.x == 5");
	ctl_free(c);
}

TEST_TIMEOUT(no_target_from_a_hardware_exception, 60)
{
	struct waiter w = {0};
	struct dbg_ctl *c = replay("null_write.mi.log", &w);
	to_stop(c, &w, true);
	const struct dbg_model *m = ctl_model(c);
	CHECK(m->focus.valid); /* a device stop, but lane 0 of the warp */
	CHECK(!diag_refault_stop_precise(m));
	struct diag_refault_target t;
	CHECK_INT(diag_refault_target_from_stop(m, &t), DIAG_ENOTFOUND);
	ctl_free(c);
	/* nor from a model that never stopped */
	struct dbg_model none;
	model_init(&none, 0, 0);
	CHECK_INT(diag_refault_target_from_stop(&none, &t), DIAG_ENOTFOUND);
	model_free(&none);
}

static const char *var(const struct dbg_model *m, const char *name)
{
	for (size_t i = 0; i < m->vars.n; i++)
		if (strcmp(m->vars.v[i].name, name) == 0)
			return m->vars.v[i].value;
	return NULL;
}

TEST_TIMEOUT(coredump_stop_replays_to_its_thread, 90)
{
	struct waiter w = {0};
	struct dbg_ctl *c = replay("core_small_oob.mi.log", &w);
	to_stop(c, &w, false);
	const struct dbg_model *m = ctl_model(c);
	CHECK(m->is_core);
	struct diag_refault_target t;
	CHECK_INT(diag_refault_target_from_stop(m, &t), 0);
	CHECK_STR(t.file, "small_oob.cu");
	CHECK_INT(t.line, 7);
	CHECK_INT(t.thread.x, 99);
	CHECK_INT(t.block.x, 0);
	ctl_free(c);

	/* The rerun (what T does): the recorded recipe stops that thread
	 * before the access, its locals live. */
	struct waiter r = {0};
	r.rf = diag_refault_new(&t);
	c = replay("replay_to_fault.mi.log", &r);
	CHECK_INT(ctl_run_until(c, ready, &r, 10000), 1);
	enum diag_refault_state st = diag_refault_drive(r.rf, c, 20000);
	CHECK_MSG(st == DIAG_RF_ARRIVED, "state %d: %s", (int)st,
		  diag_refault_error(r.rf));
	m = ctl_model(c);
	CHECK_INT(m->focus.thread.x, 99);
	CHECK_INT(m->stop.frame.line, 7);
	CHECK_STR(var(m, "i"), "99");
	ctl_free(c);
	diag_refault_free(r.rf);
}
