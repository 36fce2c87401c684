/* Hints: matching rules against a fault and filling their templates. */
#include "diag/rules.h"
#include "diag/internal.h"
#include "diag/state.h"
#include "cudbg/assertline.h"
#include "cudbg/decode.h"
#include "cudbg/hang.h"
#include "cudbg/sanitizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rctx {
	const struct diag_fault *f;
	const char *output_match; /* the line a rule's output pattern hit */
};

/* ---- placeholder values ------------------------------------------------ */

static bool put_dim(struct dbuf *b, struct diag_dim3 v)
{
	dbuf_printf(b, "(%u,%u,%u)", v.x, v.y, v.z);
	return true;
}

static void put_axis(struct dbuf *b, uint32_t lo, uint32_t hi)
{
	if (lo == hi)
		dbuf_printf(b, "%u", lo);
	else
		dbuf_printf(b, "%u..%u", lo, hi);
}

bool diag_put_range(struct dbuf *b, struct diag_dim3 lo, struct diag_dim3 hi)
{
	dbuf_putc(b, '(');
	put_axis(b, lo.x, hi.x);
	dbuf_putc(b, ',');
	put_axis(b, lo.y, hi.y);
	dbuf_putc(b, ',');
	put_axis(b, lo.z, hi.z);
	dbuf_putc(b, ')');
	return true;
}

static bool put_str(struct dbuf *b, const char *s)
{
	if (!s || !*s)
		return false;
	dbuf_puts(b, s);
	return true;
}

/* {kernel}: the kernel, else, when no frame, table or report named one,
 * the function the hardware's faulting PC lies in (a driver coredump's
 * "The exception was triggered at PC ... f(args)  (file:line)" when
 * cuda-gdb 13.0 aborted before any frame: torch_extension.core.mi.log). */
static bool put_kernel(struct dbuf *b, const struct diag_fault *f)
{
	if (f->kernel_short)
		return put_str(b, f->kernel_short);
	if (!f->where.func || f->where.source != DIAG_LOC_EXCEPTION)
		return false;
	size_t n = dec_func_short(f->where.func, NULL, 0);
	char *s = malloc(n + 1);
	if (!s)
		return false;
	dec_func_short(f->where.func, s, n + 1);
	bool ok = put_str(b, s);
	free(s);
	return ok;
}

static bool put_loc(struct dbuf *b, const char *file, unsigned line)
{
	if (!file || !line)
		return false;
	dbuf_printf(b, "%s:%u", file, line);
	return true;
}

static bool put_int(struct dbuf *b, long long v, bool ok)
{
	if (ok)
		dbuf_printf(b, "%lld", v);
	return ok;
}

static bool put_hex(struct dbuf *b, uint64_t v, bool ok)
{
	if (ok)
		dbuf_printf(b, "0x%llx", (unsigned long long)v);
	return ok;
}

static bool eq(const char *name, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(name, lit, n) == 0;
}

static bool ph_assert(const struct diag_fault *f, const char *p, size_t n,
		      struct dbuf *b)
{
	if (!f->n_asserts)
		return false;
	const struct diag_assert_entry *e = f->asserts[0];
	if (eq(p, n, "expr")) return put_str(b, e->expr);
	if (eq(p, n, "file")) return put_str(b, e->file);
	if (eq(p, n, "line")) return put_int(b, e->line, e->line > 0);
	if (eq(p, n, "location")) return put_loc(b, e->file, e->line);
	if (eq(p, n, "kernel")) return put_str(b, e->kernel_short);
	if (eq(p, n, "count")) return put_int(b, (long long)e->count, true);
	if (eq(p, n, "total"))
		return put_int(b, (long long)f->assert_total, true);
	if (eq(p, n, "blocks"))
		return diag_put_range(b, e->block_min, e->block_max);
	if (eq(p, n, "threads"))
		return diag_put_range(b, e->thread_min, e->thread_max);
	if (eq(p, n, "first")) {
		dbuf_puts(b, "block ");
		put_dim(b, e->first_block[0]);
		dbuf_puts(b, ", thread ");
		return put_dim(b, e->first_thread[0]);
	}
	return false;
}

