/* The controller under the DAP server: waiting for answers, turning model
 * changes into DAP events (output, stopped, exited, terminated), and the
 * reference tables the editor holds between stops. */
#include "cudbg/diagrun.h"
#include "cudbg/hang.h"
#include "dap/dap_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool settled_pred(void *ctx)
{
	struct dap *d = ctx;
	const struct dbg_model *m = ctl_model(d->ctl);
	if (!session_alive(ctl_session(d->ctl)))
		return true;
	if (m->state == MODEL_RUNNING || m->state == MODEL_STARTING)
		return !ctl_busy(d->ctl) && m->state == MODEL_RUNNING;
	return !ctl_busy(d->ctl) && ctl_refreshed(d->ctl);
}

bool dap_settle(struct dap *d, int timeout_ms)
{
	if (!d->ctl)
		return false;
	int rc = ctl_run_until(d->ctl, settled_pred, d, timeout_ms);
	return rc == 1 && session_alive(ctl_session(d->ctl));
}

/* ---- references ---- */

void dap_refs_clear(struct dap *d)
{
	for (size_t i = 0; i < d->nrefs; i++)
		free(d->refs[i].expr);
	d->nrefs = 0;
}

/* References are 1-based indexes into the table (0 means "none" in
 * DAP); -1 when out of memory. */
int dap_ref_add(struct dap *d, enum dap_ref_kind kind, int level,
		const char *expr, long count)
{
	if (d->nrefs == d->refs_cap) {
		size_t nc = d->refs_cap ? d->refs_cap * 2 : 64;
		struct dap_ref *nr = realloc(d->refs, nc * sizeof *nr);
		if (!nr)
			return -1;
		d->refs = nr;
		d->refs_cap = nc;
	}
	char *e = expr ? strdup(expr) : NULL;
	if (expr && !e)
		return -1;
	d->refs[d->nrefs] = (struct dap_ref){ kind, level, e, count };
	return (int)++d->nrefs;
}

const struct dap_ref *dap_ref_get(const struct dap *d, long long id)
{
	if (id < 1 || (size_t)id > d->nrefs)
		return NULL;
	return &d->refs[id - 1];
}

/* ---- events ---- */

/* New program output since the last call, as output events.  The ring
 * keeps the newest bytes; what it dropped before we sent it is said. */
static void send_program_output(struct dap *d, const struct dbg_model *m)
{
	if (m->output.total == d->out_sent)
		return;
	uint64_t fresh = m->output.total - d->out_sent;
	/* only the new bytes: the ring copies the newest when cap is short */
	size_t want = fresh < m->output.len ? (size_t)fresh : m->output.len;
	char *buf = malloc(want ? want : 1);
	if (!buf)
		return;
	size_t n = model_ring_copy(&m->output, buf, want);
	if (fresh > n) {
		char note[96];
		int l = snprintf(note, sizeof note, "[%llu bytes of program "
				 "output dropped]\n",
				 (unsigned long long)(fresh - n));
		dap_output(d, "console", note, (size_t)l);
	}
	/* the program's terminal turns \n into \r\n: editors want \n */
	char *o = buf;
	for (size_t i = 0; i < n; i++)
		if (!(buf[i] == '\r' && i + 1 < n && buf[i + 1] == '\n'))
			*o++ = buf[i];
	dap_output(d, "stdout", buf, (size_t)(o - buf));
	d->out_sent = m->output.total;
	free(buf);
}

static const char *stop_reason(const struct dbg_model *m, bool *exception)
{
	*exception = false;
	const struct dec_stop *s = &m->stop;
	const char *r = s->reason_text ? s->reason_text : "";
	/* (a pause in a kernel stops the device with SIGINT: no exception) */
	if (s->focus.valid && s->signal_name &&
	    (strncmp(s->signal_name, "CUDA_EXCEPTION", 14) == 0 ||
	     (strcmp(s->signal_name, "SIGTRAP") != 0 &&
	      strcmp(s->signal_name, "SIGINT") != 0))) {
		*exception = strcmp(r, "signal-received") == 0 ||
			     s->exception_name != NULL;
	}
	if (m->had_device_exception && model_continue_loses_error(m))
		*exception = true;
	if (*exception)
		return "exception";
	if (strstr(r, "breakpoint"))
		return "breakpoint";
	if (strstr(r, "end-stepping") || strstr(r, "function-finished"))
		return "step";
	if (strcmp(r, "signal-received") == 0) {
		const char *sig = s->signal_name ? s->signal_name : "";
		if (strcmp(sig, "SIGINT") == 0 || strcmp(sig, "0") == 0)
			return "pause";
		*exception = true;
		return "exception";
	}
	*exception = m->is_core; /* a coredump is the fault's state */
	return m->is_core ? "exception" : "pause";
}

