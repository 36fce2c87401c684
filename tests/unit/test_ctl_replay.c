/* The controller over replays of real cuda-gdb sessions: the refresh
 * after a device stop (focus, frames, locals, kernels, the focused block's
 * threads), stepping in a kernel, finish refused in the kernel's own
 * frame, a CUDA focus switch, the warp watch, coredumps, the device assert
 * frame pick. */
#include "cudbg/model.h"
#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char path[4096];

static struct dbg_ctl *replay(const char *fixture)
{
	snprintf(path, sizeof path, "%s/%s", test_fixtures_dir(), fixture);
	struct session_config scfg = { .backend = SESSION_REPLAY,
				       .replay = path };
	struct dbg_ctl_config cfg = { .session = &scfg };
	char err[512];
	struct dbg_ctl *c = ctl_new(&cfg, err, sizeof err, NULL);
	CHECK_MSG(c != NULL, "ctl_new: %s", err);
	return c;
}

struct waiter {
	struct dbg_ctl *c;
	unsigned stops;
	int mode; /* 0 ready, 1 idle, 2 a new settled stop */
};

static bool pred(void *ctx)
{
	struct waiter *w = ctx;
	const struct dbg_model *m = ctl_model(w->c);
	if (m->state == MODEL_GONE)
		return true;
	if (w->mode == 0)
		return session_ready(ctl_session(w->c)) && !ctl_busy(w->c);
	if (w->mode == 1)
		return !ctl_busy(w->c);
	return m->stop_count > w->stops && !ctl_busy(w->c) &&
	       ctl_refreshed(w->c) &&
	       (m->state == MODEL_STOPPED || m->state == MODEL_EXITED);
}

static void wait_mode(struct dbg_ctl *c, int mode, unsigned stops)
{
	struct waiter w = { c, stops, mode };
	CHECK_MSG(ctl_run_until(c, pred, &w, 20000) == 1, "wait %d: state %s",
		  mode, model_state_name(ctl_model(c)->state));
	CHECK_MSG(ctl_model(c)->state != MODEL_GONE, "gone: %s",
		  ctl_model(c)->gone_reason);
}

#define STEP(c, call)                                                       \
	do {                                                                \
		unsigned before_ = ctl_model(c)->stop_count;                \
		CHECK((call) > 0);                                          \
		wait_mode((c), 2, before_);                                 \
	} while (0)

static const char *var(const struct dbg_model *m, const char *name)
{
	for (size_t i = 0; i < m->vars.n; i++)
		if (!strcmp(m->vars.v[i].name, name))
			return m->vars.v[i].value;
	return NULL;
}

TEST_TIMEOUT(step_kernel_session, 60)
{
	struct dbg_ctl *c = replay("step_kernel.mi.log");
	const struct dbg_model *m = ctl_model(c);
	wait_mode(c, 0, 0);
	CHECK(m->cuda);
	/* the two -break-insert answers of the recording's start */
	STEP(c, ctl_run(c));
	CHECK_INT(m->state, MODEL_STOPPED);
	CHECK_INT(m->stop.bkptno, 1);
	CHECK(m->focus.valid);
	CHECK_INT(m->focus.sm, 128);
	CHECK_INT(m->frames.n, 1);
	CHECK_INT(m->frames.frames[0].line, 8);
	/* --simple-values is not in the recording: the fallback answered */
	CHECK_STR(var(m, "n"), "4096");
	CHECK_STR(var(m, "i"), "<optimized out>");
	/* the focused block's threads: filter unknown here, whole grid */
	CHECK(m->tables[MODEL_T_THREADS].arena == NULL ||
	      m->tables[MODEL_T_THREADS].kind == DEC_TABLE_THREADS);

	STEP(c, ctl_next(c));
	CHECK_INT(m->frames.frames[0].line, 9);
	CHECK_STR(var(m, "i"), "0");
	STEP(c, ctl_step(c));
	CHECK_INT(m->frames.frames[0].line, 10);
	/* the kernel's own frame: refused before asking (cuda-gdb 13 says
	 * "finish" not meaningful in the outermost frame) */
	CHECK(model_finish_refused(m));
	CHECK_INT(ctl_finish(c), CTL_ESTATE);
	CHECK(strstr(m->error, "outermost"));

	struct dec_dim3 b = { 3, 0, 0, true }, t = { 17, 0, 0, true };
	CHECK(ctl_focus_thread(c, b, t) > 0);
	wait_mode(c, 1, 0);
	CHECK_INT(m->focus.block.x, 3);
	CHECK_INT(m->focus.thread.x, 17);
	CHECK_INT(m->focus.sm, 131);
	CHECK_INT(m->frames.frames[0].line, 8);
	CHECK(m->changes & MODEL_CH_FOCUS);
	ctl_free(c);
}

TEST_TIMEOUT(warp_watch_replay, 60)
{
	struct dbg_ctl *c = replay("warp_watch.mi.log");
	const struct dbg_model *m = ctl_model(c);
	wait_mode(c, 0, 0);
	STEP(c, ctl_run(c));
	CHECK_INT(m->stop.bkptno, 1);
	CHECK_INT(ctl_warp_watch(c, "xi"), 0);
	CHECK(m->warp_busy);
	wait_mode(c, 1, 0);
	CHECK(!m->warp_busy);
	CHECK(m->nlanes >= 1);
	bool lane_value = false;
	for (size_t i = 0; i < m->nlanes; i++)
		lane_value |= !m->lanes[i].error && m->lanes[i].value &&
			      !strcmp(m->lanes[i].value, "0");
	CHECK(lane_value);
	CHECK_INT(m->focus.lane, 0); /* focus put back */
	ctl_free(c);
}

TEST_TIMEOUT(assert_picks_kernel_frame, 60)
{
	struct dbg_ctl *c = replay("assert_label.mi.log");
	const struct dbg_model *m = ctl_model(c);
	wait_mode(c, 0, 0);
	STEP(c, ctl_run(c));
	CHECK(model_continue_loses_error(m));
	CHECK_INT(m->frames.n, 2);
	/* frame 0 is __assert_fail with no source: the kernel's frame is
	 * shown (the -stack-select-frame is not in this recording, so the
	 * selection stays where gdb is) */
	const struct dec_frame *src = model_source_frame(m);
	CHECK(src && src->line == 10);
	char buf[128];
	CHECK_STR(model_describe_stop(m, buf, sizeof buf), "Warp Assert in nll_loss");
	CHECK_INT(m->tables[MODEL_T_KERNELS].nr_rows, 1);
	ctl_free(c);
}

TEST_TIMEOUT(coredump_replay, 60)
{
	struct dbg_ctl *c = replay("core_small_oob.mi.log");
	const struct dbg_model *m = ctl_model(c);
	wait_mode(c, 0, 0);
	CHECK(m->is_core);
	CHECK_INT(m->target, SESSION_CORE);
	CHECK_INT(m->state, MODEL_STOPPED);
	CHECK_INT(m->focus.thread.x, 99);
	CHECK_STR(var(m, "i"), "99");
	CHECK_STR(var(m, "n"), "100");
	CHECK_INT(ctl_next(c), CTL_ESTATE);
	CHECK(strstr(m->error, "coredump"));
	CHECK_INT(ctl_run(c), CTL_ESTATE);
	struct dec_thread_row r;
	CHECK_INT(dec_table_thread(&m->tables[MODEL_T_THREADS], 0, &r), 0);
	CHECK_INT(r.line, 7);
	char buf[64];
	CHECK_STR(model_describe_stop(m, buf, sizeof buf), "Coredump in sum_next");
	ctl_free(c);
}
