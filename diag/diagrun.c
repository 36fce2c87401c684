/* One diagnosis of a batch run (see include/cudbg/diagrun.h). */
#include "cudbg/diagrun.h"
#include "cudbg/assertline.h"
#include "cudbg/hints.h"
#include "cudbg/model.h"
#include "cudbg/procev.h"
#include "cudbg/pystack.h"
#include "cudbg/report.h"
#include "cudbg/sanitizer.h"
#include "diag/internal.h"
#include "diag/state.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct diag_run {
	struct diag *d;
	struct diag_rules *rules;
	char rules_error[256];      /* why rules is NULL (rules_optional) */
	const char *const *labels;  /* the report's action labels, or NULL */
	const char *error;          /* the session's failure, borrowed, or
				     * NULL (diag_run_set_error) */
	char *const *argv;          /* the program (options' argv), or NULL */
	const char *const *dirs;
	size_t ndirs;
	enum diag_memcheck_policy policy;
	const char *sanitizer;
	const char *tool;        /* --sanitizer-tool, NULL: memcheck */
	char *const *san_flags;  /* --sanitizer-flags (the options' own) */
	size_t nsan_flags;
	const char *kernel;      /* --memcheck-kernel, NULL: every kernel */
	const char *debugger;
	bool keep_temp;
	const char *child_dir; /* diag_run_config.child_dir (borrowed) */
	struct child_events *child_ev; /* the kernel's word on the program's
					* descendants; NULL unheard */
	char events_off[160];  /* why unheard (a live run's), "" heard */
	bool events_off_noted; /* in the recording (once a run) */
	char *argv_line;       /* the program's command line, for them */
	/* The deaths already in the account's recording (noted once each),
	 * and a replay's recorded ones ("PID SIGNAL COMMAND" lines). */
	long noted_deaths[32];
	size_t n_noted_deaths;
	char *replay_deaths;
	char **recorded_argv;       /* a replay's program, from its notes */
	bool can_rerun;             /* a launch: the pass can run the program */
	bool pystack;               /* ask a Python program for its stack */
	bool final_stop;            /* the session ends after the report */
	bool py_probe;              /* any other program: read its memory
				     * for a Python runtime (a launcher that
				     * exec'd python) */
	double memcheck_secs;       /* < 0: did not run */
	double replay_hang_secs;    /* the recording's interrupt, -1 none */
	int replay_interrupt_sig;   /* the signal that sent it, 0 none */
	char memcheck_stopped[160]; /* diag_report_in.memcheck_stopped */
	bool text_findings;         /* a replay's findings come from the
				     * pass text (no XML was written) */
	bool pass_final;            /* the pass's findings are the report:
				     * no live run (diag_run_pass_final) */
	int pass_exit;              /* a final pass's failing exit status
				     * (pass_final_exit), else 0 */
	bool pass_exit_fed;         /* the account has it (diag_run_update) */
	struct diag_san *text_san;  /* a replay's findings from its pass
				     * text (text_findings), lent to each
				     * account diag_run_update makes */
	char *memcheck_text;
	size_t memcheck_len;
	struct diag_memcheck *mc;   /* kept: its directory holds the core */
	const volatile sig_atomic_t *cancel; /* non-zero: stop waiting (a signal) */
	diag_run_progress_fn progress;
	void *progress_ctx;
	struct diag_run_times times;
	struct diag_hints hints;
	/* The screen's step (diag_run_update): what it left. */
	struct diag_run_view view;
	char *view_report;
	struct diag_report_tags view_tags;
	char stop_reason[256];
};

static int load_report(struct diag_run *r, const char *path, char *err,
		       size_t cap)
{
	struct diag_san *s;
	int rc = diag_san_load_file(path, &s, err, cap);
	if (rc < 0)
		return rc;
	if (r->memcheck_text)
		diag_san_add_text(s, r->memcheck_text, r->memcheck_len);
	return diag_add_sanitizer(r->d, s);
}

/* The recording's words for a pass whose findings are the report, which
 * its replay looks for (replay_pass_text). */
#define PASS_FINAL_NOTE "no live run"

/* The pass found no error in device code and the program ended by
 * itself: only failing CUDA calls (api_error, smem_config: the call, its
 * error and the user's line are in the findings), or nothing at all and
 * a clean exit (race_shared and uninit_read under memcheck).  A live run
 * would only repeat the program: cuda-gdb does not stop at a failing
 * call (its report is "cuda-error-no-stop", run 20), and a clean program
 * ends as it did, as does one that failed with a Python traceback and
 * no finding (torch_dtype's dtype error: cuda-gdb does not stop at a
 * Python exception, and the traceback is in the pass's output; its live
 * run made the pass 2.1x a bare sanitizer, run 22).  Any other failing
 * exit with no finding, or a program that did not end well, still runs
 * live, where the debugger stops at a signal. */
#define PY_TRACEBACK "Traceback (most recent call last):"

static bool pass_found_no_device_error(const struct diag_memcheck *mc,
				       const struct diag_san *s)
{
	if (!s || !diag_memcheck_done(mc) || diag_memcheck_signalled(mc) ||
	    diag_memcheck_early(mc) != DIAG_MC_EARLY_NO)
		return false;
	size_t n = diag_san_count(s);
	for (size_t i = 0; i < n; i++)
		if (diag_san_get(s, i)->kind != DIAG_SAN_API)
			return false;
	size_t len;
	const char *text = diag_memcheck_text(mc, &len);
	if (text && memmem(text, len, "terminate successfully", 22))
		return false;
	return n > 0 || diag_memcheck_status(mc) == 0 ||
	       (text && memmem(text, len, PY_TRACEBACK, sizeof PY_TRACEBACK - 1));
}

/* A precise first error whose coredump was stopped (too big or too
 * slow to dump) ran live for the faulting frame's values.  When its text
 * already shows a wrapped 32-bit index (diag_san_index_wrap), with the
 * line, the kernel and the thread, the live run adds nothing the report
 * needs: the index's wrapped value is the address's arithmetic, and
 * release_int_overflow's live run did not even fault (its write landed
 * in mapped memory under cuda-gdb, runs 1 and 21).  A Python program
 * still runs live: the text names its script's frames by base name. */
static bool pass_text_shows_wrap(const struct diag_run *r,
				 const struct diag_memcheck *mc,
				 const struct diag_san *s)
{
	enum diag_memcheck_early e = diag_memcheck_early(mc);
	if ((e != DIAG_MC_EARLY_BIG_CORE && e != DIAG_MC_EARLY_SLOW_CORE) ||
	    !s || (r->argv && diag_argv_is_python(r->argv)))
		return false;
	const struct diag_san_record *f = diag_san_first_error(s);
	struct diag_san_wrap w;
	size_t len;
	const char *text = diag_memcheck_text(mc, &len);
	return f && f->has_who && f->path && f->line && text &&
	       diag_san_text_names_kernel(f, text, len, NULL) &&
	       diag_san_index_wrap(f, &w);
}

