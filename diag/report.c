/* The diagnosis report: text and JSON renderings of one fault account
 * with its hints.  Schema: docs/report-schema.md. */
#include "cudbg/report.h"
#include "cudbg/pystack.h"
#include "cudbg/assertline.h"
#include "cudbg/hang.h"
#include "cudbg/sanitizer.h"
#include "diag/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int diag_report_exit_code(const struct diag_report_in *in)
{
	if (in->error)
		return DIAG_EXIT_USAGE;
	if (!in->fault)
		return DIAG_EXIT_NO_FAULT;
	if (in->fault->kind == DIAG_FAULT_ENVIRONMENT)
		return DIAG_EXIT_USAGE;
	return in->fault->kind == DIAG_FAULT_NONE ? DIAG_EXIT_NO_FAULT
						  : DIAG_EXIT_FAULT;
}

static const char *loc_source_name(enum diag_loc_source s)
{
	switch (s) {
	case DIAG_LOC_EXCEPTION: return "exception";
	case DIAG_LOC_FRAME: return "frame";
	case DIAG_LOC_SANITIZER: return "sanitizer";
	case DIAG_LOC_ASSERTION: return "assertion";
	case DIAG_LOC_NONE: break;
	}
	return "none";
}

static const char *step_kind_name(enum diag_step_kind k)
{
	switch (k) {
	case DIAG_STEP_TEXT: return "text";
	case DIAG_STEP_KEY: return "key";
	case DIAG_STEP_RUN: return "run";
	case DIAG_STEP_GDB: return "gdb";
	}
	return "text";
}

/* ---- text -------------------------------------------------------------- */

static void t_esc(struct dbuf *b, const char *s)
{
	if (s)
		dbuf_put_escaped(b, s, strlen(s));
}

/* Untrusted text, escaped, wrapped at `width` columns with `indent`
 * spaces on continuation lines (columns counted in bytes: good enough for
 * the mostly ASCII text of reports). */
static void t_wrap(struct dbuf *b, const char *s, size_t indent, size_t col,
		   size_t width)
{
	struct dbuf e = {0};
	dbuf_put(&e, "", 0);
	t_esc(&e, s);
	const char *p = e.s ? e.s : "";
	while (*p) {
		size_t word = strcspn(p, " ");
		if (col > indent && col + 1 + word > width) {
			dbuf_putc(b, '\n');
			for (size_t i = 0; i < indent; i++)
				dbuf_putc(b, ' ');
			col = indent;
		} else if (col > indent) {
			dbuf_putc(b, ' ');
			col++;
		}
		dbuf_put(b, p, word);
		col += word;
		p += word;
		while (*p == ' ')
			p++;
	}
	dbuf_free(&e);
}

static void t_field(struct dbuf *b, const char *label, const char *value)
{
	if (!value || !*value)
		return;
	dbuf_printf(b, "  %-10s ", label);
	t_wrap(b, value, 13, 13, 100);
	dbuf_putc(b, '\n');
}

static void fmt_dim(char *buf, size_t cap, struct diag_dim3 v)
{
	snprintf(buf, cap, "(%u,%u,%u)", v.x, v.y, v.z);
}

static void t_summary(struct dbuf *b, const struct diag_fault *f,
		      const struct diag_report_in *in)
{
	char line[1024];
	if (f->kind == DIAG_FAULT_NONE)
		dbuf_puts(b, "cudbg-tui diagnosis: no fault found\n");
	else
		dbuf_printf(b, "cudbg-tui diagnosis: FAULT (%s)\n",
			    diag_fault_kind_name(f->kind));
	if (in->error)
		t_field(b, "error", in->error);
	if (in->mode)
		t_field(b, "mode", in->mode);
	if (in->stop_reason)
		t_field(b, "stop", in->stop_reason);
	const char *exc = f->exception_name ? f->exception_name
					    : f->signal_meaning;
	if (exc || f->signal_name) {
		snprintf(line, sizeof line, "%s%s%s%s", exc ? exc : "",
			 f->signal_name ? " (" : "",
			 f->signal_name ? f->signal_name : "",
			 f->signal_name ? ")" : "");
		t_field(b, "exception", line);
	}
	t_field(b, "message", f->exception_message);
	t_field(b, "meaning", f->explanation);
	t_field(b, "kernel", f->kernel_short);
	if (f->kernel && f->kernel_short && strcmp(f->kernel, f->kernel_short))
		t_field(b, "signature", f->kernel);
	if (f->where.file) {
		snprintf(line, sizeof line, "%s:%u (from the %s)", f->where.file,
			 f->where.line, loc_source_name(f->where.source));
		t_field(b, "location", line);
	}
}