static int stop_thread(const struct dbg_model *m)
{
	if (m->focus.valid && m->focus.block.valid)
		return DAP_DEVICE_TID;
	const char *t = m->stop.thread_id ? m->stop.thread_id : m->thread_id;
	int id = t ? atoi(t) : 0;
	return id > 0 && id < DAP_DEVICE_TID ? id : 1;
}

/* The stop at main that stands for stopOnEntry: delete it, say "entry". */
static bool entry_stop(struct dap *d, const struct dbg_model *m)
{
	if (d->entry_bkpt < 0 || !m->has_stop || m->stop.bkptno != d->entry_bkpt)
		return false;
	ctl_break_delete(d->ctl, d->entry_bkpt);
	d->entry_bkpt = -1;
	return true;
}

/* The stop of a pause: where every thread of the running program was,
 * as the screen's C-c and batch's --timeout say it (diag/hang.c: the
 * kernel's threads per line, spin-waits, barriers, or the host's line),
 * with its hints, as an output event; its headline is the stopped
 * event's description. */
static void pause_summary(struct dap *d, const struct dbg_model *m,
			  char *summary, size_t cap)
{
	if (ctl_hang_tables(d->ctl) > 0)
		dap_settle(d, d->timeout_ms);
	struct diag *dg = diag_run_diag(d->dr);
	/* a replay has no clock: its recorded interrupt's time */
	double rec = diag_run_replay_hang_seconds(d->dr);
	double secs = rec >= 0 ? rec : proc_now_s() - d->ran_since;
	if (diag_hang_from_model(dg, m, secs, rec >= 0, 0) != 0) {
		model_describe_stop(m, summary, cap);
		return;
	}
	diag_hang_headline(diag_hang_of(dg), summary, cap);
	char stop[512];
	model_describe_stop(m, stop, sizeof stop);
	char *text = diag_run_report(d->dr, false, d->mode, stop);
	if (text) {
		dap_output(d, "console", text, strlen(text));
		free(text);
	}
}

static void send_stopped(struct dap *d, const struct dbg_model *m)
{
	bool exc;
	const char *reason = stop_reason(m, &exc);
	char summary[1024] = "";
	if (entry_stop(d, m))
		reason = "entry";
	d->stop_tid = stop_thread(m);
	d->device_stop = d->stop_tid == DAP_DEVICE_TID;
	bool paused = d->pausing && !exc && strcmp(reason, "pause") == 0;
	d->pausing = false;
	if (paused && d->dr) {
		pause_summary(d, m, summary, sizeof summary);
	} else if (d->stop_note[0]) {
		snprintf(summary, sizeof summary, "%s", d->stop_note);
		d->stop_note[0] = 0;
	} else if (exc) {
		dap_diagnose_stop(d, summary, sizeof summary);
	} else {
		model_describe_stop(m, summary, sizeof summary);
	}
	struct dj_w w;
	dap_event_begin(&w, d, "stopped");
	dj_w_kstr(&w, "reason", reason);
	dj_w_kint(&w, "threadId", d->stop_tid);
	dj_w_kbool(&w, "allThreadsStopped", true);
	dj_w_kbool(&w, "preserveFocusHint", false);
	if (summary[0]) {
		dj_w_ktext(&w, "description", summary);
		if (exc)
			dj_w_ktext(&w, "text", summary);
	}
	dap_event_end(d, &w);
}

/* A shell's status for a death by signal: 128 + its number (gdb gives
 * the name). */
static int signal_status(const char *name)
{
	static const struct { const char *n; int v; } sigs[] = {
		{ "SIGHUP", 1 }, { "SIGINT", 2 }, { "SIGQUIT", 3 },
		{ "SIGILL", 4 }, { "SIGTRAP", 5 }, { "SIGABRT", 6 },
		{ "SIGBUS", 7 }, { "SIGFPE", 8 }, { "SIGKILL", 9 },
		{ "SIGSEGV", 11 }, { "SIGPIPE", 13 }, { "SIGALRM", 14 },
		{ "SIGTERM", 15 },
	};
	for (size_t i = 0; name && i < sizeof sigs / sizeof sigs[0]; i++)
		if (strcmp(name, sigs[i].n) == 0)
			return 128 + sigs[i].v;
	return 128;
}