static void pass_stopped(struct diag_run *r, const struct diag_memcheck *mc,
			 const struct diag_san *s)
{
	enum diag_memcheck_early e = diag_memcheck_early(mc);
	bool imprecise = diag_memcheck_first_imprecise(mc);
	bool has_line = diag_memcheck_first_has_line(mc);
	bool unopened = diag_memcheck_core_path(mc) &&
			!diag_memcheck_core_to_open(mc);
	bool wrap = pass_text_shows_wrap(r, mc, s);
	const char *then = wrap ? "its address shows a wrapped 32-bit index"
				: "the live run took its place";
	r->pass_final = (imprecise && has_line) || wrap ||
			pass_found_no_device_error(mc, s);
	if (e == DIAG_MC_EARLY_SLOW_CORE)
		snprintf(r->memcheck_stopped, sizeof r->memcheck_stopped,
			 "stopped in its coredump after %.1f s (the program's "
			 "device memory); %s",
			 diag_memcheck_seconds(mc) - diag_memcheck_core_began(mc),
			 then);
	else if (e == DIAG_MC_EARLY_BIG_CORE)
		snprintf(r->memcheck_stopped, sizeof r->memcheck_stopped,
			 "stopped as its coredump began (the bad access's "
			 "allocation alone is %.1f GiB, seconds to dump); %s",
			 (double)diag_memcheck_big_alloc(mc) / (1024.0 * 1024 * 1024),
			 then);
	else if (e == DIAG_MC_EARLY_IMPRECISE)
		snprintf(r->memcheck_stopped, sizeof r->memcheck_stopped,
			 "stopped as its coredump began: its first error was "
			 "imprecise (a coredump of it holds no CUDA focus) and "
			 "its text names the line and the kernel");
	else if (imprecise)
		snprintf(r->memcheck_stopped, sizeof r->memcheck_stopped,
			 "its first error was imprecise: its coredump holds no "
			 "CUDA focus and was not opened%s", has_line ? "" :
			 "; it named no source line, so the live run took its "
			 "place");
	else if (unopened)
		snprintf(r->memcheck_stopped, sizeof r->memcheck_stopped,
			 "its first error named no source line: its coredump "
			 "(which has none either) was not opened; the live run "
			 "took its place");
	else
		r->memcheck_stopped[0] = '\0';
}

/* A final pass (nothing runs live after it) whose program failed: its
 * exit is the report's, as a live run's would be ("FAULT (exit)", exit
 * status 1), not "no fault found" with exit 0 (torch_dtype's Python
 * exception under the pass, run 24).  The recording says the status in
 * a note of its own (DIAG_PASS_EXIT_NOTE); one made before that note
 * has compute-sanitizer's "Target application returned an error" (any
 * failing status) after a traceback: Python's status for an uncaught
 * exception is 1. */
#define SAN_APP_FAILED "Target application returned an error"

static void pass_final_exit(struct diag_run *r, int status)
{
	if (!r->pass_final || status <= 0)
		return;
	r->pass_exit = status;
	diag_on_exit(r->d, false, status);
}

/* The status the recording noted, else what its pass text shows. */
static int replayed_pass_status(int noted, const char *text, size_t len)
{
	if (noted > 0)
		return noted;
	bool failed = text && memmem(text, len, SAN_APP_FAILED,
				     sizeof SAN_APP_FAILED - 1);
	bool tb = text && memmem(text, len, PY_TRACEBACK,
				 sizeof PY_TRACEBACK - 1);
	return failed && tb ? 1 : 0;
}

/* A recorded pass that stopped the sanitizer itself (pass_stopped) had
 * no XML: its replay reads the findings from the text, as the pass did,
 * and reports what it reported. */
static void replay_pass_end(struct diag_run *r,
			    const struct diag_replay_notes *n)
{
	const char *note = n->ended_note;
	double secs;
	int noted = n->ended_status;
	if (!n->ended ||
	    sscanf(note, "memcheck pass ended after %lf s", &secs) != 1)
		return;
	int status = replayed_pass_status(noted, r->memcheck_text,
					  r->memcheck_len);
	/* "memcheck pass ended after N s[; it wrote a coredump][; WHY][; no
	 * live run]" */
	const char *why = strchr(note, ';');
	if (why && strncmp(why, "; it wrote a coredump", 21) == 0)
		why = strchr(why + 1, ';');
	/* its time, and that it ran, as the live report said them (issue
	 * 29 item 7) */
	r->memcheck_secs = secs;
	diag_set_flag(r->d, DIAG_F_MEMCHECK_RAN, true);
	if (!why)
		return;
	/* a pass of failing CUDA calls only, or a clean one (run 21:
	 * api_error, race_shared): no reason, and no live run */
	if (strcmp(why, "; " PASS_FINAL_NOTE) == 0) {
		r->pass_final = true;
		r->text_findings = true;
		pass_final_exit(r, status);
		return;
	}
	snprintf(r->memcheck_stopped, sizeof r->memcheck_stopped, "%s", why + 2);
	char *fin = strstr(r->memcheck_stopped, "; " PASS_FINAL_NOTE);
	if (fin) {
		*fin = '\0';
		r->pass_final = true;
	}
	/* Stopped before the XML, the findings are in the text.  A final
	 * pass (an imprecise first error) read the XML; replayed without
	 * it, the text still has each finding's thread and block (before,
	 * the report said "Focus: block (unknown)"). */
	r->text_findings = r->pass_final ||
			   strncmp(r->memcheck_stopped, "stopped ", 8) == 0;
	pass_final_exit(r, status);
}

/* A replay of a memcheck pass's recording: the pass's text from its
 * "sanitizer|" notes (taken from n) goes where the live pass put it
 * (run_memcheck): the program's output first, then the report
 * (load_report). */
static void replay_pass_text(struct diag_run *r, struct diag_replay_notes *n)
{
	if (!n->pass_text)
		return;
	r->memcheck_text = n->pass_text;
	r->memcheck_len = n->pass_len;
	n->pass_text = NULL;
	diag_on_pass_output(r->d, r->memcheck_text, r->memcheck_len);
	replay_pass_end(r, n);
}

/* A replay of a recording that kept the pass's XML ("sanxml" notes): its
 * findings, as the live pass read them, with no --sanitizer-report
 * beside it (issue 29 item 7).  True when it had one. */
static bool replay_pass_xml(struct diag_run *r,
			    const struct diag_replay_notes *n)
{
	if (!n->pass_xml)
		return false;
	struct diag_san *s = diag_san_new();
	bool ok = s && diag_san_feed(s, n->pass_xml, n->xml_len) == DIAG_OK &&
		  diag_san_finish(s) == DIAG_OK;
	if (!ok) {
		diag_san_free(s);
		return false;
	}
	if (r->memcheck_text)
		diag_san_add_text(s, r->memcheck_text, r->memcheck_len);
	return diag_add_sanitizer(r->d, s) == DIAG_OK;
}

/* The rules next to a build tree the binary runs from, else the
 * installed ones.  A failure is an error unless the run may go without
 * hints (the screen shows why instead). */
