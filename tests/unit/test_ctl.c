/* The controller over real gdb 13 on tests/progs/model_prog.c: breakpoint,
 * run, step, next, finish, locals, watches, evaluate, console, registers,
 * memory, disassembly, completion, breakpoint changes, interrupt, exit
 * code, program output, and the debugger killed under it. */
#include "cudbg/model.h"
#include "tests/harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char prog[4096], src[4096];
static char spin_arg[] = "spin";

/* The line of tests/progs/model_prog.c holding `marker`. */
static int mark(const char *marker)
{
	FILE *f = fopen(src, "r");
	CHECK_MSG(f != NULL, "cannot open %s", src);
	char line[512];
	int n = 0, found = 0;
	while (!found && fgets(line, sizeof line, f)) {
		n++;
		if (strstr(line, marker))
			found = n;
	}
	fclose(f);
	CHECK_MSG(found, "no %s in %s", marker, src);
	return found;
}

static bool have_gdb(void)
{
	return system("gdb --version >/dev/null 2>&1") == 0;
}

static struct dbg_ctl *start(char **argv, unsigned want)
{
	if (!have_gdb())
		test_skip("gdb is not installed");
	const char *b = getenv("CUDBG_BUILD");
	snprintf(prog, sizeof prog, "%s/progs/model_prog", b ? b : "build");
	snprintf(src, sizeof src, "%s/tests/progs/model_prog.c", test_root_dir());
	if (access(prog, X_OK) != 0)
		test_skip("%s not built", prog);
	argv[0] = prog;
	struct session_config scfg = { .backend = SESSION_LAUNCH,
				       .debugger = "gdb", .argv = argv };
	struct dbg_ctl_config cfg = { .session = &scfg, .want = want };
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
	switch (w->mode) {
	case 0:
		return session_ready(ctl_session(w->c));
	case 1:
		return !ctl_busy(w->c);
	default:
		return m->stop_count > w->stops &&
		       (m->state == MODEL_STOPPED || m->state == MODEL_EXITED) &&
		       !ctl_busy(w->c) && ctl_refreshed(w->c);
	}
}

static void wait_mode(struct dbg_ctl *c, int mode, unsigned stops)
{
	struct waiter w = { c, stops, mode };
	int rc = ctl_run_until(c, pred, &w, 20000);
	CHECK_MSG(rc == 1, "wait %d: rc %d, state %s, error %s", mode, rc,
		  model_state_name(ctl_model(c)->state),
		  ctl_model(c)->error ? ctl_model(c)->error : "-");
}

static void wait_ready(struct dbg_ctl *c)
{
	wait_mode(c, 0, 0);
	wait_mode(c, 1, 0);
}

static void wait_idle(struct dbg_ctl *c)
{
	wait_mode(c, 1, 0);
}

struct out_wait {
	struct dbg_ctl *c;
	const char *text;
};

static bool output_has(void *ctx)
{
	struct out_wait *w = ctx;
	const struct dbg_model *m = ctl_model(w->c);
	char buf[4096];
	size_t n = model_ring_copy(&m->output, buf, sizeof buf - 1);
	buf[n] = '\0';
	return strstr(buf, w->text) || m->state == MODEL_GONE;
}

/* Waits for the program to print `text` on its terminal. */
static void wait_output(struct dbg_ctl *c, const char *text)
{
	struct out_wait w = { c, text };
	CHECK_MSG(ctl_run_until(c, output_has, &w, 20000) == 1,
		  "no \"%s\" from the program", text);
}

/* Sends (via the caller) and waits for the next stop's refresh. */
#define STEP(c, call)                                                       \
	do {                                                                \
		unsigned before_ = ctl_model(c)->stop_count;                \
		int64_t tok_ = (call);                                      \
		CHECK_MSG(tok_ > 0, "%s: %lld (%s)", #call, (long long)tok_, \
			  ctl_model(c)->error ? ctl_model(c)->error : "-"); \
		wait_mode((c), 2, before_);                                 \
	} while (0)