static void send_exit(struct dap *d, const struct dbg_model *m)
{
	struct dj_w w;
	if (m->state == MODEL_EXITED && !d->exited_sent) {
		/* An exit that failed with no device stop: the memcheck pass
		 * (launch's memcheck policy) may find the fault and open its
		 * coredump, which is a new stop to report. */
		if (!d->pass_after_done && d->dr) {
			d->pass_after_done = true;
			dap_say(d, "cudbg: the program ended; reading the "
				"diagnosis\n");
			diag_run_after(d->dr, d->ctl, d->timeout_ms);
			if (m->is_core && m->state == MODEL_STOPPED)
				return; /* reported as a stop next round */
			char s[1024];
			dap_diagnose_stop(d, s, sizeof s);
		}
		d->exited_sent = true;
		dap_event_begin(&w, d, "exited");
		dj_w_kint(&w, "exitCode", m->exited_signalled ?
			  signal_status(m->exit_signal) : m->exit_code);
		dap_event_end(d, &w);
	}
	if (!d->terminated_sent) {
		d->terminated_sent = true;
		dap_event_begin(&w, d, "terminated");
		dap_event_end(d, &w);
	}
}

void dap_engine_check(struct dap *d)
{
	const struct dbg_model *m = ctl_model(d->ctl);
	send_program_output(d, m);
	if (!d->started)
		return;
	if (m->state == MODEL_STOPPED && m->stop_count != d->stop_seen &&
	    !m->is_core && !ctl_busy(d->ctl) && ctl_refreshed(d->ctl)) {
		d->stop_seen = m->stop_count;
		dap_refs_clear(d);
		send_stopped(d, m);
	} else if (m->state == MODEL_STOPPED && m->is_core && !d->core_reported &&
		   !ctl_busy(d->ctl) && ctl_refreshed(d->ctl)) {
		/* a coredump is stopped once open (with or without a
		 * *stopped record of its own): one stopped event */
		d->core_reported = true;
		d->stop_seen = m->stop_count;
		send_stopped(d, m);
	} else if (m->state == MODEL_EXITED || m->state == MODEL_GONE) {
		send_exit(d, m);
	}
	if (m->state == MODEL_RUNNING && d->last_state != MODEL_RUNNING) {
		d->ran_since = proc_now_s();
		/* a resumed program drops the last pause's summary */
		if (d->dr)
			diag_hang_clear(diag_run_diag(d->dr));
	}
	d->last_state = m->state;
	/* the launch's `timeout`, as --timeout on the command line: a run
	 * still going after it is interrupted and said as a hang */
	if (m->state == MODEL_RUNNING && d->o.timeout_s > 0 && !d->pausing &&
	    d->o.backend != SESSION_REPLAY &&
	    proc_now_s() - d->ran_since >= d->o.timeout_s &&
	    ctl_interrupt(d->ctl) >= 0)
		d->pausing = true;
}

void dap_resume(struct dap *d, const struct dj *req,
		int64_t (*fn)(struct dbg_ctl *))
{
	if (!d->ctl) {
		dap_resp_error(d, req, "no program: send launch or attach first");
		return;
	}
	const struct dbg_model *m = ctl_model(d->ctl);
	if (!model_can_resume(m)) {
		dap_resp_error(d, req, "cannot resume: the program is %s%s",
			       model_state_name(m->state),
			       m->is_core ? " (a coredump)" : "");
		return;
	}
	/* DAP steps the thread's innermost frame; gdb steps the selected
	 * one (a scopes or variables request may have selected another) */
	if (m->selected_frame > 0 && ctl_select_frame(d->ctl, 0) >= 0)
		dap_settle(d, d->timeout_ms);
	if (fn == ctl_finish && model_finish_refused(m)) {
		dap_resp_error(d, req, "step out is refused in the outermost "
			       "frame (a kernel's own frame, or main): continue "
			       "or step instead");
		return;
	}
	int64_t tok = fn(d->ctl);
	if (tok < 0) {
		dap_resp_error(d, req, "%s", m->error ? m->error : "refused");
		return;
	}
	dap_refs_clear(d);
	struct dj_w w;
	dap_resp_begin(&w, d, req);
	if (strcmp(dj_str(req, "command", ""), "continue") == 0)
		dj_w_kbool(&w, "allThreadsContinued", true);
	dap_resp_end(d, &w);
}