static void t_focus(struct dbuf *b, const struct diag_fault *f)
{
	char line[512], bl[48], th[48];
	const struct diag_focus *c = &f->focus;
	if (c->valid) {
		fmt_dim(bl, sizeof bl, c->block);
		fmt_dim(th, sizeof th, c->thread);
		int n = snprintf(line, sizeof line, "block %s thread %s", bl, th);
		if (c->device >= 0)
			n += snprintf(line + n, sizeof line - (size_t)n,
				      ", device %d sm %d warp %d lane %d",
				      c->device, c->sm, c->warp, c->lane);
		if (c->has_cluster) {
			fmt_dim(bl, sizeof bl, c->cluster);
			snprintf(line + n, sizeof line - (size_t)n,
				 ", cluster %s", bl);
		}
		t_field(b, "thread", line);
	}
	if (f->has_error_pc || f->has_stop_pc) {
		int n = 0;
		line[0] = '\0';
		if (f->has_error_pc)
			n = snprintf(line, sizeof line, "error 0x%llx ",
				     (unsigned long long)f->error_pc);
		if (f->has_stop_pc)
			snprintf(line + n, sizeof line - (size_t)n, "stop 0x%llx",
				 (unsigned long long)f->stop_pc);
		t_field(b, "pc", line);
	}
	if (f->op && f->op_outer) {
		char both[512];
		snprintf(both, sizeof both, "%s (in %s)", f->op, f->op_outer);
		t_field(b, "operator", both);
	} else {
		t_field(b, "operator", f->op);
	}
	if (f->host_op_later) {
		char later[512];
		snprintf(later, sizeof later, "already in %s when the GPU stopped (launches "
			 "are asynchronous: CUDA_LAUNCH_BLOCKING=1 keeps the host at "
			 "the launch, naming its operator)", f->host_op_later);
		t_field(b, "host", later);
	}
}

static void t_python(struct dbuf *b, const struct diag_fault *f)
{
	const struct diag_python *p = &f->python;
	if (!p->found)
		return;
	char line[2048];
	snprintf(line, sizeof line, "%s:%u in %s%s%s", p->call.file,
		 p->call.line, p->call.func ? p->call.func : "?",
		 p->call.source ? ": " : "",
		 p->call.source ? p->call.source : "");
	t_field(b, "python", line);
	if (p->launch.line != p->call.line ||
	    strcmp(p->launch.file, p->call.file) != 0) {
		snprintf(line, sizeof line, "%s:%u in %s%s%s", p->launch.file,
			 p->launch.line, p->launch.func ? p->launch.func : "?",
			 p->launch.source ? ": " : "",
			 p->launch.source ? p->launch.source : "");
		t_field(b, "run from", line);
	}
}

/* The live stack's user frames (library frames folded into a count),
 * the bad value, or why the stack could not be had. */
static void t_pyvalue(struct dbuf *b, const struct diag_fault *f)
{
	if (f->bad_value)
		t_field(b, "value", f->bad_value);
	/* why there is no live stack, when nothing else gave the line */
	if (!f->pystack && f->pystack_why && f->flags[DIAG_F_PYTHON] &&
	    !f->python.found) {
		char line[400];
		snprintf(line, sizeof line, "no live stack: %s", f->pystack_why);
		t_field(b, "python", line);
	}
	if (f->pystack && f->pystack->error)
		t_field(b, "py error", f->pystack->error);
}

static void t_pystack(struct dbuf *b, const struct diag_fault *f)
{
	const struct diag_pystack *ps = f->pystack;
	if (!ps || !ps->n_frames)
		return;
	dbuf_puts(b, "\nPython stack (innermost first):\n");
	size_t folded = 0;
	for (size_t i = 0; i < ps->n_frames; i++) {
		const struct diag_pyf *fr = &ps->frames[i];
		if (fr->library) {
			folded++;
			continue;
		}
		if (folded)
			dbuf_printf(b, "  ... %zu library frame%s\n", folded,
				    folded == 1 ? "" : "s");
		folded = 0;
		char line[1200];
		snprintf(line, sizeof line, "%s:%u in %s", fr->file, fr->line,
			 fr->func);
		dbuf_puts(b, "  ");
		t_wrap(b, line, 4, 2, 100);
		dbuf_putc(b, '\n');
	}
	if (folded)
		dbuf_printf(b, "  ... %zu library frame%s\n", folded,
			    folded == 1 ? "" : "s");
}

static void t_exit(struct dbuf *b, const struct diag_fault *f)
{
	char line[256];
	if (f->exited) {
		if (f->exit_signal)
			snprintf(line, sizeof line, "killed by %s", f->exit_signal);
		else
			snprintf(line, sizeof line, "status %d", f->exit_code);
		t_field(b, "exit", line);
	}
	t_field(b, "error", f->error_line);
	t_field(b, "coredump", f->core_path);
}

static void t_asserts(struct dbuf *b, const struct diag_fault *f)
{
	if (!f->n_asserts)
		return;
	dbuf_printf(b, "\nAssertions (%llu lines):\n",
		    (unsigned long long)f->assert_total);
	for (size_t i = 0; i < f->n_asserts; i++) {
		const struct diag_assert_entry *e = f->asserts[i];
		char bl[48], bh[48], tl[48], th[48];
		fmt_dim(bl, sizeof bl, e->block_min);
		fmt_dim(bh, sizeof bh, e->block_max);
		fmt_dim(tl, sizeof tl, e->thread_min);
		fmt_dim(th, sizeof th, e->thread_max);
		dbuf_puts(b, "  ");
		t_esc(b, e->file);
		dbuf_printf(b, ":%u ", e->line);
		t_esc(b, e->kernel_short);
		dbuf_puts(b, ": `");
		t_esc(b, e->expr);
		dbuf_printf(b, "` x%llu; blocks %s..%s, threads %s..%s\n",
			    (unsigned long long)e->count, bl, bh, tl, th);
	}
}

