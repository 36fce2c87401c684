/* The batch report: collected from the model, printed as text or JSON.
 * See include/cudbg/batch.h. */
#include "cudbg/base.h"
#include "cudbg/batch.h"
#include "cudbg/diagrun.h"
#include "cudbg/model.h"
#include "cudbg/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- collect ---- */

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void frame_free(struct batch_frame *f)
{
	free(f->func);
	free(f->file);
	free(f->fullname);
	*f = (struct batch_frame){ 0 };
}

static void frame_from(struct batch_frame *out, const struct dec_frame *f)
{
	frame_free(out);
	if (!f)
		return;
	*out = (struct batch_frame){
		.valid = true, .level = f->level, .func = dup_or_null(f->func),
		.file = dup_or_null(f->file), .fullname = dup_or_null(f->fullname),
		.line = f->line, .addr = f->addr,
	};
}

static bool runtime_frame(const struct dec_frame *f)
{
	return f->func && (!strcmp(f->func, "__assert_fail") ||
			   !strcmp(f->func, "__trap"));
}

/* The kernel's frame: past __assert_fail / __trap (device assert: frame
 * 1, cuda-gdb 13). */
static const struct dec_frame *kernel_frame(const struct dbg_model *m)
{
	/* the user's frame first: past the toolkit's atomicAdd and its
	 * __iAtomicAdd intrinsic (see dec_frame_is_toolkit) */
	for (size_t i = 0; i < m->frames.n; i++) {
		const struct dec_frame *f = &m->frames.frames[i];
		if (!runtime_frame(f) && f->func && strcmp(f->func, "??") &&
		    !dec_frame_is_toolkit(f->func, f->file,
					  dec_frame_is_device(f)))
			return f;
	}
	for (size_t i = 0; i < m->frames.n; i++)
		if (!runtime_frame(&m->frames.frames[i]))
			return &m->frames.frames[i];
	if (m->has_stop && m->stop.has_frame && !runtime_frame(&m->stop.frame))
		return &m->stop.frame;
	return NULL;
}

static void collect_focus(const struct dbg_model *m, struct batch_report *r)
{
	const struct dec_focus *f = &m->focus;
	if (!f->valid && m->has_stop)
		f = &m->stop.focus;
	diag_focus_from_model(&r->focus, f);
}

static void collect_stop(const struct dbg_model *m, struct batch_report *r)
{
	const struct dec_stop *s = &m->stop;
	r->reason = strdup(s->reason_text ? s->reason_text : "");
	r->signal_name = dup_or_null(s->signal_name);
	r->signal_meaning = dup_or_null(s->signal_meaning);
	r->device = dec_stop_is_device(s);
	r->device_exception = dec_stop_is_device_exception(s);
	r->exception_name = dup_or_null(s->exception_name);
	r->has_error_pc = s->has_error_pc;
	r->error_pc = s->error_pc;
	r->fault_function = dup_or_null(s->function);
	r->fault_file = dup_or_null(s->filename);
	r->fault_line = s->line;
	r->message = dup_or_null(s->message);
	r->bkptno = s->bkptno;
}

/* Frames: from the refresh, else the stop's own frame.  A coredump has
 * frames but no stop. */
static void collect_frames(const struct dbg_model *m, struct batch_report *r)
{
	const struct dec_frame *f0 = m->frames.n ? &m->frames.frames[0] :
				     m->has_stop && m->stop.has_frame ?
				     &m->stop.frame : NULL;
	frame_from(&r->frame, f0);
	const struct dec_frame *k = kernel_frame(m);
	frame_from(&r->kernel_frame, k ? k : f0);
	char name[256];
	if (k && k->func && (r->device || m->focus.valid))
		r->kernel = strdup(dec_func_basename(k->func, name, sizeof name));
}

static const char *mode_name(const struct dbg_model *m)
{
	switch (m->backend) {
	case SESSION_ATTACH:
		return "attach";
	case SESSION_REMOTE:
		return "remote";
	case SESSION_CORE:
		return "core";
	case SESSION_REPLAY:
		return "replay";
	default:
		return "live";
	}
}

