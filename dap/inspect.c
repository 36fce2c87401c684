/* DAP requests that read the stopped program: threads (the CUDA focus
 * and the host threads), stacks, scopes, variables with paging,
 * evaluate (watch, hover, repl with console pass-through), disassembly,
 * memory, and the custom cudaFocus request.  docs/dap.md explains the
 * mapping of the CUDA focus onto DAP threads. */
#include "cudbg/mi.h"
#include "cudbg/diagrun.h"
#include "cudbg/pystack.h"
#include "dap/dap_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A frame id: thread index * 4096 + level + 1 (thread index 0 is the
 * CUDA focus, else the host thread's gdb id), so it stays below 2^31.
 * Levels from PY_LEVEL are the Python frames of a mixed host stack
 * (their index there), LABEL_LEVEL the label between them and the
 * native frames: neither is a gdb frame. */
enum { FRAME_LEVELS = 4096, PY_LEVEL = 2048, FOLD_LEVEL = 3000,
       LABEL_LEVEL = 4095, NATIVE_MAX = 1000 /* native frames listed */ };
_Static_assert(PY_LEVEL + DIAG_PY_MAX_FRAMES <= FOLD_LEVEL &&
	       FOLD_LEVEL + NATIVE_MAX <= LABEL_LEVEL,
	       "frame id ranges overlap");

static long long frame_id(int tid, int level)
{
	long long t = tid == DAP_DEVICE_TID ? 0 : tid;
	return t * FRAME_LEVELS + level + 1;
}

static void frame_decode(long long id, int *tid, int *level)
{
	id -= 1;
	long long t = id / FRAME_LEVELS;
	*tid = t == 0 ? DAP_DEVICE_TID : (int)t;
	*level = (int)(id % FRAME_LEVELS);
}

static bool need_stopped(struct dap *d, const struct dj *req)
{
	if (!d->ctl) {
		dap_resp_error(d, req, "no session: send launch or attach first");
		return false;
	}
	const struct dbg_model *m = ctl_model(d->ctl);
	if (m->state != MODEL_STOPPED) {
		dap_resp_error(d, req, "the program is %s, not stopped",
			       model_state_name(m->state));
		return false;
	}
	dap_settle(d, d->timeout_ms);
	return true;
}

/* The DAP thread whose stack the model holds (the stop's thread). */
static bool is_focused(const struct dap *d, int tid)
{
	return tid == d->stop_tid || (tid == DAP_DEVICE_TID && d->device_stop);
}

void dap_focus_name(const struct dec_focus *f, char *buf, size_t cap)
{
	snprintf(buf, cap, "block (%u,%u,%u) thread (%u,%u,%u)", f->block.x,
		 f->block.y, f->block.z, f->thread.x, f->thread.y, f->thread.z);
}

/* ---- threads ---- */

/* The CUDA focus is one DAP thread (DAP has no blocks or lanes); the
 * 42k-row threads table is never sent: cudaFocus switches the focus. */
void dap_req_threads(struct dap *d, const struct dj *req, const struct dj *a)
{
	(void)a;
	struct dj_w w;
	char name[256];
	dap_resp_begin(&w, d, req);
	dj_w_key(&w, "threads");
	dj_w_arr(&w);
	const struct dbg_model *m = d->ctl ? ctl_model(d->ctl) : NULL;
	bool any_host = false;
	if (m && m->state == MODEL_STOPPED && m->focus.valid &&
	    m->focus.block.valid) {
		dap_focus_name(&m->focus, name, sizeof name);
		dj_w_obj(&w);
		dj_w_kint(&w, "id", DAP_DEVICE_TID);
		dj_w_kstr(&w, "name", name);
		dj_w_obj_end(&w);
	}
	for (size_t i = 0; m && i < m->host_threads.n; i++) {
		const struct dec_thread *t = &m->host_threads.v[i];
		int id = t->id ? atoi(t->id) : 0;
		if (id <= 0 || id >= DAP_DEVICE_TID)
			continue;
		snprintf(name, sizeof name, "host thread %d%s%s", id,
			 t->name || t->target_id ? ": " : "",
			 t->name ? t->name : t->target_id ? t->target_id : "");
		dj_w_obj(&w);
		dj_w_kint(&w, "id", id);
		dj_w_ktext(&w, "name", name);
		dj_w_obj_end(&w);
		any_host = true;
	}
	if (m && !any_host && m->state != MODEL_NOT_STARTED) {
		/* no thread list (a recording without one): the host thread
		 * that stopped, or 1, which launched the kernel */
		int id = d->stop_tid > 0 && d->stop_tid != DAP_DEVICE_TID ?
			 d->stop_tid : 1;
		snprintf(name, sizeof name, "host thread %d", id);
		dj_w_obj(&w);
		dj_w_kint(&w, "id", id);
		dj_w_kstr(&w, "name", name);
		dj_w_obj_end(&w);
	}
	dj_w_arr_end(&w);
	dap_resp_end(d, &w);
}

/* ---- stackTrace ---- */

struct host_stack {
	bool done;
	struct dec_stack st;
	char err[256];
};

static void on_host_stack(void *ctx, struct dec_stack *st, const char *err)
{
	struct host_stack *h = ctx;
	h->done = true;
	if (st) {
		h->st = *st;
		memset(st, 0, sizeof *st);
	} else {
		snprintf(h->err, sizeof h->err, "%s", err ? err : "no stack");
	}
}

static bool host_done(void *ctx)
{
	return ((struct host_stack *)ctx)->done;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p;
}