static const char *var(const struct dbg_model *m, const char *name)
{
	for (size_t i = 0; i < m->vars.n; i++)
		if (!strcmp(m->vars.v[i].name, name))
			return m->vars.v[i].value ? m->vars.v[i].value : "";
	return NULL;
}

static const struct dec_frame *top(const struct dbg_model *m)
{
	CHECK(m->frames.n > 0);
	return &m->frames.frames[0];
}

TEST_TIMEOUT(break_run_step_next_finish_exit, 90)
{
	char *argv[] = { NULL, NULL };
	struct dbg_ctl *c = start(argv, 0);
	const struct dbg_model *m = ctl_model(c);
	wait_ready(c);
	CHECK_INT(m->state, MODEL_NOT_STARTED);
	CHECK(!m->cuda);
	/* not running yet: resuming is refused with a reason */
	CHECK_INT(ctl_next(c), CTL_ESTATE);
	CHECK(m->error && strstr(m->error, "run it first"));

	char loc[64];
	int call = mark("MARK_CALL");
	snprintf(loc, sizeof loc, "model_prog.c:%d", call);
	CHECK(ctl_break_insert(c, loc, NULL) > 0);
	wait_idle(c);
	CHECK_INT(m->nbkpts, 1);
	CHECK(model_bkpt_at(m, src, call) != NULL);
	CHECK(model_bkpt_at(m, "model_prog.c", call) != NULL);

	STEP(c, ctl_run(c));
	CHECK_INT(m->state, MODEL_STOPPED);
	CHECK_INT(m->stop.reason, DEC_REASON_BREAKPOINT_HIT);
	CHECK_INT(m->stop.bkptno, 1);
	CHECK_STR(top(m)->func, "sum_squares");
	CHECK_INT(top(m)->line, call);
	CHECK_INT(m->frames.n, 2);
	CHECK_INT(m->selected_frame, 0);
	CHECK_STR(var(m, "i"), "1");
	CHECK_STR(var(m, "n"), "3");
	CHECK(!model_continue_loses_error(m));
	char buf[128];
	CHECK_STR(model_describe_stop(m, buf, sizeof buf),
		  "Breakpoint 1 in sum_squares");

	CHECK(ctl_watch_add(c, "total") == 0);
	CHECK(ctl_watch_add(c, "nosuchvar") == 1);
	wait_idle(c);
	CHECK_STR(m->watches[0].value, "0");
	CHECK(m->watches[1].error);

	STEP(c, ctl_step(c));
	CHECK_STR(top(m)->func, "square");
	CHECK_INT(top(m)->line, mark("MARK_SQUARE_BODY"));
	CHECK_STR(var(m, "v"), "1");
	STEP(c, ctl_next(c));
	CHECK_INT(m->stop.reason, DEC_REASON_END_STEPPING_RANGE);
	CHECK_INT(top(m)->line, mark("MARK_SQUARE_RETURN"));
	CHECK_STR(var(m, "r"), "1");
	STEP(c, ctl_finish(c));
	CHECK_INT(m->stop.reason, DEC_REASON_FUNCTION_FINISHED);
	CHECK_STR(m->stop.return_value, "1");
	CHECK_STR(top(m)->func, "sum_squares");

	/* second time round the loop the watch has changed */
	STEP(c, ctl_continue(c));
	CHECK_INT(m->stop.bkptno, 1);
	CHECK_STR(var(m, "i"), "2");
	CHECK_STR(m->watches[0].value, "1");
	CHECK(m->watches[0].changed);

	/* toggling at the same line removes it; the program runs to its end */
	CHECK(ctl_break_toggle(c, "model_prog.c", call) > 0);
	wait_idle(c);
	CHECK_INT(m->nbkpts, 0);
	STEP(c, ctl_continue(c));
	CHECK_INT(m->state, MODEL_EXITED);
	CHECK_INT(m->exit_code, 7);
	CHECK_STR(model_describe_stop(m, buf, sizeof buf), "exited with code 7");
	/* program output came through its pty */
	char out[256];
	size_t n = model_ring_copy(&m->output, out, sizeof out - 1);
	out[n] = '\0';
	CHECK_MSG(strstr(out, "sum=14 p=3,4"), "output: %s", out);
	CHECK_INT(ctl_continue(c), CTL_ESTATE);
	ctl_free(c);
}