/* A hang: the headline, then where the live threads are (hang.h). */
static void t_hang(struct dbuf *b, const struct diag_fault *f)
{
	if (!f->hang)
		return;
	char head[512];
	diag_hang_headline(f->hang, head, sizeof head);
	dbuf_puts(b, "\n");
	t_esc(b, head);
	dbuf_puts(b, "\n");
	char *lines = diag_hang_lines(f->hang);
	for (char *p = lines, *nl; p && *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		dbuf_puts(b, "  ");
		t_esc(b, p);
		dbuf_putc(b, '\n');
	}
	free(lines);
}

static void t_finding_where(struct dbuf *b, const struct diag_san_record *r)
{
	if (r->path) {
		dbuf_puts(b, "; at ");
		t_esc(b, r->path);
		dbuf_printf(b, ":%u", r->line);
	} else if (r->func) {
		dbuf_puts(b, "; in ");
		t_esc(b, r->func);
	}
}

/* One finding (a group of one), as it always was. */
static void t_finding(struct dbuf *b, size_t num,
		      const struct diag_san_record *r)
{
	char th[48], bl[48];
	dbuf_printf(b, "  %zu. %s", num, diag_san_kind_name(r->kind));
	const char *what = r->text ? r->text
			  : r->exception ? r->exception : r->error;
	if (what) {
		dbuf_puts(b, ": ");
		t_esc(b, what);
	}
	if (r->has_who && r->kind == DIAG_SAN_RACE) {
		/* a race names its block, not one thread */
		fmt_dim(bl, sizeof bl, r->block);
		dbuf_printf(b, "; block %s", bl);
	} else if (r->has_who) {
		fmt_dim(th, sizeof th, r->thread);
		fmt_dim(bl, sizeof bl, r->block);
		dbuf_printf(b, "; thread %s block %s", th, bl);
	}
	if (r->has_address)
		dbuf_printf(b, "; address 0x%llx",
			    (unsigned long long)r->address);
	if (r->has_alloc)
		dbuf_printf(b, "; %lld bytes %s an allocation of %llu "
			    "bytes at 0x%llx",
			    r->distance < 0 ? -r->distance : r->distance,
			    r->distance < 0 ? "before" : "after",
			    (unsigned long long)r->alloc_size,
			    (unsigned long long)r->alloc_address);
	t_finding_where(b, r);
	dbuf_putc(b, '\n');
}

/* "1..397 bytes after" / "8..16 bytes before" / both sides. */
static void t_distances(struct dbuf *b, const struct diag_finding_group *g)
{
	long long lo = g->distance_min, hi = g->distance_max;
	if (lo > 0 || hi < 0) {
		long long a = lo > 0 ? lo : -hi, z = lo > 0 ? hi : -lo;
		if (a == z)
			dbuf_printf(b, "%lld", a);
		else
			dbuf_printf(b, "%lld..%lld", a, z);
		dbuf_printf(b, " bytes %s", lo > 0 ? "after" : "before");
	} else {
		dbuf_printf(b, "from %lld bytes before to %lld bytes after",
			    -lo, hi);
	}
	dbuf_printf(b, " an allocation of %llu bytes at 0x%llx",
		    (unsigned long long)g->alloc_size,
		    (unsigned long long)g->alloc_address);
}

/* A group of records: the sentence and place once, then the count, the
 * ranges and the first record (its number is the one Enter replays). */
static void t_group(struct dbuf *b, const struct diag_fault *f,
		    const struct diag_finding_group *g)
{
	const struct diag_san_record *r = f->findings[g->first];
	char th[48], bl[48];
	dbuf_printf(b, "  %zu. %s", g->first + 1, diag_san_kind_name(r->kind));
	const char *what = r->text ? r->text
			  : r->exception ? r->exception : r->error;
	if (what) {
		dbuf_puts(b, ": ");
		t_esc(b, what);
	}
	t_finding_where(b, r);
	dbuf_printf(b, "\n       %zu findings", g->count);
	if (g->has_who) {
		dbuf_puts(b, ": threads ");
		dbuf_put_range(b, g->thread_min, g->thread_max);
		dbuf_puts(b, ", blocks ");
		dbuf_put_range(b, g->block_min, g->block_max);
	}
	dbuf_putc(b, '\n');
	if (g->has_address) {
		dbuf_printf(b, "       addresses 0x%llx..0x%llx",
			    (unsigned long long)g->address_min,
			    (unsigned long long)g->address_max);
		if (g->has_alloc) {
			dbuf_puts(b, ", ");
			t_distances(b, g);
		}
		dbuf_putc(b, '\n');
	}
	if (!r->has_who && !r->has_address)
		return;
	dbuf_puts(b, "       first:");
	if (r->has_who) {
		fmt_dim(th, sizeof th, r->thread);
		fmt_dim(bl, sizeof bl, r->block);
		dbuf_printf(b, " thread %s block %s", th, bl);
	}
	if (r->has_address)
		dbuf_printf(b, "%s address 0x%llx", r->has_who ? "," : "",
			    (unsigned long long)r->address);
	dbuf_printf(b, " (finding %zu)\n", g->first + 1);
}