/* A frame of the stopped host thread inside the program's own frame the
 * controller selected at a host fault stop (model.user_frame: libc's
 * ./nptl at an assert()'s SIGABRT): a library's, greyed. */
static bool above_user_frame(struct dap *d, int tid, int level)
{
	int u = ctl_model(d->ctl)->user_frame;
	return tid != DAP_DEVICE_TID && tid == d->stop_tid && u > 0 &&
	       level < u;
}

static void write_frame(struct dj_w *w, int tid, const struct dec_frame *f,
			int level, bool library)
{
	char ip[32];
	char name[512];
	/* gdb names a frame without symbols "??": say which library */
	if ((!f->func || strcmp(f->func, "??") == 0) && f->from)
		snprintf(name, sizeof name, "?? (%s)", base_name(f->from));
	else
		snprintf(name, sizeof name, "%s", f->func ? f->func : "??");
	dj_w_obj(w);
	dj_w_kint(w, "id", frame_id(tid, level));
	dj_w_ktext(w, "name", name);
	const char *path = f->fullname ? f->fullname : f->file;
	if (path && f->line > 0) {
		/* a library's source (a libc with line information:
		 * "./nptl/pthread_kill.c"): greyed, so that a client focuses
		 * the program's own frame below it, as the screen does */
		dj_w_key(w, "source");
		dj_w_obj(w);
		dj_w_ktext(w, "name", base_name(f->file ? f->file : path));
		dj_w_ktext(w, "path", path); /* untrusted: see docs/dap.md */
		if (library)
			dj_w_kstr(w, "presentationHint", "deemphasize");
		dj_w_obj_end(w);
		dj_w_kint(w, "line", f->line);
		dj_w_kint(w, "column", 1);
		if (library)
			dj_w_kstr(w, "presentationHint", "subtle");
	} else {
		dj_w_kint(w, "line", 0);
		dj_w_kint(w, "column", 0);
		dj_w_kstr(w, "presentationHint", "subtle");
	}
	if (f->has_addr) {
		snprintf(ip, sizeof ip, "0x%llx", (unsigned long long)f->addr);
		dj_w_kstr(w, "instructionPointerReference", ip);
	}
	dj_w_obj_end(w);
}

/* The Python stack of this stop (diag/pystack_run.c, from a call into
 * the interpreter or its memory) when tid is the host thread it is of:
 * the launching thread 1 at a device stop, else the stopped thread. */
static const struct diag_pystack *python_stack_of(struct dap *d, int tid)
{
	if (!d->dr)
		return NULL;
	int py_tid = d->device_stop ? 1 : d->stop_tid;
	if (tid == DAP_DEVICE_TID || tid != py_tid)
		return NULL;
	const struct diag_fault *f = diag_run_fault(d->dr, ctl_model(d->ctl));
	return f && f->pystack && f->pystack->n_frames ? f->pystack : NULL;
}

static void write_py_frame(struct dj_w *w, int tid, const struct diag_pyf *p,
			   int index)
{
	dj_w_obj(w);
	dj_w_kint(w, "id", frame_id(tid, PY_LEVEL + index));
	dj_w_ktext(w, "name", p->func ? p->func : "?");
	if (p->file && p->file[0] != '<' && p->line > 0) {
		dj_w_key(w, "source");
		dj_w_obj(w);
		dj_w_ktext(w, "name", base_name(p->file));
		dj_w_ktext(w, "path", p->file); /* untrusted: see docs/dap.md */
		dj_w_obj_end(w);
	}
	dj_w_kint(w, "line", p->line);
	dj_w_kint(w, "column", p->line > 0 ? 1 : 0);
	/* the interpreter's own and the packages' frames: greyed */
	if (p->library)
		dj_w_kstr(w, "presentationHint", "subtle");
	dj_w_obj_end(w);
}

static void write_label(struct dj_w *w, int tid, size_t native)
{
	char name[96];
	snprintf(name, sizeof name, "native frames (%zu): interpreter, "
		 "libraries, driver", native);
	dj_w_obj(w);
	dj_w_kint(w, "id", frame_id(tid, LABEL_LEVEL));
	dj_w_kstr(w, "name", name);
	dj_w_kint(w, "line", 0);
	dj_w_kint(w, "column", 0);
	dj_w_kstr(w, "presentationHint", "label");
	dj_w_obj_end(w);
}

/* A host thread's native frames as shown: a run of two or more frames
 * without source (the driver, the runtime, the interpreter) folds into
 * one label frame, "12 frames in libcuda.so.1", so the program's own
 * frames (main at prog.cu:24) stand out (issue 31 item 1).  out gets, per
 * shown row, the index of its first frame and how many it holds; returns
 * the rows. */
static bool no_source(const struct dec_frame *f)
{
	return !(f->fullname || f->file) || f->line <= 0;
}

static size_t fold_native(const struct dec_stack *st, size_t n, size_t *first,
			  size_t *count)
{
	size_t rows = 0;
	for (size_t i = 0; i < n;) {
		size_t k = i + 1;
		if (no_source(&st->frames[i]))
			while (k < n && no_source(&st->frames[k]))
				k++;
		first[rows] = i;
		count[rows++] = k - i >= 2 ? k - i : 1;
		i = k - i >= 2 ? k : i + 1;
	}
	return rows;
}

/* "12 frames in libcuda.so.1, libcudadebugger.so.1": the libraries of
 * the run in order of first appearance (three at most). */
