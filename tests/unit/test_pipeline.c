/* The diagnosis pipeline (diag/diagrun.c): the screen's step made from a
 * model holds the account, its hints and its report; the auto memcheck
 * policy is one function whatever fed the account (the screen's model
 * update or batch's stream); a missing rules file is an error for batch
 * and a reason the screen shows. */
#include "cudbg/diagrun.h"
#include "cudbg/hints.h"
#include "cudbg/mi.h"
#include "cudbg/model.h"
#include "cudbg/session.h"
#include "tests/harness.h"
#include "tests/unit/fx_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char prog0[] = "./null_write";
static char *const prog[] = { prog0, NULL };

static struct diag_run *run_new(enum diag_memcheck_policy p, bool rerun)
{
	char exe[4096], err[512];
	struct diag_run_config c = {
		.argv = prog, .memcheck = p, .can_rerun = rerun,
		.no_pystack = true,
	};
	snprintf(exe, sizeof exe, "%s/build", test_root_dir());
	struct diag_run *r = diag_run_new(&c, exe, err, sizeof err);
	CHECK_MSG(r != NULL, "diag_run_new: %s", err);
	return r;
}

TEST(update_holds_account_hints_and_report)
{
	struct dbg_model m;
	fx_model_at_stop("null_write.mi.log", &m, true);

	struct diag_run *r = run_new(DIAG_MEMCHECK_AUTO, true);
	const struct diag_run_view *v = diag_run_view(r);
	CHECK(v->fault == NULL); /* nothing before the first step */
	CHECK(v->no_rules == NULL);
	unsigned long gen = v->generation;
	CHECK_INT(diag_run_update(r, &m, NULL, NULL), DIAG_OK);
	CHECK(v->generation != gen);
	CHECK(v->fault != NULL);
	CHECK_INT(v->fault->kind, DIAG_FAULT_EXCEPTION);
	CHECK(v->account);
	CHECK(v->hints && v->hints->n > 0);
	CHECK(v->report && strstr(v->report, "Warp Illegal Address"));
	CHECK(v->stop_reason && *v->stop_reason);
	/* a device stop: the auto policy has nothing to run */
	CHECK(!diag_run_auto_pass(r, NULL));
	diag_run_free(r);
	model_free(&m);
}

/* A run that ended with a failing status and no device stop. */
static void failed_exit(struct dbg_model *m)
{
	model_init(m, 0, 0);
	m->backend = SESSION_LAUNCH;
	m->state = MODEL_EXITED;
	m->exit_code = 1;
}

TEST(auto_policy_is_one_whatever_fed_it)
{
	struct dbg_model m;
	failed_exit(&m);
	struct session_caps cuda = { .probed = true, .is_cuda_gdb = true };
	struct session_caps gdb = { .probed = true, .is_cuda_gdb = false };

	/* the screen: the account made from the model */
	struct diag_run *screen = run_new(DIAG_MEMCHECK_AUTO, true);
	CHECK_INT(diag_run_update(screen, &m, NULL, NULL), DIAG_OK);
	CHECK(diag_run_auto_pass(screen, &cuda));
	CHECK(diag_run_auto_pass(screen, NULL));
	CHECK(!diag_run_pass_first(screen));
	CHECK(!diag_run_auto_pass(screen, &gdb)); /* a CPU program */
	diag_run_free(screen);

	/* batch: the account fed from the session's stream */
	struct diag_run *batch = run_new(DIAG_MEMCHECK_AUTO, true);
	diag_on_exit(diag_run_diag(batch), false, 1);
	CHECK(diag_run_auto_pass(batch, &cuda));
	CHECK(!diag_run_auto_pass(batch, &gdb));
	diag_run_free(batch);

	/* --memcheck=always: the pass first, for the screen and batch */
	struct diag_run *always = run_new(DIAG_MEMCHECK_ALWAYS, true);
	CHECK(diag_run_pass_first(always));
	diag_run_free(always);
	always = run_new(DIAG_MEMCHECK_ALWAYS, false);
	CHECK(!diag_run_pass_first(always));
	diag_run_free(always);

	struct diag_run *never = run_new(DIAG_MEMCHECK_NEVER, true);
	CHECK_INT(diag_run_update(never, &m, NULL, NULL), DIAG_OK);
	CHECK(!diag_run_auto_pass(never, &cuda));
	diag_run_free(never);

	struct diag_run *replay = run_new(DIAG_MEMCHECK_AUTO, false);
	CHECK_INT(diag_run_update(replay, &m, NULL, NULL), DIAG_OK);
	CHECK(!diag_run_auto_pass(replay, &cuda)); /* nothing to rerun */
	diag_run_free(replay);
	model_free(&m);
}

static void say_ran(void *ctx, struct diag *d)
{
	(*(int *)ctx)++;
	diag_set_flag(d, DIAG_F_MEMCHECK_RAN, true);
}