/* The group of the main finding, when it has more than one record. */
static const struct diag_finding_group *main_group(const struct diag_fault *f)
{
	for (size_t i = 0; f->finding && i < f->n_groups; i++) {
		const struct diag_finding_group *g = &f->groups[i];
		if (f->findings[g->first] == f->finding)
			return g->count > 1 ? g : NULL;
	}
	return NULL;
}

static bool ph_san_group(const struct diag_fault *f, const char *p, size_t n,
			 struct dbuf *b)
{
	const struct diag_finding_group *g = main_group(f);
	if (!g)
		return false;
	if (eq(p, n, "same")) return put_int(b, (long long)g->count, true);
	if (eq(p, n, "same_threads"))
		return g->has_who && diag_put_range(b, g->thread_min, g->thread_max);
	if (eq(p, n, "same_blocks"))
		return g->has_who && diag_put_range(b, g->block_min, g->block_max);
	return false;
}

static bool ph_san(const struct diag_fault *f, const char *p, size_t n,
		   struct dbuf *b)
{
	const struct diag_san_record *r = f->finding;
	if (eq(p, n, "count"))
		return put_int(b, (long long)f->n_findings, f->n_findings > 0);
	if (eq(p, n, "failed")) return put_str(b, f->pass_failed);
	if (n >= 4 && memcmp(p, "same", 4) == 0)
		return ph_san_group(f, p, n, b);
	if (!r)
		return false;
	if (eq(p, n, "kind")) return put_str(b, diag_san_kind_name(r->kind));
	if (eq(p, n, "error"))
		return put_str(b, r->error ? r->error : r->exception);
	if (eq(p, n, "text")) return put_str(b, r->text);
	if (eq(p, n, "address")) return put_hex(b, r->address, r->has_address);
	if (eq(p, n, "size")) return put_int(b, r->size, r->size > 0);
	if (eq(p, n, "direction")) return put_str(b, r->direction);
	if (eq(p, n, "space")) return put_str(b, r->space);
	if (eq(p, n, "thread")) return r->has_who && put_dim(b, r->thread);
	if (eq(p, n, "block")) return r->has_who && put_dim(b, r->block);
	/* memcheck gives no line for a fault in an intrinsic (<func>
	 * __iAtomicAdd</func> only, shared_oob on the H200): the fault's own
	 * location (the user's frame) or the function says more than
	 * "(unknown)". */
	/* A finding in a toolkit header (synccheck's __syncwarp in
	 * sm_30_intrinsics.hpp) is told at the user's line that pick_where
	 * chose from its device frames. */
	if (eq(p, n, "location"))
		return (r->path && dec_path_in_cuda_toolkit(r->path) &&
			f->where.source == DIAG_LOC_SANITIZER &&
			put_loc(b, f->where.file, f->where.line)) ||
		       put_loc(b, r->path, r->line) ||
		       put_loc(b, f->where.file, f->where.line) ||
		       put_str(b, r->func);
	if (eq(p, n, "distance"))
		return put_int(b, r->distance < 0 ? -r->distance : r->distance,
			       r->has_alloc);
	if (eq(p, n, "side"))
		return r->has_alloc &&
		       put_str(b, r->distance < 0 ? "before" : "after");
	if (eq(p, n, "alloc")) return put_hex(b, r->alloc_address, r->has_alloc);
	if (eq(p, n, "alloc_size"))
		return put_int(b, (long long)r->alloc_size, r->has_alloc);
	if (eq(p, n, "api")) return put_str(b, r->api);
	if (eq(p, n, "message")) return put_str(b, r->message);
	if (eq(p, n, "hazard")) return put_str(b, r->hazard);
	if (eq(p, n, "hazards"))
		return put_int(b, (long long)r->hazards, r->hazards > 0);
	if (eq(p, n, "direction2")) return put_str(b, r->direction2);
	if (eq(p, n, "location2")) return put_loc(b, r->path2, r->line2);
	return false;
}

