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
	/* nothing found, and the pass that would have looked failed */
	if (in->fault->kind == DIAG_FAULT_NONE && in->fault->pass_failed)
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
		text_escape(b, s, strlen(s), 0);
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

/* No fault: found none, or the session failed before one could be seen
 * (then "no fault found" would be false comfort). */
static void t_no_fault(struct dbuf *b, const struct diag_report_in *in)
{
	if (in->error)
		dbuf_puts(b, "cudbg-tui diagnosis: incomplete: the session "
			  "failed before a fault could be seen\n");
	else if (in->fault && in->fault->pass_failed)
		dbuf_puts(b, "cudbg-tui diagnosis: incomplete: no fault seen, "
			  "but the sanitizer pass failed\n");
	else
		dbuf_puts(b, "cudbg-tui diagnosis: no fault found\n");
}

/* The header names the tool that found it: a racecheck finding is no
 * memcheck one (the JSON's kind stays the class, "memcheck"). */
static const char *fault_tool_name(const struct diag_fault *f)
{
	if (f->kind == DIAG_FAULT_MEMCHECK && f->finding) {
		switch (f->finding->kind) {
		case DIAG_SAN_RACE: return "racecheck";
		case DIAG_SAN_UNINIT: return "initcheck";
		case DIAG_SAN_SYNC: return "synccheck";
		default: break;
		}
	}
	return diag_fault_kind_name(f->kind);
}

const char *diag_fault_headline(const struct diag_fault *f, char *buf,
				size_t cap, enum diag_headline_kind *which)
{
	const char *exc = f->exception_name ? f->exception_name
					    : f->signal_meaning;
	enum diag_headline_kind k;
	if (f->hang) {
		k = DIAG_HEAD_HANG;
		diag_hang_headline(f->hang, buf, cap);
	} else if (f->kind == DIAG_FAULT_MEMCHECK && f->finding &&
		   f->finding->text) {
		/* before the signal: a sanitizer's coredump says SIGTRAP,
		 * which is how the sanitizer stopped, not what went wrong */
		k = DIAG_HEAD_FINDING;
		snprintf(buf, cap, "memcheck: %s", f->finding->text);
	} else if (exc) {
		k = DIAG_HEAD_EXCEPTION;
		snprintf(buf, cap, "%s", exc);
	} else if (f->exited && f->exit_signal) {
		k = DIAG_HEAD_KILLED;
		snprintf(buf, cap, "The program was killed by %s", f->exit_signal);
	} else if (f->exited) {
		k = DIAG_HEAD_EXITED;
		snprintf(buf, cap, "The program exited with status %d%s",
			 f->exit_code,
			 f->kind == DIAG_FAULT_NONE ? ": no fault seen" : "");
	} else {
		k = DIAG_HEAD_CLASS;
		snprintf(buf, cap, "%s", diag_fault_kind_name(f->kind));
	}
	if (which)
		*which = k;
	return buf;
}

void diag_report_access_text(const struct diag_host_access *a, char *line,
			     size_t cap)
{
	char idx[200] = "";
	unsigned long long at = a->address;
	if (a->has_index)
		snprintf(idx, sizeof idx, ", %s = %lld", a->index, a->index_value);
	if (!a->expr && a->line_checked)
		snprintf(line, cap, "address 0x%llx (none of the line's "
			 "dereferences is there)", at);
	else if (!a->expr)
		snprintf(line, cap, "address 0x%llx", at);
	else if (a->has_base && a->base_value == 0)
		snprintf(line, cap, "%s at 0x%llx: %s is NULL", a->expr, at,
			 a->base);
	else if (a->has_base)
		snprintf(line, cap, "%s at 0x%llx (%s = 0x%llx%s)", a->expr, at,
			 a->base, (unsigned long long)a->base_value, idx);
	else
		snprintf(line, cap, "%s at 0x%llx", a->expr, at);
}

static void t_access(struct dbuf *b, const struct diag_host_access *a)
{
	if (!a)
		return;
	char line[640];
	diag_report_access_text(a, line, sizeof line);
	t_field(b, "access", line);
}

static void t_summary(struct dbuf *b, const struct diag_fault *f,
		      const struct diag_report_in *in)
{
	char line[1024];
	if (f->kind == DIAG_FAULT_NONE)
		t_no_fault(b, in);
	else
		dbuf_printf(b, "cudbg-tui diagnosis: FAULT (%s)\n",
			    fault_tool_name(f));
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
		t_field(b, "source", f->where.text);
	}
	if (f->caller.file && f->caller.func) {
		snprintf(line, sizeof line, "%s at %s:%u%s%s", f->caller.func,
			 f->caller.file, f->caller.line,
			 f->caller.text ? ": " : "",
			 f->caller.text ? f->caller.text : "");
		t_field(b, "caller", line);
	}
	t_access(b, f->host_access);
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

