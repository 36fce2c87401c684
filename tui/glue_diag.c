/* The screen's diagnosis passes: the memcheck pass (compute-sanitizer,
 * then its coredump in the debugger) and replay to fault (rerun and stop
 * the faulting thread before its bad access), both driven from the main
 * loop without blocking it.  What they learn joins the screen's
 * diagnosis pipeline (g->dr, include/cudbg/diagrun.h) at each glue_diag_update(),
 * which the Hints pane renders; the pipeline holds the auto policy.
 *
 * The pass runs beside the debugger session: the user keeps stepping
 * while compute-sanitizer runs the program a second time.  Only when the
 * pass wrote a coredump does its session replace the live one (the user
 * agreed to that when starting it; tui/ui_keys.c asks). */
#include "cudbg/base.h"
#include "tui/glue.h"
#include "tui/source.h"
#include "tui/glue_int.h"
#include "tui/loop.h"

#include "cudbg/diag.h"
#include "cudbg/diagrun.h"
#include "cudbg/options.h"
#include "cudbg/session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The pipeline's rule (a launch with a program), not a copy of it. */
static bool can_rerun(const struct glue *g)
{
	return diag_run_can_rerun(g->dr);
}

static void console_note(struct glue *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A line of the screen's own in the console transcript ('i': info). */
static void console_note(struct glue *g, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	ui_console_text(g->ui, line, strlen(line), 'i');
	ui_console_text(g->ui, "\n", 1, 'i');
}

static void pass_status(struct glue *g)
{
	snprintf(g->ui->pass, sizeof g->ui->pass,
		 "memcheck pass running: %zu error%s so far (M stops it)",
		 g->mc_findings, g->mc_findings == 1 ? "" : "s");
	g->ui->dirty = true;
}

static void pass_event(void *ctx, enum diag_memcheck_event ev,
		       const char *text, size_t len)
{
	struct glue *g = ctx;

	switch (ev) {
	case DIAG_MC_STARTED:
		console_note(g, "memcheck pass: %.*s", (int)len, text);
		break;
	case DIAG_MC_OUTPUT:
		/* The program's own output comes through the sanitizer: the
		 * Output pane shows both, as a terminal would. */
		ui_output(g->ui, text, len);
		break;
	case DIAG_MC_FINDING:
		g->mc_findings++;
		pass_status(g);
		break;
	case DIAG_MC_EXITED:
		console_note(g, "memcheck pass: compute-sanitizer ended (%.*s)",
			     (int)len, text);
		break;
	}
}

/* The tool of the next pass: K's choice, else --sanitizer-tool. */
static const char *glue_tool(const struct glue *g)
{
	if (g->san_tool)
		return g->san_tool;
	return g->o->sanitizer_tool ? g->o->sanitizer_tool : "memcheck";
}

int glue_diag_next_tool(struct glue *g)
{
	static const char *const tools[] = {
		"memcheck", "racecheck", "initcheck", "synccheck",
	};
	const char *cur = glue_tool(g);
	size_t i = 0;
	while (i < 4 && strcmp(tools[i], cur) != 0)
		i++;
	g->san_tool = tools[(i + 1) % 4];
	static const char *const what[] = {
		"out-of-bounds and misaligned accesses",
		"races on shared memory",
		"reads of uninitialised global memory",
		"barriers used wrongly",
	};
	ui_message(g->ui, UC_ACCENT, "M now runs compute-sanitizer %s (%s); K "
		   "picks another tool", g->san_tool, what[(i + 1) % 4]);
	return 0;
}

/* start_pass(g, kernel): kernel non-NULL narrows the pass to it (M after
 * a stop in a kernel); NULL leaves --memcheck-kernel's choice. */
static int start_pass(struct glue *g, const char *kernel)
{
	struct diag_memcheck_opts mo;
	char err[1024];
	struct diag_memcheck *m;

	diag_run_pass_opts(g->dr, &mo);
	mo.tool = glue_tool(g);
	if (kernel)
		mo.kernel = kernel;
	snprintf(g->mc_kernel, sizeof g->mc_kernel, "%s", kernel ? kernel : "");
	g->mc_findings = 0;
	m = diag_memcheck_start(&mo, pass_event, g, err, sizeof err);
	if (!m) {
		g->sanitizer_missing = diag_memcheck_missing(err);
		if (!g->sanitizer_missing)
			text_fit(g->pass_failed, sizeof g->pass_failed,
				 "it could not start: %s", err);
		ui_message(g->ui, UC_ERROR, "memcheck pass: %s", err);
		ui_changed(g->ui, UCH_DIAG);
		return -1;
	}
	/* The previous pass's directory may hold the coredump the debugger
	 * has open: it goes once this pass's outcome replaced it. */
	diag_memcheck_free(g->mc_prev);
	g->mc_prev = g->mc;
	g->mc = m;
	g->mc_running = true;
	loop_set_crash_pass_pgid(diag_memcheck_pid(m));
	clock_gettime(CLOCK_MONOTONIC, &g->ui->pass_since);
	pass_status(g);
	return 0;
}

static void stop_pass(struct glue *g)
{
	diag_memcheck_cancel(g->mc);
	g->mc_cancelled = true;
	ui_message(g->ui, UC_WARN, "stopping the memcheck pass");
}

/* The pass's coredump replaces the session: the panes show the faulting
 * thread with its locals, as after a live stop. */
static void open_pass_core(struct glue *g, const char *core, size_t nerr,
			   double secs)
{
	struct session_config sc;
	char err[512];
	size_t len = 0;
	const char *text = diag_memcheck_text(g->mc, &len);

	options_session_config(g->o, &sc);
	sc.backend = SESSION_CORE;
	sc.core = core;
	sc.replay = NULL;
	sc.record = NULL;
	if (glue_switch(g, &sc, false, err, sizeof err) < 0) {
		ui_message(g->ui, UC_ERROR, "memcheck pass: cannot open its coredump: %s", err);
		return;
	}
	g->core_from_pass = true;
	snprintf(g->ui->status.program, sizeof g->ui->status.program,
		 "%s (memcheck core)", path_base(g->o->argv[0]));
	/* A device assert's text (its file:line and expression) is only in
	 * the program's output, which the coredump does not hold: the new
	 * account (glue_switch started it) reads the pass's. */
	if (text && len)
		diag_on_program_output(diag_run_diag(g->dr), text, len);
	console_note(g, "memcheck pass: opening its coredump (%s)", path_base(core));
	/* What the core shows is known once cuda-gdb opened it and the
	 * first refresh is in (core_opened). */
	g->core_nerr = nerr;
	g->core_secs = secs;
	g->core_pending = true;
}

/* The pass's coredump is open: say what it shows.  For a device assert
 * compute-sanitizer 2025.3 writes its coredump after the assert ended the
 * kernel, and cuda-gdb 13 finds no CUDA kernel in it ("No CUDA kernels",
 * "No CUDA focus could be set", frame ??; seen on the H200 for
 * device_assert.cu and torch_label.py), while memory errors leave the
 * faulting thread in focus.  Then the findings carry the diagnosis, and a
 * live run stops in the kernel at the assert itself. */
static void core_opened(struct glue *g)
{
	const struct dbg_model *m = ctl_model(g->ctl);
	const char *s = g->core_nerr == 1 ? "" : "s";

	if (!g->core_pending || !session_ready(ctl_session(g->ctl)) ||
	    ctl_busy(g->ctl) || !ctl_refreshed(g->ctl))
		return;
	g->core_pending = false;
	if (m->state == MODEL_GONE)
		return; /* the status line says why */
	const struct session_caps *caps = session_caps(ctl_session(g->ctl));
	/* (A CPU core under plain gdb, as in the tests, has no CUDA focus to
	 * set: its faulting thread is the host thread in focus.) */
	if (m->focus.valid || !caps || !caps->is_cuda_gdb)
		ui_message(g->ui, UC_ACCENT,
			   "memcheck pass: %zu error%s in %.1f s; its coredump is open at "
			   "the faulting thread (T reruns and stops it before the access)",
			   g->core_nerr, s, g->core_secs);
	else
		ui_message(g->ui, UC_WARN,
			   "memcheck pass: %zu error%s in %.1f s; no kernel in its coredump "
			   "(an assert ended it first): see the Hints tab",
			   g->core_nerr, s, g->core_secs);
}

/* Why the pass's coredump is not open (diag_memcheck_core_to_open,
 * stop_in_core), for the message after the pass. */
static const char *core_unopened_why(const struct diag_memcheck *mc)
{
	switch (diag_memcheck_early(mc)) {
	case DIAG_MC_EARLY_SLOW_CORE:
		return "its coredump took too long";
	case DIAG_MC_EARLY_BIG_CORE:
		return "its coredump would hold a huge allocation";
	case DIAG_MC_EARLY_IMPRECISE:
		return "an imprecise error: stopped as its coredump began, which "
		       "would hold no CUDA focus";
	case DIAG_MC_EARLY_NO:
		break;
	}
	return diag_memcheck_first_imprecise(mc)
		       ? "an imprecise error: a coredump would hold no CUDA focus"
		       : "no source line in it: the live run has one";
}

static void pass_done(struct glue *g)
{
	char err[512];
	double secs = diag_memcheck_seconds(g->mc);
	struct diag_san *s = diag_memcheck_report(g->mc, err, sizeof err);
	const char *core = diag_memcheck_core_path(g->mc);
	size_t nerr = s ? diag_san_errors(s) : 0;

	g->mc_running = false;
	g->mc_ran = true;
	g->ui->pass[0] = '\0';
	/* a pass the user stopped is no failure of the tool */
	snprintf(g->pass_failed, sizeof g->pass_failed, "%s",
		 s || g->mc_cancelled ? ""
		 : strncmp(err, "memcheck: ", 10) == 0 ? err + 10 : err);
	loop_set_crash_pass_pgid(0);
	if (s) {
		if (g->san_lent) /* (the account must not read a freed one) */
			diag_unlend_sanitizer(diag_run_diag(g->dr), g->san);
		g->san_lent = false;
		diag_san_free(g->san);
		g->san = s;
		g->san_path = NULL; /* the findings are the pass's now */
	}
	ui_changed(g->ui, UCH_DIAG);
	if (g->mc_cancelled) {
		g->mc_cancelled = false;
		ui_message(g->ui, UC_WARN, "memcheck pass stopped after %.1f s", secs);
	} else if (!s) {
		ui_message(g->ui, UC_ERROR, "memcheck pass: %s", err);
	} else if (diag_memcheck_core_to_open(g->mc)) {
		open_pass_core(g, core, nerr, secs);
	} else if (nerr && (diag_memcheck_early(g->mc) != DIAG_MC_EARLY_NO ||
			    core)) {
		/* stopped in its coredump (diag/memcheck.c, stop_in_core), or
		 * a coredump not worth opening (an assert's has no CUDA focus,
		 * a finding with no line has no line in it either): the live
		 * run that follows stops at the fault itself */
		ui_message(g->ui, UC_WARN, "memcheck pass: %zu error%s in %.1f s "
			   "(%s); the Hints tab lists them%s", nerr,
			   nerr == 1 ? "" : "s", secs, core_unopened_why(g->mc),
			   g->run_after_pass ? "; running the program live" : "");
	} else if (nerr) {
		ui_message(g->ui, UC_WARN, "memcheck pass: %zu error%s in %.1f s and no "
			   "coredump; the Hints tab lists them", nerr,
			   nerr == 1 ? "" : "s", secs);
	} else if (g->mc_kernel[0]) {
		/* The error may be in a kernel that ran before (a bad
		 * pointer written there): the pass checks them all now. */
		char k[sizeof g->mc_kernel];
		snprintf(k, sizeof k, "%s", g->mc_kernel);
		if (start_pass(g, NULL) == 0)
			ui_message(g->ui, UC_WARN, "memcheck pass: no error in kernel %s "
				   "(%.1f s); checking every kernel now", k, secs);
		return;
	} else {
		ui_message(g->ui, UC_ACCENT, "memcheck pass: no errors in %.1f s", secs);
	}
	if (g->run_after_pass && !g->core_from_pass) {
		/* --memcheck=always found nothing to open: the live run the
		 * pass held back starts now. */
		g->run_after_pass = false;
		g->autorun = true;
		g->started = false;
	}
}

bool glue_diag_start(struct glue *g)
{
	const char *rep = g->o->sanitizer_report;
	char err[512];

	if (rep) {
		if (diag_san_load_file(rep, &g->san, err, sizeof err) < 0)
			ui_message(g->ui, UC_ERROR, "%s", err);
		else
			g->san_path = rep;
	}
	if (!diag_run_pass_first(g->dr))
		return false;
	if (start_pass(g, NULL) < 0)
		return false;
	g->run_after_pass = true;
	return true;
}

int glue_diag_fds(struct glue *g, struct pollfd *pfd, int max)
{
	if (!g->mc_running || max <= 0)
		return 0;
	return diag_memcheck_pollfds(g->mc, pfd, max);
}

void glue_diag_ready(struct glue *g, struct pollfd *pfd, int n)
{
	(void)pfd;
	(void)n;
	if (!g->mc_running)
		return;
	/* Reads whatever is ready (it polls its own fds again, at once). */
	if (diag_memcheck_handle(g->mc) != 0)
		pass_done(g);
	else
		g->ui->dirty = true; /* the clock on the status line */
}

void glue_diag_record(struct glue *g, const struct mi_record *rec)
{
	if (g->rf)
		diag_refault_on_async(g->rf, rec);
}

/* ---- replay to fault ------------------------------------------------ */

static void refault_end(struct glue *g)
{
	diag_refault_detach(g->rf, g->ctl);
	diag_refault_free(g->rf);
	g->rf = NULL;
	g->ui->pass[0] = '\0';
	g->ui->dirty = true;
}

bool glue_diag_stop_refault(struct glue *g)
{
	if (!g->rf)
		return false;
	refault_end(g);
	ui_message(g->ui, UC_WARN, "replay to fault stopped");
	return true;
}

static void refault_step(struct glue *g)
{
	enum diag_refault_state st = diag_refault_pump(g->rf, g->ctl);
	const struct dbg_model *m = ctl_model(g->ctl);

	if (st == DIAG_RF_ARRIVED) {
		if (ctl_busy(g->ctl))
			return; /* the stop's refresh: locals, threads */
		ui_message(g->ui, UC_ACCENT,
			   "replay to fault: stopped thread (%u,%u,%u) of block "
			   "(%u,%u,%u) %s %s:%u; s steps into it",
			   g->rf_target.thread.x, g->rf_target.thread.y,
			   g->rf_target.thread.z, g->rf_target.block.x,
			   g->rf_target.block.y, g->rf_target.block.z,
			   g->rf_from_stop ? "just before the line of its stop,"
					   : "before its access at",
			   g->rf_target.file, g->rf_target.line);
		refault_end(g);
	} else if (st == DIAG_RF_FAILED) {
		const char *why = diag_refault_error(g->rf);
		ui_message(g->ui, UC_ERROR, "replay to fault: %s",
			   why ? why : "failed");
		refault_end(g);
	} else if (m->state == MODEL_GONE) {
		ui_message(g->ui, UC_ERROR, "replay to fault: the debugger is gone");
		refault_end(g);
	}
}

/* The finding to replay: number n (1-based), or the first with a thread
 * and a source line. */
static int pick_target(struct glue *g, const char *arg,
		       struct diag_refault_target *t)
{
	size_t n = diag_san_count(g->san);

	if (arg && *arg) {
		long i = strtol(arg, NULL, 10);
		if (i < 1 || (size_t)i > n)
			return -1;
		return diag_refault_target_from(diag_san_get(g->san, (size_t)i - 1), t);
	}
	for (size_t i = 0; i < n; i++)
		if (diag_refault_target_from(diag_san_get(g->san, i), t) == 0)
			return 0;
	return -1;
}

int glue_diag_to_fault(struct glue *g, const char *arg)
{
	struct session_config sc;
	char err[512];

	/* (Before pick_target(): the replay under way reads its target.) */
	if (g->rf) {
		ui_message(g->ui, UC_WARN, "replay to fault is already under way");
		return -1;
	}
	/* Without findings, a precise stop names the thread itself: a device
	 * assert or trap, or the sanitizer's coredump (M is not needed). */
	bool from_stop = !g->san || diag_san_count(g->san) == 0;
	struct diag_refault_target stop_target;
	if (from_stop && diag_refault_target_from_stop(ctl_model(g->ctl),
							&stop_target) != 0) {
		ui_message(g->ui, UC_WARN, "no memcheck findings yet, and this stop "
			   "names no exact thread (a hardware exception is "
			   "reported per warp): M runs the memcheck pass");
		return -1;
	}
	if (!can_rerun(g) && g->o->backend != SESSION_REPLAY) {
		ui_message(g->ui, UC_WARN, "replay to fault reruns the program: start "
			   "cudbg-tui with the program's command line");
		return -1;
	}
	if (from_stop)
		g->rf_target = stop_target;
	g->rf_from_stop = from_stop;
	if (!from_stop && pick_target(g, arg, &g->rf_target) < 0) {
		ui_message(g->ui, UC_WARN, "%s names no thread and source line to stop "
			   "at (build the kernel with -lineinfo or -G)",
			   arg && *arg ? "that finding" : "no finding");
		return -1;
	}
	options_session_config(g->o, &sc);
	sc.record = NULL;
	if (glue_switch(g, &sc, false, err, sizeof err) < 0) {
		ui_message(g->ui, UC_ERROR, "replay to fault: %s", err);
		return -1;
	}
	g->rf = diag_refault_new(&g->rf_target);
	if (!g->rf) {
		ui_message(g->ui, UC_ERROR, "replay to fault: out of memory");
		return -1;
	}
	snprintf(g->ui->pass, sizeof g->ui->pass,
		 "replay to fault: running to thread (%u,%u,%u) block (%u,%u,%u) at %s:%u "
		 "(C-c stops it)",
		 g->rf_target.thread.x, g->rf_target.thread.y, g->rf_target.thread.z,
		 g->rf_target.block.x, g->rf_target.block.y, g->rf_target.block.z,
		 g->rf_target.file, g->rf_target.line);
	clock_gettime(CLOCK_MONOTONIC, &g->ui->pass_since);
	console_note(g, "%s", g->ui->pass);
	return 0;
}

/* ---- the memcheck key and the auto policy ---------------------------- */

/* The kernel the live program is stopped in, for M to narrow the pass to
 * (compute-sanitizer then instruments that kernel alone, and the rest of
 * the program runs at full speed), or NULL: no device stop, a coredump,
 * another tool than memcheck, or --memcheck-kernel chose already. */
static const char *stop_kernel(struct glue *g)
{
	const struct diag_run_view *v = diag_run_view(g->dr);
	const struct dbg_model *m = ctl_model(g->ctl);
	char f[300];

	if (g->core_from_pass || m->state != MODEL_STOPPED || !m->focus.valid ||
	    strcmp(glue_tool(g), "memcheck") != 0 || g->o->memcheck_kernel ||
	    !v->fault || !v->fault->kernel_short ||
	    diag_memcheck_kernel_filter(v->fault->kernel_short, f, sizeof f) < 0)
		return NULL;
	return v->fault->kernel_short;
}

int glue_diag_memcheck(struct glue *g)
{
	if (g->mc_running) {
		stop_pass(g);
		return 0;
	}
	if (!can_rerun(g) && g->san && diag_san_count(g->san) > 0) {
		/* A recording that carries its pass's report (the demos,
		 * --sanitizer-report): M shows what that pass found rather
		 * than refusing a rerun it cannot do. */
		ui_pane_request(g->ui, PANE_REQ_DIAGNOSIS);
		ui_message(g->ui, UC_ACCENT, "the memcheck pass of this recording found %zu "
			   "error%s: see its findings in Hints (T replays to the first)",
			   diag_san_count(g->san), diag_san_count(g->san) == 1 ? "" : "s");
		return 0;
	}
	if (!can_rerun(g)) {
		ui_message(g->ui, UC_WARN, "the memcheck pass runs the program: start "
			   "cudbg-tui with the program's command line (a replay, "
			   "core or attach has none)");
		return -1;
	}
	const char *k = stop_kernel(g);
	if (start_pass(g, k) < 0)
		return -1;
	if (k)
		ui_message(g->ui, UC_ACCENT, "memcheck pass: checking kernel %s only "
			   "(the one the program stopped in); M stops it", k);
	return 0;
}

/* The auto policy is the pipeline's (diag_run_auto_pass, the one batch
 * mode applies); the screen only says when to ask: once, when the
 * program ended, with no pass run or running. */
static void auto_policy(struct glue *g)
{
	const struct dbg_model *m = ctl_model(g->ctl);

	if (g->auto_checked || m->state != MODEL_EXITED)
		return;
	g->auto_checked = true;
	if (g->mc_running || g->mc_ran)
		return;
	glue_diag_update(g);
	if (!diag_run_auto_pass(g->dr, session_caps(ctl_session(g->ctl))))
		return;
	if (start_pass(g, NULL) == 0)
		ui_message(g->ui, UC_ACCENT, "the program failed without a device stop: "
			   "running the memcheck pass (M stops it)");
}

void glue_diag_step(struct glue *g)
{
	glue_hang_step(g);
	core_opened(g);
	if (g->rf)
		refault_step(g);
	if (!g->rf)
		auto_policy(g);
}

/* ---- the pipeline ------------------------------------------------------ */

int glue_diag_new(struct glue *g, char *err, size_t cap)
{
	struct diag_run_config dc;

	options_diag_config(g->o, &dc);
	/* The screen reads --sanitizer-report itself (a bad one is a
	 * message, not the end) and lends it at each update (feed).  A
	 * replay's pass text is read by the run, as batch's is. */
	dc.report_elsewhere = dc.sanitizer_report != NULL;
	dc.sanitizer_report = NULL;
	dc.rules_optional = true; /* the Hints pane says why there are none */
	dc.action_labels = ui_diag_action_keys;
	g->dr = diag_run_new(&dc, NULL, err, cap);
	return g->dr ? 0 : -1;
}

void glue_diag_restart(struct glue *g)
{
	if (diag_run_restart(g->dr) == 0)
		g->san_lent = false;
}

/* What the screen knows beyond the model, as it stands now: each
 * replaces what the last update gave the account (the account lives
 * on: a hang summary dropped at a resume, a later pass that worked). */
static void feed(void *ctx, struct diag *d)
{
	struct glue *g = ctx;

	glue_hang_feed(g, d);
	/* (never cleared: a replay's account has it from the recording,
	 * diag_run_new, and a pass that ran stays run) */
	if (g->mc_ran)
		diag_set_flag(d, DIAG_F_MEMCHECK_RAN, true);
	diag_set_flag(d, DIAG_F_SANITIZER_MISSING, g->sanitizer_missing);
	diag_set_pass_failed(d, g->pass_failed[0] ? g->pass_failed : NULL);
	/* The report was parsed once (--sanitizer-report at the start, the
	 * memcheck pass when it ended) and is lent to the account once:
	 * never read again.  Reading it afresh on each build froze the
	 * screen 4.6-5.3 s per visit of the Hints tab with a 257 MB report
	 * (issue 15). */
	if (!g->san_lent && g->san && (g->san_path || (g->mc && !g->mc_running)))
		g->san_lent = diag_lend_sanitizer(d, g->san) == DIAG_OK;
	glue_py_feed(g, d);
	/* a worker the program started that died of a signal, which the
	 * program itself may never mention (tests/progs/silent_reap.c) */
	diag_run_read_child_deaths(g->dr, g->ctl ? ctl_session(g->ctl) : NULL);
}

void glue_diag_update(struct glue *g)
{
	diag_run_update(g->dr, ctl_model(g->ctl), feed, g);
}

void glue_diag_free(struct glue *g)
{
	glue_hang_free(g);
	if (g->rf)
		refault_end(g);
	loop_set_crash_pass_pgid(0);
	diag_memcheck_free(g->mc);
	diag_memcheck_free(g->mc_prev);
	diag_san_free(g->san);
	diag_run_free(g->dr);
	g->mc = g->mc_prev = NULL;
	g->san = NULL;
	g->dr = NULL;
}