TEST_TIMEOUT(finish_refused_evaluate_console_regs_memory, 90)
{
	char *argv[] = { NULL, NULL };
	struct dbg_ctl *c = start(argv, MODEL_WANT_REGS);
	const struct dbg_model *m = ctl_model(c);
	wait_ready(c);
	char loc[64];
	int line = mark("MARK_MAIN") + 1;
	snprintf(loc, sizeof loc, "model_prog.c:%d", line);
	CHECK(ctl_break_insert(c, loc, NULL) > 0);
	STEP(c, ctl_run(c));
	CHECK_STR(top(m)->func, "main");
	/* main is the outermost frame: gdb refuses finish there */
	CHECK(model_finish_refused(m));
	CHECK_INT(ctl_finish(c), CTL_ESTATE);
	CHECK(m->error && strstr(m->error, "outermost"));

	/* registers of the host frame */
	CHECK(m->nregs > 16);
	bool rip = false;
	for (size_t i = 0; i < m->nregs; i++)
		if (m->regs[i].name && !strcmp(m->regs[i].name, "rip"))
			rip = m->regs[i].value && !strncmp(m->regs[i].value,
							   "0x", 2);
	CHECK(rip);
	CHECK_STR(m->regnames_arch, "i386:x86-64");

	/* memory view of a local struct */
	CHECK_INT(ctl_memory_view(c, "&p", 8), 0);
	wait_idle(c);
	CHECK_MSG(m->memory.n == 1, "memory: %s", m->mem_error ? m->mem_error : "-");
	CHECK_INT(m->memory.v[0].len, 8);
	CHECK_INT(m->memory.v[0].bytes[0], 3);
	CHECK_INT(m->memory.v[0].bytes[4], 4);

	/* console command: output into the console ring */
	CHECK(ctl_console(c, "print p.x + p.y") > 0);
	wait_idle(c);
	char con[8192];
	size_t n = model_ring_copy(&m->console, con, sizeof con - 1);
	con[n] = '\0';
	CHECK_MSG(strstr(con, "(gdb) print p.x + p.y\n"), "console: %s", con);
	CHECK_MSG(strstr(con, "$1 = 7"), "console: %s", con);

	/* disassembly of the current function, with source lines */
	CHECK(ctl_disassemble(c, NULL, NULL) > 0);
	wait_idle(c);
	CHECK(m->disasm.n > 5);
	CHECK_STR(m->disasm_func, "main");
	bool has_line = false;
	for (size_t i = 0; i < m->disasm.n; i++)
		has_line |= m->disasm.v[i].line == line;
	CHECK(has_line);
	CHECK_INT(ctl_disassemble(c, NULL, NULL), 0); /* cached */

	/* breakpoint disable, condition, delete */
	CHECK(ctl_break_enable(c, 1, false) > 0);
	wait_idle(c);
	CHECK(!model_bkpt_by_number(m, 1)->enabled);
	CHECK(ctl_break_condition(c, 1, "p.x == 3") > 0);
	wait_idle(c);
	CHECK_STR(model_bkpt_by_number(m, 1)->cond, "p.x == 3");
	CHECK(ctl_break_delete(c, 1) > 0);
	wait_idle(c);
	CHECK_INT(m->nbkpts, 0);
	CHECK_INT(ctl_break_delete(c, 1), CTL_ENOTFOUND);
	CHECK_INT(ctl_break_insert(c, "a.c:1\nquit", NULL), CTL_EINVAL);
	ctl_free(c);
}

struct got {
	char value[128];
	bool error, done;
	size_t matches;
	bool has_sum;
};