static bool ph_python(const struct diag_fault *f, const char *p, size_t n,
		      struct dbuf *b)
{
	const struct diag_python *py = &f->python;
	/* The offending element read from the operator's tensor. */
	if (eq(p, n, "value")) return put_str(b, f->bad_value);
	/* The script, for a CUDA_LAUNCH_BLOCKING=1 rerun: only while no
	 * script line is known (the live stack, taken with launch blocking,
	 * and the sanitizer's, taken at the launch, both give the right one). */
	if (eq(p, n, "rerun"))
		return !py->found && put_str(b, f->script);
	if (eq(p, n, "exception")) return put_str(b, f->py_exception);
	if (eq(p, n, "start_error")) return put_str(b, f->py_start_error);
	if (!py->found)
		return false;
	if (eq(p, n, "line"))
		return put_loc(b, py->launch.file, py->launch.line);
	if (eq(p, n, "file")) return put_str(b, py->launch.file);
	if (eq(p, n, "func")) return put_str(b, py->launch.func);
	if (eq(p, n, "source")) return put_str(b, py->launch.source);
	if (eq(p, n, "call")) return put_loc(b, py->call.file, py->call.line);
	if (eq(p, n, "call_func")) return put_str(b, py->call.func);
	if (eq(p, n, "call_source")) return put_str(b, py->call.source);
	return false;
}

/* {access.*}: a CPU crash's address and the line's dereference there
 * (diag_set_host_access). */
static bool ph_access(const struct diag_host_access *a, const char *p,
		      size_t n, struct dbuf *b)
{
	if (!a)
		return false;
	if (eq(p, n, "address")) return put_hex(b, a->address, true);
	if (eq(p, n, "expr")) return put_str(b, a->expr);
	if (eq(p, n, "base")) return put_str(b, a->base);
	if (eq(p, n, "base_value"))
		return put_hex(b, a->base_value, a->has_base);
	if (eq(p, n, "index")) return put_str(b, a->index);
	if (eq(p, n, "index_value"))
		return put_int(b, a->index_value, a->has_index);
	/* bytes past the pointer: where the access landed */
	if (eq(p, n, "offset"))
		return put_int(b, (long long)(a->address - a->base_value),
			       a->has_base && a->base_value &&
			       a->address >= a->base_value);
	return false;
}

/* {ptr.*} and {ovf.*}: diag/provenance.c. */
static bool ph_ptr(const struct diag_fault *f, const char *p, size_t n,
		   struct dbuf *b)
{
	const struct diag_provenance *v = &f->prov;
	if (eq(p, n, "ptr.var")) return put_str(b, v->var);
	if (eq(p, n, "ptr.value")) return put_str(b, v->var_value);
	if (eq(p, n, "ptr.address")) return put_hex(b, v->address, v->has_address);
	if (eq(p, n, "ptr.offset")) return put_int(b, v->offset, v->has_offset);
	if (eq(p, n, "ovf.var")) return put_str(b, v->index_var);
	if (eq(p, n, "ovf.value")) return put_str(b, v->index_value);
	if (eq(p, n, "ovf.type")) return put_str(b, v->index_type);
	if (eq(p, n, "ovf.line")) return put_str(b, v->line_text);
	if (eq(p, n, "ovf.wrapped")) return put_int(b, v->wrap_index, v->wrap);
	if (eq(p, n, "ovf.true")) return put_int(b, v->wrap_true, v->wrap);
	if (eq(p, n, "ovf.elem")) return put_int(b, v->wrap_elem, v->wrap);
	if (eq(p, n, "ovf.expr")) return v->wrap && put_str(b, v->wrap_expr);
	return false;
}

/* A call of the allocation API: its line, else its caller. */
static bool put_site(struct dbuf *b, const struct diag_freed_site *s)
{
	if (put_loc(b, s->file, s->line))
		return true;
	return put_str(b, s->func);
}

