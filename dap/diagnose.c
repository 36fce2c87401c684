/* The diagnosis in DAP terms: at a fault stop the report goes out as an
 * output event and its one-line summary becomes the stopped event's
 * description; exceptionInfo carries the class, kernel, thread, the
 * user's line and the hints; cudbgMemcheck runs the memcheck pass on
 * request.  Everything comes from diag/ (diagrun.h, hints.h), the same
 * code batch mode and the screen use. */
#include "cudbg/diagrun.h"
#include "cudbg/hints.h"
#include "cudbg/refault.h"
#include "cudbg/report.h"
#include "dap/dap_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct diag_fault *analyze(struct dap *d)
{
	return diag_run_fault(d->dr, ctl_model(d->ctl));
}

/* "Warp Illegal Address in saxpy at null_write.cu:12, block (0,0,0)
 * thread (5,0,0)". */
static void fault_summary(const struct diag_fault *f,
			  const struct dec_frame *fr, char *buf, size_t cap)
{
	char head[512];
	size_t n = (size_t)snprintf(buf, cap, "%s",
				    diag_fault_headline(f, head, sizeof head,
							 NULL));
	if (f->kernel_short && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, " in %s", f->kernel_short);
	else if (fr && fr->func && strcmp(fr->func, "??") != 0 && n < cap)
		/* a host fault (a CPU core, a SIGSEGV): where it stopped */
		n += (size_t)snprintf(buf + n, cap - n, " in %s", fr->func);
	if (f->where.file && f->where.line && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, " at %s:%u",
				      f->where.file, f->where.line);
	if (f->python.found && f->python.launch.file && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, " (launched from %s:%u)",
				      f->python.launch.file,
				      f->python.launch.line);
	if (f->focus.valid && n < cap)
		snprintf(buf + n, cap - n, ", block (%u,%u,%u) thread (%u,%u,%u)",
			 f->focus.block.x, f->focus.block.y, f->focus.block.z,
			 f->focus.thread.x, f->focus.thread.y, f->focus.thread.z);
}

void dap_diagnose_stop(struct dap *d, char *summary, size_t cap)
{
	const struct dbg_model *m = ctl_model(d->ctl);
	if (!d->dr)
		return;
	/* values for the hints, the host stack, the lanes table: once per
	 * run, as batch mode does after its stop */
	if (m->state == MODEL_STOPPED && !d->pass_after_done) {
		d->pass_after_done = true;
		diag_run_after(d->dr, d->ctl, d->timeout_ms);
	}
	const struct diag_fault *f = analyze(d);
	if (f->kind == DIAG_FAULT_NONE) /* say where it is, not "none" */
		model_describe_stop(m, summary, cap);
	else
		fault_summary(f, model_frame(m), summary, cap);
	char *text = diag_run_report(d->dr, false, d->mode, summary);
	if (text) {
		dap_output(d, "console", text, strlen(text));
		free(text);
	}
}

static void write_dim3(struct dj_w *w, const char *key, struct diag_dim3 v)
{
	dj_w_key(w, key);
	dj_w_arr(w);
	dj_w_int(w, v.x);
	dj_w_int(w, v.y);
	dj_w_int(w, v.z);
	dj_w_arr_end(w);
}

/* The hints as --json writes them (one writer, diag/report.c). */
static void write_hints(struct dj_w *w, const struct diag_hints *h)
{
	diag_report_json_hints(&w->j, h);
}

/* The user's lines, innermost first: the fault's source line, then the
 * Python lines that launched the kernel. */
static void write_user_lines(struct dj_w *w, const struct diag_fault *f)
{
	char line[4300];
	size_t n = 0;
	line[0] = 0;
	if (f->where.file && f->where.line)
		n += (size_t)snprintf(line, sizeof line, "%s:%u%s%s\n",
				      f->where.fullname ? f->where.fullname
							: f->where.file,
				      f->where.line, f->where.func ? " in " : "",
				      f->where.func ? f->where.func : "");
	if (f->python.found && f->python.call.file && n < sizeof line)
		n += (size_t)snprintf(line + n, sizeof line - n, "%s:%u in %s\n",
				      f->python.call.file, f->python.call.line,
				      f->python.call.func ? f->python.call.func : "?");
	if (f->python.found && f->python.launch.file && n < sizeof line &&
	    (f->python.launch.line != f->python.call.line ||
	     !f->python.call.file ||
	     strcmp(f->python.launch.file, f->python.call.file) != 0))
		snprintf(line + n, sizeof line - n, "%s:%u in %s\n",
			 f->python.launch.file, f->python.launch.line,
			 f->python.launch.func ? f->python.launch.func : "?");
	dj_w_ktext(w, "stackTrace", line);
}