/* Findings grouped by kind, place and access (diag/groups.c); each line
 * starts with the number of the group's first record, so the screen's
 * Enter on it replays to that record. */
static void t_findings(struct dbuf *b, const struct diag_fault *f)
{
	if (!f->n_findings)
		return;
	if (f->n_groups && f->n_groups < f->n_findings)
		dbuf_printf(b, "\nSanitizer findings (%zu, in %zu groups):\n",
			    f->n_findings, f->n_groups);
	else
		dbuf_printf(b, "\nSanitizer findings (%zu):\n", f->n_findings);
	if (!f->n_groups) {
		for (size_t i = 0; i < f->n_findings; i++)
			t_finding(b, i + 1, f->findings[i]);
		return;
	}
	for (size_t i = 0; i < f->n_groups; i++) {
		const struct diag_finding_group *g = &f->groups[i];
		if (g->count == 1)
			t_finding(b, g->first + 1, f->findings[g->first]);
		else
			t_group(b, f, g);
	}
}

static void t_frames(struct dbuf *b, const char *title,
		     const struct diag_frame *v, size_t n)
{
	if (!n)
		return;
	dbuf_printf(b, "\n%s:\n", title);
	for (size_t i = 0; i < n && i < 40; i++) {
		dbuf_printf(b, "  #%-2d ", v[i].level);
		t_esc(b, v[i].func ? v[i].func : "??");
		if (v[i].file) {
			dbuf_puts(b, " at ");
			t_esc(b, v[i].file);
			dbuf_printf(b, ":%u", v[i].line);
		} else if (v[i].from) {
			dbuf_puts(b, " from ");
			t_esc(b, v[i].from);
		}
		dbuf_putc(b, '\n');
	}
	if (n > 40)
		dbuf_printf(b, "  ... %zu more frames\n", n - 40);
}

static void t_values_notes(struct dbuf *b, const struct diag_fault *f)
{
	if (f->n_values) {
		dbuf_puts(b, "\nValues:\n");
		for (size_t i = 0; i < f->n_values && i < 40; i++) {
			dbuf_puts(b, "  ");
			t_esc(b, f->values[i].expr);
			dbuf_puts(b, " = ");
			t_esc(b, f->values[i].value);
			dbuf_putc(b, '\n');
		}
	}
	if (f->n_notes) {
		dbuf_puts(b, "\nNotes:\n");
		for (size_t i = 0; i < f->n_notes; i++) {
			dbuf_puts(b, "  - ");
			t_wrap(b, f->notes[i], 4, 4, 100);
			dbuf_putc(b, '\n');
		}
	}
}

/* How a screen action reads: the screen names its key, batch the action. */
static const char *action_label(const struct diag_report_in *in,
				enum diag_action a)
{
	if (in->action_labels && (unsigned)a < DIAG_ACT_COUNT &&
	    in->action_labels[a])
		return in->action_labels[a];
	return diag_action_name(a);
}

static void t_hint(struct dbuf *b, const struct diag_report_in *in,
		   const struct diag_hint *h, size_t i)
{
	dbuf_printf(b, "\n[%zu] ", i + 1);
	t_esc(b, h->title);
	dbuf_printf(b, "  (%s)\n", h->id);
	dbuf_puts(b, "    What happened:");
	t_wrap(b, h->what, 6, 18, 100);
	dbuf_putc(b, '\n');
	if (h->why) {
		dbuf_puts(b, "    Why:");
		t_wrap(b, h->why, 6, 8, 100);
		dbuf_putc(b, '\n');
	}
	if (h->n_evidence)
		dbuf_puts(b, "    Evidence:\n");
	for (size_t j = 0; j < h->n_evidence; j++) {
		dbuf_puts(b, "      - ");
		t_wrap(b, h->evidence[j], 8, 8, 100);
		dbuf_putc(b, '\n');
	}
	if (h->n_steps)
		dbuf_puts(b, "    Next:\n");
	for (size_t j = 0; j < h->n_steps; j++) {
		const struct diag_hint_step *s = &h->steps[j];
		dbuf_puts(b, "      - ");
		if (s->kind == DIAG_STEP_KEY)
			dbuf_printf(b, "[%s] ", action_label(in, s->action));
		else if (s->kind == DIAG_STEP_RUN)
			dbuf_puts(b, "run: ");
		else if (s->kind == DIAG_STEP_GDB)
			dbuf_puts(b, "debugger: ");
		t_wrap(b, s->text, 8, 8, 100);
		dbuf_putc(b, '\n');
	}
}