static void fold_name(const struct dec_stack *st, size_t first, size_t count,
		      char *name, size_t cap)
{
	const char *libs[3];
	size_t nl = 0;
	bool more = false, unknown = false;
	for (size_t i = first; i < first + count; i++) {
		const char *l = st->frames[i].from;
		if (!l) {
			unknown = true;
			continue;
		}
		bool seen = false;
		for (size_t k = 0; k < nl; k++)
			seen |= strcmp(libs[k], l) == 0;
		if (!seen && nl < 3)
			libs[nl++] = l;
		else if (!seen)
			more = true;
	}
	size_t n = (size_t)snprintf(name, cap, "%zu frames %s", count,
				    nl ? "in" : "without source");
	for (size_t k = 0; k < nl && n < cap; k++)
		n += (size_t)snprintf(name + n, cap - n, "%s%s", k ? ", " : " ",
				      base_name(libs[k]));
	if ((more || (unknown && nl)) && n < cap)
		snprintf(name + n, cap - n, ", ...");
}

static void write_fold(struct dj_w *w, int tid, const struct dec_stack *st,
		       size_t first, size_t count)
{
	char name[200];
	fold_name(st, first, count, name, sizeof name);
	dj_w_obj(w);
	dj_w_kint(w, "id", frame_id(tid, FOLD_LEVEL + (int)first));
	dj_w_ktext(w, "name", name);
	dj_w_kint(w, "line", 0);
	dj_w_kint(w, "column", 0);
	dj_w_kstr(w, "presentationHint", "label");
	dj_w_obj_end(w);
}

/* A host thread: for a Python program its Python frames first (an editor
 * opens the script at the line) and one label, then the native frames,
 * runs without source folded (issue 31 item 1).  Paging counts the rows
 * shown as one list. */
static void write_host_stack(struct dap *d, const struct dj *req,
			     const struct dj *a, int tid,
			     const struct dec_stack *st,
			     const struct diag_pystack *ps)
{
	long long start = dj_int(a, "startFrame", 0);
	long long levels = dj_int(a, "levels", 0);
	size_t npy = ps ? ps->n_frames : 0;
	size_t nat = st->n < NATIVE_MAX ? st->n : NATIVE_MAX;
	size_t *first = malloc((nat + 1) * sizeof *first);
	size_t *count = malloc((nat + 1) * sizeof *count);
	if (!first || !count) {
		free(first);
		free(count);
		dap_resp_error(d, req, "out of memory");
		return;
	}
	size_t rows = fold_native(st, nat, first, count);
	size_t head = ps ? npy + 1 : 0; /* Python frames and their label */
	size_t total = head + rows;
	size_t from = start > 0 ? (size_t)start : 0;
	size_t end = total;
	if (levels > 0 && from + (size_t)levels < end)
		end = from + (size_t)levels;
	struct dj_w w;
	dap_resp_begin(&w, d, req);
	dj_w_key(&w, "stackFrames");
	dj_w_arr(&w);
	for (size_t i = from; i < end; i++) {
		if (i < npy) {
			write_py_frame(&w, tid, &ps->frames[i], (int)i);
		} else if (i < head) {
			write_label(&w, tid, nat);
		} else if (count[i - head] > 1) {
			write_fold(&w, tid, st, first[i - head], count[i - head]);
		} else {
			const struct dec_frame *f = &st->frames[first[i - head]];
			int level = f->level >= 0 ? f->level : (int)first[i - head];
			write_frame(&w, tid, f, level,
				    above_user_frame(d, tid, level));
		}
	}
	dj_w_arr_end(&w);
	dj_w_kint(&w, "totalFrames", (long long)total);
	dap_resp_end(d, &w);
	free(first);
	free(count);
}

static void write_stack(struct dap *d, const struct dj *req, const struct dj *a,
			int tid, const struct dec_stack *st)
{
	/* a host thread: Python frames first, library runs folded */
	if (tid != DAP_DEVICE_TID) {
		write_host_stack(d, req, a, tid, st, python_stack_of(d, tid));
		return;
	}
	long long start = dj_int(a, "startFrame", 0);
	long long levels = dj_int(a, "levels", 0);
	if (start < 0)
		start = 0;
	size_t end = st->n;
	if (levels > 0 && (size_t)start + (size_t)levels < end)
		end = (size_t)start + (size_t)levels;
	struct dj_w w;
	dap_resp_begin(&w, d, req);
	dj_w_key(&w, "stackFrames");
	dj_w_arr(&w);
	for (size_t i = (size_t)start; i < end && i < FRAME_LEVELS; i++) {
		const struct dec_frame *f = &st->frames[i];
		write_frame(&w, tid, f, f->level >= 0 ? f->level : (int)i, false);
	}
	dj_w_arr_end(&w);
	dj_w_kint(&w, "totalFrames", (long long)st->n);
	dap_resp_end(d, &w);
}