/* {freed.*}: the allocation watch's answer (diag_fault.freed). */
static bool ph_freed(const struct diag_fault *f, const char *p, size_t n,
		     struct dbuf *b)
{
	const struct diag_freed *v = &f->freed;
	bool ok = v->found || v->in_live, freed = v->found;
	if (eq(p, n, "freed.address")) return put_hex(b, v->addr, ok);
	if (eq(p, n, "freed.base")) return put_hex(b, v->base, ok);
	if (eq(p, n, "freed.size")) return put_int(b, (long long)v->size, ok);
	if (eq(p, n, "freed.offset"))
		return put_int(b, (long long)(v->addr - v->base), ok);
	if (eq(p, n, "freed.alloc")) return ok && put_site(b, &v->alloc);
	if (eq(p, n, "freed.alloc_api")) return ok && put_str(b, v->alloc.api);
	if (eq(p, n, "freed.free")) return freed && put_site(b, &v->free);
	if (eq(p, n, "freed.free_api")) return freed && put_str(b, v->free.api);
	return false;
}

/* {child.*}: the first process of the program's that died of a signal
 * (diag_fault.child_deaths). */
static bool ph_child(const struct diag_fault *f, const char *p, size_t n,
		     struct dbuf *b)
{
	const struct diag_child_death *c = f->n_child_deaths
		? &f->child_deaths[0] : NULL;
	if (eq(p, n, "child.pid")) return c && put_int(b, c->pid, true);
	/* (a child reaped before anyone read it: its parent's wait had
	 * nothing to read) */
	if (eq(p, n, "child.command"))
		return c && put_str(b, c->cmd[0] ? c->cmd
						  : "its command was not read");
	if (eq(p, n, "child.unheard"))
		return f->child_events_off && put_str(b, f->child_events_off);
	if (eq(p, n, "child.signal")) {
		char sig[24];
		return c && diag_signal_name(c->sig, sig, sizeof sig) &&
		       put_str(b, sig);
	}
	return false;
}

static bool ph_focus(const struct diag_fault *f, const char *p, size_t n,
		     struct dbuf *b)
{
	const struct diag_focus *c = &f->focus;
	if (eq(p, n, "block")) return c->valid && put_dim(b, c->block);
	if (eq(p, n, "thread")) return c->valid && put_dim(b, c->thread);
	if (eq(p, n, "lane")) return put_int(b, c->lane, c->lane >= 0);
	if (eq(p, n, "warp")) return put_int(b, c->warp, c->warp >= 0);
	if (eq(p, n, "sm")) return put_int(b, c->sm, c->sm >= 0);
	if (eq(p, n, "device")) return put_int(b, c->device, c->device >= 0);
	if (eq(p, n, "grid")) return put_int(b, c->grid, c->grid >= 0);
	return false;
}

static const char *exception_text(const struct diag_fault *f)
{
	if (f->exception_name)
		return f->exception_name;
	if (f->signal_meaning)
		return f->signal_meaning;
	if (f->signal_name)
		return f->signal_name;
	return f->finding ? f->finding->exception : NULL;
}

static bool ph_eval(const struct diag_fault *f, const char *p, size_t n,
		    struct dbuf *b)
{
	const char *a = p, *end = p + n;
	while (a < end) {
		const char *bar = memchr(a, '|', (size_t)(end - a));
		const char *e = bar ? bar : end;
		for (size_t i = 0; i < f->n_values; i++)
			if (eq(a, (size_t)(e - a), f->values[i].expr))
				return put_str(b, f->values[i].value);
		a = e + 1;
	}
	return false;
}