char *diag_report_text(const struct diag_report_in *in)
{
	struct dbuf b = {0};
	const struct diag_fault *f = in->fault;
	dbuf_put(&b, "", 0);
	if (!f) {
		dbuf_puts(&b, "cudbg-tui diagnosis: no fault found\n");
		if (in->error)
			t_field(&b, "error", in->error);
		return dbuf_take(&b);
	}
	t_summary(&b, f, in);
	t_focus(&b, f);
	t_python(&b, f);
	t_pyvalue(&b, f);
	t_exit(&b, f);
	if (in->memcheck_seconds >= 0) {
		char s[64];
		snprintf(s, sizeof s, "ran in %.1f s", in->memcheck_seconds);
		t_field(&b, "memcheck", s);
	}
	t_hang(&b, f);
	t_asserts(&b, f);
	t_findings(&b, f);
	t_pystack(&b, f);
	t_frames(&b, "Device stack", f->frames, f->n_frames);
	t_values_notes(&b, f);
	if (in->hints && in->hints->n) {
		dbuf_puts(&b, "\nHints:\n");
		for (size_t i = 0; i < in->hints->n; i++)
			t_hint(&b, in, &in->hints->v[i], i);
	}
	return dbuf_take(&b);
}

/* ---- JSON -------------------------------------------------------------- */

struct jw {
	struct dbuf b;
	bool first[32];   /* per nesting level: nothing written yet */
	int depth;
};

static void j_sep(struct jw *w)
{
	if (!w->first[w->depth])
		dbuf_putc(&w->b, ',');
	w->first[w->depth] = false;
}

static void j_open(struct jw *w, const char *key, char c)
{
	j_sep(w);
	if (key) {
		dbuf_put_json(&w->b, key);
		dbuf_putc(&w->b, ':');
	}
	dbuf_putc(&w->b, c);
	if (w->depth < 31)
		w->first[++w->depth] = true;
}

static void j_close(struct jw *w, char c)
{
	dbuf_putc(&w->b, c);
	if (w->depth > 0)
		w->depth--;
}

static void j_key(struct jw *w, const char *key)
{
	j_sep(w);
	if (key) {
		dbuf_put_json(&w->b, key);
		dbuf_putc(&w->b, ':');
	}
}

static void j_str(struct jw *w, const char *key, const char *v)
{
	j_key(w, key);
	if (v)
		dbuf_put_json(&w->b, v);
	else
		dbuf_puts(&w->b, "null");
}

static void j_int(struct jw *w, const char *key, long long v)
{
	j_key(w, key);
	dbuf_printf(&w->b, "%lld", v);
}

static void j_num_or_null(struct jw *w, const char *key, long long v, bool ok)
{
	j_key(w, key);
	if (ok)
		dbuf_printf(&w->b, "%lld", v);
	else
		dbuf_puts(&w->b, "null");
}

static void j_bool(struct jw *w, const char *key, bool v)
{
	j_key(w, key);
	dbuf_puts(&w->b, v ? "true" : "false");
}

static void j_hex(struct jw *w, const char *key, uint64_t v, bool ok)
{
	char s[32];
	snprintf(s, sizeof s, "0x%llx", (unsigned long long)v);
	j_str(w, key, ok ? s : NULL);
}

static void j_dim(struct jw *w, const char *key, struct diag_dim3 v)
{
	j_key(w, key);
	dbuf_printf(&w->b, "[%u,%u,%u]", v.x, v.y, v.z);
}

static void j_exception(struct jw *w, const struct diag_fault *f)
{
	if (!f->signal_name && !f->exception_name) {
		j_str(w, "exception", NULL);
		return;
	}
	j_open(w, "exception", '{');
	j_str(w, "signal", f->signal_name);
	j_num_or_null(w, "code", f->exception_code, f->exception_code >= 0);
	j_str(w, "name", f->exception_name);
	j_str(w, "meaning", f->signal_meaning);
	j_str(w, "message", f->exception_message);
	j_str(w, "explanation", f->explanation);
	j_str(w, "scope", f->scope);
	j_bool(w, "lane_known", !f->flags[DIAG_F_LANE_UNKNOWN]);
	j_close(w, '}');
}

static void j_focus(struct jw *w, const struct diag_fault *f)
{
	const struct diag_focus *c = &f->focus;
	if (!c->valid) {
		j_str(w, "focus", NULL);
		return;
	}
	j_open(w, "focus", '{');
	j_num_or_null(w, "device", c->device, c->device >= 0);
	j_num_or_null(w, "sm", c->sm, c->sm >= 0);
	j_num_or_null(w, "warp", c->warp, c->warp >= 0);
	j_num_or_null(w, "lane", c->lane, c->lane >= 0);
	j_num_or_null(w, "kernel", c->kernel, c->kernel >= 0);
	j_num_or_null(w, "grid", c->grid, c->grid >= 0);
	j_dim(w, "block", c->block);
	j_dim(w, "thread", c->thread);
	if (c->has_cluster) {
		j_dim(w, "cluster", c->cluster);
		j_dim(w, "cluster_dim", c->cluster_dim);
	} else { /* never left out (docs/report-schema.md) */
		j_str(w, "cluster", NULL);
		j_str(w, "cluster_dim", NULL);
	}
	j_close(w, '}');
}