static int load_rules(struct diag_run *r, const struct diag_run_config *c,
		      const char *exe_dir, char *err, size_t cap)
{
	char path[4096], self[4096];
	if (!exe_dir)
		exe_dir = diag_exe_dir(self, sizeof self);
	const char *rules = diag_rules_default_path(exe_dir, path, sizeof path);
	if (!c->rules_optional)
		return diag_rules_load_file(rules, &r->rules, err, cap);
	if (diag_rules_load_file(rules, &r->rules, r->rules_error,
				 sizeof r->rules_error) < 0)
		r->rules = NULL;
	return 0;
}

/* A replay's child notes: the deaths (taken from n: read by
 * diag_run_read_child_deaths instead of a directory) and the word on the
 * kernel's process events, said as the live run said it. */
static void replayed_child_notes(struct diag_run *r,
				 struct diag_replay_notes *n)
{
	r->replay_deaths = n->child_deaths;
	n->child_deaths = NULL;
	char *why = n->child_events;
	if (why) {
		why[strcspn(why, "\n")] = '\0';
		diag_set_child_events_off(r->d, why);
	}
}

struct diag_run *diag_run_new(const struct diag_run_config *c,
			      const char *exe_dir, char *err, size_t cap)
{
	struct diag_run *r = calloc(1, sizeof *r);
	if (!r || !(r->d = diag_new())) {
		snprintf(err, cap, "out of memory");
		free(r);
		return NULL;
	}
	r->memcheck_secs = -1;
	r->replay_hang_secs = -1;
	r->argv = c->argv;
	/* A replay's notes, read in one scan. */
	struct diag_replay_notes notes = { .hang_seconds = -1 };
	if (c->replay && diag_replay_notes_read(c->replay, &notes, err, cap) < 0) {
		diag_replay_notes_free(&notes);
		diag_run_free(r);
		return NULL;
	}
	r->replay_hang_secs = notes.hang_seconds;
	r->replay_interrupt_sig = notes.interrupt_signal;
	/* A replay's program is the one its recording ran (its "program|"
	 * notes): the hints name the user's command as the live run did. */
	if (c->replay && !(c->argv && c->argv[0])) {
		r->argv = r->recorded_argv = notes.program;
		notes.program = NULL;
	}
	r->dirs = c->dirs;
	r->ndirs = c->ndirs;
	r->policy = c->memcheck;
	r->sanitizer = c->sanitizer;
	r->tool = c->sanitizer_tool;
	r->san_flags = c->san_flags;
	r->nsan_flags = c->nsan_flags;
	r->kernel = c->memcheck_kernel;
	r->debugger = c->debugger;
	r->keep_temp = c->keep_temp;
	r->child_dir = c->child_dir;
	/* the children's deaths the reporter cannot see (a static parent,
	 * the raw wait4): from the kernel, where it lets us listen */
	if (c->child_dir && !c->replay) {
		r->child_ev = child_events_open(r->events_off,
						sizeof r->events_off);
		if (r->child_ev)
			r->events_off[0] = '\0';
	}
	r->can_rerun = c->can_rerun && c->argv && c->argv[0];
	r->labels = c->action_labels;
	/* A replay does not know its program: it asks as the recording did
	 * (a recording of a non-Python program answers the first question
	 * with an error, and that ends it). */
	r->pystack = !c->no_pystack && (!r->argv || !r->argv[0] ||
					diag_argv_is_python(r->argv));
	r->py_probe = !c->no_pystack && !r->pystack;
	if (r->argv)
		diag_set_program(r->d, r->argv, NULL);
	for (size_t i = 0; i < c->ndirs; i++)
		diag_add_source_dir(r->d, c->dirs[i]);
	bool failed = load_rules(r, c, exe_dir, err, cap) < 0;
	if (!failed && c->replay)
		replay_pass_text(r, &notes);
	if (failed || (c->sanitizer_report &&
		       load_report(r, c->sanitizer_report, err, cap) < 0)) {
		diag_replay_notes_free(&notes);
		diag_run_free(r);
		return NULL;
	}
	if (c->replay)
		replayed_child_notes(r, &notes);
	/* The recording's own XML, else the findings in its text (when the
	 * pass stopped before the XML); a report given with the replay is
	 * used instead of either. */
	bool own_xml = c->replay && !c->sanitizer_report &&
		       !c->report_elsewhere && replay_pass_xml(r, &notes);
	diag_replay_notes_free(&notes);
	if (!own_xml && r->text_findings && !c->sanitizer_report &&
	    !c->report_elsewhere) {
		r->text_san = diag_san_from_text(r->memcheck_text,
						 r->memcheck_len);
		if (r->text_san)
			diag_lend_sanitizer(r->d, r->text_san);
	}
	r->view.no_rules = diag_run_rules_error(r);
	return r;
}

void diag_run_free(struct diag_run *r)
{
	if (!r)
		return;
	diag_hints_clear(&r->hints);
	free(r->view_report);
	diag_report_tags_free(&r->view_tags);
	diag_rules_free(r->rules);
	diag_memcheck_free(r->mc);
	diag_free(r->d);
	child_events_free(r->child_ev);
	free(r->argv_line);
	free(r->replay_deaths);
	diag_recorded_program_free(r->recorded_argv);
	diag_san_free(r->text_san); /* lent to r->d: after it */
	free(r->memcheck_text);
	free(r);
}

struct diag *diag_run_diag(struct diag_run *r)
{
	return r->d;
}

const struct diag_rules *diag_run_rules(const struct diag_run *r)
{
	return r->rules;
}

const char *diag_run_rules_error(const struct diag_run *r)
{
	return r->rules ? NULL : r->rules_error;
}

double diag_run_replay_hang_seconds(const struct diag_run *r)
{
	return r ? r->replay_hang_secs : -1;
}

int diag_run_replay_interrupt_signal(const struct diag_run *r)
{
	return r ? r->replay_interrupt_sig : 0;
}

/* ---- hooks ------------------------------------------------------------- */

static void hook_record(void *ctx, const struct mi_record *rec)
{
	diag_on_record(((struct diag_run *)ctx)->d, rec);
}

static void hook_output(void *ctx, const char *buf, size_t len)
{
	diag_on_program_output(((struct diag_run *)ctx)->d, buf, len);
}

static void hook_stderr(void *ctx, const char *line, size_t len)
{
	struct diag *d = ((struct diag_run *)ctx)->d;
	diag_on_debugger_stderr(d, line, len);
	diag_on_debugger_stderr(d, "\n", 1);
}

static void hook_ready(void *ctx, int status, const char *msg)
{
	struct diag_run *r = ctx;
	(void)status;
	(void)msg;
	if (r->times.debugger_ready == 0)
		r->times.debugger_ready = proc_now_s();
}

void diag_run_hooks(struct diag_run *r, struct session_handlers *h)
{
	memset(h, 0, sizeof *h);
	h->ctx = r;
	h->on_record = hook_record;
	h->on_output = hook_output;
	h->on_stderr = hook_stderr;
	h->on_ready = hook_ready;
}

void diag_run_get_times(const struct diag_run *r, struct diag_run_times *t)
{
	*t = r->times;
}