int batch_collect(const struct dbg_model *m, struct batch_report *r)
{
	*r = (struct batch_report){ .bkptno = -1 };
	r->mode = mode_name(m);
	r->state = model_state_name(m->state);
	/* The debugger may end right after the program (a replay reaches
	 * its ^exit): what the program did still stands. */
	bool gone = m->state == MODEL_GONE;
	bool exit_stop = m->has_stop && dec_stop_is_exit(&m->stop);
	r->exited = m->state == MODEL_EXITED || (gone && exit_stop);
	r->stopped = m->state == MODEL_STOPPED ||
		     (gone && m->has_stop && !exit_stop);
	if (gone && m->has_stop)
		r->state = model_state_name(r->exited ? MODEL_EXITED
						      : MODEL_STOPPED);
	char buf[512];
	if (gone && m->has_stop) {
		struct dbg_model tmp = *m;
		tmp.state = r->exited ? MODEL_EXITED : MODEL_STOPPED;
		r->summary = strdup(model_describe_stop(&tmp, buf, sizeof buf));
	} else {
		r->summary = strdup(model_describe_stop(m, buf, sizeof buf));
	}
	r->exit_signalled = m->exited_signalled;
	r->exit_code = m->exit_code;
	r->exit_signal = dup_or_null(m->exit_signal);
	if (m->has_stop && !r->exited)
		collect_stop(m, r);
	if (!r->exited)
		collect_frames(m, r);
	collect_focus(m, r);
	r->device |= r->focus.valid && m->is_core;
	/* after a stop, only a debugger that broke is an error (one that
	 * exited cleanly, as a replay does at its end, is not) */
	if (gone && (!m->has_stop || m->gone_failed))
		r->error = strdup(m->gone_reason ? m->gone_reason :
				  "the debugger is gone");
	/* A device exception seen before the program ran on still counts. */
	r->fault = r->device_exception || m->had_device_exception ||
		   (r->stopped && r->reason && !strcmp(r->reason,
						       "signal-received") &&
		    r->signal_name && strcmp(r->signal_name, "0") &&
		    strcmp(r->signal_name, "SIGINT")) ||
		   (r->exited && (r->exit_signalled || r->exit_code != 0));
	return r->summary && r->state ? 0 : -1;
}

void batch_report_free(struct batch_report *r)
{
	if (!r)
		return;
	free(r->program);
	free(r->summary);
	free(r->reason);
	free(r->signal_name);
	free(r->signal_meaning);
	free(r->exception_name);
	free(r->fault_function);
	free(r->fault_file);
	free(r->message);
	free(r->hang);
	frame_free(&r->frame);
	frame_free(&r->kernel_frame);
	free(r->kernel);
	free(r->exit_signal);
	free(r->error);
	free(r->diagnosis);
	free(r->job);
	*r = (struct batch_report){ 0 };
}

int batch_exit_code(const struct batch_report *r)
{
	if (r->error || (r->diagnosis && r->diagnosis_exit == 2))
		return 2;
	return r->fault || r->hang ||
	       (r->diagnosis && r->diagnosis_exit == 1) ? 1 : 0;
}

/* ---- escaping ---- */

/* Untrusted text on one report line: base's terminal escaper (tab as a
 * space, newline and other controls as \xNN; docs/text-safety.md). */
static void put_text(FILE *out, const char *str)
{
	if (str)
		text_escape_write(out, str, strlen(str), 0);
}

/* ---- text ---- */

static void text_line(FILE *out, const char *key, const char *value)
{
	if (!value || !*value)
		return;
	fprintf(out, "%-10s ", key);
	put_text(out, value);
	fputc('\n', out);
}

static void text_focus(FILE *out, const struct diag_focus *c)
{
	if (!c->valid)
		return;
	fprintf(out, "%-10s ", "focus:");
	if (c->kernel >= 0)
		fprintf(out, "kernel %d, ", c->kernel);
	if (c->grid >= 0)
		fprintf(out, "grid %lld, ", c->grid);
	if (c->has_cluster)
		fprintf(out, "cluster (%u,%u,%u), ", c->cluster.x, c->cluster.y,
			c->cluster.z);
	fprintf(out, "block (%u,%u,%u), thread (%u,%u,%u), ", c->block.x,
		c->block.y, c->block.z, c->thread.x, c->thread.y, c->thread.z);
	fprintf(out, "device %d, sm %d, warp %d, lane %d\n", c->device, c->sm,
		c->warp, c->lane);
}

static void text_frame(FILE *out, const char *key, const struct batch_frame *f)
{
	if (!f->valid)
		return;
	fprintf(out, "%-10s #%d ", key, f->level < 0 ? 0 : f->level);
	put_text(out, f->func ? f->func : "??");
	if (f->file && f->line > 0) {
		fputs(" at ", out);
		put_text(out, f->file);
		fprintf(out, ":%d", f->line);
	} else {
		fputs(" (no source)", out);
	}
	fputc('\n', out);
}

static bool same_frame(const struct batch_frame *a, const struct batch_frame *b)
{
	return a->valid && b->valid && a->level == b->level &&
	       a->addr == b->addr;
}