static void j_frames(struct jw *w, const char *key, const struct diag_frame *v,
		     size_t n)
{
	j_open(w, key, '[');
	for (size_t i = 0; i < n; i++) {
		j_open(w, NULL, '{');
		j_int(w, "level", v[i].level);
		j_str(w, "function", v[i].func);
		j_str(w, "file", v[i].file);
		j_str(w, "fullname", v[i].fullname);
		j_num_or_null(w, "line", v[i].line, v[i].line > 0);
		j_str(w, "from", v[i].from);
		j_hex(w, "address", v[i].addr, v[i].addr != 0);
		j_close(w, '}');
	}
	j_close(w, ']');
}

static void j_pyframe(struct jw *w, const char *key,
		      const struct diag_pyframe *p)
{
	j_open(w, key, '{');
	j_str(w, "file", p->file);
	j_int(w, "line", p->line);
	j_str(w, "function", p->func);
	j_str(w, "source", p->source);
	j_close(w, '}');
}

static void j_pystack(struct jw *w, const struct diag_fault *f)
{
	const struct diag_pystack *ps = f->pystack;
	j_str(w, "bad_value", f->bad_value);
	j_str(w, "python_stack_missing", ps ? NULL : f->pystack_why);
	if (!ps) {
		j_str(w, "python_stack", NULL);
		return;
	}
	j_open(w, "python_stack", '[');
	for (size_t i = 0; i < ps->n_frames; i++) {
		j_open(w, NULL, '{');
		j_str(w, "file", ps->frames[i].file);
		j_int(w, "line", ps->frames[i].line);
		j_str(w, "function", ps->frames[i].func);
		j_bool(w, "library", ps->frames[i].library);
		j_close(w, '}');
	}
	j_close(w, ']');
}

static void j_asserts(struct jw *w, const struct diag_fault *f)
{
	j_int(w, "assertion_lines", (long long)f->assert_total);
	j_open(w, "assertions", '[');
	for (size_t i = 0; i < f->n_asserts; i++) {
		const struct diag_assert_entry *e = f->asserts[i];
		j_open(w, NULL, '{');
		j_str(w, "file", e->file);
		j_int(w, "line", e->line);
		j_str(w, "kernel", e->kernel);
		j_str(w, "kernel_name", e->kernel_short);
		j_str(w, "expression", e->expr);
		j_int(w, "count", (long long)e->count);
		j_dim(w, "block_min", e->block_min);
		j_dim(w, "block_max", e->block_max);
		j_dim(w, "thread_min", e->thread_min);
		j_dim(w, "thread_max", e->thread_max);
		j_open(w, "examples", '[');
		for (unsigned k = 0; k < e->n_examples; k++) {
			j_open(w, NULL, '{');
			j_dim(w, "block", e->first_block[k]);
			j_dim(w, "thread", e->first_thread[k]);
			j_close(w, '}');
		}
		j_close(w, ']');
		j_close(w, '}');
	}
	j_close(w, ']');
}

static void j_finding(struct jw *w, const struct diag_san_record *r)
{
	j_open(w, NULL, '{');
	j_str(w, "kind", diag_san_kind_name(r->kind));
	j_str(w, "level", r->level);
	j_str(w, "error", r->error);
	j_str(w, "exception", r->exception);
	j_str(w, "text", r->text);
	if (r->has_who && r->kind == DIAG_SAN_RACE) {
		j_str(w, "thread", NULL); /* a race names its block only */
		j_dim(w, "block", r->block);
	} else if (r->has_who) {
		j_dim(w, "thread", r->thread);
		j_dim(w, "block", r->block);
	} else {
		j_str(w, "thread", NULL);
		j_str(w, "block", NULL);
	}
	j_num_or_null(w, "size", r->size, r->size > 0);
	j_str(w, "direction", r->direction);
	j_str(w, "space", r->space);
	j_hex(w, "address", r->address, r->has_address);
	if (r->kind == DIAG_SAN_RACE) { /* racecheck: the pair */
		j_str(w, "hazard", r->hazard);
		j_num_or_null(w, "hazards", (long long)r->hazards,
			      r->hazards > 0);
		j_open(w, "other_access", '{');
		j_str(w, "direction", r->direction2);
		j_str(w, "function", r->func2);
		j_str(w, "file", r->path2);
		j_num_or_null(w, "line", r->line2, r->line2 > 0);
		j_close(w, '}');
	} else { /* null, never left out (docs/report-schema.md) */
		j_str(w, "hazard", NULL);
		j_str(w, "hazards", NULL);
		j_str(w, "other_access", NULL);
	}
	j_str(w, "function", r->func);
	j_str(w, "file", r->path);
	j_num_or_null(w, "line", r->line, r->line > 0);
	j_hex(w, "pc", r->pc, r->has_pc);
	j_str(w, "api", r->api);
	j_str(w, "message", r->message);
	if (r->has_alloc) {
		j_open(w, "allocation", '{');
		j_hex(w, "address", r->alloc_address, true);
		j_int(w, "size", (long long)r->alloc_size);
		j_int(w, "distance", r->distance);
		j_close(w, '}');
	} else {
		j_str(w, "allocation", NULL);
	}
	j_open(w, "python_frames", '[');
	for (size_t i = 0; i < r->n_host; i++) {
		if (!r->host[i].python)
			continue;
		j_open(w, NULL, '{');
		j_str(w, "function", r->host[i].func);
		j_str(w, "file", r->host[i].path);
		j_int(w, "line", r->host[i].line);
		j_close(w, '}');
	}
	j_close(w, ']');
	j_int(w, "host_frames", (long long)r->n_host);
	j_close(w, '}');
}