TEST(feed_adds_what_the_screen_knows)
{
	struct dbg_model m;
	failed_exit(&m);
	struct diag_run *r = run_new(DIAG_MEMCHECK_AUTO, true);
	int calls = 0;
	CHECK_INT(diag_run_update(r, &m, say_ran, &calls), DIAG_OK);
	CHECK_INT(calls, 1);
	CHECK(diag_run_view(r)->fault->flags[DIAG_F_MEMCHECK_RAN]);
	/* the pass ran: the policy does not ask for it again */
	CHECK(!diag_run_auto_pass(r, NULL));
	diag_run_free(r);
	model_free(&m);
}

TEST(missing_rules_fail_batch_and_are_said_on_screen)
{
	char err[512] = "";
	struct diag_run_config c = { .argv = prog };
	setenv("CUDBG_DATADIR", "/nonexistent-cudbg-data", 1);
	CHECK(diag_run_new(&c, NULL, err, sizeof err) == NULL);
	CHECK(err[0] != '\0');
	c.rules_optional = true;
	struct diag_run *r = diag_run_new(&c, NULL, err, sizeof err);
	unsetenv("CUDBG_DATADIR");
	CHECK(r != NULL);
	const struct diag_run_view *v = diag_run_view(r);
	CHECK(v->no_rules && *v->no_rules);
	struct dbg_model m;
	failed_exit(&m);
	CHECK_INT(diag_run_update(r, &m, NULL, NULL), DIAG_ENOTFOUND);
	CHECK(v->fault == NULL);
	CHECK(v->no_rules && *v->no_rules);
	diag_run_free(r);
	model_free(&m);
}



/* The screen's account reads the debugger's console text as batch's
 * does: through the same hooks, which the screen's session calls as
 * each record comes (cuda-gdb's start says libcudadebugger is missing
 * there), and the environment hint follows on the screen too.  A new
 * session's account (diag_run_restart) has none of the old one's. */
static void to_hook(void *ctx, const struct mi_record *rec)
{
	const struct session_handlers *h = ctx;
	h->on_record(h->ctx, rec);
}

TEST(screen_account_reads_the_console_text)
{
	static const char said[] = "~\"warning: Cannot find "
				   "libcudadebugger.so.1: not found\\n\"";
	struct dbg_model m;
	failed_exit(&m);
	struct diag_run *r = run_new(DIAG_MEMCHECK_NEVER, true);
	struct session_handlers h;
	diag_run_hooks(r, &h);
	CHECK_INT(mi_parse_line(said, sizeof said - 1, to_hook, &h), 0);
	CHECK_INT(diag_run_update(r, &m, NULL, NULL), DIAG_OK);
	const struct diag_run_view *v = diag_run_view(r);
	CHECK(v->fault && v->fault->flags[DIAG_F_CUDADEBUGGER_MISSING]);
	CHECK_INT(diag_run_restart(r), DIAG_OK);
	CHECK(v->fault == NULL); /* the view into the old account went */
	CHECK_INT(diag_run_update(r, &m, NULL, NULL), DIAG_OK);
	CHECK(v->fault && !v->fault->flags[DIAG_F_CUDADEBUGGER_MISSING]);
	diag_run_free(r);
	model_free(&m);
}

/* Host stacks fed at one stop replace each other (the screen reads it
 * again once a library's symbols are in); one of a later stop does not
 * replace the fault's. */
static void feed_host(struct diag_run *r, const char *top)
{
	struct dec_frame f[2] = {
		{ .level = 0, .func = top, .addr = 0x1000, .has_addr = true },
		{ .level = 1, .func = "main", .addr = 0x2000, .has_addr = true },
	};
	struct dec_stack st = { .frames = f, .n = 2 };
	diag_feed_stack(diag_run_diag(r), &st);
}

static const char *host_top(struct diag_run *r, struct dbg_model *m)
{
	CHECK_INT(diag_run_update(r, m, NULL, NULL), DIAG_OK);
	const struct diag_fault *f = diag_run_view(r)->fault;
	return f && f->n_host_frames ? f->host_frames[0].func : "(none)";
}

TEST(host_stack_of_the_fault_stop_is_kept)
{
	struct dbg_model m;
	fx_model_at_stop("null_write.mi.log", &m, true);
	struct diag_run *r = run_new(DIAG_MEMCHECK_NEVER, true);
	CHECK_INT(diag_run_update(r, &m, NULL, NULL), DIAG_OK);
	feed_host(r, "unread_0x1000");
	CHECK_STR(host_top(r, &m), "unread_0x1000");
	feed_host(r, "cudaLaunchKernel"); /* the same stop, read again */
	CHECK_STR(host_top(r, &m), "cudaLaunchKernel");
	m.stop_count++;                   /* a later stop */
	CHECK_INT(diag_run_update(r, &m, NULL, NULL), DIAG_OK);
	feed_host(r, "somewhere_else");
	CHECK_STR(host_top(r, &m), "cudaLaunchKernel");
	diag_run_free(r);
	model_free(&m);
}