/* A C or C++ program's own line on the host stack at the device stop. */
static void t_host_line(struct dbuf *b, const struct diag_fault *f)
{
	const struct diag_host_line *h = &f->host_line;
	if (!h->func)
		return;
	char line[1024], where[600];
	if (h->file)
		snprintf(where, sizeof where, " at %s:%u", h->file, h->line);
	else
		snprintf(where, sizeof where, " (no line information: its "
			 "host code was built without -g)");
	snprintf(line, sizeof line, "%s%s%s%s%s%s", h->func, where,
		 h->api ? " (" : "", h->api ? h->api : "",
		 h->api ? ")" : "", h->at_launch ? "" : "; the host had moved "
		 "on from the launch (run with launch blocking for the launch "
		 "line)");
	t_field(b, h->at_launch ? "launched" : "host at", line);
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

/* Identical frames of a recursion shown before their count. */
enum { PY_REPEAT_SHOWN = 3 };

static bool same_pyframe(const struct diag_pyf *a, const struct diag_pyf *b)
{
	return a->line == b->line && a->library == b->library &&
	       a->file && b->file && strcmp(a->file, b->file) == 0 &&
	       a->func && b->func && strcmp(a->func, b->func) == 0;
}

static void t_pystack(struct dbuf *b, const struct diag_fault *f)
{
	const struct diag_pystack *ps = f->pystack;
	if (!ps || !ps->n_frames)
		return;
	dbuf_puts(b, ps->from_memory
		  ? "\nPython stack (innermost first, read from memory):\n"
		  : "\nPython stack (innermost first):\n");
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
		/* a recursion's frames at one line: three, then their count
		 * (CPython's own traceback cuts the same way: "[Previous
		 * line repeated N more times]") */
		size_t same = 0;
		while (i + 1 + same < ps->n_frames &&
		       same_pyframe(fr, &ps->frames[i + 1 + same]))
			same++;
		if (same > PY_REPEAT_SHOWN - 1) {
			for (size_t k = 1; k < PY_REPEAT_SHOWN; k++) {
				dbuf_puts(b, "  ");
				t_wrap(b, line, 4, 2, 100);
				dbuf_putc(b, '\n');
			}
			size_t rest = same - (PY_REPEAT_SHOWN - 1);
			if (rest)
				dbuf_printf(b, "  ... the line above %zu more "
					    "time%s\n", rest, rest == 1 ? "" : "s");
			i += same;
		}
	}
	if (folded)
		dbuf_printf(b, "  ... %zu library frame%s\n", folded,
			    folded == 1 ? "" : "s");
}

/* A host failure's own words: the live run's last output lines (the
 * traceback, the error a library printed), which a batch run does not
 * show otherwise. */