void dap_req_stack(struct dap *d, const struct dj *req, const struct dj *a)
{
	if (!need_stopped(d, req))
		return;
	int tid = (int)dj_int(a, "threadId", -1);
	const struct dbg_model *m = ctl_model(d->ctl);
	if (tid <= 0) {
		dap_resp_error(d, req, "stackTrace needs a threadId");
		return;
	}
	if (is_focused(d, tid)) {
		/* the CUDA thread's stack, also after the Python stack's calls
		 * took the kernel away (issue 31 item 1) */
		const struct dec_stack *st =
			tid == DAP_DEVICE_TID && m->stop_device_frames.n
				? &m->stop_device_frames : &m->frames;
		write_stack(d, req, a, tid, st);
		return;
	}
	if (tid == DAP_DEVICE_TID) {
		dap_resp_error(d, req, "no CUDA focus at this stop");
		return;
	}
	/* another host thread (or the host side of a device stop) */
	char id[24];
	snprintf(id, sizeof id, "%d", tid);
	struct host_stack h = { 0 };
	if (ctl_host_stack(d->ctl, id, on_host_stack, &h) < 0 ||
	    ctl_run_until(d->ctl, host_done, &h, d->timeout_ms) != 1 ||
	    !h.st.n) {
		dap_resp_error(d, req, "no stack for host thread %d: %s", tid,
			       h.err[0] ? h.err : "no answer");
		dec_stack_free(&h.st);
		return;
	}
	write_stack(d, req, a, tid, &h.st);
	dec_stack_free(&h.st);
}

/* ---- scopes and variables ---- */

static void write_scope(struct dj_w *w, struct dap *d, const char *name,
			enum dap_ref_kind kind, int level, const char *hint)
{
	int ref = dap_ref_add(d, kind, level, NULL, -1);
	if (ref < 0)
		return;
	dj_w_obj(w);
	dj_w_kstr(w, "name", name);
	dj_w_kstr(w, "presentationHint", hint);
	dj_w_kint(w, "variablesReference", ref);
	dj_w_kbool(w, "expensive", false);
	dj_w_obj_end(w);
}

void dap_req_scopes(struct dap *d, const struct dj *req, const struct dj *a)
{
	if (!need_stopped(d, req))
		return;
	int tid, level;
	frame_decode(dj_int(a, "frameId", 0), &tid, &level);
	struct dj_w w;
	dap_resp_begin(&w, d, req);
	dj_w_key(&w, "scopes");
	dj_w_arr(&w);
	/* the variables of another host thread's frames would need a thread
	 * switch the controller does not make: no scopes there */
	if (is_focused(d, tid) && level < PY_LEVEL) {
		write_scope(&w, d, "Locals", DAP_REF_LOCALS, level, "locals");
		write_scope(&w, d, "Arguments", DAP_REF_ARGS, level, "arguments");
	}
	dj_w_arr_end(&w);
	dap_resp_end(d, &w);
}

static bool select_frame(struct dap *d, int level)
{
	const struct dbg_model *m = ctl_model(d->ctl);
	if (m->selected_frame == level)
		return true;
	if (level < 0 || (size_t)level >= m->frames.n ||
	    ctl_select_frame(d->ctl, level) < 0)
		return false;
	return dap_settle(d, d->timeout_ms) && m->selected_frame == level;
}

/* Elements of "int [64]" (the first dimension), or -1. */
static long array_count(const char *type)
{
	const char *b = type ? strchr(type, '[') : NULL;
	if (!b || !isdigit((unsigned char)b[1]))
		return -1;
	char *end;
	long n = strtol(b + 1, &end, 10);
	return *end == ']' && n > 0 ? n : -1;
}

static bool aggregate(const char *value)
{
	while (value && *value == ' ')
		value++;
	return !value || *value == '{';
}

/* One variable; aggregates get a reference for their members. */
static void write_var(struct dj_w *w, struct dap *d, const char *name,
		      size_t nlen, const char *value, size_t vlen,
		      const char *type, const char *expr, int level)
{
	long count = array_count(type);
	bool agg = !value || aggregate(value) || count > 0;
	int ref = agg && expr ? dap_ref_add(d, DAP_REF_CHILDREN, level, expr,
					    count) : 0;
	dj_w_obj(w);
	dj_w_key(w, "name");
	dj_w_textn(w, name, nlen);
	dj_w_key(w, "value");
	if (value)
		dj_w_textn(w, value, vlen);
	else
		dj_w_text(w, count > 0 ? "[...]" : "{...}");
	if (type)
		dj_w_ktext(w, "type", type);
	if (expr)
		dj_w_ktext(w, "evaluateName", expr);
	dj_w_kint(w, "variablesReference", ref > 0 ? ref : 0);
	if (count > 0)
		dj_w_kint(w, "indexedVariables", count);
	dj_w_obj_end(w);
}

struct eval_wait {
	bool done, error;
	char *value;
};

static void on_value(void *ctx, const char *expr, const char *value, bool error)
{
	(void)expr;
	struct eval_wait *e = ctx;
	e->done = true;
	e->error = error;
	e->value = strdup(value ? value : "");
}

static bool eval_done(void *ctx)
{
	return ((struct eval_wait *)ctx)->done;
}

/* Evaluates expr in the selected frame: a malloc'd value, or NULL with
 * the debugger's error in err. */
static char *evaluate(struct dap *d, const char *expr, char *err, size_t cap)
{
	struct eval_wait e = { 0 };
	if (ctl_evaluate(d->ctl, expr, on_value, &e) < 0 ||
	    ctl_run_until(d->ctl, eval_done, &e, d->timeout_ms) != 1) {
		snprintf(err, cap, "no answer from the debugger");
		free(e.value);
		return NULL;
	}
	if (e.error) {
		snprintf(err, cap, "%s", e.value ? e.value : "error");
		free(e.value);
		return NULL;
	}
	return e.value;
}

struct child_ctx {
	struct dj_w *w;
	struct dap *d;
	const struct dap_ref *ref;
	char *parent;   /* a copy: adding refs may move the table */
	long index;     /* next array index */
	int level;
};