static void on_value(void *ctx, const char *expr, const char *value, bool error)
{
	struct got *g = ctx;
	(void)expr;
	snprintf(g->value, sizeof g->value, "%s", value);
	g->error = error;
	g->done = true;
}

static void on_complete(void *ctx, const struct dec_complete *d)
{
	struct got *g = ctx;
	g->matches = d->n;
	for (size_t i = 0; i < d->n; i++)
		g->has_sum |= !strcmp(d->matches[i], "print sum_squares");
	g->done = true;
}

TEST_TIMEOUT(evaluate_complete_interrupt, 90)
{
	char *argv[] = { NULL, spin_arg, NULL };
	struct dbg_ctl *c = start(argv, 0);
	const struct dbg_model *m = ctl_model(c);
	wait_ready(c);
	struct got g = { 0 };
	CHECK(ctl_complete(c, "print sum_sq", on_complete, &g) > 0);
	wait_idle(c);
	CHECK(g.done && g.has_sum);

	CHECK(ctl_run(c) > 0);
	wait_output(c, "spinning");
	CHECK_INT(m->state, MODEL_RUNNING);
	unsigned before = m->stop_count;
	CHECK(ctl_interrupt(c) > 0);
	wait_mode(c, 2, before);
	CHECK_INT(m->state, MODEL_STOPPED);
	CHECK_INT(m->stop.reason, DEC_REASON_SIGNAL_RECEIVED);
	CHECK_STR(m->stop.signal_name, "SIGINT");
	/* select main's frame, evaluate there */
	int main_level = -1;
	for (size_t i = 0; i < m->frames.n; i++)
		if (m->frames.frames[i].func &&
		    !strcmp(m->frames.frames[i].func, "main"))
			main_level = m->frames.frames[i].level;
	CHECK(main_level > 0);
	CHECK(ctl_select_frame(c, main_level) > 0);
	wait_idle(c);
	CHECK_INT(m->selected_frame, main_level);
	CHECK_STR(model_frame(m)->func, "main");
	CHECK(ctl_evaluate(c, "p.x * 10 + p.y", on_value, &g) > 0);
	wait_idle(c);
	CHECK_STR(g.value, "34");
	CHECK(!g.error);
	CHECK(ctl_evaluate(c, "nosuch", on_value, &g) > 0);
	wait_idle(c);
	CHECK(g.error);
	CHECK(strstr(g.value, "nosuch"));
	ctl_free(c);
}

TEST_TIMEOUT(debugger_killed_is_gone_not_hang, 60)
{
	char *argv[] = { NULL, spin_arg, NULL };
	struct dbg_ctl *c = start(argv, 0);
	const struct dbg_model *m = ctl_model(c);
	wait_ready(c);
	CHECK(ctl_run(c) > 0);
	wait_output(c, "spinning");
	kill(session_debugger_pid(ctl_session(c)), SIGKILL);
	struct waiter w = { c, 0, 1 };
	ctl_run_until(c, pred, &w, 20000);
	for (int i = 0; i < 200 && m->state != MODEL_GONE; i++)
		ctl_run_until(c, NULL, NULL, 50);
	CHECK_INT(m->state, MODEL_GONE);
	CHECK(m->gone_reason && *m->gone_reason);
	CHECK_INT(ctl_next(c), CTL_ESTATE);
	CHECK_INT(ctl_run(c), CTL_ESTATE);
	ctl_free(c);
}

static bool console_has(void *ctx)
{
	struct out_wait *w = ctx;
	const struct dbg_model *m = ctl_model(w->c);
	char buf[8192];
	size_t n = model_ring_copy(&m->console, buf, sizeof buf - 1);
	buf[n] = '\0';
	return strstr(buf, w->text) || m->state == MODEL_GONE;
}

/* A long console command's output shows as it comes, not at its end:
 * "first" must be in the console while the command is still running. */
