/* The batch report: collected from the model, printed as text or JSON.
 * See include/cudbg/batch.h. */
#include "cudbg/batch.h"
#include "cudbg/model.h"

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

static void dim(uint32_t out[3], struct dec_dim3 d)
{
	out[0] = d.x;
	out[1] = d.y;
	out[2] = d.z;
}

static void collect_focus(const struct dbg_model *m, struct batch_report *r)
{
	const struct dec_focus *f = &m->focus;
	if (!f->valid && m->has_stop)
		f = &m->stop.focus;
	if (!f->valid)
		return;
	r->has_focus = true;
	r->device_no = f->device;
	r->sm = f->sm;
	r->warp = f->warp;
	r->lane = f->lane;
	r->kernel_no = f->kernel;
	r->grid = f->grid;
	r->has_cluster = f->cluster_idx.valid;
	dim(r->cluster, f->cluster_idx);
	r->has_block = f->block.valid;
	dim(r->block, f->block);
	r->has_thread = f->thread.valid;
	dim(r->thread, f->thread);
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
	*r = (struct batch_report){ .bkptno = -1, .device_no = -1, .sm = -1,
				    .warp = -1, .lane = -1, .kernel_no = -1,
				    .grid = -1 };
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
	r->device |= r->has_focus && m->is_core;
	if (gone && !m->has_stop)
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

/* Length of the valid UTF-8 sequence at s (n bytes left) and its code
 * point, or 0 when the bytes are not valid UTF-8. */
static size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	if (len == 0 || s[0] > 0xf4 || len > n)
		return 0;
	uint32_t v = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (v < min[len] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

/* Code points that must not reach a terminal raw: C0, DEL, C1, and the
 * bidirectional controls (which can reorder what a person reads). */
static bool unsafe_cp(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) ||
	       (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f ||
	       cp == 0x061c;
}

static void put_text(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t n = strlen((const char *)s);
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = utf8_seq(s + i, n - i, &cp);
		if (len == 0) {
			fprintf(out, "\\x%02x", s[i]);
			i++;
		} else if (unsafe_cp(cp)) {
			if (cp < 0x100)
				fprintf(out, "\\x%02x", (unsigned)cp);
			else
				fprintf(out, "\\u{%04x}", (unsigned)cp);
			i += len;
		} else {
			fwrite(s + i, 1, len, out);
			i += len;
		}
	}
}

static void put_json_str(FILE *out, const char *str)
{
	if (!str) {
		fputs("null", out);
		return;
	}
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str);
	fputc('"', out);
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = utf8_seq(s + i, n - i, &cp);
		if (len == 0) {
			fputs("\\ufffd", out); /* not UTF-8: JSON cannot hold it */
			i++;
			continue;
		}
		if (cp == '"' || cp == '\\')
			fprintf(out, "\\%c", (char)cp);
		else if (cp == '\n')
			fputs("\\n", out);
		else if (cp == '\t')
			fputs("\\t", out);
		else if (unsafe_cp(cp) || cp == 0x2028 || cp == 0x2029)
			fprintf(out, "\\u%04x", (unsigned)cp);
		else
			fwrite(s + i, 1, len, out);
		i += len;
	}
	fputc('"', out);
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

