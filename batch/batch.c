/* Batch mode: run to the first stop or the program's end, print the
 * report.  See include/cudbg/batch.h. */
#include "cudbg/base.h"
#include "cudbg/batch.h"
#include "cudbg/diagrun.h"
#include "cudbg/hang.h"
#include "cudbg/job.h"
#include "cudbg/model.h"
#include "cudbg/options.h"
#include "cudbg/report.h"
#include "cudbg/transcript.h"
#include "opts/hang.h"
#include "opts/startcmds.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t batch_signalled;
static volatile sig_atomic_t batch_signals; /* how many came */

static void on_signal(int sig)
{
	batch_signalled = sig;
	batch_signals++;
}

/* A write past `ulimit -f` (the recording) fails with EFBIG instead of
 * ending the process; caught rather than ignored so that the debugger
 * and the program it starts keep the default. */
static void on_xfsz(int sig)
{
	(void)sig;
}

/* SIGINT/SIGTERM/SIGHUP end the wait; the session is then freed, which
 * stops the debugger's whole process group (no orphans).  The first
 * SIGINT or SIGTERM while the program runs is first a report of where it
 * was (signal_to_report). */
static void signals_catch(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	transcript_set_cancel(&batch_signalled); /* reading a --replay */
	sa.sa_handler = on_xfsz;
	sigaction(SIGXFSZ, &sa, NULL);
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

/* A replay of a hang (the recording interrupted a running program): the
 * run is over once it is answered and the replay has sent what it
 * recorded before the interrupt; no timer (was: a fixed 1.5 s). */
static bool replay_hang, replay_hang_reached;

static bool wait_pred(void *ctx)
{
	struct wait *w = ctx;
	const struct dbg_model *m = ctl_model(w->c);
	if (batch_signalled || !session_alive(ctl_session(w->c)))
		return true;
	if (w->want_ready)
		return session_ready(ctl_session(w->c));
	if (replay_hang && m->state == MODEL_RUNNING && !ctl_busy(w->c)) {
		replay_hang_reached = true;
		return true;
	}
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

/* Progress of a long wait on stderr, when stderr is a terminal: what is
 * going on, its clock, the key that stops it; one line rewritten each
 * second and erased when the wait ends (the report goes to stdout). */
static struct {
	bool on;
	double since;
	int shown; /* the seconds last written, 0: nothing on the line */
} progress;


static void progress_tick(const char *what)
{
	if (!progress.on)
		return;
	int secs = (int)(proc_now_s() - progress.since);
	if (secs < 1 || secs == progress.shown)
		return;
	progress.shown = secs;
	fprintf(stderr, "\r\033[Kcudbg-tui: %s... %ds (Ctrl-C stops it)", what, secs);
	fflush(stderr);
}

static void progress_end(void)
{
	if (progress.on && progress.shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	progress.on = false;
}

/* The memcheck pass's clock (diag_run_set_progress), in the same line. */
static void pass_progress(void *ctx, const char *what, double secs)
{
	static bool started;
	(void)ctx;
	if (secs < 0) {
		progress_end();
		started = false;
		return;
	}
	if (!started) {
		started = true;
		progress.on = isatty(2);
		progress.since = proc_now_s() - secs;
		progress.shown = 0;
	}
	char line[96];
	snprintf(line, sizeof line, "running %s", what);
	progress_tick(line);
}

/* What a wait is for, in words. */
static const char *wait_what(struct dbg_ctl *c, bool want_ready)
{
	const struct dbg_model *m = ctl_model(c);
	if (want_ready)
		return "starting the debugger";
	if (m->is_core || session_replay_of(ctl_session(c)) == SESSION_CORE)
		return "opening the coredump";
	return "running the program to its fault";
}

static int batch_wait(struct dbg_ctl *c, bool want_ready, int timeout_ms)
{
	struct wait w = { c, want_ready };
	double end = proc_now_s() + timeout_ms / 1000.0;
	int rc;

	progress.on = isatty(2);
	progress.since = proc_now_s();
	progress.shown = 0;
	/* Slices of half a second, so that the clock moves. */
	for (;;) {
		int slice = 500;
		if (timeout_ms >= 0) {
			double left = end - proc_now_s();
			if (left <= 0) {
				rc = SESSION_ETIMEOUT;
				break;
			}
			if (left * 1000 < slice)
				slice = (int)(left * 1000) + 1;
		}
		rc = ctl_run_until(c, wait_pred, &w, slice);
		if (replay_hang_reached) { /* as if --timeout ran out */
			/* once: the interrupt's own wait must see its stop,
			 * which may come after -exec-interrupt's ^done */
			replay_hang = replay_hang_reached = false;
			rc = SESSION_ETIMEOUT;
			break;
		}
		if (rc != SESSION_ETIMEOUT)
			break;
		progress_tick(wait_what(c, want_ready));
	}
	progress_end();
	return rc;
}

/* -b/--break locations go in before the program runs; kernel locations
 * stay pending until their module loads (-break-insert -f). */
static int insert_breaks(struct dbg_ctl *c, const struct cudbg_options *o)
{
	for (size_t i = 0; i < o->nbreaks; i++) {
		int64_t tok = ctl_break_insert(c, o->breaks[i], NULL);
		if (tok < 0) {
			char line[1024];
			snprintf(line, sizeof line, "'%.900s'; give a function, "
				 "kernel or FILE:LINE", o->breaks[i]);
			text_write_line(stderr, "cudbg-tui: cannot set a "
					"breakpoint at ", line);
			return (int)tok;
		}
	}
	return 0;
}

/* When the run began (CLOCK_MONOTONIC seconds; 0 before). */
static double run_began;

static int run_to_stop(struct dbg_ctl *c, const struct cudbg_options *o,
		       int timeout_ms, int stop_ms)
{
	const struct dbg_model *m = ctl_model(c);
	int rc = batch_wait(c, true, timeout_ms);
	if (rc < 0 || batch_signalled || m->state == MODEL_GONE)
		return rc;
	if (o->ndbg_cmds > 0 || o->gdbinit) {
		char err[512];
		if (start_commands_send(o, c, err, sizeof err) < 0) {
			text_write_line(stderr, "cudbg-tui: ", err);
			return -1;
		}
	}
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
	run_began = proc_now_s();
	rc = batch_wait(c, false, stop_ms);
	if (rc >= 0 && !batch_signalled && initial_stop(m) &&
	    ctl_continue(c) > 0) {
		run_began = proc_now_s();
		rc = batch_wait(c, false, stop_ms);
	}
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
	{
		/* e is the debugger's text: escaped */
		char line[1024];
		snprintf(line, sizeof line, "(%.900s); running the program live",
			 e && *e ? e : "no answer");
		text_write_line(stderr, "cudbg-tui: the memcheck pass's coredump "
				"did not open ", line);
	}
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

static bool timing_on(void)
{
	const char *v = getenv("CUDBG_TIMING");
	return v && *v && strcmp(v, "0") != 0;
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
	if (!timing_on())
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

/* The steps after the stop, each's seconds (the same switch). */
static void timing_print_after(const struct diag_run *dr)
{
	if (!timing_on() || !dr)
		return;
	struct diag_run_times rt;
	diag_run_get_times(dr, &rt);
	fprintf(stderr, "cudbg-tui after-stop:");
	for (int i = 0; i < DIAG_AFTER_COUNT; i++)
		fprintf(stderr, " %s=%.3f", diag_after_step_name(i), rt.after[i]);
	fputc('\n', stderr);
}

static void timing_from_run(double t[T_COUNT], const struct diag_run *dr)
{
	struct diag_run_times rt;
	diag_run_get_times(dr, &rt);
	t[T_PASS_START] = rt.pass_start;
	t[T_PASS_END] = rt.pass_end;
	t[T_READY] = rt.debugger_ready;
}

/* Reads what the program's terminal already holds, without waiting:
 * one short poll at a time while bytes keep coming. */
static void take_pending_output(struct dbg_ctl *c)
{
	const struct dbg_model *m = ctl_model(c);
	for (int i = 0; i < 64 && !batch_signalled; i++) {
		uint64_t before = m->output.total;
		if (ctl_run_until(c, NULL, NULL, 1) == SESSION_EGONE ||
		    m->output.total == before)
			break;
	}
}

/* A device assert's stop whose assertion text has not arrived yet. */
static bool assert_text_missing(struct diag_run *dr, const struct dbg_model *m)
{
	const struct diag_fault *f = diag_run_fault(dr, m);
	return f->kind == DIAG_FAULT_ASSERT && f->n_asserts == 0;
}

/* The program's terminal is a separate channel from the debugger's
 * records: text the program wrote just before the stop can still be in
 * flight.  Only what the report lacks is waited for: a device assert's
 * line, which the driver flushes from the device printf buffer around the
 * stop (in every recording it came 40-320 ms before the stop record; a
 * 2-D kernel's came later or not at all: cuda-gdb-facts.md), for at most
 * 0.5 s and until the output has been quiet for 50 ms once it came.  A replay
 * writes a recorded line to the terminal before the records that follow
 * it, so what it has is already there: no wait (docs/performance.md),
 * unless it keeps the recorded delays (--replay-realtime). */
static void drain_output(struct dbg_ctl *c, struct diag_run *dr, bool replay)
{
	const struct dbg_model *m = ctl_model(c);
	take_pending_output(c);
	if (replay || !assert_text_missing(dr, m))
		return;
	for (int i = 0; i < 10 && !batch_signalled; i++) {
		uint64_t before = m->output.total;
		if (ctl_run_until(c, NULL, NULL, 50) == SESSION_EGONE)
			break;
		if (m->output.total == before && !assert_text_missing(dr, m))
			break;
	}
}

/* Prints the report and closes stdout; 0, or -1 after saying "write
 * error: ..." once (a full disk, a closed pipe: the report would be lost
 * silently).  Called once per run. */
static int print_report(const struct cudbg_options *o,
			const struct batch_report *r)
{
	if (o->json)
		batch_print_json(stdout, r);
	else
		batch_print_text(stdout, r);
	/* The report is the last thing batch mode writes to stdout: it is
	 * closed here, so that an error close(2) reports (NFS reports
	 * deferred write errors there) is seen too. */
	errno = 0;
	bool ok = fflush(stdout) == 0 && !ferror(stdout);
	int e = errno;
	if (fclose(stdout) != 0 && ok) {
		ok = false;
		e = errno;
	}
	errno = e;
	if (ok)
		return 0;
	fprintf(stderr, "cudbg-tui: write error: %s (standard output); the "
		"report is incomplete\n", strerror(errno ? errno : EIO));
	return -1;
}

static char *program_name(const struct cudbg_options *o)
{
	if (o->backend == SESSION_REPLAY && o->replay)
		return strdup(o->replay);
	return o->argv && o->argv[0] ? strdup(o->argv[0]) : NULL;
}

/* The report's mode from the command line, for a report made before any
 * session (batch_collect names it from the session's model): NULL when
 * the command line names nothing to debug. */
static const char *options_mode(const struct cudbg_options *o)
{
	switch (o->backend) {
	case SESSION_LAUNCH: return "live";
	case SESSION_ATTACH: return "attach";
	case SESSION_REMOTE: return "remote";
	case SESSION_CORE: return "core";
	case SESSION_REPLAY: return "replay";
	case SESSION_NONE: break;
	}
	return o->sanitizer_report ? "sanitizer-report" : NULL;
}

/* An environment error still gets a whole report (JSON stays parseable,
 * and its diagnosis is there, every member null or empty, with the
 * error: docs/report-schema.md). */
static int report_error(const struct cudbg_options *o, const char *msg)
{
	text_write_line(stderr, "cudbg-tui: ", msg);
	if (o->json) {
		struct batch_report r = { .mode = options_mode(o),
					  .state = "error", .bkptno = -1 };
		struct diag_report_in in = { .mode = r.mode, .error = msg,
					     .memcheck_seconds = -1 };
		r.program = program_name(o);
		r.error = strdup(msg);
		r.diagnosis = diag_report_json(&in);
		r.diagnosis_exit = DIAG_EXIT_USAGE;
		print_report(o, &r);
		batch_report_free(&r);
	}
	return 2;
}

/* The same, with what the diagnosis knows of the failure (an environment
 * fact: the debugger missing) in the JSON's diagnosis. */
static int report_error_run(const struct cudbg_options *o,
			    struct diag_run *dr, const char *msg)
{
	text_write_line(stderr, "cudbg-tui: ", msg);
	if (o->json) {
		struct batch_report r = { .mode = options_mode(o),
					  .state = "error", .bkptno = -1 };
		r.program = program_name(o);
		r.error = strdup(msg);
		diag_run_set_error(dr, r.error);
		r.diagnosis = diag_run_report(dr, true, r.mode, NULL);
		r.diagnosis_exit = DIAG_EXIT_USAGE;
		print_report(o, &r);
		batch_report_free(&r);
	}
	return 2;
}

/* --keep-temp: where the memcheck pass left its report and coredump. */
static void say_kept(const struct cudbg_options *o, const struct diag_run *dr)
{
	const char *dir = diag_run_temp_dir(dr);
	if (o->keep_temp && dir)
	{
		char line[PATH_MAX + 64];
		snprintf(line, sizeof line, "%s (--keep-temp)", dir);
		text_write_line(stderr, "cudbg-tui: kept the temporary directory ",
				line);
	}
}

/* The diagnosis joins the report (diag/diagrun.c renders it). */
static void add_diagnosis(const struct cudbg_options *o,
			  struct diag_run *dr, struct batch_report *r)
{
	diag_run_set_error(dr, r->error);
	r->diagnosis = diag_run_report(dr, o->json, r->mode, r->summary);
	r->diagnosis_exit = diag_run_exit_code(dr);
	if (r->diagnosis_exit == 1) /* e.g. found by the memcheck pass */
		r->fault = true;
}

/* --timeout ran out with the program still running: a hang.  Interrupt
 * it (-exec-interrupt), wait for that stop and its refresh, fetch the
 * stopped kernel's coalesced threads (ctl_hang_tables) and hand the
 * summary to the diagnosis.  Returns true when the program stopped. */
static bool hang_interrupt(struct dbg_ctl *c, struct diag_run *dr,
			   double seconds, bool recorded, int sig)
{
	const struct dbg_model *m = ctl_model(c);
	if (ctl_interrupt(c) < 0)
		return false;
	/* cuda-gdb answers within a second; a debugger that does not is
	 * not waited for longer than this. */
	int rc = batch_wait(c, false, 15000);
	if (rc < 0 || batch_signalled || m->state != MODEL_STOPPED)
		return false;
	if (ctl_hang_tables(c) > 0)
		batch_wait(c, false, 60000);
	diag_hang_from_model(diag_run_diag(dr), m, seconds, recorded, sig);
	return true;
}

/* The first SIGINT or SIGTERM while the live program runs stands for a
 * time limit, the user's (C-c) or a job's (timeout(1), a scheduler's
 * SIGTERM before its SIGKILL): the program is interrupted and the report
 * says where it was, as at --timeout and as gdb's own C-c shows.  A
 * second signal ends the wait at once.  Returns the signal, taken back
 * from batch_signalled so that the interrupt's wait goes on, or 0. */
static int signal_to_report(const struct cudbg_options *o,
			    struct dbg_ctl *c)
{
	int sig = batch_signalled;
	if ((sig != SIGINT && sig != SIGTERM) || batch_signals != 1 ||
	    o->backend == SESSION_REPLAY || o->backend == SESSION_CORE ||
	    ctl_model(c)->state != MODEL_RUNNING ||
	    !session_ready(ctl_session(c)))
		return 0;
	batch_signalled = 0;
	if (batch_signals != 1) { /* another came meanwhile */
		batch_signalled = sig;
		return 0;
	}
	return sig;
}

/* A replay has no clock: a recording that interrupted a running program
 * stands for --timeout (batch/hang.h). */
static int stop_wait_ms(const struct cudbg_options *o,
			const struct diag_run *dr, int timeout_ms,
			double *recorded)
{
	*recorded = -1;
	if (o->backend != SESSION_REPLAY)
		return timeout_ms;
	*recorded = diag_run_replay_hang_seconds(dr);
	if (*recorded < 0)
		return timeout_ms;
	return hang_replay_wait_ms(*recorded, o->replay_realtime);
}

/* --sanitizer-report alone: a diagnosis without a debugger. */
static int report_only(const struct cudbg_options *o, struct diag_run *dr)
{
	struct batch_report r = { .mode = "sanitizer-report",
				  .state = "report", .bkptno = -1 };
	add_diagnosis(o, dr, &r);
	int code = print_report(o, &r) < 0 ? 2 : batch_exit_code(&r);
	batch_report_free(&r);
	diag_run_free(dr);
	return code;
}

/* When gdb cannot start the program ("During startup program exited
 * with code 127": its shell could not exec it, e.g. arguments too long
 * for one exec), gdb's forked child says why on the program's terminal
 * only, as an MI log line ('&"warning: Error: Argument list too
 * long\n"').  The report gets that reason (printable ASCII only: it is
 * the program's terminal text). */
static void startup_failure(const struct dbg_model *m, char *out, size_t cap)
{
	char tail[4097];
	size_t n = model_ring_copy(&m->output, tail, sizeof tail - 1);
	tail[n] = 0;
	for (size_t i = 0; i < n; i++)
		if (tail[i] == 0)
			tail[i] = ' ';
	const char *keys[] = { "warning: Error: ", "Cannot exec " };
	const char *at = NULL, *p;
	for (size_t k = 0; k < 2; k++)
		for (p = tail; (p = strstr(p, keys[k])); p++)
			if (!at || p > at)
				at = p + (k == 0 ? strlen(keys[0]) : 0);
	if (!at || cap == 0)
		return;
	size_t o = 0;
	for (; *at && o + 1 < cap; at++) {
		if (*at == '\n' || *at == '"' || (at[0] == '\\' && at[1] == 'n'))
			break;
		out[o++] = *at >= 0x20 && *at < 0x7f ? *at : '?';
	}
	while (o > 0 && (out[o - 1] == '.' || out[o - 1] == ' '))
		o--;
	out[o] = 0;
}

/* The run to the stop: the live program (or the pass's findings alone)
 * until it stops, ends or hangs past --timeout (then interrupted: *hang),
 * and the program's output still in flight.  How the wait ended (0, or a
 * session code). */
static int run_phase(const struct cudbg_options *o, struct dbg_ctl *c,
		     struct diag_run *dr, int timeout_ms, bool *hang)
{
	double recorded;
	int stop_ms = stop_wait_ms(o, dr, timeout_ms, &recorded);
	replay_hang = recorded >= 0 && !o->replay_realtime;
	/* An imprecise first error (a device assert): the pass's findings
	 * are the report, and a live run would only repeat the program
	 * (diag_run_pass_final).  The debugger's start is still waited
	 * for, so that its recording ends as a replay expects. */
	int rc = diag_run_pass_final(dr)
		? batch_wait(c, true, timeout_ms)
		: run_to_stop(c, o, timeout_ms, stop_ms);
	*hang = false;
	double ran = recorded >= 0 ? recorded : proc_now_s() - run_began;
	int sig = recorded >= 0 ? diag_run_replay_interrupt_signal(dr)
				: signal_to_report(o, c);
	if (sig && recorded < 0)
		diag_interrupt_note(ctl_session(c), sig);
	if ((rc == SESSION_ETIMEOUT || sig) && !batch_signalled &&
	    ctl_model(c)->state == MODEL_RUNNING &&
	    session_ready(ctl_session(c)) &&
	    hang_interrupt(c, dr, ran, recorded >= 0, sig)) {
		*hang = true;
		rc = 0;
	} else if (sig && recorded < 0 && !batch_signalled) {
		batch_signalled = sig; /* no stop came: said as before */
	}
	/* The bound ran out while the debugger owed us an answer (the
	 * program had stopped, or never ran): it is the debugger that went
	 * silent, and the report says so and names the command. */
	if (rc == SESSION_ETIMEOUT && !batch_signalled && !*hang &&
	    session_give_up(ctl_session(c)))
		ctl_run_until(c, NULL, NULL, 3000); /* reaped, reported */
	/* Only a live stop can have text in flight: a coredump has no
	 * program terminal, and for an exit the session read the program's
	 * last bytes before it reported the exit. */
	if (!batch_signalled && !ctl_model(c)->is_core &&
	    ctl_model(c)->state == MODEL_STOPPED && !*hang)
		drain_output(c, dr, o->backend == SESSION_REPLAY &&
				    !o->replay_realtime);
	return rc;
}

/* The session's failure as the report's error, first of all: the
 * diagnosis then says it is incomplete rather than "no fault found".
 * rc: how the wait for the stop ended; pass_final: the memcheck pass's
 * findings are the report (no live run was needed). */
static void session_failure(const struct cudbg_options *o, struct dbg_ctl *c,
			    int rc, bool pass_final, struct batch_report *r)
{
	if (batch_signalled && !r->error) {
		char msg[128];
		snprintf(msg, sizeof msg, "interrupted by signal %d before the "
			 "program stopped", (int)batch_signalled);
		r->error = strdup(msg);
	} else if (rc == SESSION_ETIMEOUT && !r->error &&
		   !session_ready(ctl_session(c))) {
		const char *p = session_debugger_path(ctl_session(c));
		const char *slash = p ? strrchr(p, '/') : NULL;
		char msg[512];
		snprintf(msg, sizeof msg, "no answer from %s within %d s "
			 "(--timeout); is it a debugger? Point --debugger at "
			 "cuda-gdb or gdb", slash ? slash + 1 : p ? p : "the "
			 "debugger", o->timeout_s);
		r->error = strdup(msg);
	} else if (rc == SESSION_ETIMEOUT && !r->error) {
		r->error = strdup("timed out waiting for the program to stop "
				 "(--timeout)");
	} else if (ctl_model(c)->state == MODEL_NOT_STARTED && !r->error &&
		   !pass_final) {
		const char *e = ctl_model(c)->error;
		char msg[768], why[200] = "";
		if (e && strstr(e, "During startup program exited")) {
			ctl_run_until(c, NULL, NULL, 200); /* its last words */
			startup_failure(ctl_model(c), why, sizeof why);
		}
		snprintf(msg, sizeof msg, "the program did not start%s%s%s%s",
			 e ? ": " : "", e ? e : "", why[0] ? " gdb could not "
			 "start it: " : "", why);
		r->error = strdup(msg);
	} else if (rc < 0 && rc != SESSION_EGONE && !r->error) {
		const char *e = session_error(ctl_session(c));
		r->error = strdup(e && *e ? e : "the session failed");
	}
}

int batch_main(const struct cudbg_options *o)
{
	double t[T_COUNT] = { proc_now_s() };
	char err[512] = "";
	if (o->backend == SESSION_NONE && !o->sanitizer_report)
		return report_error(o, "batch mode needs a program, --pid, "
				    "--remote, --core, --replay or "
				    "--sanitizer-report");
	struct diag_run_config dcfg;
	options_diag_config(o, &dcfg);
	struct diag_run *dr = diag_run_new(&dcfg, NULL, err, sizeof err);
	if (!dr)
		return report_error(o, err);
	if (o->backend == SESSION_NONE)
		return report_only(o, dr);
	struct session_config scfg;
	options_session_config(o, &scfg);
	/* The report shows focus, stack and the kernel frame's values: the
	 * stop's refresh fetches no more than that. */
	struct dbg_ctl_config cfg = { .session = &scfg, .lean = true };
	diag_run_hooks(dr, &cfg.diag_hooks);
	diag_run_set_cancel(dr, &batch_signalled);
	diag_run_set_progress(dr, pass_progress, NULL);
	signals_catch();
	int timeout_ms = o->timeout_s > 0 ? o->timeout_s * 1000 : -1;
	/* The debugger starts first: its start-up (its own Python, the
	 * program's symbols; about 0.5 s for cuda-gdb 13) overlaps the
	 * memcheck pass instead of following it. */
	int start_rc = 0;
	struct dbg_ctl *c = ctl_new(&cfg, err, sizeof err, &start_rc);
	if (!c) {
		/* a missing debugger is an environment fault with its own
		 * hint, in the JSON too (issue 31 item 6: kind was "none") */
		if (start_rc == SESSION_ENOTFOUND)
			diag_set_flag(diag_run_diag(dr), DIAG_F_DEBUGGER_MISSING,
				      true);
		int rc = report_error_run(o, dr,
					  err[0] ? err : "cannot start the debugger");
		diag_run_free(dr);
		return rc;
	}
	t[T_DEBUGGER] = proc_now_s();
	if (isatty(2) && o->memcheck == CUDBG_MEMCHECK_ALWAYS)
		fputs("cudbg-tui: the memcheck pass runs first (Ctrl-C stops it)\n", stderr);
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
	/* (An imprecise error's coredump holds no CUDA focus: not opened;
	 * the live run follows unless the pass's findings are final.) */
	const char *core = diag_run_core_to_open(dr);
	if (core && pass_core_wanted(o, &scfg))
		open_pass_core(c, core, timeout_ms);
	bool hang;
	int rc = run_phase(o, c, dr, timeout_ms, &hang);
	t[T_STOP] = proc_now_s();
	struct batch_report r;
	batch_collect(ctl_model(c), &r);
	r.program = program_name(o);
	const struct diag_hang *hs = diag_hang_of(diag_run_diag(dr));
	if (hang && hs) {
		char head[512];
		diag_hang_headline(hs, head, sizeof head);
		r.hang = strdup(head);
		r.fault = true;
	}
	bool pass_final = diag_run_pass_final(dr);
	if (pass_final && (ctl_model(c)->state == MODEL_NOT_STARTED ||
			   ctl_model(c)->state == MODEL_STARTING)) {
		/* as for --sanitizer-report alone: the findings are it, and
		 * the diagnosis says whether they are a fault (a clean pass
		 * is none: add_diagnosis) */
		r.state = "report";
	}
	if (!batch_signalled) {
		diag_run_set_final_stop(dr);
		diag_run_after(dr, c, timeout_ms);
	}
	else /* the stop or exit so far, without reading more */
		diag_run_fault(dr, ctl_model(c));
	t[T_DIAG] = proc_now_s();
	/* the session's failure first */
	session_failure(o, c, rc, pass_final, &r);
	add_diagnosis(o, dr, &r);
	if (o->job_table) /* --job, --core-dir: the faulting process's core */
		r.job = o->json ? job_report_json(o->job_table)
				: job_report_text(o->job_table);
	say_kept(o, dr);
	timing_from_run(t, dr);
	timing_print_after(dr);
	diag_run_free(dr);
	if (r.error)
		text_write_line(stderr, "cudbg-tui: ", r.error);
	int code = print_report(o, &r) < 0 ? 2 : batch_exit_code(&r);
	/* A recording that stopped (a full disk, `ulimit -f`) loses what
	 * the user asked to keep: said with the write's own errno, exit 2. */
	const char *rec_err = session_record_error(ctl_session(c));
	if (rec_err) {
		text_write_line(stderr, "cudbg-tui: ", rec_err);
		code = 2;
	}
	t[T_REPORT] = proc_now_s();
	batch_report_free(&r);
	bool core_opened = ctl_model(c)->is_core;
	ctl_free(c);
	t[T_END] = proc_now_s();
	timing_print(t, core_opened);
	return code;
}