static bool ph_value(const struct rctx *c, const char *p, size_t n,
		     struct dbuf *b)
{
	const struct diag_fault *f = c->f;
	if (n > 5 && memcmp(p, "eval:", 5) == 0)
		return ph_eval(f, p + 5, n - 5, b);
	if (n > 7 && memcmp(p, "assert.", 7) == 0)
		return ph_assert(f, p + 7, n - 7, b);
	if (n > 4 && memcmp(p, "san.", 4) == 0)
		return ph_san(f, p + 4, n - 4, b);
	if (n > 7 && memcmp(p, "python.", 7) == 0)
		return ph_python(f, p + 7, n - 7, b);
	if (n > 5 && memcmp(p, "hang.", 5) == 0)
		return diag_hang_placeholder(f->hang, diag_hang_user_line(f),
					    p + 5, n - 5, b);
	if (ph_focus(f, p, n, b) || ph_ptr(f, p, n, b) || ph_freed(f, p, n, b) ||
	    ph_child(f, p, n, b))
		return true;
	if (eq(p, n, "kind")) return put_str(b, diag_fault_kind_name(f->kind));
	if (eq(p, n, "program")) return put_str(b, f->program);
	if (eq(p, n, "command")) return put_str(b, f->command);
	if (eq(p, n, "exception")) return put_str(b, exception_text(f));
	if (eq(p, n, "exception.signal")) return put_str(b, f->signal_name);
	if (eq(p, n, "exception.code"))
		return put_int(b, f->exception_code, f->exception_code >= 0);
	if (eq(p, n, "exception.explain")) return put_str(b, f->explanation);
	if (eq(p, n, "exception.message"))
		return put_str(b, f->exception_message);
	if (eq(p, n, "exception.scope")) return put_str(b, f->scope);
	if (eq(p, n, "kernel")) return put_kernel(b, f);
	if (eq(p, n, "kernel.full")) return put_str(b, f->kernel);
	if (eq(p, n, "location"))
		return put_loc(b, f->where.file, f->where.line);
	if (eq(p, n, "file")) return put_str(b, f->where.file);
	if (eq(p, n, "line"))
		return put_int(b, f->where.line, f->where.line > 0);
	if (eq(p, n, "func")) return put_str(b, f->where.func);
	if (eq(p, n, "location.source")) return put_str(b, f->where.text);
	/* the frame that called location's, the program's own too */
	if (eq(p, n, "caller")) {
		if (!f->caller.func || !put_str(b, f->caller.func))
			return false;
		dbuf_puts(b, " at ");
		return put_loc(b, f->caller.file, f->caller.line);
	}
	if (eq(p, n, "caller.source")) return put_str(b, f->caller.text);
	if (n > 7 && memcmp(p, "access.", 7) == 0)
		return ph_access(f->host_access, p + 7, n - 7, b);
	if (eq(p, n, "recursion.func")) return put_str(b, f->recursion_func);
	if (eq(p, n, "recursion.depth"))
		return put_int(b, f->recursion_depth, f->recursion_depth > 0);
	if (eq(p, n, "pc.error")) return put_hex(b, f->error_pc, f->has_error_pc);
	if (eq(p, n, "pc.stop")) return put_hex(b, f->stop_pc, f->has_stop_pc);
	if (eq(p, n, "op")) return put_str(b, f->op);
	/* the operator the user called: index_put_ around _assert_async */
	if (eq(p, n, "op.user"))
		return put_str(b, f->op_outer ? f->op_outer : f->op);
	if (eq(p, n, "sync.call")) return put_str(b, f->sync_call);
	if (eq(p, n, "core")) return put_str(b, f->core_path);
	if (eq(p, n, "exit.code"))
		return put_int(b, f->exit_code, f->exited && !f->exit_signal);
	if (eq(p, n, "exit.signal")) return put_str(b, f->exit_signal);
	if (eq(p, n, "exit.how")) { /* "status 1", "signal SIGTERM" */
		if (!f->exited)
			return false;
		if (f->exit_signal) {
			dbuf_puts(b, "signal ");
			return put_str(b, f->exit_signal);
		}
		dbuf_puts(b, "status ");
		return put_int(b, f->exit_code, true);
	}
	if (eq(p, n, "output.error")) return put_str(b, f->error_line);
	if (eq(p, n, "output.match")) return put_str(b, c->output_match);
	return false;
}