TEST_TIMEOUT(console_output_streams_in, 60)
{
	char *argv[] = { NULL, NULL };
	struct dbg_ctl *c = start(argv, 0);
	wait_ready(c);
	if (ctl_console(c, "python import time, sys; print('first'); "
			"sys.stdout.flush(); time.sleep(2); print('second')") <= 0)
		test_fail(__FILE__, __LINE__, "console refused");
	struct out_wait w = { c, "\nfirst\n" }; /* not the echoed command */
	CHECK(ctl_run_until(c, console_has, &w, 20000) == 1);
	CHECK_MSG(ctl_busy(c), "\"first\" came only with the command's end");
	w.text = "\nsecond\n";
	CHECK(ctl_run_until(c, console_has, &w, 20000) == 1);
	wait_idle(c);
	ctl_free(c);
}

/* A debugger started first, its program never run, opens a coredump
 * later (batch --memcheck=always starts it before the memcheck pass): the
 * model becomes the core's, nothing can run, and a core the debugger
 * refuses leaves a launch that still runs. */
TEST_TIMEOUT(open_core_in_a_started_debugger, 90)
{
	char *argv[] = { NULL, NULL };
	struct dbg_ctl *a = start(argv, 0);
	wait_ready(a);
	char where[64];
	snprintf(where, sizeof where, "model_prog.c:%d",
		 mark("MARK_SQUARE_BODY"));
	CHECK(ctl_break_insert(a, where, NULL) > 0);
	wait_idle(a);
	STEP(a, ctl_run(a));
	char core[] = "/tmp/cudbg-ctlcore-XXXXXX";
	int fd = mkstemp(core);
	CHECK(fd >= 0);
	close(fd);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "gcore %s", core);
	CHECK(ctl_console(a, cmd) > 0);
	wait_idle(a);
	ctl_free(a);

	struct session_config scfg = { .backend = SESSION_LAUNCH,
				       .debugger = "gdb", .argv = argv };
	struct dbg_ctl_config cfg = { .session = &scfg, .lean = true };
	char err[512];
	struct dbg_ctl *c = ctl_new(&cfg, err, sizeof err, NULL);
	CHECK_MSG(c != NULL, "ctl_new: %s", err);
	const struct dbg_model *m = ctl_model(c);
	wait_ready(c);
	CHECK_INT(m->state, MODEL_NOT_STARTED);
	CHECK_INT(ctl_open_core(c, "/nonexistent/core"), SESSION_ENOTFOUND);
	CHECK_INT(m->state, MODEL_NOT_STARTED);
	CHECK(m->error && strstr(m->error, "/nonexistent/core"));

	/* Not a core at all: gdb has no `target cudacore`. */
	char bad[] = "/tmp/cudbg-ctlbad-XXXXXX";
	fd = mkstemp(bad);
	CHECK(fd >= 0);
	CHECK(write(fd, "not a core\n", 11) == 11);
	close(fd);
	CHECK(ctl_open_core(c, bad) > 0);
	wait_idle(c);
	CHECK_INT(m->state, MODEL_NOT_STARTED);
	CHECK(!m->is_core);
	CHECK(session_needs_run(ctl_session(c)));
	CHECK_MSG(m->error && strstr(m->error, "needs cuda-gdb"), "error: %s",
		  m->error ? m->error : "-");
	unlink(bad);

	CHECK(ctl_open_core(c, core) > 0);
	CHECK_INT(ctl_run(c), CTL_ESTATE); /* a core is opening */
	wait_idle(c);
	CHECK_INT(m->state, MODEL_STOPPED);
	CHECK(m->is_core);
	CHECK_INT(m->target, SESSION_CORE);
	CHECK_INT(session_backend(ctl_session(c)), SESSION_CORE);
	CHECK(!session_needs_run(ctl_session(c)));
	CHECK(top(m)->func && strcmp(top(m)->func, "square") == 0);
	CHECK(var(m, "v") && strcmp(var(m, "v"), "1") == 0);
	CHECK_INT(ctl_continue(c), CTL_ESTATE);
	CHECK_INT(ctl_open_core(c, core), CTL_ESTATE);
	ctl_free(c);
	unlink(core);
}