static void on_child(void *ctx, const char *name, size_t nlen,
		     const char *val, size_t vlen)
{
	struct child_ctx *c = ctx;
	char nm[64], *expr;
	size_t el = strlen(c->parent) + (name ? nlen : 24) + 8;
	if (!(expr = malloc(el)))
		return;
	if (name) {
		snprintf(expr, el, "(%s).%.*s", c->parent, (int)nlen, name);
	} else {
		snprintf(nm, sizeof nm, "[%ld]", c->index);
		snprintf(expr, el, "(%s)[%ld]", c->parent, c->index++);
		name = nm;
		nlen = strlen(nm);
	}
	bool agg = vlen && *val == '{';
	write_var(c->w, c->d, name, nlen, val, vlen, NULL, agg ? expr : expr,
		  c->level);
	free(expr);
}

static void children(struct dap *d, const struct dj *req, const struct dj *a,
		     const struct dap_ref *ref)
{
	char err[512] = "out of memory", *q;
	long start = (long)dj_int(a, "start", 0), count = (long)dj_int(a, "count", 0);
	struct child_ctx c = { NULL, d, ref, strdup(ref->expr), 0, ref->level };
	if (!c.parent)
		return;
	if (ref->count > 0) {
		/* one page of an array in one command: (E)[start]@count */
		if (start < 0 || start >= ref->count)
			start = 0;
		if (count <= 0 || count > ref->count - start)
			count = ref->count - start;
		if (count > DAP_MAX_PAGE)
			count = DAP_MAX_PAGE;
		size_t ql = strlen(ref->expr) + 48;
		q = malloc(ql);
		if (q)
			snprintf(q, ql, "(%s)[%ld]@%ld", ref->expr, start, count);
		c.index = start;
	} else {
		q = strdup(ref->expr);
	}
	char *v = q ? evaluate(d, q, err, sizeof err) : NULL;
	free(q);
	if (!v) {
		dap_resp_error(d, req, "%s", err);
		free(c.parent);
		return;
	}
	struct dj_w w;
	c.w = &w;
	dap_resp_begin(&w, d, req);
	dj_w_key(&w, "variables");
	dj_w_arr(&w);
	dap_split_value(v, on_child, &c, ref->count > 0 ? count : DAP_MAX_PAGE);
	dj_w_arr_end(&w);
	dap_resp_end(d, &w);
	free(v);
	free(c.parent);
}

void dap_req_variables(struct dap *d, const struct dj *req, const struct dj *a)
{
	if (!need_stopped(d, req))
		return;
	const struct dap_ref *ref = dap_ref_get(d, dj_int(a, "variablesReference", 0));
	if (!ref) {
		dap_resp_error(d, req, "unknown variablesReference (stale after "
			       "the program moved?)");
		return;
	}
	if (!select_frame(d, ref->level)) {
		dap_resp_error(d, req, "cannot select frame %d", ref->level);
		return;
	}
	/* the reference table may move as children are added: copy */
	struct dap_ref r = *ref;
	if (r.kind == DAP_REF_CHILDREN) {
		children(d, req, a, &r);
		return;
	}
	const struct dbg_model *m = ctl_model(d->ctl);
	struct dj_w w;
	dap_resp_begin(&w, d, req);
	dj_w_key(&w, "variables");
	dj_w_arr(&w);
	for (size_t i = 0; i < m->vars.n; i++) {
		const struct dec_var *v = &m->vars.v[i];
		if (v->is_arg != (r.kind == DAP_REF_ARGS))
			continue;
		/* never a stale register as a plain value (include/cudbg/
		 * model.h): the text says why, and nothing to expand */
		bool stale = model_var_untrusted(m, r.level, v);
		const char *val = stale ? STALE_VALUE_TEXT : v->value;
		write_var(&w, d, v->name, strlen(v->name), val,
			  val ? strlen(val) : 0, stale ? NULL : v->type,
			  stale ? NULL : v->name, r.level);
	}
	dj_w_arr_end(&w);
	dap_resp_end(d, &w);
}

/* ---- gdb aggregate values ---- */

/* Skips a quoted string or char literal at s[i] (the quote); returns the
 * index after it. */
static size_t skip_quoted(const char *s, size_t i)
{
	char q = s[i++];
	while (s[i] && s[i] != q)
		i += s[i] == '\\' && s[i + 1] ? 2 : 1;
	return s[i] ? i + 1 : i;
}

/* " <repeats 16 times>" at the end of an item: the count, else 1. */
static long repeats(const char *item, size_t *len)
{
	static const char tag[] = " <repeats ";
	const char *end = item + *len;
	if (*len < 18 || strncmp(end - 7, " times>", 7) != 0)
		return 1;
	for (const char *p = end - 8; p > item; p--) {
		if (strncmp(p, tag, sizeof tag - 1) == 0) {
			long n = strtol(p + sizeof tag - 1, NULL, 10);
			*len = (size_t)(p - item);
			return n > 0 ? n : 1;
		}
	}
	return 1;
}

static void emit_item(const char *item, size_t len,
		      void (*fn)(void *, const char *, size_t, const char *,
				 size_t), void *ctx, long *emitted, long max)
{
	while (len && item[0] == ' ')
		item++, len--;
	/* "name = value" at the item's top level: a member */
	size_t i = 0;
	while (i < len && (isalnum((unsigned char)item[i]) || item[i] == '_'))
		i++;
	const char *name = NULL;
	size_t nlen = 0;
	if (i > 0 && i + 3 <= len && strncmp(item + i, " = ", 3) == 0) {
		name = item;
		nlen = i;
		item += i + 3;
		len -= i + 3;
	}
	long n = name ? 1 : repeats(item, &len);
	for (long k = 0; k < n && *emitted < max; k++, (*emitted)++)
		fn(ctx, name, nlen, item, len);
}