/* A group of findings (diag/groups.c); `first` indexes "findings". */
static void j_group(struct jw *w, const struct diag_fault *f,
		    const struct diag_finding_group *g)
{
	const struct diag_san_record *r = f->findings[g->first];
	j_open(w, NULL, '{');
	j_int(w, "first", (long long)g->first);
	j_int(w, "count", (long long)g->count);
	j_str(w, "kind", diag_san_kind_name(r->kind));
	j_str(w, "text", r->text ? r->text : r->exception ? r->exception
							  : r->error);
	j_str(w, "function", r->func);
	j_str(w, "file", r->path);
	j_num_or_null(w, "line", r->line, r->line > 0);
	j_num_or_null(w, "size", r->size, r->size > 0);
	if (g->has_who) {
		j_dim(w, "thread_min", g->thread_min);
		j_dim(w, "thread_max", g->thread_max);
		j_dim(w, "block_min", g->block_min);
		j_dim(w, "block_max", g->block_max);
	} else {
		j_str(w, "thread_min", NULL);
		j_str(w, "thread_max", NULL);
		j_str(w, "block_min", NULL);
		j_str(w, "block_max", NULL);
	}
	j_hex(w, "address_min", g->address_min, g->has_address);
	j_hex(w, "address_max", g->address_max, g->has_address);
	if (g->has_alloc) {
		j_open(w, "allocation", '{');
		j_hex(w, "address", g->alloc_address, true);
		j_int(w, "size", (long long)g->alloc_size);
		j_int(w, "distance_min", g->distance_min);
		j_int(w, "distance_max", g->distance_max);
		j_close(w, '}');
	} else {
		j_str(w, "allocation", NULL);
	}
	j_close(w, '}');
}

static void j_hints(struct jw *w, const struct diag_hints *h)
{
	j_open(w, "hints", '[');
	for (size_t i = 0; h && i < h->n; i++) {
		const struct diag_hint *x = &h->v[i];
		j_open(w, NULL, '{');
		j_str(w, "id", x->id);
		j_int(w, "priority", x->priority);
		j_str(w, "title", x->title);
		j_str(w, "what", x->what);
		j_str(w, "why", x->why);
		j_open(w, "evidence", '[');
		for (size_t k = 0; k < x->n_evidence; k++)
			j_str(w, NULL, x->evidence[k]);
		j_close(w, ']');
		j_open(w, "steps", '[');
		for (size_t k = 0; k < x->n_steps; k++) {
			const struct diag_hint_step *s = &x->steps[k];
			j_open(w, NULL, '{');
			j_str(w, "kind", step_kind_name(s->kind));
			j_str(w, "action", s->kind == DIAG_STEP_KEY
					   ? diag_action_name(s->action) : NULL);
			j_str(w, "text", s->text);
			j_close(w, '}');
		}
		j_close(w, ']');
		j_close(w, '}');
	}
	j_close(w, ']');
}

static void j_rest(struct jw *w, const struct diag_fault *f)
{
	j_str(w, "operator", f->op);
	j_str(w, "operator_outer", f->op_outer);
	j_str(w, "host_operator_later", f->host_op_later);
	if (f->python.found) {
		j_open(w, "python", '{');
		j_pyframe(w, "call", &f->python.call);
		j_pyframe(w, "launch", &f->python.launch);
		j_close(w, '}');
	} else {
		j_str(w, "python", NULL);
	}
	j_pystack(w, f);
	j_asserts(w, f);
	j_open(w, "findings", '[');
	for (size_t i = 0; i < f->n_findings; i++)
		j_finding(w, f->findings[i]);
	j_close(w, ']');
	j_open(w, "finding_groups", '[');
	for (size_t i = 0; i < f->n_groups; i++)
		j_group(w, f, &f->groups[i]);
	j_close(w, ']');
	j_str(w, "coredump", f->core_path);
	if (f->exited) {
		j_open(w, "exit", '{');
		j_num_or_null(w, "code", f->exit_code, !f->exit_signal);
		j_str(w, "signal", f->exit_signal);
		j_close(w, '}');
	} else {
		j_str(w, "exit", NULL);
	}
	j_str(w, "error_line", f->error_line);
	j_open(w, "values", '{');
	for (size_t i = 0; i < f->n_values; i++)
		j_str(w, f->values[i].expr, f->values[i].value);
	j_close(w, '}');
	j_open(w, "notes", '[');
	for (size_t i = 0; i < f->n_notes; i++)
		j_str(w, NULL, f->notes[i]);
	j_close(w, ']');
	j_open(w, "facts", '[');
	for (int i = 0; i < DIAG_F_COUNT; i++)
		if (f->flags[i])
			j_str(w, NULL, diag_flag_name((enum diag_flag)i));
	j_close(w, ']');
}