/* Fills a template.  With `strict`, a placeholder without a value makes
 * the whole text NULL (an evidence line or step that cannot be shown);
 * otherwise it becomes "(unknown)". */
static char *render(const struct rctx *c, const char *t, bool strict,
		    const char **missing)
{
	struct dbuf b = {0};
	dbuf_put(&b, "", 0);
	for (const char *p = t; *p; p++) {
		if ((*p == '{' && p[1] == '{') || (*p == '}' && p[1] == '}')) {
			dbuf_putc(&b, *p++);
			continue;
		}
		const char *end;
		if (*p != '{' || !(end = strchr(p, '}'))) {
			dbuf_putc(&b, *p);
			continue;
		}
		if (!ph_value(c, p + 1, (size_t)(end - p - 1), &b)) {
			if (strict) {
				if (missing)
					*missing = p;
				dbuf_free(&b);
				return NULL;
			}
			dbuf_puts(&b, "(unknown)");
		}
		p = end;
	}
	return dbuf_take(&b);
}

char *diag_hint_render(const char *tmpl, const struct diag_fault *f,
		       const char **missing)
{
	struct rctx c = {.f = f};
	return render(&c, tmpl, true, missing);
}

/* ---- matching ---------------------------------------------------------- */

static bool any_glob(const struct patterns *p, const char *s)
{
	if (!s)
		return false;
	for (size_t i = 0; i < p->n; i++)
		if (diag_glob_match(p->v[i], s))
			return true;
	return false;
}

static bool match_exception(const struct patterns *p,
			    const struct diag_fault *f)
{
	if (any_glob(p, f->exception_name) || any_glob(p, f->signal_name) ||
	    any_glob(p, f->signal_meaning))
		return true;
	/* A sanitizer record's kind can be the exception itself: memcheck
	 * reports a device stack overflow as <kind>StackOverflow</kind>
	 * with no <exception> (H200, compute-sanitizer 2025.3). */
	for (size_t i = 0; i < f->n_findings; i++)
		if (any_glob(p, f->findings[i]->exception) ||
		    (f->findings[i]->kind == DIAG_SAN_OTHER &&
		     any_glob(p, f->findings[i]->kind_text)))
			return true;
	return false;
}

static bool match_assert(const struct patterns *p, const struct diag_fault *f)
{
	for (size_t i = 0; i < f->n_asserts; i++)
		if (any_glob(p, f->asserts[i]->expr))
			return true;
	return false;
}

static bool match_kernel(const struct patterns *p, const struct diag_fault *f)
{
	if (any_glob(p, f->kernel) || any_glob(p, f->kernel_short))
		return true;
	for (size_t i = 0; i < f->n_asserts; i++)
		if (any_glob(p, f->asserts[i]->kernel) ||
		    any_glob(p, f->asserts[i]->kernel_short))
			return true;
	return f->finding && any_glob(p, f->finding->func);
}

static bool match_sanitizer(const struct patterns *p,
			    const struct diag_fault *f)
{
	for (size_t i = 0; i < f->n_findings; i++) {
		const struct diag_san_record *r = f->findings[i];
		if (any_glob(p, r->error) || any_glob(p, r->exception) ||
		    any_glob(p, r->kind_text) || any_glob(p, r->text))
			return true;
	}
	return false;
}

static const char *match_output(const struct patterns *p,
				const struct diag_fault *f)
{
	for (size_t i = 0; i < f->n_output_lines; i++)
		if (any_glob(p, f->output_lines[i]))
			return f->output_lines[i];
	return NULL;
}

static bool match_file(const struct patterns *p, const struct diag_fault *f)
{
	if (any_glob(p, f->where.file) || any_glob(p, f->where.fullname))
		return true;
	for (size_t i = 0; i < f->n_asserts; i++)
		if (any_glob(p, f->asserts[i]->file))
			return true;
	return f->finding && any_glob(p, f->finding->path);
}

