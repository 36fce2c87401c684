/* Replay to fault: the target from a memcheck finding, the breakpoint
 * condition, the state machine, and the whole recipe on the controller
 * over fixtures/replay_to_fault.mi.log (stops on thread (99,0,0) with
 * i=99, n=100). */
#include "cudbg/mi.h"
#include "cudbg/model.h"
#include "cudbg/refault.h"
#include "cudbg/sanitizer.h"
#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct diag_san *load_xml(const char *name)
{
	char path[4096], err[512];
	snprintf(path, sizeof path, "%s/%s", test_fixtures_dir(), name);
	struct diag_san *s;
	CHECK_MSG(diag_san_load_file(path, &s, err, sizeof err) == 0, "%s", err);
	return s;
}

TEST(target_and_condition)
{
	struct diag_san *s = load_xml("small_oob.sanitizer.xml");
	struct diag_refault_target t;
	CHECK_INT(diag_refault_target_from(diag_san_get(s, 0), &t), 0);
	CHECK_STR(t.file, "small_oob.cu");
	CHECK_INT(t.line, 7);
	CHECK_STR(t.kernel, "sum_next");
	char cond[256];
	diag_refault_condition(&t, cond, sizeof cond);
	CHECK_STR(cond, "blockIdx.x == 0 && threadIdx.x == 99");
	/* The Api record has no thread or line. */
	CHECK(diag_refault_target_from(diag_san_get(s, 1), &t) < 0);
	diag_san_free(s);

	struct diag_refault_target u = {.line = 3, .block = {1, 2, 0},
					.thread = {5, 0, 0},
					.block_dim = {32, 4, 1}};
	diag_refault_condition(&u, cond, sizeof cond);
	CHECK_STR(cond, "blockIdx.x == 1 && blockIdx.y == 2 && threadIdx.x == 5"
			" && threadIdx.y == 0");
}

static void on_rec(void *ctx, const struct mi_record *rec)
{
	diag_refault_on_record(ctx, rec);
}

static void feed(struct diag_refault *r, const char *line)
{
	mi_parse_line(line, strlen(line), on_rec, r);
}

/* The machine alone, fed by hand: entry stop of another kernel where the
 * file is unknown, a wrong thread, then the target. */
TEST(state_machine)
{
	struct diag_refault_target t = {.file = "k.cu", .line = 7,
					.thread = {9, 0, 0}};
	struct diag_refault *r = diag_refault_new(&t);
	CHECK(diag_refault_pending(r));
	CHECK_STR(diag_refault_next(r), "-gdb-set cuda break_on_launch application");
	CHECK(diag_refault_next(r) == NULL);
	feed(r, "^done");
	CHECK_STR(diag_refault_next(r), "-exec-run");
	feed(r, "^running");
	CHECK(diag_refault_next(r) == NULL);
	const char *entry = "*stopped,CudaFocus={blockIdx=\"(0,0,0)\",threadIdx="
			    "\"(0,0,0)\"},reason=\"breakpoint-hit\",frame={func=\"k\"}";
	feed(r, entry);
	CHECK_STR(diag_refault_next(r),
		  "-break-insert -c \"blockIdx.x == 0 && threadIdx.x == 9\" k.cu:7");
	/* This module does not hold k.cu: wait for the next launch. */
	feed(r, "^error,msg=\"No source file named k.cu.\"");
	CHECK_STR(diag_refault_next(r), "-exec-continue");
	feed(r, entry);
	CHECK(diag_refault_next(r) != NULL);
	feed(r, "^done,bkpt={number=\"4\",type=\"breakpoint\"}");
	CHECK_INT(diag_refault_bkptno(r), 4);
	CHECK_STR(diag_refault_next(r), "-gdb-set cuda break_on_launch none");
	feed(r, "^error,msg=\"not in this recording\"");
	CHECK_STR(diag_refault_next(r), "-exec-continue");
	CHECK_INT(diag_refault_state(r), DIAG_RF_CONTINUING);
	feed(r, "*stopped,CudaFocus={blockIdx=\"(0,0,0)\",threadIdx=\"(9,1,0)\"},"
		"reason=\"breakpoint-hit\",bkptno=\"4\"");
	CHECK_STR(diag_refault_next(r), "-exec-continue");
	feed(r, "*stopped,CudaFocus={blockIdx=\"(0,0,0)\",threadIdx=\"(9,0,0)\"},"
		"reason=\"breakpoint-hit\",bkptno=\"4\"");
	CHECK_INT(diag_refault_state(r), DIAG_RF_ARRIVED);
	CHECK(diag_refault_next(r) == NULL);
	diag_refault_free(r);

	/* The program ends first: a clear failure. */
	r = diag_refault_new(&t);
	diag_refault_next(r);
	feed(r, "^done");
	diag_refault_next(r);
	feed(r, "*stopped,reason=\"exited-normally\"");
	CHECK_INT(diag_refault_state(r), DIAG_RF_FAILED);
	CHECK(strstr(diag_refault_error(r), "ended before the kernel"));
	diag_refault_free(r);
}

struct run {
	struct dbg_ctl *c;
	struct diag_refault *rf;
};

static void on_record(void *ctx, const struct mi_record *rec)
{
	struct run *r = ctx;
	diag_refault_on_async(r->rf, rec);
}

static bool ready(void *ctx)
{
	struct run *r = ctx;
	return session_ready(ctl_session(r->c)) ||
	       ctl_model(r->c)->state == MODEL_GONE;
}

static const char *var(const struct dbg_model *m, const char *name)
{
	for (size_t i = 0; i < m->vars.n; i++)
		if (strcmp(m->vars.v[i].name, name) == 0)
			return m->vars.v[i].value;
	return NULL;
}

TEST_TIMEOUT(replays_to_the_faulting_thread_on_the_controller, 60)
{
	struct diag_san *s = load_xml("small_oob.sanitizer.xml");
	struct diag_refault_target t;
	CHECK_INT(diag_refault_target_from(diag_san_get(s, 0), &t), 0);
	diag_san_free(s);

	struct run r = {0};
	r.rf = diag_refault_new(&t);
	char path[4096], err[512] = "";
	snprintf(path, sizeof path, "%s/replay_to_fault.mi.log",
		 test_fixtures_dir());
	struct session_config sc = {.backend = SESSION_REPLAY, .replay = path};
	struct dbg_ctl_config cfg = {.session = &sc};
	cfg.hooks.ctx = &r;
	cfg.hooks.on_record = on_record;
	r.c = ctl_new(&cfg, err, sizeof err, NULL);
	CHECK_MSG(r.c, "ctl_new: %s", err);
	CHECK(ctl_run_until(r.c, ready, &r, 10000) >= 0);
	enum diag_refault_state st = diag_refault_drive(r.rf, r.c, 20000);
	CHECK_MSG(st == DIAG_RF_ARRIVED, "state %d: %s", (int)st,
		  diag_refault_error(r.rf));
	const struct dbg_model *m = ctl_model(r.c);
	CHECK_INT(m->state, MODEL_STOPPED);
	CHECK(m->focus.valid);
	CHECK_INT(m->focus.thread.x, 99);
	CHECK_INT(m->focus.block.x, 0);
	CHECK_INT(m->stop.frame.line, 7);
	CHECK_STR(var(m, "i"), "99");
	CHECK_STR(var(m, "n"), "100");
	CHECK_INT(diag_refault_bkptno(r.rf), 1);
	ctl_free(r.c);
	diag_refault_free(r.rf);
}