/* ---- the memcheck pass ------------------------------------------------- */

const char *diag_run_temp_dir(const struct diag_run *r)
{
	const char *d = r->mc ? diag_memcheck_dir(r->mc) : NULL;
	return d && *d ? d : NULL;
}

void diag_run_set_final_stop(struct diag_run *r)
{
	r->final_stop = true;
}

void diag_run_set_error(struct diag_run *r, const char *error)
{
	r->error = error;
}

void diag_run_set_cancel(struct diag_run *r, const volatile sig_atomic_t *flag)
{
	r->cancel = flag;
}

void diag_run_set_progress(struct diag_run *r, diag_run_progress_fn fn,
			   void *ctx)
{
	r->progress = fn;
	r->progress_ctx = ctx;
}

/* Milliseconds to the next poll: a short slice (a cancel flag is seen
 * at once), no later than the session wants its next check or than the
 * time left. */
static int poll_slice(int timeout_ms, double t0, struct session *s, int n,
		      bool pass_fd)
{
	int left = 100;
	if (timeout_ms >= 0) {
		int used = (int)((proc_now_s() - t0) * 1000);
		left = timeout_ms - used < left ? timeout_ms - used : left;
	}
	int st = n ? session_timeout_ms(s) : -1;
	if (st >= 0 && st < left)
		left = st;
	/* After the pass's EOF there is no fd: wake every 10 ms to reap. */
	if (!pass_fd && left > 10)
		left = 10;
	return left < 0 ? 0 : left;
}

/* Waits for the pass, serving the debugger session s (may be NULL)
 * meanwhile: a debugger started before the pass answers its start
 * sequence and loads the program's symbols while the pass runs, so only
 * the coredump is left to open when it ends.  Returns 1 when the pass
 * ended, 0 at the timeout or on cancel. */
static int wait_memcheck(struct diag_run *r, struct session *s,
			 int timeout_ms)
{
	double t0 = proc_now_s();
	char what[64];
	snprintf(what, sizeof what, "the %s pass", r->tool ? r->tool : "memcheck");
	for (;;) {
		if (r->cancel && *r->cancel)
			return 0;
		if (r->progress)
			r->progress(r->progress_ctx, what, proc_now_s() - t0);
		int rc = diag_memcheck_handle(r->mc);
		if (rc != 0)
			return rc;
		if (timeout_ms >= 0 && (proc_now_s() - t0) * 1000 >= timeout_ms)
			return 0;
		struct pollfd fds[SESSION_MAX_POLLFDS + 1];
		int n = s && session_alive(s)
			? session_pollfds(s, fds, SESSION_MAX_POLLFDS) : 0;
		int k = diag_memcheck_pollfds(r->mc, fds + n, 1);
		int ms = poll_slice(timeout_ms, t0, s, n, k > 0);
		if (poll(fds, (nfds_t)(n + k), ms) < 0 && errno != EINTR)
			return 0;
		if (n)
			session_handle(s, fds, n);
	}
}

void diag_run_pass_opts(const struct diag_run *r, struct diag_memcheck_opts *mo)
{
	*mo = (struct diag_memcheck_opts){
		.sanitizer = r->sanitizer, .argv = r->argv, .python = -1,
		.keep_temp = r->keep_temp, .tool = r->tool, .kernel = r->kernel,
		.flags = r->san_flags, .nflags = r->nsan_flags,
		.core_wait = diag_memcheck_core_wait(),
	};
}

/* The XML as read into the recording, up to this size (the pass keeps 100
 * findings by default: tens of KB); a bigger one is said, not kept. */
#define XML_NOTE_MAX (16u << 20)

static void note_pass_xml(struct session *dbg, struct diag_memcheck *mc)
{
	size_t n = 0;
	char *xml = diag_read_small_file(diag_memcheck_report_path(mc),
					 XML_NOTE_MAX, &n);
	if (xml && n)
		diag_pass_xml_note(dbg, xml, n);
	else
		session_note(dbg, "the sanitizer's XML report is not kept in "
			     "this recording (over %u MB, or unreadable)",
			     XML_NOTE_MAX >> 20);
	free(xml);
}

/* The pass gave no usable report: said in the report and by its own
 * hint (san-failed), never as a clean pass. */