long dap_split_value(const char *v, void (*fn)(void *ctx, const char *name,
		     size_t nlen, const char *val, size_t vlen), void *ctx,
		     long max)
{
	size_t i = 0;
	while (v[i] == ' ')
		i++;
	if (v[i] != '{')
		return -1;
	int depth = 0;
	size_t item = i + 1;
	long emitted = 0;
	for (; v[i]; ) {
		char c = v[i];
		if (c == '"' || c == '\'') {
			i = skip_quoted(v, i);
			continue;
		}
		if (c == '{' || c == '(' || c == '[')
			depth++;
		else if (c == '}' || c == ')' || c == ']') {
			if (--depth == 0) {
				if (i > item)
					emit_item(v + item, i - item, fn, ctx,
						  &emitted, max);
				break;
			}
		} else if (c == ',' && depth == 1) {
			emit_item(v + item, i - item, fn, ctx, &emitted, max);
			item = i + 1;
		}
		i++;
	}
	return emitted;
}

/* ---- evaluate ---- */

/* Console commands a repl line may start with: they pass through to the
 * debugger's console (its own words, as in the screen's console). */
static bool console_command(const char *e)
{
	static const char *const words[] = {
		"info", "bt", "backtrace", "print", "p", "x", "set", "show",
		"cuda", "list", "frame", "f", "thread", "break", "b", "tbreak",
		"delete", "disable", "enable", "watch", "display", "ptype",
		"whatis", "disassemble", "up", "down", "where", "help", "output",
		"echo", "maint", "maintenance", "source", "call", "printf",
		"dprintf", "condition", "ignore", "until", "advance", "kill",
		"detach", "target", "file", "directory", "dir", NULL,
	};
	size_t n = 0;
	while (e[n] && !isspace((unsigned char)e[n]))
		n++;
	for (size_t i = 0; words[i]; i++)
		if (strlen(words[i]) == n && strncmp(words[i], e, n) == 0)
			return true;
	return false;
}

struct raw_wait {
	bool done, error;
	char *text;
};

static void on_raw(void *ctx, const struct session_reply *r)
{
	struct raw_wait *w = ctx;
	w->done = true;
	w->error = r->kind == SESSION_REPLY_ERROR || r->kind == SESSION_REPLY_GONE;
	size_t len = 0;
	char *rec = r->rec ? session_format_record(r->rec, &len) : NULL;
	size_t cl = r->console ? r->console_len : 0;
	const char *msg = r->msg ? r->msg : "";
	w->text = malloc(cl + len + strlen(msg) + 4);
	if (w->text) {
		memcpy(w->text, r->console ? r->console : "", cl);
		if (w->error)
			strcpy(w->text + cl, msg);
		else if (rec && cl == 0)
			memcpy(w->text, rec, len + 1);
		else
			w->text[cl] = 0;
	}
	free(rec);
}

static bool raw_done(void *ctx)
{
	return ((struct raw_wait *)ctx)->done;
}

/* A repl line for the debugger itself: "-MI-COMMAND ..." as MI, or a
 * console command (its output captured); what the panes show is
 * refreshed afterwards, as after the screen's console. */
static void pass_through(struct dap *d, const struct dj *req, const char *e)
{
	struct raw_wait rw = { 0 };
	struct session *s = ctl_session(d->ctl);
	int64_t tok;
	if (strpbrk(e, "\n\r")) {
		dap_resp_error(d, req, "one command per line");
		return;
	}
	if (e[0] == '-') {
		tok = session_send_flags(s, SESSION_CAPTURE, on_raw, &rw, "%s", e);
	} else {
		size_t cap = strlen(e) * 4 + 8;
		char *q = malloc(cap);
		if (!q)
			return;
		mi_quote(q, cap, e, strlen(e));
		tok = session_send_flags(s, SESSION_CAPTURE, on_raw, &rw,
					 "-interpreter-exec console %s", q);
		free(q);
	}
	if (tok < 0 || ctl_run_until(d->ctl, raw_done, &rw, d->timeout_ms) != 1) {
		dap_resp_error(d, req, "no answer from the debugger");
		free(rw.text);
		return;
	}
	if (rw.error) {
		dap_resp_error(d, req, "%s", rw.text ? rw.text : "error");
	} else {
		struct dj_w w;
		dap_resp_begin(&w, d, req);
		dj_w_ktext(&w, "result", rw.text ? rw.text : "");
		dj_w_kint(&w, "variablesReference", 0);
		dap_resp_end(d, &w);
	}
	free(rw.text);
	if (ctl_model(d->ctl)->state == MODEL_STOPPED) {
		ctl_refresh(d->ctl);
		dap_settle(d, d->timeout_ms);
	}
}

