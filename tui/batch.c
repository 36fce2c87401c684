/* Batch mode: run to the first stop or the program's end, print the
 * report.  See include/cudbg/batch.h. */
#include "cudbg/batch.h"
#include "cudbg/diagrun.h"
#include "cudbg/job.h"
#include "cudbg/model.h"
#include "cudbg/options.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t batch_signalled;

static void on_signal(int sig)
{
	batch_signalled = sig;
}

/* SIGINT/SIGTERM/SIGHUP end the wait; the session is then freed, which
 * stops the debugger's whole process group (no orphans). */
static void signals_catch(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

struct wait {
	struct dbg_ctl *c;
	bool want_ready;
};

static bool settled(const struct dbg_model *m)
{
	return m->state == MODEL_EXITED || m->state == MODEL_GONE ||
	       m->state == MODEL_STOPPED;
}

static bool wait_pred(void *ctx)
{
	struct wait *w = ctx;
	const struct dbg_model *m = ctl_model(w->c);
	if (batch_signalled || !session_alive(ctl_session(w->c)))
		return true;
	if (w->want_ready)
		return session_ready(ctl_session(w->c));
	/* a stop counts once what it shows has been fetched; a run the
	 * debugger refused ends the wait too */
	if (m->state == MODEL_NOT_STARTED)
		return !ctl_busy(w->c);
	return settled(m) && !ctl_busy(w->c) && ctl_refreshed(w->c);
}

/* The first stop of an attach (signal "0") or of a remote target (in
 * ld.so, no reason) only says the debugger got hold of the program:
 * batch mode continues past it to find the fault. */
static bool initial_stop(const struct dbg_model *m)
{
	if (m->state != MODEL_STOPPED || m->stop_count != 1 || !m->has_stop)
		return false;
	if (m->target != SESSION_ATTACH && m->target != SESSION_REMOTE)
		return false;
	const char *sig = m->stop.signal_name;
	return m->stop.reason == DEC_REASON_NONE || (sig && !strcmp(sig, "0"));
}

static int batch_wait(struct dbg_ctl *c, bool want_ready, int timeout_ms)
{
	struct wait w = { c, want_ready };
	return ctl_run_until(c, wait_pred, &w, timeout_ms);
}

/* -b/--break locations go in before the program runs; kernel locations
 * stay pending until their module loads (-break-insert -f). */
static int insert_breaks(struct dbg_ctl *c, const struct cudbg_options *o)
{
	for (size_t i = 0; i < o->nbreaks; i++) {
		int64_t tok = ctl_break_insert(c, o->breaks[i], NULL);
		if (tok < 0) {
			fprintf(stderr, "cudbg-tui: cannot set a breakpoint at "
				"'%s'; give a function, kernel or FILE:LINE\n",
				o->breaks[i]);
			return (int)tok;
		}
	}
	return 0;
}

static int run_to_stop(struct dbg_ctl *c, const struct cudbg_options *o,
		       int timeout_ms)
{
	const struct dbg_model *m = ctl_model(c);
	int rc = batch_wait(c, true, timeout_ms);
	if (rc < 0 || batch_signalled || m->state == MODEL_GONE)
		return rc;
	if (o->nbreaks > 0) {
		rc = insert_breaks(c, o);
		if (rc >= 0)
			rc = batch_wait(c, true, timeout_ms);
		if (rc < 0 || batch_signalled || m->state == MODEL_GONE)
			return rc;
	}
	if (session_needs_run(ctl_session(c))) {
		int64_t tok = ctl_run(c);
		if (tok < 0)
			return (int)tok;
	}
	rc = batch_wait(c, false, timeout_ms);
	if (rc >= 0 && !batch_signalled && initial_stop(m) &&
	    ctl_continue(c) > 0)
		rc = batch_wait(c, false, timeout_ms);
	return rc;
}

/* --memcheck=always: the pass stopped the program at its first error and
 * wrote a GPU coredump; opening it in the debugger shows the exact
 * faulting thread at a fraction of the cost of a second, live run (a
 * PyTorch start under cuda-gdb takes 13 s).  The debugger was started
 * before the pass, so only `target cudacore` is left.  Refused, the same
 * debugger runs the program live instead (run_to_stop). */
static void open_pass_core(struct dbg_ctl *c, const char *core,
			   int timeout_ms)
{
	if (batch_wait(c, true, timeout_ms) < 0 || batch_signalled ||
	    ctl_model(c)->state != MODEL_NOT_STARTED)
		return;
	if (ctl_open_core(c, core) > 0)
		batch_wait(c, false, timeout_ms);
	const char *e = ctl_model(c)->error;
	if (!ctl_model(c)->is_core && session_alive(ctl_session(c)))
		fprintf(stderr, "cudbg-tui: the memcheck pass's coredump did "
			"not open (%s); running the program live\n",
			e && *e ? e : "no answer");
}

static bool pass_core_wanted(const struct cudbg_options *o,
			     const struct session_config *scfg)
{
	const char *dbg = o->debugger ? strrchr(o->debugger, '/') : NULL;
	dbg = dbg ? dbg + 1 : o->debugger;
	return scfg->backend == SESSION_LAUNCH &&
	       (!dbg || strncmp(dbg, "cuda-gdb", 8) == 0);
}

/* ---- CUDBG_TIMING=1: phase times on stderr, for docs/performance.md ---- */

enum { T_START, T_DEBUGGER, T_PASS_START, T_PASS_END, T_READY, T_STOP,
       T_DIAG, T_REPORT, T_END, T_COUNT };

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One line, seconds since batch mode began ("-": did not happen);
 * pass_start..pass_end is the memcheck pass, ready the debugger's
 * start sequence answered, stop the program's stop (or the core) shown,
 * diag the diagnosis read, report printed, end everything stopped. */
static void timing_print(const double t[T_COUNT], bool core)
{
	static const char *const names[T_COUNT] = {
		"start", "debugger_started", "pass_start", "pass_end",
		"debugger_ready", "stop", "diagnosis", "report", "end",
	};
	const char *v = getenv("CUDBG_TIMING");
	if (!v || !*v || strcmp(v, "0") == 0)
		return;
	fprintf(stderr, "cudbg-tui timing:");
	for (int i = 1; i < T_COUNT; i++) {
		if (t[i] > 0)
			fprintf(stderr, " %s=%.3f", names[i], t[i] - t[T_START]);
		else
			fprintf(stderr, " %s=-", names[i]);
	}
	fprintf(stderr, " core=%d\n", core ? 1 : 0);
}

static void timing_from_run(double t[T_COUNT], const struct diag_run *dr)
{
	struct diag_run_times rt;
	diag_run_get_times(dr, &rt);
	t[T_PASS_START] = rt.pass_start;
	t[T_PASS_END] = rt.pass_end;
	t[T_READY] = rt.debugger_ready;
}

/* The program's terminal is a separate channel from the debugger's
 * records: text the program wrote just before the stop (a device assert's
 * message) can still be in flight.  Read on while it keeps coming, for at
 * most about a second. */
static void drain_output(struct dbg_ctl *c)
{
	const struct dbg_model *m = ctl_model(c);
	for (int i = 0; i < 20 && !batch_signalled; i++) {
		uint64_t before = m->output.total;
		if (ctl_run_until(c, NULL, NULL, i == 0 ? 200 : 50) ==
		    SESSION_EGONE)
			break;
		if (i > 0 && m->output.total == before)
			break;
	}
}

static void print_report(const struct cudbg_options *o,
			 const struct batch_report *r)
{
	if (o->json)
		batch_print_json(stdout, r);
	else
		batch_print_text(stdout, r);
	fflush(stdout);
}

/* An environment error still gets a report (and JSON stays parseable). */
static int report_error(const struct cudbg_options *o, const char *msg)
{
	fprintf(stderr, "cudbg-tui: %s\n", msg);
	if (o->json) {
		struct batch_report r = { .mode = "live", .state = "error",
					  .bkptno = -1 };
		r.error = strdup(msg);
		print_report(o, &r);
		batch_report_free(&r);
	}
	return 2;
}

static char *program_name(const struct cudbg_options *o)
{
	if (o->backend == SESSION_REPLAY && o->replay)
		return strdup(o->replay);
	return o->argv && o->argv[0] ? strdup(o->argv[0]) : NULL;
}

/* --keep-temp: where the memcheck pass left its report and coredump. */
static void say_kept(const struct cudbg_options *o, const struct diag_run *dr)
{
	const char *dir = diag_run_temp_dir(dr);
	if (o->keep_temp && dir)
		fprintf(stderr, "cudbg-tui: kept the temporary directory %s "
			"(--keep-temp)\n", dir);
}

/* The diagnosis joins the report (diag/diagrun.c renders it). */
static void add_diagnosis(const struct cudbg_options *o,
			  struct diag_run *dr, struct batch_report *r)
{
	r->diagnosis = diag_run_report(dr, o->json, r->mode, r->summary);
	r->diagnosis_exit = diag_run_exit_code(dr);
	if (r->diagnosis_exit == 1) /* e.g. found by the memcheck pass */
		r->fault = true;
}

/* --sanitizer-report alone: a diagnosis without a debugger. */
static int report_only(const struct cudbg_options *o, struct diag_run *dr)
{
	struct batch_report r = { .mode = "sanitizer-report",
				  .state = "report", .bkptno = -1 };
	add_diagnosis(o, dr, &r);
	print_report(o, &r);
	int code = batch_exit_code(&r);
	batch_report_free(&r);
	diag_run_free(dr);
	return code;
}

int batch_main(const struct cudbg_options *o)
{
	double t[T_COUNT] = { mono_now() };
	char err[512] = "";
	if (o->backend == SESSION_NONE && !o->sanitizer_report)
		return report_error(o, "batch mode needs a program, --pid, "
				    "--remote, --core, --replay or "
				    "--sanitizer-report");
	struct diag_run *dr = diag_run_new(o, NULL, err, sizeof err);
	if (!dr)
		return report_error(o, err);
	if (o->backend == SESSION_NONE)
		return report_only(o, dr);
	struct session_config scfg;
	options_session_config(o, &scfg);
	/* The report shows focus, stack and the kernel frame's values: the
	 * stop's refresh fetches no more than that. */
	struct dbg_ctl_config cfg = { .session = &scfg, .lean = true };
	diag_run_hooks(dr, &cfg.hooks);
	diag_run_set_cancel(dr, &batch_signalled);
	signals_catch();
	int timeout_ms = o->timeout_s > 0 ? o->timeout_s * 1000 : -1;
	/* The debugger starts first: its start-up (its own Python, the
	 * program's symbols; about 0.5 s for cuda-gdb 13) overlaps the
	 * memcheck pass instead of following it. */
	struct dbg_ctl *c = ctl_new(&cfg, err, sizeof err, NULL);
	if (!c) {
		diag_run_free(dr);
		return report_error(o, err[0] ? err : "cannot start the debugger");
	}
	t[T_DEBUGGER] = mono_now();
	job_note_recording(ctl_session(c), o->job_table);
	diag_run_before(dr, c, timeout_ms);
	if (batch_signalled) {
		char msg[128];
		snprintf(msg, sizeof msg, "interrupted by signal %d during the "
			 "memcheck pass", (int)batch_signalled);
		ctl_free(c);
		diag_run_free(dr); /* stops the pass, removes its files */
		return report_error(o, msg);
	}
	const char *core = diag_run_core(dr);
	if (core && pass_core_wanted(o, &scfg))
		open_pass_core(c, core, timeout_ms);
	int rc = run_to_stop(c, o, timeout_ms);
	/* Only a live stop can have text in flight: a coredump has no
	 * program terminal, and for an exit the session read the program's
	 * last bytes before it reported the exit. */
	if (!batch_signalled && !ctl_model(c)->is_core &&
	    ctl_model(c)->state == MODEL_STOPPED)
		drain_output(c);
	t[T_STOP] = mono_now();
	struct batch_report r;
	batch_collect(ctl_model(c), &r);
	r.program = program_name(o);
	if (!batch_signalled)
		diag_run_after(dr, c, timeout_ms);
	t[T_DIAG] = mono_now();
	add_diagnosis(o, dr, &r);
	if (o->job_table) /* --job, --core-dir: the faulting process's core */
		r.job = o->json ? job_report_json(o->job_table)
				: job_report_text(o->job_table);
	say_kept(o, dr);
	timing_from_run(t, dr);
	diag_run_free(dr);
	if (batch_signalled && !r.error) {
		char msg[128];
		snprintf(msg, sizeof msg, "interrupted by signal %d before the "
			 "program stopped", (int)batch_signalled);
		r.error = strdup(msg);
	} else if (rc == SESSION_ETIMEOUT && !r.error &&
		   !session_ready(ctl_session(c))) {
		const char *p = session_debugger_path(ctl_session(c));
		const char *slash = p ? strrchr(p, '/') : NULL;
		char msg[512];
		snprintf(msg, sizeof msg, "no answer from %s within %d s "
			 "(--timeout); is it a debugger? Point --debugger at "
			 "cuda-gdb or gdb", slash ? slash + 1 : p ? p : "the "
			 "debugger", o->timeout_s);
		r.error = strdup(msg);
	} else if (rc == SESSION_ETIMEOUT && !r.error) {
		r.error = strdup("timed out waiting for the program to stop "
				 "(--timeout)");
	} else if (ctl_model(c)->state == MODEL_NOT_STARTED && !r.error) {
		const char *e = ctl_model(c)->error;
		char msg[512];
		snprintf(msg, sizeof msg, "the program did not start%s%s",
			 e ? ": " : "", e ? e : "");
		r.error = strdup(msg);
	} else if (rc < 0 && rc != SESSION_EGONE && !r.error) {
		const char *e = session_error(ctl_session(c));
		r.error = strdup(e && *e ? e : "the session failed");
	}
	if (r.error)
		fprintf(stderr, "cudbg-tui: %s\n", r.error);
	print_report(o, &r);
	t[T_REPORT] = mono_now();
	int code = batch_exit_code(&r);
	batch_report_free(&r);
	bool core_opened = ctl_model(c)->is_core;
	ctl_free(c);
	t[T_END] = mono_now();
	timing_print(t, core_opened);
	return code;
}