static bool rule_matches(const struct rule *r, const struct diag_fault *f,
			 const char **out_match)
{
	for (int i = 0; i < DIAG_F_COUNT; i++)
		if ((r->when[i] && !f->flags[i]) || (r->unless[i] && f->flags[i]))
			return false;
	const struct patterns *m = r->match;
	if (m[MK_EXCEPTION].n && !match_exception(&m[MK_EXCEPTION], f))
		return false;
	if (m[MK_ASSERT].n && !match_assert(&m[MK_ASSERT], f))
		return false;
	if (m[MK_KERNEL].n && !match_kernel(&m[MK_KERNEL], f))
		return false;
	if (m[MK_SANITIZER].n && !match_sanitizer(&m[MK_SANITIZER], f))
		return false;
	/* the operator launched or the one the user called (gather_out in
	 * embedding) */
	if (m[MK_OP].n && !any_glob(&m[MK_OP], f->op) &&
	    !any_glob(&m[MK_OP], f->op_outer))
		return false;
	if (m[MK_FILE].n && !match_file(&m[MK_FILE], f))
		return false;
	*out_match = NULL;
	if (m[MK_OUTPUT].n && !(*out_match = match_output(&m[MK_OUTPUT], f)))
		return false;
	return true;
}

static void hint_clear(struct diag_hint *h)
{
	free(h->title);
	free(h->what);
	free(h->why);
	for (size_t i = 0; i < h->n_evidence; i++)
		free(h->evidence[i]);
	free(h->evidence);
	for (size_t i = 0; i < h->n_steps; i++)
		free(h->steps[i].text);
	free(h->steps);
}

void diag_hints_clear(struct diag_hints *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n; i++)
		hint_clear(&h->v[i]);
	free(h->v);
	h->v = NULL;
	h->n = 0;
}

static int render_hint(const struct rule *r, const struct rctx *c,
		       struct diag_hint *h)
{
	memset(h, 0, sizeof *h);
	h->id = r->id;
	h->priority = r->priority;
	h->title = render(c, r->title, false, NULL);
	h->what = render(c, r->what, false, NULL);
	h->why = r->why ? render(c, r->why, false, NULL) : NULL;
	if (!h->title || !h->what || (r->why && !h->why))
		return DIAG_ENOMEM;
	h->evidence = calloc(r->n_evidence + 1, sizeof *h->evidence);
	h->steps = calloc(r->n_steps + 1, sizeof *h->steps);
	if (!h->evidence || !h->steps)
		return DIAG_ENOMEM;
	for (size_t i = 0; i < r->n_evidence; i++) {
		char *e = render(c, r->evidence[i], true, NULL);
		if (e)
			h->evidence[h->n_evidence++] = e;
	}
	for (size_t i = 0; i < r->n_steps; i++) {
		struct diag_hint_step *s = &h->steps[h->n_steps];
		s->kind = r->steps[i].kind;
		s->action = r->steps[i].action;
		/* A step naming something this session lacks (a Python
		 * file, a finding) is left out rather than shown half. */
		if ((s->text = render(c, r->steps[i].text, true, NULL)))
			h->n_steps++;
	}
	return DIAG_OK;
}

/* Rule i names, in instead-of, a rule that matched too. */
static bool gives_way(const struct diag_rules *r, size_t i, const bool *hit)
{
	const struct rule *u = &r->v[i];
	for (size_t k = 0; k < u->n_instead_of; k++)
		for (size_t j = 0; j < r->n; j++)
			if (hit[j] && strcmp(r->v[j].id, u->instead_of[k]) == 0)
				return true;
	return false;
}