void dap_req_evaluate(struct dap *d, const struct dj *req, const struct dj *a)
{
	const char *e = dj_str(a, "expression", "");
	const char *context = dj_str(a, "context", "");
	while (*e == ' ')
		e++;
	if (!d->ctl) {
		dap_resp_error(d, req, "no session: send launch or attach first");
		return;
	}
	if (!*e) {
		dap_resp_error(d, req, "an empty expression");
		return;
	}
	if (strcmp(context, "repl") == 0 && (e[0] == '-' || console_command(e))) {
		pass_through(d, req, e);
		return;
	}
	if (!need_stopped(d, req))
		return;
	const struct dj *fid = dj_get(a, "frameId");
	if (fid) {
		int tid, level;
		frame_decode(dj_int(a, "frameId", 0), &tid, &level);
		if (is_focused(d, tid) && level >= PY_LEVEL) {
			dap_resp_error(d, req, "a Python frame or a fold of "
				       "library frames has no gdb frame to "
				       "evaluate in: pick a native frame");
			return;
		}
		if (is_focused(d, tid) && !select_frame(d, level)) {
			dap_resp_error(d, req, "cannot select frame %d", level);
			return;
		}
	}
	char err[512];
	char *v = evaluate(d, e, err, sizeof err);
	if (!v) {
		dap_resp_error(d, req, "%s", err);
		return;
	}
	const struct dbg_model *m = ctl_model(d->ctl);
	int ref = aggregate(v) ? dap_ref_add(d, DAP_REF_CHILDREN,
					     m->selected_frame, e, -1) : 0;
	struct dj_w w;
	dap_resp_begin(&w, d, req);
	dj_w_ktext(&w, "result", v);
	dj_w_kint(&w, "variablesReference", ref > 0 ? ref : 0);
	dap_resp_end(d, &w);
	free(v);
}

/* ---- disassemble ---- */

static bool parse_addr(const char *s, uint64_t *out)
{
	char *end;
	if (!s || !*s)
		return false;
	unsigned long long v = strtoull(s, &end, 0);
	if (*end)
		return false;
	*out = v;
	return true;
}

static bool disasm_pred(void *ctx)
{
	struct dap *d = ctx;
	return !ctl_busy(d->ctl);
}

void dap_req_disassemble(struct dap *d, const struct dj *req, const struct dj *a)
{
	uint64_t addr;
	if (!need_stopped(d, req))
		return;
	if (!parse_addr(dj_str(a, "memoryReference", NULL), &addr)) {
		dap_resp_error(d, req, "memoryReference must be an address "
			       "(0x...)");
		return;
	}
	long long off = dj_int(a, "instructionOffset", 0);
	long long cnt = dj_int(a, "instructionCount", 0);
	if (cnt <= 0 || cnt > 10000) {
		dap_resp_error(d, req, "instructionCount must be 1..10000");
		return;
	}
	const struct dbg_model *m = ctl_model(d->ctl);
	if (ctl_disassemble(d->ctl, NULL, NULL) >= 0)
		ctl_run_until(d->ctl, disasm_pred, d, d->timeout_ms);
	const struct dec_disasm *dis = &m->disasm;
	long long at = -1;
	for (size_t i = 0; i < dis->n && at < 0; i++)
		if (dis->v[i].addr >= addr)
			at = (long long)i;
	if (at < 0) {
		dap_resp_error(d, req, "no disassembly at 0x%llx (only the "
			       "selected frame's function is read)",
			       (unsigned long long)addr);
		return;
	}
	struct dj_w w;
	char buf[40];
	dap_resp_begin(&w, d, req);
	dj_w_key(&w, "instructions");
	dj_w_arr(&w);
	for (long long k = 0; k < cnt; k++) {
		long long i = at + off + k;
		dj_w_obj(&w);
		if (i < 0 || (size_t)i >= dis->n) {
			/* DAP wants exactly cnt entries: pad outside */
			dj_w_kstr(&w, "address", "0x0");
			dj_w_kstr(&w, "instruction", "??");
			dj_w_kstr(&w, "presentationHint", "invalid");
		} else {
			const struct dec_insn *in = &dis->v[i];
			snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)in->addr);
			dj_w_kstr(&w, "address", buf);
			dj_w_ktext(&w, "instruction", in->inst ? in->inst : "");
			if (in->opcodes)
				dj_w_ktext(&w, "instructionBytes", in->opcodes);
			if (in->func)
				dj_w_ktext(&w, "symbol", in->func);
			if (in->line > 0 && (in->fullname || in->file)) {
				dj_w_key(&w, "location");
				dj_w_obj(&w);
				dj_w_ktext(&w, "path", in->fullname ? in->fullname : in->file);
				dj_w_obj_end(&w);
				dj_w_kint(&w, "line", in->line);
			}
		}
		dj_w_obj_end(&w);
	}
	dj_w_arr_end(&w);
	dap_resp_end(d, &w);
}

/* ---- readMemory ---- */

struct mem_wait {
	bool done;
	struct dec_memory mem;
	char err[256];
};

static void on_mem(void *ctx, const struct session_reply *r)
{
	struct mem_wait *mw = ctx;
	mw->done = true;
	if (r->kind == SESSION_REPLY_DONE && r->rec &&
	    dec_memory_decode(r->rec->results, &mw->mem) >= 0)
		return;
	snprintf(mw->err, sizeof mw->err, "%s", r->msg ? r->msg : "unreadable");
}

static bool mem_done(void *ctx)
{
	return ((struct mem_wait *)ctx)->done;
}

static void base64(struct dj_w *w, const unsigned char *p, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *o = malloc(n / 3 * 4 + 8), *q = o;
	if (!o) {
		dj_w_str(w, "");
		return;
	}
	size_t i = 0;
	for (; i + 2 < n; i += 3) {
		*q++ = t[p[i] >> 2];
		*q++ = t[(p[i] & 3) << 4 | p[i + 1] >> 4];
		*q++ = t[(p[i + 1] & 15) << 2 | p[i + 2] >> 6];
		*q++ = t[p[i + 2] & 63];
	}
	if (i < n) {
		*q++ = t[p[i] >> 2];
		*q++ = t[(p[i] & 3) << 4 | (i + 1 < n ? p[i + 1] >> 4 : 0)];
		*q++ = i + 1 < n ? t[(p[i + 1] & 15) << 2] : '=';
		*q++ = '=';
	}
	dj_w_strn(w, o, (size_t)(q - o));
	free(o);
}