__attribute__((format(printf, 2, 3)))
static void pass_failed(struct diag_run *r, const char *fmt, ...)
{
	char why[1200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	/* the sanitizer layer's own prefix says nothing to the user here */
	const char *w = strncmp(why, "memcheck: ", 10) == 0 ? why + 10 : why;
	diag_set_pass_failed(r->d, w);
}

static int run_memcheck(struct diag_run *r, struct session *dbg,
			int timeout_ms)
{
	struct diag_memcheck_opts mo;
	diag_run_pass_opts(r, &mo);
	char err[1024];
	r->times.pass_start = proc_now_s();
	r->mc = diag_memcheck_start(&mo, NULL, NULL, err, sizeof err);
	diag_set_flag(r->d, DIAG_F_MEMCHECK_RAN, r->mc != NULL);
	if (!r->mc) {
		if (diag_memcheck_missing(err))
			diag_set_flag(r->d, DIAG_F_SANITIZER_MISSING, true);
		else
			pass_failed(r, "it could not start: %s", err);
		diag_on_debugger_stderr(r->d, err, strlen(err));
		return 0;
	}
	int ended = wait_memcheck(r, dbg, timeout_ms);
	if (r->progress)
		r->progress(r->progress_ctx, NULL, -1);
	if (ended == 0) {
		diag_memcheck_cancel(r->mc);
		if (diag_memcheck_wait(r->mc, 2000) == 0) {
			diag_memcheck_cancel(r->mc); /* now SIGKILL */
			diag_memcheck_wait(r->mc, 2000);
		}
	}
	r->times.pass_end = proc_now_s();
	char rerr[1024];
	struct diag_san *s = diag_memcheck_report(r->mc, rerr, sizeof rerr);
	pass_stopped(r, r->mc, s);
	int status = diag_memcheck_done(r->mc) &&
		     !diag_memcheck_signalled(r->mc)
		? diag_memcheck_status(r->mc) : 0;
	if (dbg)
		session_note(dbg, "memcheck pass ended after %.3f s%s%s%s%s",
			     diag_memcheck_seconds(r->mc),
			     diag_memcheck_core_path(r->mc)
				     ? "; it wrote a coredump" : "",
			     r->memcheck_stopped[0] ? "; " : "",
			     r->memcheck_stopped,
			     r->pass_final ? "; " PASS_FINAL_NOTE : "");
	if (dbg && r->pass_final && status > 0)
		session_note(dbg, DIAG_PASS_EXIT_NOTE "%d", status);
	pass_final_exit(r, status);
	r->memcheck_secs = diag_memcheck_seconds(r->mc);
	size_t len;
	const char *text = diag_memcheck_text(r->mc, &len);
	r->memcheck_text = diag_strndup(text, len);
	r->memcheck_len = r->memcheck_text ? len : 0;
	/* Kept in the recording: its replay diagnoses from the same text,
	 * and from the same XML when the pass read one. */
	if (dbg && text && len)
		diag_pass_text_note(dbg, text, len);
	if (dbg && s && !diag_memcheck_early(r->mc))
		note_pass_xml(dbg, r->mc);
	/* The program's own output is in there too: a device assert's text
	 * (the expression, file:line) is the only source location a PyTorch
	 * kernel has, and a coredump does not hold it. */
	if (text && len)
		diag_on_pass_output(r->d, text, len);
	if (ended == 0 && !(r->cancel && *r->cancel))
		pass_failed(r, "cut short after %.1f s (--timeout): its "
			    "findings are incomplete", r->memcheck_secs);
	if (s)
		return diag_add_sanitizer(r->d, s);
	if (ended != 0)
		pass_failed(r, "%s", rerr);
	diag_on_debugger_stderr(r->d, rerr, strlen(rerr));
	return 0;
}

bool diag_run_can_rerun(const struct diag_run *r)
{
	return r->can_rerun;
}

bool diag_run_pass_final(const struct diag_run *r)
{
	return r->pass_final;
}

bool diag_run_pass_first(const struct diag_run *r)
{
	return r->policy == DIAG_MEMCHECK_ALWAYS && r->can_rerun;
}

int diag_run_before(struct diag_run *r, struct dbg_ctl *c, int timeout_ms)
{
	if (diag_run_pass_first(r))
		return run_memcheck(r, c ? ctl_session(c) : NULL, timeout_ms);
	return 0;
}

/* ---- values and the coredump -------------------------------------------- */

struct pending {
	struct diag_run *r;
	struct dbg_ctl *c;
	int left;
};

static void on_value(void *ctx, const char *expr, const char *value,
		     bool error)
{
	struct pending *p = ctx;
	if (!error && value)
		diag_set_value(p->r->d, expr, value);
	p->left--;
}

static bool answered(void *ctx)
{
	struct pending *p = ctx;
	return p->left <= 0 || ctl_model(p->c)->state != MODEL_STOPPED;
}

static bool settled(void *ctx)
{
	struct dbg_ctl *c = ctx;
	return !session_alive(ctl_session(c)) ||
	       (session_ready(ctl_session(c)) && !ctl_busy(c) &&
		ctl_refreshed(c));
}

static bool culprit_settled(void *ctx)
{
	struct dbg_ctl *c = ctx;
	return !session_alive(ctl_session(c)) ||
	       (ctl_model(c)->culprit.state != MODEL_CULPRIT_BUSY &&
		!ctl_busy(c));
}

/* The stop frame's source line, read through the run's directories
 * (malloc'd, NULL when unreadable). */
static char *stop_line_text(struct diag_run *r, const struct dbg_model *m)
{
	/* (a coredump has no stop record: its stack's frame 0) */
	const struct dec_frame *fr =
		m->has_stop && m->stop.has_frame ? &m->stop.frame
		: m->frames.n && m->frames.frames[0].level == 0
			? &m->frames.frames[0] : NULL;
	if (!fr)
		return NULL;
	return diag_read_source_line(r->d, fr->fullname ? fr->fullname
							: fr->file,
				     fr->line > 0 ? (unsigned)fr->line : 0);
}

/* The line's one access whatever the instruction did: a store's and a
 * load's reading agree, or only one of them is an access ("out[key] +=
 * 1", "out[i] = 0"); false for "y[i] = x[j]", where only the
 * instruction can tell. */
static bool line_one_access(const char *text, char *out, size_t cap)
{
	char st[160], ld[160];
	bool s = diag_culprit_lvalue(text, true, st, sizeof st);
	bool l = diag_culprit_lvalue(text, false, ld, sizeof ld);
	if (s && l && strcmp(st, ld) != 0)
		return false;
	if (!s && !l)
		return false;
	snprintf(out, cap, "%s", s ? st : ld);
	return strlen(s ? st : ld) < cap;
}

int diag_run_culprit_search(struct diag_run *r, struct dbg_ctl *c)
{
	if (!r || !c)
		return -1;
	char *text = stop_line_text(r, ctl_model(c));
	char lv[160];
	bool one = line_one_access(text, lv, sizeof lv);
	free(text);
	return ctl_culprit_search(c, one ? lv : NULL);
}

int diag_run_culprit_by_lvalue(struct diag_run *r, struct dbg_ctl *c)
{
	if (!r || !c)
		return -1;
	const struct dbg_model *m = ctl_model(c);
	const struct model_culprit *cu = &m->culprit;
	if (cu->state != MODEL_CULPRIT_FAILED || !cu->addr_gone)
		return -1;
	char *text = stop_line_text(r, m);
	char lv[160];
	/* SASS stores: ST, STG, STL... (a load's mnemonic starts LD) */
	bool store = cu->inst && cu->inst[0] == 'S' && cu->inst[1] == 'T';
	bool ok = diag_culprit_lvalue(text, store, lv, sizeof lv);
	free(text);
	return ok ? ctl_culprit_search_lvalue(c, lv) : -1;
}

enum diag_pybad_kind diag_run_value_kind(struct diag_run *r)
{
	if (!r)
		return DIAG_PYBAD_NONE;
	return diag_pybad_kind_named(diag_hints_value(r->rules,
						      diag_analyze(r->d)));
}

static bool freed_settled(void *ctx)
{
	struct dbg_ctl *c = ctx;
	return !session_alive(ctl_session(c)) ||
	       (ctl_model(c)->freed.state != MODEL_FREED_BUSY &&
		!ctl_busy(c));
}

int diag_run_freed_lookup(struct diag_run *r, struct dbg_ctl *c)
{
	if (!r || !c)
		return -1;
	const struct dbg_model *m = ctl_model(c);
	if (!m->allocs.n || !m->has_stop)
		return -1;
	/* every lane's address of the faulting access, the culprit's first
	 * (a graph's kernel on a freed buffer: all lanes are in it) */
	const struct model_culprit *cu = &m->culprit;
	int lane = model_culprit_lane(cu);
	uint64_t addrs[64];
	size_t n = 0;
	/* (a failed search's lanes hold no addresses that count) */
	for (int pass = 0; pass < 2 && cu->state == MODEL_CULPRIT_DONE; pass++)
		for (size_t i = 0; i < cu->n && n < 64; i++) {
			const struct model_lane_addr *l = &cu->lanes[i];
			if (l->lane >= 0 && l->has_addr &&
			    (l->lane == lane) == (pass == 0))
				addrs[n++] = l->addr;
		}
	bool siginfo = model_host_address_stop(m);
	if (n == 0 && !siginfo)
		return -1;
	return ctl_freed_lookup(c, addrs, n, siginfo) == 0 ? 0 : -1;
}

/* ---- a CPU crash's address (ctl_host_access) ---------------------------- */

enum { ACCESS_MAX = 8 };

static bool access_settled(void *ctx)
{
	struct dbg_ctl *c = ctx;
	return !session_alive(ctl_session(c)) ||
	       ctl_model(c)->access.state != MODEL_ACCESS_BUSY;
}

int diag_run_host_access(struct diag_run *r, struct dbg_ctl *c)
{
	if (!r || !c)
		return -1;
	const struct dbg_model *m = ctl_model(c);
	if (!model_host_address_stop(m))
		return -1;
	/* the line is frame 0's: with another frame selected (a crash in
	 * libc's memcpy, the user's frame shown) the address alone */
	struct diag_deref derefs[ACCESS_MAX];
	size_t n = 0;
	if (m->selected_frame <= 0) {
		char *text = stop_line_text(r, m);
		n = diag_line_derefs(text, derefs, ACCESS_MAX);
		free(text);
	}
	struct model_deref asks[ACCESS_MAX];
	for (size_t i = 0; i < n; i++) {
		/* (a literal subscript says its value already) */
		const char *x = derefs[i].index;
		bool literal = x[strspn(x, "0123456789 ")] == '\0';
		asks[i] = (struct model_deref){ .expr = derefs[i].expr,
						.base = derefs[i].base,
						.index = literal ? NULL : derefs[i].index };
	}
	return ctl_host_access(c, asks, n) == 0 ? 0 : -1;
}

/* Batch and DAP wait for the answers (the screen takes them as they
 * come: tui/glue.c). */
static void read_host_access(struct diag_run *r, struct dbg_ctl *c,
			     int timeout_ms)
{
	if (diag_run_host_access(r, c) != 0)
		return;
	ctl_run_until(c, access_settled, c, timeout_ms);
	diag_feed_model(r->d, ctl_model(c));
}

/* The expressions the matching rules want, evaluated in the kernel's own
 * frame (frame 1 below __assert_fail). */
static void read_values(struct diag_run *r, struct dbg_ctl *c, int timeout_ms)
{
	const char *want[32];
	size_t n = diag_wanted(r->d, r->rules, want, 32);
	if (!n || ctl_model(c)->state != MODEL_STOPPED)
		return;
	int frame = diag_eval_frame(r->d);
	/* The stop's refresh selected the kernel's frame already when it
	 * is the innermost one with source (a device assert): its
	 * arguments are in the model, fed before; no second round. */
	if (frame > 0 && frame != ctl_model(c)->selected_frame &&
	    ctl_select_frame(c, frame) > 0) {
		ctl_run_until(c, settled, c, timeout_ms);
		diag_feed_model(r->d, ctl_model(c));
	}
	/* Selecting the frame listed its arguments.  Locals of an outer
	 * device frame are not evaluated: cuda-gdb 13 reads them from
	 * registers the callee reused (see diag/model_feed.c). */
	if (frame > 0)
		return;
	n = diag_wanted(r->d, r->rules, want, 32);
	char *copy[32];
	for (size_t i = 0; i < n; i++)
		copy[i] = strdup(want[i]);
	struct pending p = {r, c, 0};
	for (size_t i = 0; i < n; i++)
		if (copy[i] && ctl_evaluate(c, copy[i], on_value, &p) > 0)
			p.left++;
	if (p.left > 0)
		ctl_run_until(c, answered, &p, timeout_ms);
	for (size_t i = 0; i < n; i++)
		free(copy[i]);
}

static void on_host_stack(void *ctx, struct dec_stack *st, const char *err)
{
	struct pending *p = ctx;
	(void)err;
	if (st)
		diag_feed_stack(p->r->d, st);
	p->left--;
}

/* The host thread that launched the kernel: for PyTorch its stack names
 * the ATen operator (at::native::..._template). */
static void read_host_stack(struct diag_run *r, struct dbg_ctl *c,
			    int timeout_ms)
{
	struct pending p = {r, c, 0};
	if (ctl_model(c)->state != MODEL_STOPPED ||
	    ctl_host_stack(c, NULL, on_host_stack, &p) <= 0)
		return;
	p.left = 1;
	ctl_run_until(c, answered, &p, timeout_ms);
	ctl_run_until(c, settled, c, timeout_ms);
}

static void open_core(struct diag_run *r, const char *core, int timeout_ms)
{
	struct session_config sc = {
		.backend = SESSION_CORE, .debugger = r->debugger,
		.argv = r->argv, .core = core, .dirs = r->dirs,
		.ndirs = r->ndirs,
	};
	struct dbg_ctl_config cfg = {.session = &sc};
	diag_run_hooks(r, &cfg.diag_hooks);
	char err[512];
	struct dbg_ctl *c = ctl_new(&cfg, err, sizeof err, NULL);
	if (!c) {
		diag_on_debugger_stderr(r->d, err, strlen(err));
		return;
	}
	ctl_run_until(c, settled, c, timeout_ms);
	diag_feed_model(r->d, ctl_model(c));
	ctl_free(c);
}

const char *diag_run_core(const struct diag_run *r)
{
	return r->mc ? diag_memcheck_core_path(r->mc) : NULL;
}

const char *diag_run_core_to_open(const struct diag_run *r)
{
	return r->mc ? diag_memcheck_core_to_open(r->mc) : NULL;
}

/* The live Python stack at any live stop (a device fault, a signal, a
 * breakpoint), and the bad value an index assert names. */
static void read_pystack(struct diag_run *r, struct dbg_ctl *c, int timeout_ms)
{
	const struct dbg_model *m = ctl_model(c);
	if (m->state != MODEL_STOPPED)
		return;
	if (!r->pystack) {
		/* not started as Python (./train.sh, bash, make, env): the
		 * process may be Python all the same; its memory says */
		struct diag_pystack_result res = { .memory_only = true };
		if (r->py_probe &&
		    diag_pystack_take(c, timeout_ms < 5000 ? timeout_ms : 5000,
				      NULL, &res) == 1)
			diag_pystack_result_give(r->d, &res);
		diag_pystack_result_free(&res);
		return;
	}
	if (m->is_core) {
		/* a job's faulting process printed its stack when it died */
		const char *noted = session_noted_pystack(ctl_session(c));
		struct diag_pystack ps;
		if (noted && diag_pystack_parse(noted, strlen(noted), &ps) == 0) {
			diag_set_pystack(r->d, &ps, NULL);
			return;
		}
		/* else the core's memory has it (diag/pymem.c) */
		struct diag_pystack_result res = { .no_wait = false };
		diag_pystack_take(c, timeout_ms < 5000 ? timeout_ms : 5000, NULL,
				  &res);
		if (res.have)
			diag_pystack_result_give(r->d, &res);
		else if (strstr(res.why, "reading its memory"))
			diag_set_pystack(r->d, NULL, res.why);
		else
			diag_set_pystack(r->d, NULL, "a coredump has no running "
					 "interpreter to ask (the memcheck pass's "
					 "report names the script line)");
		diag_pystack_result_free(&res);
		return;
	}
	const struct diag_fault *f = diag_analyze(r->d);
	/* The assertion's text, and the kernel's name (a multinomial kernel
	 * is known by its name) */
	char *what = NULL;
	if (asprintf(&what, "%s %s", f->n_asserts && f->asserts[0]->expr
		     ? f->asserts[0]->expr : "", f->kernel ? f->kernel : "") < 0)
		what = NULL;
	diag_pystack_fetch(r->d, c, timeout_ms < 5000 ? timeout_ms : 5000,
			   what, diag_run_value_kind(r), r->final_stop);
	free(what);
}

bool diag_run_auto_pass(struct diag_run *r, const struct session_caps *caps)
{
	/* A CPU program under plain gdb has nothing for compute-sanitizer. */
	bool cuda = !caps || !caps->probed || caps->is_cuda_gdb;
	return r->policy == DIAG_MEMCHECK_AUTO && r->can_rerun && cuda &&
	       diag_memcheck_wanted(DIAG_MEMCHECK_AUTO, diag_analyze(r->d));
}

/* A replay's deaths: the lines its "childdeath" notes hold. */
static void replayed_child_deaths(struct diag_run *r)
{
	for (char *p = r->replay_deaths; p && *p;) {
		char *nl = strchr(p, '\n'), *end;
		if (nl)
			*nl = '\0';
		long pid = strtol(p, &end, 10);
		long sig = end != p ? strtol(end, &end, 10) : 0;
		if (pid > 0 && sig > 0 && sig < 128 && *end == ' ')
			diag_add_child_death(r->d, pid, (int)sig, end + 1);
		if (nl)
			*nl = '\n';
		p = nl ? nl + 1 : p + strlen(p);
	}
}

/* Notes the death in the session's recording, once per run. */
static void note_child_death(struct diag_run *r, struct session *s,
			     const struct diag_end_file *e)
{
	for (size_t i = 0; i < r->n_noted_deaths; i++)
		if (r->noted_deaths[i] == e->pid)
			return;
	if (r->n_noted_deaths == sizeof r->noted_deaths /
				 sizeof r->noted_deaths[0])
		return;
	r->noted_deaths[r->n_noted_deaths++] = e->pid;
	diag_child_death_note(s, e->pid, e->code, e->cmd);
}

struct heard {
	struct diag_run *r;
	struct session *s;
};

/* A descendant the kernel saw die of a signal: as the reporter's file
 * would have said it (its own file, read first, wins). */
static void heard_death(void *ctx, long pid, int sig, const char *cmd)
{
	struct heard *h = ctx;
	struct diag_end_file e = { .pid = pid, .code = sig, .death = true };
	snprintf(e.cmd, sizeof e.cmd, "%s", cmd);
	diag_add_child_death(h->r->d, pid, sig, cmd);
	note_child_death(h->r, h->s, &e);
}

static const char *program_line(struct diag_run *r)
{
	if (!r->argv_line && r->argv)
		r->argv_line = diag_join_argv(r->argv);
	return r->argv_line;
}

void diag_run_read_child_deaths(struct diag_run *r, struct session *s)
{
	if (r->replay_deaths) {
		replayed_child_deaths(r);
		return;
	}
	DIR *dir = r->child_dir ? opendir(r->child_dir) : NULL;
	if (!dir)
		return;
	/* (said whether or not the program forks: the diagnosis asks only
	 * where gdb saw a fork; noted once, for a replay to say the same) */
	if (r->events_off[0] && !r->events_off_noted) {
		diag_set_child_events_off(r->d, r->events_off);
		diag_child_events_note(s, r->events_off);
		r->events_off_noted = true;
	}
	long self = s ? (long)session_program_pid(s) : 0;
	struct dirent *de;
	struct diag_end_file e;
	while ((de = readdir(dir)))
		if (diag_end_file_read(r->child_dir, de->d_name, &e) == 0 &&
		    e.death && e.pid != self) {
			diag_add_child_death(r->d, e.pid, e.code, e.cmd);
			note_child_death(r, s, &e);
		}
	closedir(dir);
	struct heard h = { .r = r, .s = s };
	/* (the announced pid: a program that ended before the session could
	 * check it has none of its own, and its children died first) */
	child_events_read(r->child_ev, s ? session_announced_pid(s) : 0,
			  s ? session_debugger_pid(s) : 0, program_line(r),
			  heard_death, &h);
}

const char *diag_after_step_name(enum diag_after_step s)
{
	static const char *const names[DIAG_AFTER_COUNT] = {
		"late_symbols", "lanes", "freed", "host_stack", "values",
		"pystack", "children",
	};
	return s < DIAG_AFTER_COUNT ? names[s] : "?";
}

/* Adds the time since *t0 to the step's and restarts the clock. */
static void step_done(struct diag_run *r, enum diag_after_step s, double *t0)
{
	double now = proc_now_s();
	r->times.after[s] += now - *t0;
	*t0 = now;
}

int diag_run_after(struct diag_run *r, struct dbg_ctl *c, int timeout_ms)
{
	if (timeout_ms < 0)
		timeout_ms = 600000;
	double t0 = proc_now_s();
	/* A lazy session reads torch's CUDA library now: without it the host
	 * stack stops short of the ATen operator's frames (8 s on the H200;
	 * the screen reads it after the Python line instead). */
	if (c && ctl_read_late_symbols(c) > 0)
		ctl_run_until(c, settled, c, timeout_ms < 60000 ? timeout_ms : 60000);
	if (c)
		diag_feed_model(r->d, ctl_model(c));
	step_done(r, DIAG_AFTER_LATE_SYMBOLS, &t0);
	const struct diag_fault *f = diag_analyze(r->d);
	if (c && f->flags[DIAG_F_DEVICE_STOP]) {
		int t = timeout_ms < 10000 ? timeout_ms : 10000;
		/* The lanes table says whether the focused lane is the one
		 * that faulted (warp-level exceptions). */
		if (f->flags[DIAG_F_WARP_LEVEL]) {
			ctl_want(c, MODEL_WANT_LANES);
			ctl_run_until(c, settled, c, t);
			/* which lane made the access: from every lane's
			 * registers (mi/ctl_culprit.c) */
			if (diag_run_culprit_search(r, c) == 0)
				ctl_run_until(c, culprit_settled, c, t);
			if (diag_run_culprit_by_lvalue(r, c) == 0)
				ctl_run_until(c, culprit_settled, c, t);
			/* its values, not lane 0's, are the report's */
			int lane = model_culprit_lane(&ctl_model(c)->culprit);
			if (lane >= 0 && lane != ctl_model(c)->focus.lane &&
			    ctl_focus_lane(c, lane) > 0)
				ctl_run_until(c, settled, c, t);
			diag_feed_model(r->d, ctl_model(c));
			step_done(r, DIAG_AFTER_LANES, &t0);
		}
		/* a bad address in freed memory: the free that made it so */
		if (diag_run_freed_lookup(r, c) == 0) {
			ctl_run_until(c, freed_settled, c, t);
			diag_feed_model(r->d, ctl_model(c));
		}
		step_done(r, DIAG_AFTER_FREED, &t0);
		if (!f->flags[DIAG_F_COREDUMP])
			read_host_stack(r, c, t);
		step_done(r, DIAG_AFTER_HOST_STACK, &t0);
		read_values(r, c, t);
		step_done(r, DIAG_AFTER_VALUES, &t0);
	}
	if (c && !f->flags[DIAG_F_DEVICE_STOP])
		read_host_access(r, c, timeout_ms < 10000 ? timeout_ms : 10000);
	if (c && !f->flags[DIAG_F_DEVICE_STOP] &&
	    diag_run_freed_lookup(r, c) == 0) {
		ctl_run_until(c, freed_settled, c,
			      timeout_ms < 10000 ? timeout_ms : 10000);
		diag_feed_model(r->d, ctl_model(c));
		step_done(r, DIAG_AFTER_FREED, &t0);
	}
	if (c)
		read_pystack(r, c, timeout_ms < 10000 ? timeout_ms : 10000);
	step_done(r, DIAG_AFTER_PYSTACK, &t0);
	diag_run_read_child_deaths(r, c ? ctl_session(c) : NULL);
	step_done(r, DIAG_AFTER_CHILDREN, &t0);
	if (diag_run_auto_pass(r, c ? session_caps(ctl_session(c)) : NULL)) {
		int rc = run_memcheck(r, NULL, timeout_ms);
		if (rc < 0)
			return rc;
		const char *core = diag_run_core_to_open(r);
		if (core)
			open_core(r, core, timeout_ms < 60000 ? timeout_ms : 60000);
	}
	return 0;
}

/* ---- report ------------------------------------------------------------ */

static const struct diag_report_in *report_in(struct diag_run *r,
					      struct diag_report_in *in,
					      const char *mode,
					      const char *stop_reason)
{
	const struct diag_fault *f = diag_analyze(r->d);
	diag_hints_match(r->rules, f, &r->hints);
	*in = (struct diag_report_in){
		.fault = f, .hints = &r->hints, .mode = mode,
		.stop_reason = stop_reason, .memcheck_text = r->memcheck_text,
		.memcheck_text_len = r->memcheck_len,
		.memcheck_seconds = r->memcheck_secs,
		.memcheck_stopped = r->memcheck_stopped[0] ? r->memcheck_stopped
							   : NULL,
		.action_labels = r->labels, .error = r->error,
	};
	return in;
}

char *diag_run_report(struct diag_run *r, bool json, const char *mode,
		      const char *stop_reason)
{
	struct diag_report_in in;
	report_in(r, &in, mode, stop_reason);
	return json ? diag_report_json(&in) : diag_report_text(&in);
}

int diag_run_exit_code(struct diag_run *r)
{
	struct diag_report_in in;
	report_in(r, &in, NULL, NULL);
	return diag_report_exit_code(&in);
}

const struct diag_hints *diag_run_hints(struct diag_run *r)
{
	diag_hints_match(r->rules, diag_analyze(r->d), &r->hints);
	return &r->hints;
}

const struct diag_fault *diag_run_fault(struct diag_run *r,
					const struct dbg_model *m)
{
	diag_feed_model(r->d, m);
	return diag_analyze(r->d);
}

/* ---- the screen's step ---------------------------------------------------- */

const struct diag_run_view *diag_run_view(const struct diag_run *r)
{
	return &r->view;
}

static void view_clear(struct diag_run *r)
{
	unsigned long gen = r->view.generation;
	diag_hints_clear(&r->hints);
	free(r->view_report);
	r->view_report = NULL;
	diag_report_tags_free(&r->view_tags);
	r->view = (struct diag_run_view){
		.generation = gen + 1,
		.no_rules = diag_run_rules_error(r),
	};
}

/* Whether the account says anything yet: a stop, the end, or what a
 * sanitizer said (a report, the pass ran or could not). */
static bool has_account(const struct dbg_model *m, const struct diag_fault *f)
{
	return m->state == MODEL_STOPPED || m->state == MODEL_EXITED ||
	       f->flags[DIAG_F_SANITIZER] || f->flags[DIAG_F_MEMCHECK_RAN] ||
	       f->flags[DIAG_F_SANITIZER_MISSING];
}

/* What a later session's account starts from (diag_run_restart), as
 * diag_run_new began the first one (there between the loads these come
 * from): the program and the source directories (hints that name
 * {program}, {command} or {script} read the same as batch's), and a
 * replay's pass: its text first (a device assert's file:line is only
 * there) and the findings read from it. */
static void account_start(struct diag_run *r, struct diag *d)
{
	if (r->argv)
		diag_set_program(d, r->argv, NULL);
	for (size_t i = 0; i < r->ndirs; i++)
		diag_add_source_dir(d, r->dirs[i]);
	if (r->memcheck_text && r->memcheck_len)
		diag_on_pass_output(d, r->memcheck_text, r->memcheck_len);
	if (r->text_san)
		diag_lend_sanitizer(d, r->text_san);
}

const struct diag_assert_entry *diag_run_first_assert(const struct diag_run *r)
{
	if (!r || !r->d || diag_asserts_count(r->d->asserts) == 0)
		return NULL;
	return diag_asserts_get(r->d->asserts, 0);
}

int diag_run_restart(struct diag_run *r)
{
	struct diag *d = diag_new();
	if (!d)
		return DIAG_ENOMEM;
	view_clear(r); /* (the view points into the account it drops) */
	diag_free(r->d);
	r->d = d;
	r->pass_exit_fed = false;
	account_start(r, d);
	return DIAG_OK;
}

int diag_run_update(struct diag_run *r, const struct dbg_model *m,
		    diag_run_feed_fn feed, void *ctx)
{
	view_clear(r);
	if (!m || !r->rules)
		return r->rules ? DIAG_OK : DIAG_ENOTFOUND;
	struct diag *d = r->d;
	diag_feed_model(d, m);
	/* a final pass's failing exit, once: the program's own end is
	 * the model's */
	if (r->pass_exit && m->state != MODEL_EXITED && !r->pass_exit_fed) {
		diag_on_exit(d, false, r->pass_exit);
		r->pass_exit_fed = true;
	}
	if (feed)
		feed(ctx, d);
	const struct diag_fault *f = diag_analyze(d);
	if (!f)
		return DIAG_ENOMEM;
	diag_hints_match(r->rules, f, &r->hints);
	struct diag_report_in in = {
		.fault = f, .hints = &r->hints, .mode = m->is_core ? "core" : "live",
		.stop_reason = model_describe_stop(m, r->stop_reason,
						   sizeof r->stop_reason),
		.memcheck_text = r->memcheck_text,
		.memcheck_text_len = r->memcheck_len,
		.memcheck_seconds = r->memcheck_secs, .action_labels = r->labels,
		.memcheck_stopped = r->memcheck_stopped[0] ? r->memcheck_stopped
							   : NULL,
		.tags = &r->view_tags,
	};
	r->view_report = diag_report_text(&in);
	r->view.report_tags = r->view_tags.v;
	r->view.n_report_tags = r->view_tags.n;
	r->view.fault = f;
	r->view.hints = &r->hints;
	r->view.report = r->view_report;
	r->view.stop_reason = in.stop_reason;
	/* a replay of a pass whose findings were the report (no live run):
	 * they are the account, whatever the model shows */
	r->view.account = has_account(m, f) || r->pass_final;
	return DIAG_OK;
}