static void write_cudbg(struct dj_w *w, const struct diag_fault *f,
			const struct diag_hints *h)
{
	dj_w_key(w, "cudbg");
	dj_w_obj(w);
	dj_w_kstr(w, "kind", diag_fault_kind_name(f->kind));
	if (f->signal_name)
		dj_w_ktext(w, "signal", f->signal_name);
	if (f->exception_name)
		dj_w_ktext(w, "class", f->exception_name);
	if (f->kernel)
		dj_w_ktext(w, "kernel", f->kernel_short ? f->kernel_short : f->kernel);
	if (f->focus.valid) {
		write_dim3(w, "block", f->focus.block);
		write_dim3(w, "thread", f->focus.thread);
	}
	if (f->where.file) {
		dj_w_ktext(w, "file", f->where.file);
		dj_w_kint(w, "line", f->where.line);
	}
	if (f->python.found && f->python.launch.file) {
		dj_w_key(w, "python");
		dj_w_obj(w);
		dj_w_ktext(w, "file", f->python.launch.file);
		dj_w_kint(w, "line", f->python.launch.line);
		if (f->python.launch.source)
			dj_w_ktext(w, "source", f->python.launch.source);
		dj_w_obj_end(w);
	}
	write_hints(w, h);
	dj_w_obj_end(w);
}

void dap_req_exception_info(struct dap *d, const struct dj *req,
			    const struct dj *a)
{
	(void)a;
	if (!d->ctl || !d->dr) {
		dap_resp_error(d, req, "no session: send launch or attach first");
		return;
	}
	const struct diag_fault *f = analyze(d);
	char summary[1024];
	if (f->kind == DIAG_FAULT_NONE)
		model_describe_stop(ctl_model(d->ctl), summary, sizeof summary);
	else
		fault_summary(f, model_frame(ctl_model(d->ctl)), summary,
			      sizeof summary);
	char *text = diag_run_report(d->dr, false, d->mode, summary);
	/* the report re-analysed: fetch the fault again (stale pointer) */
	const struct diag_hints *h = diag_run_hints(d->dr);
	f = diag_analyze(diag_run_diag(d->dr));
	struct dj_w w;
	dap_resp_begin(&w, d, req);
	dj_w_ktext(&w, "exceptionId", f->signal_name ? f->signal_name
				       : f->exception_name ? f->exception_name
				       : diag_fault_kind_name(f->kind));
	char desc[1400];
	snprintf(desc, sizeof desc, "%s%s%s", summary, h->n ? ". Hint: " : "",
		 h->n ? h->v[0].title : "");
	dj_w_ktext(&w, "description", desc);
	dj_w_kstr(&w, "breakMode", f->kind == DIAG_FAULT_NONE ? "never" : "always");
	dj_w_key(&w, "details");
	dj_w_obj(&w);
	dj_w_ktext(&w, "message", text ? text : summary);
	dj_w_ktext(&w, "typeName", f->exception_name ? f->exception_name
				   : diag_fault_kind_name(f->kind));
	if (f->kernel)
		dj_w_ktext(&w, "fullTypeName", f->kernel);
	write_user_lines(&w, f);
	write_cudbg(&w, f, h);
	dj_w_obj_end(&w);
	dap_resp_end(d, &w);
	free(text);
}

/* cudbgMemcheck: the memcheck pass now, whatever the launch policy said:
 * a second diagnosis run with --memcheck=always, its report as an output
 * event and in the response; the pass's GPU coredump, when the program
 * is not running, opens in the debugger (a new stop with the faulting
 * thread, as batch mode does). */