int diag_hints_match(const struct diag_rules *r, const struct diag_fault *f,
		     struct diag_hints *out)
{
	diag_hints_clear(out);
	if (!r || !f)
		return 0;
	out->v = calloc(r->n ? r->n : 1, sizeof *out->v);
	bool *hit = calloc(r->n ? r->n : 1, sizeof *hit);
	const char **om = calloc(r->n ? r->n : 1, sizeof *om);
	if (!out->v || !hit || !om) {
		free(hit);
		free(om);
		return DIAG_ENOMEM;
	}
	for (size_t i = 0; i < r->n; i++)
		hit[i] = rule_matches(&r->v[i], f, &om[i]);
	for (size_t i = 0; i < r->n; i++) {
		struct rctx c = {.f = f, .output_match = om[i]};
		if (!hit[i] || gives_way(r, i, hit))
			continue;
		/* Insert keeping priority order, file order among equals. */
		size_t at = out->n;
		while (at > 0 && out->v[at - 1].priority < r->v[i].priority)
			at--;
		memmove(&out->v[at + 1], &out->v[at],
			(out->n - at) * sizeof *out->v);
		out->n++;
		if (render_hint(&r->v[i], &c, &out->v[at]) < 0) {
			free(hit);
			free(om);
			diag_hints_clear(out);
			return DIAG_ENOMEM;
		}
	}
	free(hit);
	free(om);
	return (int)out->n;
}

/* ---- expressions the matching rules want ------------------------------- */

static bool has_value(const struct diag_fault *f, const char *a, size_t n)
{
	for (size_t i = 0; i < f->n_values; i++)
		if (eq(a, n, f->values[i].expr))
			return true;
	return false;
}

static const char *interned(const struct diag_rules *r, const char *a,
			    size_t n)
{
	for (size_t i = 0; i < r->n_evals; i++)
		if (eq(a, n, r->evals[i]))
			return r->evals[i];
	return NULL;
}

static size_t want_from(const struct diag_rules *r, const struct diag_fault *f,
			const char *t, const char **out, size_t k, size_t max)
{
	for (const char *p = t ? strstr(t, "{eval:") : NULL; p;
	     p = strstr(p + 1, "{eval:")) {
		const char *a = p + 6, *end = strchr(a, '}');
		if (!end)
			break;
		/* One known alternative is enough. */
		bool known = false;
		for (const char *q = a; q < end && !known;) {
			const char *bar = memchr(q, '|', (size_t)(end - q));
			const char *e = bar ? bar : end;
			known = has_value(f, q, (size_t)(e - q));
			q = e + 1;
		}
		for (const char *q = a; q < end && !known;) {
			const char *bar = memchr(q, '|', (size_t)(end - q));
			const char *e = bar ? bar : end;
			const char *s = interned(r, q, (size_t)(e - q));
			bool dup = false;
			for (size_t i = 0; i < k; i++)
				dup |= out[i] == s;
			if (s && !dup && k < max)
				out[k++] = s;
			q = e + 1;
		}
	}
	return k;
}

const char *diag_hints_value(const struct diag_rules *r,
			     const struct diag_fault *f)
{
	const struct rule *best = NULL;
	for (size_t i = 0; r && i < r->n; i++) {
		const struct rule *u = &r->v[i];
		const char *m;
		if (u->value && (!best || u->priority > best->priority) &&
		    rule_matches(u, f, &m))
			best = u;
	}
	return best ? best->value : NULL;
}

size_t diag_hints_wanted(const struct diag_rules *r,
			 const struct diag_fault *f, const char **exprs,
			 size_t max)
{
	size_t k = 0;
	for (size_t i = 0; r && i < r->n; i++) {
		const struct rule *u = &r->v[i];
		const char *m;
		if (!rule_matches(u, f, &m))
			continue;
		k = want_from(r, f, u->title, exprs, k, max);
		k = want_from(r, f, u->what, exprs, k, max);
		k = want_from(r, f, u->why, exprs, k, max);
		for (size_t j = 0; j < u->n_evidence; j++)
			k = want_from(r, f, u->evidence[j], exprs, k, max);
		for (size_t j = 0; j < u->n_steps; j++)
			k = want_from(r, f, u->steps[j].text, exprs, k, max);
	}
	return k;
}