static void text_focus(FILE *out, const struct batch_report *r)
{
	if (!r->has_focus)
		return;
	fprintf(out, "%-10s ", "focus:");
	if (r->kernel_no >= 0)
		fprintf(out, "kernel %d, ", r->kernel_no);
	if (r->grid >= 0)
		fprintf(out, "grid %lld, ", r->grid);
	if (r->has_cluster)
		fprintf(out, "cluster (%u,%u,%u), ", r->cluster[0], r->cluster[1],
			r->cluster[2]);
	if (r->has_block)
		fprintf(out, "block (%u,%u,%u), ", r->block[0], r->block[1],
			r->block[2]);
	if (r->has_thread)
		fprintf(out, "thread (%u,%u,%u), ", r->thread[0], r->thread[1],
			r->thread[2]);
	fprintf(out, "device %d, sm %d, warp %d, lane %d\n", r->device_no,
		r->sm, r->warp, r->lane);
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
	text_focus(out, r);
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

static void json_key(FILE *out, const char *key, bool *first)
{
	fprintf(out, "%s\"%s\":", *first ? "" : ",", key);
	*first = false;
}

static void json_str(FILE *out, const char *key, const char *v, bool *first)
{
	json_key(out, key, first);
	put_json_str(out, v);
}

static void json_int(FILE *out, const char *key, long long v, bool *first)
{
	json_key(out, key, first);
	fprintf(out, "%lld", v);
}

/* An index the debugger did not give (-1) is null, never -1. */
static void json_index(FILE *out, const char *key, long long v, bool *first)
{
	json_key(out, key, first);
	if (v >= 0)
		fprintf(out, "%lld", v);
	else
		fputs("null", out);
}

static void json_dim(FILE *out, const char *key, bool has, const uint32_t d[3],
		     bool *first)
{
	json_key(out, key, first);
	if (has)
		fprintf(out, "[%u,%u,%u]", d[0], d[1], d[2]);
	else
		fputs("null", out);
}

static void json_frame(FILE *out, const char *key, const struct batch_frame *f,
		       bool *first)
{
	json_key(out, key, first);
	if (!f->valid) {
		fputs("null", out);
		return;
	}
	bool ff = true;
	fputc('{', out);
	/* the stop's own frame has no level: it is the innermost, 0 */
	json_int(out, "level", f->level < 0 ? 0 : f->level, &ff);
	json_str(out, "function", f->func, &ff);
	json_str(out, "file", f->file, &ff);
	json_str(out, "fullname", f->fullname, &ff);
	json_key(out, "line", &ff);
	if (f->line > 0)
		fprintf(out, "%d", f->line);
	else
		fputs("null", out);
	json_key(out, "address", &ff); /* "addr" before; as in diagnosis.frames */
	fprintf(out, "\"0x%" PRIx64 "\"", f->addr);
	fputc('}', out);
}

static void json_focus(FILE *out, const struct batch_report *r, bool *first)
{
	json_key(out, "focus", first);
	if (!r->has_focus) {
		fputs("null", out);
		return;
	}
	bool ff = true;
	fputc('{', out);
	json_index(out, "device", r->device_no, &ff);
	json_index(out, "sm", r->sm, &ff);
	json_index(out, "warp", r->warp, &ff);
	json_index(out, "lane", r->lane, &ff);
	json_index(out, "kernel", r->kernel_no, &ff);
	json_index(out, "grid", r->grid, &ff);
	json_dim(out, "cluster", r->has_cluster, r->cluster, &ff);
	json_dim(out, "block", r->has_block, r->block, &ff);
	json_dim(out, "thread", r->has_thread, r->thread, &ff);
	fputc('}', out);
}

static void json_exception(FILE *out, const struct batch_report *r,
			   bool *first)
{
	json_key(out, "exception", first);
	if (!r->exception_name && !r->has_error_pc && !r->message) {
		fputs("null", out);
		return;
	}
	bool ff = true;
	fputc('{', out);
	json_str(out, "name", r->exception_name, &ff);
	json_key(out, "pc", &ff);
	if (r->has_error_pc)
		fprintf(out, "\"0x%" PRIx64 "\"", r->error_pc);
	else
		fputs("null", out);
	json_str(out, "function", r->fault_function, &ff);
	json_str(out, "file", r->fault_file, &ff);
	json_index(out, "line", r->fault_line > 0 ? r->fault_line : -1, &ff);
	json_str(out, "message", r->message, &ff);
	fputc('}', out);
}

static void json_exit(FILE *out, const struct batch_report *r, bool *first)
{
	json_key(out, "exit", first);
	if (!r->exited) {
		fputs("null", out);
		return;
	}
	bool ff = true;
	fputc('{', out);
	json_key(out, "code", &ff);
	if (r->exit_signalled)
		fputs("null", out);
	else
		fprintf(out, "%d", r->exit_code);
	json_str(out, "signal", r->exit_signal, &ff);
	fputc('}', out);
}

void batch_print_json(FILE *out, const struct batch_report *r)
{
	bool first = true;
	fputc('{', out);
	json_str(out, "mode", r->mode, &first);
	json_str(out, "program", r->program, &first);
	json_str(out, "state", r->state, &first);
	json_key(out, "fault", &first);
	fputs(r->error ? "null" : r->fault ? "true" : "false", out);
	json_str(out, "summary", r->summary, &first);
	json_str(out, "hang", r->hang, &first);
	json_str(out, "reason", r->reason, &first);
	json_str(out, "signal", r->signal_name, &first);
	json_str(out, "signal_meaning", r->signal_meaning, &first);
	json_key(out, "device", &first);
	fputs(r->device ? "true" : "false", out);
	json_focus(out, r, &first);
	json_str(out, "kernel", r->kernel, &first);
	json_frame(out, "frame", &r->frame, &first);
	json_frame(out, "kernel_frame", &r->kernel_frame, &first);
	json_exception(out, r, &first);
	json_key(out, "breakpoint", &first);
	if (r->bkptno >= 0)
		fprintf(out, "%d", r->bkptno);
	else
		fputs("null", out);
	json_exit(out, r, &first);
	json_str(out, "error", r->error, &first);
	if (r->diagnosis) { /* a JSON object from diag/report.c */
		size_t n = strlen(r->diagnosis);
		while (n && r->diagnosis[n - 1] == '\n')
			n--;
		json_key(out, "diagnosis", &first);
		fwrite(r->diagnosis, 1, n, out);
	}
	if (r->job) { /* a JSON object from diag/job_report.c */
		json_key(out, "job", &first);
		fputs(r->job, out);
	}
	fputs("}\n", out);
}