void dap_req_memcheck(struct dap *d, const struct dj *req, const struct dj *a)
{
	(void)a;
	char err[512] = "";
	if (!d->ctl || d->o.backend != SESSION_LAUNCH) {
		dap_resp_error(d, req, "the memcheck pass needs a launch "
			       "configuration (it reruns the program)");
		return;
	}
	struct diag_run_config cfg;
	options_diag_config(&d->o, &cfg);
	cfg.memcheck = DIAG_MEMCHECK_ALWAYS;
	struct diag_run *r = diag_run_new(&cfg, NULL, err, sizeof err);
	if (!r) {
		dap_resp_error(d, req, "%s", err);
		return;
	}
	dap_say(d, "cudbg: running the memcheck pass\n");
	diag_run_before(r, NULL, d->timeout_ms);
	char *text = diag_run_report(r, false, "memcheck", NULL);
	const char *core = diag_run_core(r);
	if (text)
		dap_output(d, "console", text, strlen(text));
	struct dj_w w;
	dap_resp_begin(&w, d, req);
	dj_w_ktext(&w, "report", text ? text : "");
	if (core)
		dj_w_kstr(&w, "coreFile", core);
	dap_resp_end(d, &w);
	const struct dbg_model *m = ctl_model(d->ctl);
	const char *open = diag_run_core_to_open(r);
	if (open && (m->state == MODEL_NOT_STARTED || m->state == MODEL_EXITED) &&
	    ctl_open_core(d->ctl, open) > 0) {
		d->pass_after_done = true;
		dap_settle(d, d->timeout_ms);
		d->core_reported = false;
	}
	free(text);
	/* keep the pass's files (the core) while the debugger has it open */
	if (core && m->is_core) {
		diag_run_free(d->mc_run);
		d->mc_run = r;
	} else {
		diag_run_free(r);
	}
}

/* The thread to stop: the fault's sanitizer finding, else a precise stop
 * (a device assert or trap, or the sanitizer's coredump). */
static int refault_target(struct dap *d, struct diag_refault_target *t)
{
	const struct diag_fault *f = analyze(d);
	if (f->finding && diag_refault_target_from(f->finding, t) == 0)
		return 0;
	return diag_refault_target_from_stop(ctl_model(d->ctl), t);
}

/* cudbgReplayToFault: rerun the program (a fresh debugger, or the
 * recording from its start) and stop the faulting thread just before its
 * bad access, with diag/refault.c's recipe (the screen's T key).  The
 * arrival is a stopped event like any other. */
void dap_req_replay_to_fault(struct dap *d, const struct dj *req,
			     const struct dj *a)
{
	(void)a;
	struct diag_refault_target t;
	char err[512];
	if (!d->ctl || (d->o.backend != SESSION_LAUNCH &&
			d->o.backend != SESSION_REPLAY)) {
		dap_resp_error(d, req, "replay to fault reruns the program: it "
			       "needs a launch or replay configuration");
		return;
	}
	if (refault_target(d, &t) != 0) {
		dap_resp_error(d, req, "no memcheck finding with a thread and a "
			       "source line, and this stop names no exact thread "
			       "(a hardware exception is reported per warp): "
			       "run cudbgMemcheck first");
		return;
	}
	if (ctl_model(d->ctl)->state != MODEL_NOT_STARTED &&
	    dap_start_debugger(d, err, sizeof err) < 0) {
		dap_resp_error(d, req, "replay to fault: %s", err);
		return;
	}
	char note[700];
	snprintf(note, sizeof note, "cudbg: replay to fault: running to thread "
		 "(%u,%u,%u) of block (%u,%u,%u) at %s:%u\n", t.thread.x,
		 t.thread.y, t.thread.z, t.block.x, t.block.y, t.block.z,
		 t.file, t.line);
	dap_say(d, note);
	d->rf = diag_refault_new(&t);
	if (!d->rf) {
		dap_resp_error(d, req, "out of memory");
		return;
	}
	d->started = d->configured = true;
	enum diag_refault_state st = diag_refault_drive(d->rf, d->ctl,
							d->timeout_ms);
	const char *why = diag_refault_error(d->rf);
	snprintf(err, sizeof err, "%s", why ? why : "no answer in time");
	diag_refault_detach(d->rf, d->ctl);
	diag_refault_free(d->rf);
	d->rf = NULL;
	if (st != DIAG_RF_ARRIVED) {
		dap_resp_error(d, req, "replay to fault: %s", err);
		return;
	}
	text_fit(d->stop_note, sizeof d->stop_note, "replay to fault: thread "
		 "(%u,%u,%u) of block (%u,%u,%u) just before %s:%u", t.thread.x,
		 t.thread.y, t.thread.z, t.block.x, t.block.y, t.block.z, t.file,
		 t.line);
	struct dj_w w;
	dap_resp_begin(&w, d, req);
	dj_w_kint(&w, "threadId", DAP_DEVICE_TID);
	write_dim3(&w, "block", t.block);
	write_dim3(&w, "thread", t.thread);
	dj_w_kstr(&w, "file", t.file);
	dj_w_kint(&w, "line", t.line);
	dap_resp_end(d, &w);
}