static const char *const hang_waits[] = {
	[DIAG_HANG_RUNNING] = "none",
	[DIAG_HANG_SPIN] = "spin",
	[DIAG_HANG_BARRIER] = "barrier",
};

/* "hang": {...} (docs/report-schema.md), null when not a hang. */
static void j_hang(struct jw *w, const struct diag_hang *h)
{
	if (!h) {
		j_str(w, "hang", NULL);
		return;
	}
	char head[512];
	diag_hang_headline(h, head, sizeof head);
	j_open(w, "hang", '{');
	j_str(w, "headline", head);
	j_int(w, "seconds", (long long)(h->seconds + 0.5));
	j_bool(w, "recorded", h->recorded);
	j_bool(w, "device", h->device);
	j_str(w, "kernel", h->kernel);
	j_num_or_null(w, "threads_live", h->threads_live, h->device);
	j_num_or_null(w, "blocks_live", h->blocks_live, h->device);
	j_num_or_null(w, "blocks_total", h->blocks_total, h->blocks_total > 0);
	j_num_or_null(w, "block_size", h->block_size, h->block_size > 0);
	j_open(w, "places", '[');
	for (size_t i = 0; i < h->n_groups; i++) {
		const struct diag_hang_group *g = &h->groups[i];
		j_open(w, NULL, '{');
		j_dim(w, "block_from", g->block_lo);
		j_dim(w, "block_to", g->block_hi);
		j_num_or_null(w, "blocks", g->blocks, g->blocks >= 0);
		j_int(w, "threads", g->threads);
		j_str(w, "file", g->file);
		j_num_or_null(w, "line", g->line, g->line > 0);
		j_hex(w, "pc", g->pc, true);
		j_str(w, "source", g->source);
		j_str(w, "wait", hang_waits[g->wait]);
		j_close(w, '}');
	}
	j_close(w, ']');
	if (h->barrier_divergent) {
		j_open(w, "barrier_divergent", '{');
		j_dim(w, "block", h->barrier_block);
		j_int(w, "threads_at_barrier", h->barrier_threads);
		j_close(w, '}');
	} else {
		j_str(w, "barrier_divergent", NULL);
	}
	j_bool(w, "spin", h->spin);
	j_bool(w, "all_waiting", h->all_waiting);
	j_open(w, "host", '{');
	j_str(w, "file", h->host_file);
	j_num_or_null(w, "line", h->host_line, h->host_line > 0);
	j_str(w, "function", h->host_func);
	j_close(w, '}');
	j_close(w, '}');
}

char *diag_report_json(const struct diag_report_in *in)
{
	struct jw w = {.first = {true}};
	/* No fault account (an error before any diagnosis): every member
	 * still written, null or empty (docs/report-schema.md). */
	static const struct diag_fault no_fault;
	const struct diag_fault *f = in->fault ? in->fault : &no_fault;
	j_open(&w, NULL, '{');
	j_str(&w, "schema", "cudbg-tui/diagnosis/1");
	j_bool(&w, "fault", diag_report_exit_code(in) == DIAG_EXIT_FAULT ||
				    f->kind != DIAG_FAULT_NONE);
	j_int(&w, "exit_status", diag_report_exit_code(in));
	j_str(&w, "kind", diag_fault_kind_name(f->kind));
	j_str(&w, "mode", in->mode);
	j_str(&w, "stop_reason", in->stop_reason);
	j_str(&w, "error", in->error);
	if (in->memcheck_seconds >= 0) {
		j_open(&w, "memcheck", '{');
		j_int(&w, "milliseconds",
		      (long long)(in->memcheck_seconds * 1000 + 0.5));
		j_close(&w, '}');
	} else {
		j_str(&w, "memcheck", NULL);
	}
	{ /* the fault account */
		j_exception(&w, f);
		j_open(&w, "kernel", '{');
		j_str(&w, "name", f->kernel_short);
		j_str(&w, "full", f->kernel);
		j_close(&w, '}');
		j_open(&w, "location", '{');
		j_str(&w, "file", f->where.file);
		j_str(&w, "fullname", f->where.fullname);
		j_num_or_null(&w, "line", f->where.line, f->where.line > 0);
		j_str(&w, "function", f->where.func);
		j_str(&w, "source", loc_source_name(f->where.source));
		j_close(&w, '}');
		j_focus(&w, f);
		j_open(&w, "pc", '{');
		j_hex(&w, "error", f->error_pc, f->has_error_pc);
		j_hex(&w, "stop", f->stop_pc, f->has_stop_pc);
		j_close(&w, '}');
		j_frames(&w, "frames", f->frames, f->n_frames);
		j_frames(&w, "host_frames", f->host_frames, f->n_host_frames);
		j_hang(&w, f->hang);
		j_rest(&w, f);
	}
	j_hints(&w, in->hints);
	j_close(&w, '}');
	dbuf_putc(&w.b, '\n');
	return dbuf_take(&w.b);
}