void batch_print_text(FILE *out, const struct batch_report *r)
{
	if (r->hang) { /* "Hang: kernel K still running after N s" first */
		put_text(out, r->hang);
		fputc('\n', out);
	}
	if (r->job) /* rendered and escaped by diag/job_report.c */
		fputs(r->job, out);
	text_line(out, "stop:", r->summary);
	text_line(out, "state:", r->state);
	text_line(out, "mode:", r->mode);
	text_line(out, "program:", r->program);
	text_line(out, "reason:", r->reason);
	if (r->signal_name) {
		fprintf(out, "%-10s ", "signal:");
		put_text(out, r->signal_name);
		if (r->signal_meaning) {
			fputs(" (", out);
			put_text(out, r->signal_meaning);
			fputc(')', out);
		}
		fputc('\n', out);
	}
	text_focus(out, &r->focus);
	text_line(out, "kernel:", r->kernel);
	text_frame(out, "frame:", &r->frame);
	if (!same_frame(&r->frame, &r->kernel_frame))
		text_frame(out, "kernel at:", &r->kernel_frame);
	if (r->exception_name || r->has_error_pc) {
		fprintf(out, "%-10s ", "exception:");
		put_text(out, r->exception_name ? r->exception_name : "?");
		if (r->has_error_pc)
			fprintf(out, " at pc 0x%" PRIx64, r->error_pc);
		if (r->fault_function) {
			fputs(" in ", out);
			put_text(out, r->fault_function);
		}
		if (r->fault_file && r->fault_line > 0) {
			fputs(" at ", out);
			put_text(out, r->fault_file);
			fprintf(out, ":%d", r->fault_line);
		}
		fputc('\n', out);
	}
	text_line(out, "message:", r->message);
	if (r->exited && r->exit_signalled)
		text_line(out, "exit:", r->exit_signal ? r->exit_signal : "signal");
	else if (r->exited)
		fprintf(out, "%-10s code %d\n", "exit:", r->exit_code);
	text_line(out, "error:", r->error);
	fprintf(out, "%-10s %s\n", "fault:", r->error ? "unknown" :
					   r->fault ? "yes" : "no");
	if (r->diagnosis) { /* rendered and escaped by diag/report.c */
		fputc('\n', out);
		fputs(r->diagnosis, out);
	}
}

/* ---- JSON ---- */

/* One [x,y,z] index, or null. */
static void json_frame(struct jw *w, const char *key,
		       const struct batch_frame *f)
{
	if (!f->valid) {
		jw_null(w, key);
		return;
	}
	jw_obj(w, key);
	/* the stop's own frame has no level: it is the innermost, 0 */
	jw_int(w, "level", f->level < 0 ? 0 : f->level);
	jw_str(w, "function", f->func);
	jw_str(w, "file", f->file);
	jw_str(w, "fullname", f->fullname);
	jw_int_or_null(w, "line", f->line, f->line > 0);
	/* "addr" before; "address" as in diagnosis.frames */
	jw_hex(w, "address", f->addr, true);
	jw_end(w);
}

static void json_exception(struct jw *w, const struct batch_report *r)
{
	if (!r->exception_name && !r->has_error_pc && !r->message) {
		jw_null(w, "exception");
		return;
	}
	jw_obj(w, "exception");
	jw_str(w, "name", r->exception_name);
	jw_hex(w, "pc", r->error_pc, r->has_error_pc);
	jw_str(w, "function", r->fault_function);
	jw_str(w, "file", r->fault_file);
	jw_int_or_null(w, "line", r->fault_line, r->fault_line > 0);
	jw_str(w, "message", r->message);
	jw_end(w);
}

static void json_exit(struct jw *w, const struct batch_report *r)
{
	if (!r->exited) {
		jw_null(w, "exit");
		return;
	}
	jw_obj(w, "exit");
	jw_int_or_null(w, "code", r->exit_code, !r->exit_signalled);
	jw_str(w, "signal", r->exit_signal);
	jw_end(w);
}

static void json_report(struct jw *w, const struct batch_report *r)
{
	jw_obj(w, NULL);
	jw_str(w, "mode", r->mode);
	jw_str(w, "program", r->program);
	jw_str(w, "state", r->state);
	if (r->error)
		jw_null(w, "fault");
	else
		jw_bool(w, "fault", r->fault);
	jw_str(w, "summary", r->summary);
	jw_str(w, "hang", r->hang);
	jw_str(w, "reason", r->reason);
	jw_str(w, "signal", r->signal_name);
	jw_str(w, "signal_meaning", r->signal_meaning);
	jw_bool(w, "device", r->device);
	diag_report_json_focus(w, "focus", &r->focus);
	jw_str(w, "kernel", r->kernel);
	json_frame(w, "frame", &r->frame);
	json_frame(w, "kernel_frame", &r->kernel_frame);
	json_exception(w, r);
	jw_int_or_null(w, "breakpoint", r->bkptno, r->bkptno >= 0);
	json_exit(w, r);
	jw_str(w, "error", r->error);
	if (r->diagnosis) /* written by base's writer in diag/report.c */
		jw_raw(w, "diagnosis", r->diagnosis);
	if (r->job) /* likewise, in diag/job_report.c */
		jw_raw(w, "job", r->job);
	jw_end(w);
}

void batch_print_json(FILE *out, const struct batch_report *r)
{
	struct jw w;
	jw_init(&w);
	json_report(&w, r);
	char *s = jw_take(&w);
	if (!s) { /* out of memory: still one line of valid JSON */
		fputs("{\"error\":\"out of memory\"}\n", out);
		return;
	}
	fputs(s, out);
	fputc('\n', out);
	free(s);
}