static void t_output_tail(struct dbuf *b, const struct diag_fault *f)
{
	if (!f->n_output_tail || (f->kind != DIAG_FAULT_EXIT &&
				  f->kind != DIAG_FAULT_HOST_SIGNAL &&
				  f->kind != DIAG_FAULT_CUDA_ERROR))
		return;
	if (f->output_total > f->n_output_tail)
		dbuf_printf(b, "\nProgram output (last %zu of %llu lines):\n",
			    f->n_output_tail, f->output_total);
	else
		dbuf_puts(b, "\nProgram output:\n");
	for (size_t i = 0; i < f->n_output_tail; i++) {
		dbuf_puts(b, "  | ");
		t_esc(b, f->output_tail[i]);
		dbuf_putc(b, '\n');
	}
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
	/* a Python exception that is no CUDA error (python-host-error) */
	t_field(b, "raised", f->py_exception);
	/* the interpreter ran none of the script (python-not-started) */
	t_field(b, "not run", f->py_start_error);
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
	char *lines = diag_hang_lines(f->hang, diag_hang_user_line(f));
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

void diag_report_tags_free(struct diag_report_tags *t)
{
	if (!t)
		return;
	free(t->v);
	*t = (struct diag_report_tags){ 0 };
}

/* The line being written (b's newlines so far) gets a tag. */
static void tag_line(struct diag_report_tags *t, const struct dbuf *b,
		     enum diag_line_kind kind, int value)
{
	if (!t || !b->s)
		return;
	for (; t->counted < b->len; t->counted++)
		t->lines += b->s[t->counted] == '\n';
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct diag_line_tag *v = realloc(t->v, cap * sizeof *v);
		if (!v)
			return;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = (struct diag_line_tag){ t->lines, kind, value };
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
		diag_put_range(b, g->thread_min, g->thread_max);
		dbuf_puts(b, ", blocks ");
		diag_put_range(b, g->block_min, g->block_max);
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
static void t_findings(struct dbuf *b, const struct diag_fault *f,
		       struct diag_report_tags *tags)
{
	if (!f->n_findings)
		return;
	if (f->n_groups && f->n_groups < f->n_findings)
		dbuf_printf(b, "\nSanitizer findings (%zu, in %zu groups):\n",
			    f->n_findings, f->n_groups);
	else
		dbuf_printf(b, "\nSanitizer findings (%zu):\n", f->n_findings);
	if (!f->n_groups) {
		for (size_t i = 0; i < f->n_findings; i++) {
			tag_line(tags, b, DIAG_LINE_FINDING, (int)i + 1);
			t_finding(b, i + 1, f->findings[i]);
		}
		return;
	}
	for (size_t i = 0; i < f->n_groups; i++) {
		const struct diag_finding_group *g = &f->groups[i];
		tag_line(tags, b, DIAG_LINE_FINDING, (int)g->first + 1);
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
		if (s->kind == DIAG_STEP_KEY) {
			tag_line(in->tags, b, DIAG_LINE_ACTION, (int)s->action);
			dbuf_printf(b, "[%s] ", action_label(in, s->action));
		}
		else if (s->kind == DIAG_STEP_RUN)
			dbuf_puts(b, "run: ");
		else if (s->kind == DIAG_STEP_GDB)
			dbuf_puts(b, "debugger: ");
		t_wrap(b, s->text, 8, 8, 100);
		dbuf_putc(b, '\n');
	}
}

/* The pass's line: how long it ran and why it stopped, or why it gave
 * no report (never "ran in 0.0 s" for a pass that failed). */
static void t_memcheck(struct dbuf *b, const struct diag_fault *f,
		       const struct diag_report_in *in)
{
	char s[1400];
	if (f->pass_failed && in->memcheck_seconds >= 0)
		snprintf(s, sizeof s, "FAILED after %.1f s: %s",
			 in->memcheck_seconds, f->pass_failed);
	else if (f->pass_failed)
		snprintf(s, sizeof s, "FAILED: %s", f->pass_failed);
	else if (in->memcheck_seconds >= 0)
		snprintf(s, sizeof s, "ran in %.1f s%s%s", in->memcheck_seconds,
			 in->memcheck_stopped ? "; " : "",
			 in->memcheck_stopped ? in->memcheck_stopped : "");
	else
		return;
	t_field(b, "memcheck", s);
}

char *diag_report_text(const struct diag_report_in *in)
{
	struct dbuf b = {0};
	const struct diag_fault *f = in->fault;
	if (in->tags) {
		diag_report_tags_free(in->tags);
	}
	dbuf_put(&b, "", 0);
	if (!f) {
		t_no_fault(&b, in);
		if (in->error)
			t_field(&b, "error", in->error);
		return dbuf_take(&b);
	}
	t_summary(&b, f, in);
	t_focus(&b, f);
	t_host_line(&b, f);
	t_python(&b, f);
	t_pyvalue(&b, f);
	t_exit(&b, f);
	t_memcheck(&b, f, in);
	t_hang(&b, f);
	t_asserts(&b, f);
	t_findings(&b, f, in->tags);
	t_pystack(&b, f);
	t_output_tail(&b, f);
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

/* The report's three numbers of a block or thread index, as [x,y,z]. */
static void j_dim(struct jw *w, const char *key, struct diag_dim3 v)
{
	jw_arr(w, key);
	jw_uint(w, NULL, v.x);
	jw_uint(w, NULL, v.y);
	jw_uint(w, NULL, v.z);
	jw_end(w);
}

/* The user's line on the host stack: null when none. */
static void j_host_line(struct jw *w, const struct diag_host_line *h)
{
	if (!h->func) {
		jw_null(w, "host_line");
		return;
	}
	jw_obj(w, "host_line");
	jw_text(w, "function", h->func, strlen(h->func));
	if (h->file) {
		jw_text(w, "file", h->file, strlen(h->file));
		jw_int(w, "line", h->line);
	} else { /* no line information */
		jw_null(w, "file");
		jw_null(w, "line");
	}
	if (h->api)
		jw_text(w, "api", h->api, strlen(h->api));
	else
		jw_null(w, "api");
	jw_bool(w, "at_launch", h->at_launch);
	jw_end(w);
}

/* The culprit-lane search: null when it did not run. */
static void j_culprit(struct jw *w, const struct diag_culprit *c)
{
	if (!c->searched) {
		jw_null(w, "culprit");
		return;
	}
	jw_obj(w, "culprit");
	jw_bool(w, "found", c->found);
	jw_int_or_null(w, "lane", c->lane, c->found);
	if (c->found)
		j_dim(w, "thread", c->thread);
	else
		jw_null(w, "thread");
	jw_hex(w, "address", c->addr, c->found);
	jw_str(w, "pointer", c->found ? c->var : NULL);
	jw_int_or_null(w, "offset", (long long)c->offset,
		       c->found && c->var);
	jw_int(w, "lanes", c->lanes);
	jw_int(w, "far", c->bad);
	if (c->inst)
		jw_text(w, "instruction", c->inst, strlen(c->inst));
	else
		jw_null(w, "instruction");
	/* (a search by the line's access that found the lane keeps the
	 * register search's reason, which no longer stands) */
	if (c->why && !c->found)
		jw_text(w, "why_not", c->why, strlen(c->why));
	else
		jw_null(w, "why_not");
	if (c->lvalue)
		jw_text(w, "lvalue", c->lvalue, strlen(c->lvalue));
	else
		jw_null(w, "lvalue");
	jw_end(w);
}

static void j_exception(struct jw *w, const struct diag_fault *f)
{
	if (!f->signal_name && !f->exception_name) {
		jw_str(w, "exception", NULL);
		return;
	}
	jw_obj(w, "exception");
	jw_str(w, "signal", f->signal_name);
	jw_int_or_null(w, "code", f->exception_code, f->exception_code >= 0);
	jw_str(w, "name", f->exception_name);
	jw_str(w, "meaning", f->signal_meaning);
	jw_str(w, "message", f->exception_message);
	jw_str(w, "explanation", f->explanation);
	jw_str(w, "scope", f->scope);
	jw_bool(w, "lane_known", !f->flags[DIAG_F_LANE_UNKNOWN]);
	j_culprit(w, &f->culprit);
	jw_end(w);
}

void diag_report_json_focus(struct jw *w, const char *key,
			    const struct diag_focus *c)
{
	if (!c->valid) {
		jw_null(w, key);
		return;
	}
	jw_obj(w, key);
	jw_int_or_null(w, "device", c->device, c->device >= 0);
	jw_int_or_null(w, "sm", c->sm, c->sm >= 0);
	jw_int_or_null(w, "warp", c->warp, c->warp >= 0);
	jw_int_or_null(w, "lane", c->lane, c->lane >= 0);
	jw_int_or_null(w, "kernel", c->kernel, c->kernel >= 0);
	jw_int_or_null(w, "grid", c->grid, c->grid >= 0);
	j_dim(w, "block", c->block);
	j_dim(w, "thread", c->thread);
	if (c->has_cluster) {
		j_dim(w, "cluster", c->cluster);
		j_dim(w, "cluster_dim", c->cluster_dim);
	} else { /* never left out (docs/report-schema.md) */
		jw_str(w, "cluster", NULL);
		jw_str(w, "cluster_dim", NULL);
	}
	jw_end(w);
}

/* location.access: a CPU crash's address and the line's dereference
 * there, or null. */
static void j_access(struct jw *w, const struct diag_host_access *a)
{
	if (!a) {
		jw_null(w, "access");
		return;
	}
	jw_obj(w, "access");
	jw_hex(w, "address", a->address, true);
	jw_str(w, "expression", a->expr);
	jw_str(w, "pointer", a->base);
	jw_hex(w, "pointer_value", a->base_value, a->has_base);
	jw_str(w, "index", a->index);
	jw_int_or_null(w, "index_value", a->index_value, a->has_index);
	jw_bool(w, "null", a->expr ? a->has_base && a->base_value == 0
				   : a->address < 4096);
	jw_end(w);
}

/* location.called_from: the caller of a CPU crash's frame, or null. */
static void j_caller(struct jw *w, const struct diag_loc *c)
{
	if (!c->file || !c->func) {
		jw_null(w, "called_from");
		return;
	}
	jw_obj(w, "called_from");
	jw_str(w, "function", c->func);
	jw_str(w, "file", c->file);
	jw_str(w, "fullname", c->fullname);
	jw_int_or_null(w, "line", c->line, c->line > 0);
	if (c->text)
		jw_text(w, "text", c->text, strlen(c->text));
	else
		jw_null(w, "text");
	jw_end(w);
}

static void j_frames(struct jw *w, const char *key, const struct diag_frame *v,
		     size_t n)
{
	jw_arr(w, key);
	for (size_t i = 0; i < n; i++) {
		jw_obj(w, NULL);
		jw_int(w, "level", v[i].level);
		jw_str(w, "function", v[i].func);
		jw_str(w, "file", v[i].file);
		jw_str(w, "fullname", v[i].fullname);
		jw_int_or_null(w, "line", v[i].line, v[i].line > 0);
		jw_str(w, "from", v[i].from);
		jw_hex(w, "address", v[i].addr, v[i].addr != 0);
		jw_end(w);
	}
	jw_end(w);
}

static void j_pyframe(struct jw *w, const char *key,
		      const struct diag_pyframe *p)
{
	jw_obj(w, key);
	jw_str(w, "file", p->file);
	jw_int(w, "line", p->line);
	jw_str(w, "function", p->func);
	jw_str(w, "source", p->source);
	jw_end(w);
}

/* The live run's last output lines: null when it printed none. */
static void j_output_tail(struct jw *w, const struct diag_fault *f)
{
	if (!f->n_output_tail) {
		jw_null(w, "output_tail");
		return;
	}
	jw_obj(w, "output_tail");
	jw_uint(w, "lines_total", f->output_total);
	jw_arr(w, "last");
	for (size_t i = 0; i < f->n_output_tail; i++)
		jw_str(w, NULL, f->output_tail[i]);
	jw_end(w);
	jw_end(w);
}

static void j_pystack(struct jw *w, const struct diag_fault *f)
{
	const struct diag_pystack *ps = f->pystack;
	jw_str(w, "bad_value", f->bad_value);
	jw_str(w, "python_stack_missing", ps ? NULL : f->pystack_why);
	/* how it was had: a call into the interpreter, or its memory */
	jw_str(w, "python_stack_from", !ps ? NULL
	       : ps->from_memory ? "memory" : "call");
	if (!ps) {
		jw_str(w, "python_stack", NULL);
		return;
	}
	jw_arr(w, "python_stack");
	for (size_t i = 0; i < ps->n_frames; i++) {
		jw_obj(w, NULL);
		jw_str(w, "file", ps->frames[i].file);
		jw_int(w, "line", ps->frames[i].line);
		jw_str(w, "function", ps->frames[i].func);
		jw_bool(w, "library", ps->frames[i].library);
		jw_end(w);
	}
	jw_end(w);
}

static void j_asserts(struct jw *w, const struct diag_fault *f)
{
	jw_int(w, "assertion_lines", (long long)f->assert_total);
	jw_arr(w, "assertions");
	for (size_t i = 0; i < f->n_asserts; i++) {
		const struct diag_assert_entry *e = f->asserts[i];
		jw_obj(w, NULL);
		jw_str(w, "file", e->file);
		jw_int(w, "line", e->line);
		jw_str(w, "kernel", e->kernel);
		jw_str(w, "kernel_name", e->kernel_short);
		jw_str(w, "expression", e->expr);
		jw_int(w, "count", (long long)e->count);
		j_dim(w, "block_min", e->block_min);
		j_dim(w, "block_max", e->block_max);
		j_dim(w, "thread_min", e->thread_min);
		j_dim(w, "thread_max", e->thread_max);
		jw_arr(w, "examples");
		for (unsigned k = 0; k < e->n_examples; k++) {
			jw_obj(w, NULL);
			j_dim(w, "block", e->first_block[k]);
			j_dim(w, "thread", e->first_thread[k]);
			jw_end(w);
		}
		jw_end(w);
		jw_end(w);
	}
	jw_end(w);
}

static void j_finding(struct jw *w, const struct diag_san_record *r)
{
	jw_obj(w, NULL);
	jw_str(w, "kind", diag_san_kind_name(r->kind));
	jw_str(w, "level", r->level);
	jw_str(w, "error", r->error);
	jw_str(w, "exception", r->exception);
	jw_str(w, "text", r->text);
	if (r->has_who && r->kind == DIAG_SAN_RACE) {
		jw_str(w, "thread", NULL); /* a race names its block only */
		j_dim(w, "block", r->block);
	} else if (r->has_who) {
		j_dim(w, "thread", r->thread);
		j_dim(w, "block", r->block);
	} else {
		jw_str(w, "thread", NULL);
		jw_str(w, "block", NULL);
	}
	jw_int_or_null(w, "size", r->size, r->size > 0);
	jw_str(w, "direction", r->direction);
	jw_str(w, "space", r->space);
	jw_hex(w, "address", r->address, r->has_address);
	if (r->kind == DIAG_SAN_RACE) { /* racecheck: the pair */
		jw_str(w, "hazard", r->hazard);
		jw_int_or_null(w, "hazards", (long long)r->hazards,
			      r->hazards > 0);
		jw_obj(w, "other_access");
		jw_str(w, "direction", r->direction2);
		jw_str(w, "function", r->func2);
		jw_str(w, "file", r->path2);
		jw_int_or_null(w, "line", r->line2, r->line2 > 0);
		jw_end(w);
	} else { /* null, never left out (docs/report-schema.md) */
		jw_str(w, "hazard", NULL);
		jw_str(w, "hazards", NULL);
		jw_str(w, "other_access", NULL);
	}
	jw_str(w, "function", r->func);
	jw_str(w, "file", r->path);
	jw_int_or_null(w, "line", r->line, r->line > 0);
	jw_hex(w, "pc", r->pc, r->has_pc);
	jw_str(w, "api", r->api);
	jw_str(w, "message", r->message);
	if (r->has_alloc) {
		jw_obj(w, "allocation");
		jw_hex(w, "address", r->alloc_address, true);
		jw_int(w, "size", (long long)r->alloc_size);
		jw_int(w, "distance", r->distance);
		jw_end(w);
	} else {
		jw_str(w, "allocation", NULL);
	}
	jw_arr(w, "python_frames");
	for (size_t i = 0; i < r->n_host; i++) {
		if (!r->host[i].python)
			continue;
		jw_obj(w, NULL);
		jw_str(w, "function", r->host[i].func);
		jw_str(w, "file", r->host[i].path);
		jw_int(w, "line", r->host[i].line);
		jw_end(w);
	}
	jw_end(w);
	jw_int(w, "host_frames", (long long)r->n_host);
	jw_end(w);
}

/* A group of findings (diag/groups.c); `first` indexes "findings". */
static void j_group(struct jw *w, const struct diag_fault *f,
		    const struct diag_finding_group *g)
{
	const struct diag_san_record *r = f->findings[g->first];
	jw_obj(w, NULL);
	jw_int(w, "first", (long long)g->first);
	jw_int(w, "count", (long long)g->count);
	jw_str(w, "kind", diag_san_kind_name(r->kind));
	jw_str(w, "text", r->text ? r->text : r->exception ? r->exception
							  : r->error);
	jw_str(w, "function", r->func);
	jw_str(w, "file", r->path);
	jw_int_or_null(w, "line", r->line, r->line > 0);
	jw_int_or_null(w, "size", r->size, r->size > 0);
	if (g->has_who) {
		j_dim(w, "thread_min", g->thread_min);
		j_dim(w, "thread_max", g->thread_max);
		j_dim(w, "block_min", g->block_min);
		j_dim(w, "block_max", g->block_max);
	} else {
		jw_str(w, "thread_min", NULL);
		jw_str(w, "thread_max", NULL);
		jw_str(w, "block_min", NULL);
		jw_str(w, "block_max", NULL);
	}
	jw_hex(w, "address_min", g->address_min, g->has_address);
	jw_hex(w, "address_max", g->address_max, g->has_address);
	if (g->has_alloc) {
		jw_obj(w, "allocation");
		jw_hex(w, "address", g->alloc_address, true);
		jw_int(w, "size", (long long)g->alloc_size);
		jw_int(w, "distance_min", g->distance_min);
		jw_int(w, "distance_max", g->distance_max);
		jw_end(w);
	} else {
		jw_str(w, "allocation", NULL);
	}
	jw_end(w);
}

void diag_report_json_hints(struct jw *w, const struct diag_hints *h)
{
	jw_arr(w, "hints");
	for (size_t i = 0; h && i < h->n; i++) {
		const struct diag_hint *x = &h->v[i];
		jw_obj(w, NULL);
		jw_str(w, "id", x->id);
		jw_int(w, "priority", x->priority);
		jw_str(w, "title", x->title);
		jw_str(w, "what", x->what);
		jw_str(w, "why", x->why);
		jw_arr(w, "evidence");
		for (size_t k = 0; k < x->n_evidence; k++)
			jw_str(w, NULL, x->evidence[k]);
		jw_end(w);
		jw_arr(w, "steps");
		for (size_t k = 0; k < x->n_steps; k++) {
			const struct diag_hint_step *s = &x->steps[k];
			jw_obj(w, NULL);
			jw_str(w, "kind", step_kind_name(s->kind));
			jw_str(w, "action", s->kind == DIAG_STEP_KEY
					   ? diag_action_name(s->action) : NULL);
			jw_str(w, "text", s->text);
			jw_end(w);
		}
		jw_end(w);
		jw_end(w);
	}
	jw_end(w);
}

static void j_freed_site(struct jw *w, const char *key,
			 const struct diag_freed_site *s)
{
	jw_obj(w, key);
	jw_str(w, "api", s->api);
	jw_str(w, "function", s->func);
	jw_str(w, "file", s->file);
	jw_int_or_null(w, "line", s->line, s->line > 0);
	jw_end(w);
}

/* "allocation": the device allocation the bad address lies in, freed
 * (a use after free) or live (host code on device memory); null when
 * none (the allocation watch, diag_fault.freed). */
static void j_freed(struct jw *w, const struct diag_freed *f)
{
	if (!f->found && !f->in_live) {
		jw_null(w, "allocation");
		return;
	}
	jw_obj(w, "allocation");
	jw_hex(w, "address", f->addr, true);
	jw_hex(w, "base", f->base, true);
	jw_int(w, "size", (long long)f->size);
	j_freed_site(w, "allocated", &f->alloc);
	if (f->found)
		j_freed_site(w, "freed", &f->free);
	else
		jw_null(w, "freed");
	jw_end(w);
}

static void j_rest(struct jw *w, const struct diag_fault *f)
{
	jw_str(w, "operator", f->op);
	jw_str(w, "operator_outer", f->op_outer);
	jw_str(w, "host_operator_later", f->host_op_later);
	if (f->python.found) {
		jw_obj(w, "python");
		j_pyframe(w, "call", &f->python.call);
		j_pyframe(w, "launch", &f->python.launch);
		jw_end(w);
	} else {
		jw_str(w, "python", NULL);
	}
	j_pystack(w, f);
	j_asserts(w, f);
	jw_arr(w, "findings");
	for (size_t i = 0; i < f->n_findings; i++)
		j_finding(w, f->findings[i]);
	jw_end(w);
	jw_arr(w, "finding_groups");
	for (size_t i = 0; i < f->n_groups; i++)
		j_group(w, f, &f->groups[i]);
	jw_end(w);
	jw_str(w, "coredump", f->core_path);
	if (f->exited) {
		jw_obj(w, "exit");
		jw_int_or_null(w, "code", f->exit_code, !f->exit_signal);
		jw_str(w, "signal", f->exit_signal);
		jw_end(w);
	} else {
		jw_str(w, "exit", NULL);
	}
	jw_str(w, "error_line", f->error_line);
	jw_str(w, "python_exception", f->py_exception);
	jw_str(w, "python_start_error", f->py_start_error);
	j_freed(w, &f->freed);
	jw_arr(w, "child_deaths");
	for (size_t i = 0; i < f->n_child_deaths; i++) {
		const struct diag_child_death *c = &f->child_deaths[i];
		char sig[24];
		diag_signal_name(c->sig, sig, sizeof sig);
		jw_obj(w, NULL);
		jw_int(w, "pid", c->pid);
		jw_str(w, "signal", sig);
		jw_text(w, "command", c->cmd, strlen(c->cmd));
		jw_end(w);
	}
	jw_end(w);
	jw_str(w, "child_events_off", f->child_events_off);
	j_output_tail(w, f);
	jw_obj(w, "values");
	for (size_t i = 0; i < f->n_values; i++)
		jw_str(w, f->values[i].expr, f->values[i].value);
	jw_end(w);
	jw_arr(w, "notes");
	for (size_t i = 0; i < f->n_notes; i++)
		jw_str(w, NULL, f->notes[i]);
	jw_end(w);
	jw_arr(w, "facts");
	for (int i = 0; i < DIAG_F_COUNT; i++)
		if (f->flags[i])
			jw_str(w, NULL, diag_flag_name((enum diag_flag)i));
	jw_end(w);
}

static const char *const hang_waits[] = {
	[DIAG_HANG_RUNNING] = "none",
	[DIAG_HANG_SPIN] = "spin",
	[DIAG_HANG_BARRIER] = "barrier",
};

/* "hang": {...} (docs/report-schema.md), null when not a hang.  `user`:
 * the user's own line where the host thread stopped in code with no
 * source here (diag_hang_user_line): host names it, as the text does,
 * and host.inner the frame the thread was in. */
static void j_hang(struct jw *w, const struct diag_hang *h,
		   const struct diag_pyframe *user)
{
	if (!h) {
		jw_str(w, "hang", NULL);
		return;
	}
	char head[512];
	diag_hang_headline(h, head, sizeof head);
	jw_obj(w, "hang");
	jw_str(w, "headline", head);
	jw_int(w, "seconds", (long long)(h->seconds + 0.5));
	jw_bool(w, "recorded", h->recorded);
	char sig[24];
	jw_str(w, "interrupted_by", h->signal &&
	       diag_signal_name(h->signal, sig, sizeof sig) ? sig : NULL);
	jw_bool(w, "device", h->device);
	jw_str(w, "kernel", h->kernel);
	jw_int_or_null(w, "threads_live", h->threads_live, h->device);
	jw_int_or_null(w, "blocks_live", h->blocks_live, h->device);
	jw_int_or_null(w, "blocks_total", h->blocks_total, h->blocks_total > 0);
	jw_int_or_null(w, "block_size", h->block_size, h->block_size > 0);
	jw_arr(w, "places");
	for (size_t i = 0; i < h->n_groups; i++) {
		const struct diag_hang_group *g = &h->groups[i];
		jw_obj(w, NULL);
		j_dim(w, "block_from", g->block_lo);
		j_dim(w, "block_to", g->block_hi);
		jw_int_or_null(w, "blocks", g->blocks, g->blocks >= 0);
		jw_int(w, "threads", g->threads);
		jw_str(w, "file", g->file);
		jw_int_or_null(w, "line", g->line, g->line > 0);
		jw_hex(w, "pc", g->pc, true);
		jw_str(w, "source", g->source);
		jw_str(w, "wait", hang_waits[g->wait]);
		jw_end(w);
	}
	jw_end(w);
	if (h->barrier_divergent) {
		jw_obj(w, "barrier_divergent");
		j_dim(w, "block", h->barrier_block);
		jw_int(w, "threads_at_barrier", h->barrier_threads);
		jw_end(w);
	} else {
		jw_str(w, "barrier_divergent", NULL);
	}
	jw_bool(w, "spin", h->spin);
	jw_bool(w, "all_waiting", h->all_waiting);
	jw_obj(w, "host");
	if (user) {
		jw_str(w, "file", user->file);
		jw_int_or_null(w, "line", user->line, user->line > 0);
		jw_str(w, "function", user->func);
	} else {
		jw_str(w, "file", h->host_file);
		jw_int_or_null(w, "line", h->host_line, h->host_line > 0);
		jw_str(w, "function", h->host_func);
	}
	jw_str(w, "inner", h->device ? NULL : h->host_inner);
	jw_end(w);
	jw_end(w);
}

char *diag_report_json(const struct diag_report_in *in)
{
	struct jw w;
	jw_init(&w);
	/* No fault account (an error before any diagnosis): every member
	 * still written, null or empty (docs/report-schema.md). */
	static const struct diag_fault no_fault;
	const struct diag_fault *f = in->fault ? in->fault : &no_fault;
	jw_obj(&w, NULL);
	jw_str(&w, "schema", "cudbg-tui/diagnosis/1");
	jw_bool(&w, "fault", diag_report_exit_code(in) == DIAG_EXIT_FAULT ||
				    f->kind != DIAG_FAULT_NONE);
	jw_int(&w, "exit_status", diag_report_exit_code(in));
	jw_str(&w, "kind", diag_fault_kind_name(f->kind));
	jw_str(&w, "mode", in->mode);
	jw_str(&w, "stop_reason", in->stop_reason);
	jw_str(&w, "error", in->error);
	j_host_line(&w, &f->host_line);
	if (in->memcheck_seconds >= 0 || f->pass_failed) {
		double secs = in->memcheck_seconds > 0 ? in->memcheck_seconds
						       : 0;
		jw_obj(&w, "memcheck");
		jw_int(&w, "milliseconds", (long long)(secs * 1000 + 0.5));
		jw_str(&w, "stopped", in->memcheck_stopped);
		jw_str(&w, "failed", f->pass_failed);
		jw_end(&w);
	} else {
		jw_str(&w, "memcheck", NULL);
	}
	{ /* the fault account */
		j_exception(&w, f);
		jw_obj(&w, "kernel");
		jw_str(&w, "name", f->kernel_short);
		jw_str(&w, "full", f->kernel);
		jw_end(&w);
		jw_obj(&w, "location");
		jw_str(&w, "file", f->where.file);
		jw_str(&w, "fullname", f->where.fullname);
		jw_int_or_null(&w, "line", f->where.line, f->where.line > 0);
		jw_str(&w, "function", f->where.func);
		jw_str(&w, "source", loc_source_name(f->where.source));
		if (f->where.text)
			jw_text(&w, "text", f->where.text, strlen(f->where.text));
		else
			jw_null(&w, "text");
		j_caller(&w, &f->caller);
		j_access(&w, f->host_access);
		jw_end(&w);
		diag_report_json_focus(&w, "focus", &f->focus);
		jw_obj(&w, "pc");
		jw_hex(&w, "error", f->error_pc, f->has_error_pc);
		jw_hex(&w, "stop", f->stop_pc, f->has_stop_pc);
		jw_end(&w);
		j_frames(&w, "frames", f->frames, f->n_frames);
		j_frames(&w, "host_frames", f->host_frames, f->n_host_frames);
		j_hang(&w, f->hang, diag_hang_user_line(f));
		j_rest(&w, f);
	}
	diag_report_json_hints(&w, in->hints);
	jw_end(&w);
	dbuf_putc(&w.b, '\n');
	return jw_take(&w);
}