void dap_req_read_memory(struct dap *d, const struct dj *req, const struct dj *a)
{
	uint64_t addr;
	if (!need_stopped(d, req))
		return;
	if (!parse_addr(dj_str(a, "memoryReference", NULL), &addr)) {
		dap_resp_error(d, req, "memoryReference must be an address");
		return;
	}
	long long off = dj_int(a, "offset", 0), cnt = dj_int(a, "count", -1);
	if (cnt < 0 || cnt > (1 << 20)) {
		dap_resp_error(d, req, "count must be 0..1048576");
		return;
	}
	addr += (uint64_t)off;
	struct mem_wait mw = { 0 };
	if (session_send(ctl_session(d->ctl), on_mem, &mw,
			 "-data-read-memory-bytes 0x%llx %lld",
			 (unsigned long long)addr, cnt) < 0 ||
	    ctl_run_until(d->ctl, mem_done, &mw, d->timeout_ms) != 1) {
		dap_resp_error(d, req, "no answer from the debugger");
		dec_memory_free(&mw.mem);
		return;
	}
	if (mw.err[0]) {
		dap_resp_error(d, req, "%s", mw.err);
		return;
	}
	char buf[32];
	const struct dec_mem_block *b = mw.mem.n ? &mw.mem.v[0] : NULL;
	uint64_t start = b ? b->begin + b->offset : addr;
	struct dj_w w;
	dap_resp_begin(&w, d, req);
	snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)start);
	dj_w_kstr(&w, "address", buf);
	dj_w_kint(&w, "unreadableBytes", (long long)cnt - (b ? (long long)b->len : 0));
	dj_w_key(&w, "data");
	base64(&w, b ? b->bytes : NULL, b ? b->len : 0);
	dap_resp_end(d, &w);
	dec_memory_free(&mw.mem);
}

/* ---- cudaFocus: the custom request that moves the CUDA focus ---- */

static bool dim3_arg(const struct dj *a, const char *key, struct dec_dim3 *out)
{
	const struct dj *v = dj_get(a, key);
	long long x[3] = { 0, 0, 0 };
	if (!v)
		return false;
	if (v->type == DJ_ARR && v->len >= 1 && v->len <= 3) {
		for (size_t i = 0; i < v->len; i++) {
			if (v->kids[i].type != DJ_NUM)
				return false;
			x[i] = (long long)v->kids[i].num;
		}
	} else if (v->type == DJ_OBJ) {
		x[0] = dj_int(v, "x", -1);
		x[1] = dj_int(v, "y", 0);
		x[2] = dj_int(v, "z", 0);
	} else {
		return false;
	}
	for (int i = 0; i < 3; i++)
		if (x[i] < 0 || x[i] > 0x7fffffff)
			return false;
	*out = (struct dec_dim3){ (uint32_t)x[0], (uint32_t)x[1], (uint32_t)x[2],
				  true };
	return true;
}

void dap_req_cuda_focus(struct dap *d, const struct dj *req, const struct dj *a)
{
	struct dec_dim3 block, thread;
	if (!need_stopped(d, req))
		return;
	const struct dbg_model *m = ctl_model(d->ctl);
	if (!m->focus.valid) {
		dap_resp_error(d, req, "no CUDA focus: the program is stopped "
			       "in host code");
		return;
	}
	if (!dim3_arg(a, "block", &block))
		block = m->focus.block;
	if (!dim3_arg(a, "thread", &thread)) {
		dap_resp_error(d, req, "cudaFocus needs thread: [x,y,z] (and "
			       "block: [x,y,z], default the focused block)");
		return;
	}
	if (ctl_focus_thread(d->ctl, block, thread) < 0 ||
	    !dap_settle(d, d->timeout_ms)) {
		dap_resp_error(d, req, "%s", m->error ? m->error : "refused");
		return;
	}
	if (m->focus.block.x != block.x || m->focus.block.y != block.y ||
	    m->focus.block.z != block.z || m->focus.thread.x != thread.x ||
	    m->focus.thread.y != thread.y || m->focus.thread.z != thread.z) {
		dap_resp_error(d, req, "the debugger did not switch to that "
			       "thread: %s", m->error ? m->error
			       : "no such block or thread in the kernel");
		return;
	}
	char name[256];
	dap_focus_name(&m->focus, name, sizeof name);
	dap_refs_clear(d);
	d->device_stop = true;
	d->stop_tid = DAP_DEVICE_TID;
	struct dj_w w;
	dap_resp_begin(&w, d, req);
	dj_w_kint(&w, "threadId", DAP_DEVICE_TID);
	dj_w_kstr(&w, "name", name);
	dap_resp_end(d, &w);
	/* the editor re-reads threads and stacks on a stop */
	dap_event_begin(&w, d, "stopped");
	dj_w_kstr(&w, "reason", "focus");
	dj_w_kstr(&w, "description", name);
	dj_w_kint(&w, "threadId", DAP_DEVICE_TID);
	dj_w_kbool(&w, "allThreadsStopped", true);
	dap_event_end(d, &w);
}
