/* The debugger model: state fed by decoded records.  See
 * include/cudbg/model.h. */
#include "cudbg/model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OUTPUT_CAP = 4u << 20, CONSOLE_CAP = 1u << 20 };

/* ---- ring ---- */

int model_ring_append(struct model_ring *r, const char *buf, size_t len)
{
	if (r->cap == 0 || len == 0)
		return 0;
	if (!r->buf) {
		r->buf = malloc(r->cap);
		if (!r->buf)
			return MI_ENOMEM;
	}
	r->total += len;
	if (len >= r->cap) {
		/* only the newest cap bytes survive */
		memcpy(r->buf, buf + len - r->cap, r->cap);
		r->start = 0;
		r->len = r->cap;
		return 0;
	}
	size_t drop = r->len + len > r->cap ? r->len + len - r->cap : 0;
	r->start = (r->start + drop) % r->cap;
	r->len -= drop;
	size_t end = (r->start + r->len) % r->cap;
	size_t first = r->cap - end < len ? r->cap - end : len;
	memcpy(r->buf + end, buf, first);
	memcpy(r->buf, buf + first, len - first);
	r->len += len;
	return 0;
}

size_t model_ring_copy(const struct model_ring *r, char *dst, size_t cap)
{
	size_t n = r->len < cap ? r->len : cap;
	size_t from = (r->start + (r->len - n)) % (r->cap ? r->cap : 1);
	for (size_t done = 0; done < n;) {
		size_t chunk = r->cap - from < n - done ? r->cap - from : n - done;
		memcpy(dst + done, r->buf + from, chunk);
		done += chunk;
		from = 0;
	}
	return n;
}

void model_ring_clear(struct model_ring *r)
{
	r->start = r->len = 0;
}

static void ring_free(struct model_ring *r)
{
	free(r->buf);
	*r = (struct model_ring){ 0 };
}

/* ---- lifetime ---- */

static const char *const state_names[] = {
	[MODEL_NOT_STARTED] = "not started", [MODEL_STARTING] = "starting",
	[MODEL_RUNNING] = "running",         [MODEL_STOPPED] = "stopped",
	[MODEL_EXITED] = "exited",           [MODEL_GONE] = "debugger gone",
};

const char *model_state_name(enum model_state s)
{
	return (size_t)s < sizeof state_names / sizeof state_names[0] ?
		       state_names[s] : "?";
}

static void focus_clear(struct dec_focus *f)
{
	*f = (struct dec_focus){ .device = -1, .sm = -1, .warp = -1,
				 .lane = -1, .kernel = -1, .grid = -1 };
}

int model_init(struct dbg_model *m, size_t output_cap, size_t console_cap)
{
	*m = (struct dbg_model){ .selected_frame = -1, .user_frame = -1 };
	focus_clear(&m->focus);
	m->stop.bkptno = m->stop.locno = -1;
	for (int i = 0; i < MODEL_T_COUNT; i++)
		dec_table_free(&m->tables[i]);
	m->output.cap = output_cap ? output_cap : OUTPUT_CAP;
	m->console.cap = console_cap ? console_cap : CONSOLE_CAP;
	return 0;
}

static void watches_free(struct dbg_model *m)
{
	for (size_t i = 0; i < m->nwatches; i++) {
		free(m->watches[i].expr);
		free(m->watches[i].value);
		free(m->watches[i].prev);
	}
	free(m->watches);
	m->watches = NULL;
	m->nwatches = 0;
}

static void regs_free(struct dbg_model *m)
{
	for (size_t i = 0; i < m->nregs; i++) {
		free(m->regs[i].value);
		free(m->regs[i].prev);
	}
	free(m->regs);
	m->regs = NULL;
	m->nregs = 0;
}

static void lanes_free(struct dbg_model *m)
{
	for (size_t i = 0; i < m->nlanes; i++)
		free(m->lanes[i].value);
	free(m->lanes);
	m->lanes = NULL;
	m->nlanes = 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t dist(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

size_t model_culprit_far(const struct model_culprit *c, bool *far)
{
	if (c->state != MODEL_CULPRIT_DONE || c->n < 2)
		return 0;
	uint64_t *v = malloc(c->n * sizeof *v);
	if (!v)
		return 0;
	size_t n = 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->lanes[i].lane >= 0 && c->lanes[i].has_addr)
			v[n++] = c->lanes[i].addr;
	if (n < 4) { /* too few lanes to call one an outlier */
		free(v);
		return 0;
	}
	qsort(v, n, sizeof *v, cmp_u64);
	uint64_t med = v[n / 2];
	for (size_t i = 0; i < n; i++)
		v[i] = dist(v[i], med);
	qsort(v, n, sizeof *v, cmp_u64);
	uint64_t spread = v[n / 2];
	free(v);
	uint64_t limit = spread > UINT64_MAX / 1000 ? UINT64_MAX
			 : spread * 1000;
	if (limit < 65536)
		limit = 65536;
	size_t k = 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct model_lane_addr *l = &c->lanes[i];
		bool f = l->lane >= 0 && l->has_addr && dist(l->addr, med) > limit;
		if (far)
			far[i] = f;
		k += f;
	}
	if (k * 4 > n) { /* not a minority: no culprit */
		if (far)
			memset(far, 0, c->n * sizeof *far);
		return 0;
	}
	return k;
}

int model_culprit_lane(const struct model_culprit *c)
{
	bool *far = calloc(c->n ? c->n : 1, sizeof *far);
	int lane = -1;
	if (far && model_culprit_far(c, far))
		for (size_t i = 0; i < c->n && lane < 0; i++)
			if (far[i])
				lane = c->lanes[i].lane;
	free(far);
	return lane;
}

void model_culprit_clear(struct dbg_model *m)
{
	struct model_culprit *c = &m->culprit;
	free(c->inst);
	free(c->expr);
	free(c->why);
	free(c->lvalue);
	free(c->lanes);
	*c = (struct model_culprit){ .state = MODEL_CULPRIT_NONE };
	m->changes |= MODEL_CH_CULPRIT;
}

static void bkpts_free(struct dbg_model *m)
{
	for (size_t i = 0; i < m->nbkpts; i++)
		dec_bkpts_free(&m->bkpts[i]);
	free(m->bkpts);
	m->bkpts = NULL;
	m->nbkpts = 0;
}

void model_free(struct dbg_model *m)
{
	if (!m)
		return;
	dec_stop_free(&m->stop);
	dec_stack_free(&m->frames);
	dec_stack_free(&m->stop_device_frames);
	dec_vars_free(&m->vars);
	dec_threads_free(&m->host_threads);
	bkpts_free(m);
	watches_free(m);
	for (int i = 0; i < MODEL_T_COUNT; i++) {
		dec_table_free(&m->tables[i]);
		free(m->table_error[i]);
	}
	dec_regnames_free(&m->regnames);
	free(m->regnames_arch);
	regs_free(m);
	free(m->mem_expr);
	dec_memory_free(&m->memory);
	free(m->mem_error);
	free(m->warp_expr);
	lanes_free(m);
	model_culprit_clear(m);
	model_access_clear(m);
	model_allocs_free(m);
	model_core_free(&m->core);
	dec_disasm_free(&m->disasm);
	free(m->disasm_func);
	ring_free(&m->output);
	ring_free(&m->console);
	for (size_t i = 0; i < m->warns.n; i++)
		free(m->warns.line[i]);
	free(m->exit_signal);
	free(m->gone_reason);
	free(m->error);
	*m = (struct dbg_model){ .selected_frame = -1, .user_frame = -1 };
}

unsigned model_take_changes(struct dbg_model *m)
{
	unsigned c = m->changes;
	m->changes = 0;
	return c;
}

/* ---- setters ---- */

void model_add_output(struct dbg_model *m, const char *buf, size_t len)
{
	if (model_ring_append(&m->output, buf, len) == 0 && len)
		m->changes |= MODEL_CH_OUTPUT;
}

void model_add_console(struct dbg_model *m, const char *buf, size_t len)
{
	if (model_ring_append(&m->console, buf, len) == 0 && len)
		m->changes |= MODEL_CH_CONSOLE;
}

/* Whether the ring's last line is s (followed by its newline). */
static bool ring_ends_with_line(const struct model_ring *r, const char *s)
{
	size_t n = strlen(s) + 1;
	if (n > r->len || n > 4096)
		return false;
	char tail[4097];
	for (size_t i = 0; i < n; i++)
		tail[i] = r->buf[(r->start + r->len - n + i) % r->cap];
	return tail[n - 1] == '\n' && memcmp(tail, s, n - 1) == 0 &&
	       (n == r->len || r->buf[(r->start + r->len - n - 1) % r->cap] == '\n');
}

void model_set_error(struct dbg_model *m, const char *fmt, ...)
{
	free(m->error);
	m->error = NULL;
	m->changes |= MODEL_CH_ERROR;
	if (!fmt)
		return;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&m->error, fmt, ap) < 0)
		m->error = NULL;
	va_end(ap);
	/* (a typed command's error came as a log line just before its
	 * ^error: once is enough) */
	if (m->error && !ring_ends_with_line(&m->console, m->error)) {
		model_add_console(m, m->error, strlen(m->error));
		model_add_console(m, "\n", 1);
	}
}

void model_set_state(struct dbg_model *m, enum model_state s)
{
	if (m->state == MODEL_GONE || m->state == s)
		return;
	m->state = s;
	m->changes |= MODEL_CH_STATE;
}

/* The program is gone: nothing of its state is worth showing. */
static void program_cleared(struct dbg_model *m)
{
	dec_stack_free(&m->frames);
	dec_vars_free(&m->vars);
	dec_threads_free(&m->host_threads);
	m->selected_frame = -1;
	m->user_frame = -1;
	focus_clear(&m->focus);
	for (int i = 0; i < MODEL_T_COUNT; i++) {
		dec_table_free(&m->tables[i]);
		free(m->table_error[i]);
		m->table_error[i] = NULL;
	}
	m->changes |= MODEL_CH_FRAMES | MODEL_CH_VARS | MODEL_CH_FOCUS |
		      MODEL_CH_KERNELS | MODEL_CH_BLOCKS | MODEL_CH_THREADS |
		      MODEL_CH_TABLES;
}

void model_set_gone(struct dbg_model *m, const char *reason)
{
	free(m->gone_reason);
	m->gone_reason = strdup(reason ? reason : "the debugger is gone");
	if (m->state != MODEL_GONE) {
		m->state = MODEL_GONE;
		m->changes |= MODEL_CH_STATE;
	}
	program_cleared(m);
	if (m->gone_reason) {
		model_add_console(m, m->gone_reason, strlen(m->gone_reason));
		model_add_console(m, "\n", 1);
	}
}

void model_take_frames(struct dbg_model *m, struct dec_stack *s)
{
	bool old_dev = m->frames.n && dec_frame_is_device(&m->frames.frames[0]);
	bool new_dev = s->n && dec_frame_is_device(&s->frames[0]);
	if (old_dev && !new_dev && m->has_stop &&
	    dec_stop_is_device_signal(&m->stop)) {
		/* the device stack of this stop, kept: after calls into the
		 * program (the Python stack) cuda-gdb has resumed the GPU and
		 * the faulting kernel is gone ("Invalid coordinates
		 * requested"), so only this copy shows where it stopped */
		dec_stack_free(&m->stop_device_frames);
		m->stop_device_frames = m->frames;
	} else {
		dec_stack_free(&m->frames);
		if (new_dev)
			dec_stack_free(&m->stop_device_frames);
	}
	m->frames = *s;
	*s = (struct dec_stack){ 0 };
	if (m->frames.n == 0)
		m->selected_frame = -1;
	else if (m->selected_frame < 0 ||
		 (size_t)m->selected_frame >= m->frames.n)
		m->selected_frame = m->frames.frames[0].level >= 0 ?
					    m->frames.frames[0].level : 0;
	m->changes |= MODEL_CH_FRAMES;
}

void model_take_vars(struct dbg_model *m, struct dec_vars *v)
{
	dec_vars_free(&m->vars);
	m->vars = *v;
	*v = (struct dec_vars){ 0 };
	m->changes |= MODEL_CH_VARS;
}

static const unsigned table_change[MODEL_T_COUNT] = {
	[MODEL_T_DEVICES] = MODEL_CH_TABLES, [MODEL_T_SMS] = MODEL_CH_TABLES,
	[MODEL_T_WARPS] = MODEL_CH_TABLES,   [MODEL_T_LANES] = MODEL_CH_TABLES,
	[MODEL_T_KERNELS] = MODEL_CH_KERNELS,
	[MODEL_T_BLOCKS] = MODEL_CH_BLOCKS,
	[MODEL_T_THREADS] = MODEL_CH_THREADS,
	[MODEL_T_CONTEXTS] = MODEL_CH_TABLES,
};

void model_take_table(struct dbg_model *m, enum model_table which,
		      struct dec_table *t)
{
	if ((unsigned)which >= MODEL_T_COUNT)
		return;
	dec_table_free(&m->tables[which]);
	m->tables[which] = *t;
	*t = (struct dec_table){ .declared_rows = -1 };
	for (int k = 0; k < DEC_COL_COUNT; k++)
		t->col[k] = -1;
	free(m->table_error[which]);
	m->table_error[which] = NULL;
	m->changes |= table_change[which];
}

void model_set_table_error(struct dbg_model *m, enum model_table which,
			   const char *msg)
{
	struct dec_table none = { 0 };
	if ((unsigned)which >= MODEL_T_COUNT)
		return;
	dec_table_free(&none); /* an empty table with no columns */
	model_take_table(m, which, &none);
	m->table_error[which] = strdup(msg && *msg ? msg : "error");
}

void model_set_focus(struct dbg_model *m, const struct dec_focus *f)
{
	if (memcmp(&m->focus, f, sizeof *f) != 0)
		m->changes |= MODEL_CH_FOCUS;
	m->focus = *f;
}

/* ---- breakpoints ---- */

static size_t bkpt_slot(const struct dbg_model *m, int number, bool *found)
{
	size_t i = 0;
	while (i < m->nbkpts && m->bkpts[i].v[0].number < number)
		i++;
	*found = i < m->nbkpts && m->bkpts[i].v[0].number == number;
	return i;
}

void model_put_bkpt(struct dbg_model *m, struct dec_bkpts *one)
{
	/* the session's own dprintfs are not the user's breakpoints (one
	 * first shows without its script while pending: gone then) */
	if (one->n == 1 && one->v[0].internal) {
		model_del_bkpt(m, one->v[0].number);
		model_alloc_watch_bkpt(m, one->v[0].number);
	}
	if (one->n != 1 || one->v[0].internal) {
		dec_bkpts_free(one);
		return;
	}
	bool found;
	size_t i = bkpt_slot(m, one->v[0].number, &found);
	if (found) {
		dec_bkpts_free(&m->bkpts[i]);
	} else {
		struct dec_bkpts *v = realloc(m->bkpts,
					      (m->nbkpts + 1) * sizeof *v);
		if (!v) {
			dec_bkpts_free(one);
			return;
		}
		m->bkpts = v;
		memmove(v + i + 1, v + i, (m->nbkpts - i) * sizeof *v);
		m->nbkpts++;
	}
	m->bkpts[i] = *one;
	*one = (struct dec_bkpts){ 0 };
	m->changes |= MODEL_CH_BKPTS;
}

void model_del_bkpt(struct dbg_model *m, int number)
{
	bool found;
	size_t i = bkpt_slot(m, number, &found);
	if (!found)
		return;
	dec_bkpts_free(&m->bkpts[i]);
	memmove(m->bkpts + i, m->bkpts + i + 1,
		(m->nbkpts - i - 1) * sizeof *m->bkpts);
	m->nbkpts--;
	m->changes |= MODEL_CH_BKPTS;
}

/* Each breakpoint gets its own arena (decoded one by one from the
 * table's body), so one can later be replaced or deleted alone. */
int model_set_bkpt_list(struct dbg_model *m, const struct mi_node *results)
{
	const struct mi_node *t = mi_find(results, "BreakpointTable");
	const struct mi_node *body = t && t->kind == MI_NODE_TUPLE ?
					     mi_find(t->child, "body") : NULL;
	if (!body || body->kind == MI_NODE_STRING)
		return t ? DEC_ESHAPE : DEC_EMISSING;
	bkpts_free(m);
	m->changes |= MODEL_CH_BKPTS;
	for (const struct mi_node *c = body->child; c; c = c->next) {
		struct dec_bkpts one;
		/* c is named "bkpt": the lookup finds c itself first */
		int err = dec_bkpt_decode(c, &one);
		if (err == MI_ENOMEM)
			return err;
		if (err == 0)
			model_put_bkpt(m, &one);
	}
	return 0;
}

const struct dec_bkpt *model_bkpt(const struct dbg_model *m, size_t i)
{
	return i < m->nbkpts ? &m->bkpts[i].v[0] : NULL;
}

const struct dec_bkpt *model_bkpt_by_number(const struct dbg_model *m,
					    int number)
{
	for (size_t i = 0; i < m->nbkpts; i++)
		if (m->bkpts[i].v[0].number == number)
			return &m->bkpts[i].v[0];
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path;
}

static bool same_file(const char *want, const char *file, const char *full)
{
	if (!want)
		return false;
	if (full && strcmp(want, full) == 0)
		return true;
	if (file && strcmp(want, file) == 0)
		return true;
	const char *b = base_name(want);
	return (file && strcmp(b, base_name(file)) == 0) ||
	       (full && strcmp(b, base_name(full)) == 0);
}

const struct dec_bkpt *model_bkpt_at(const struct dbg_model *m,
				     const char *file, int line)
{
	for (size_t i = 0; i < m->nbkpts; i++) {
		const struct dec_bkpt *b = &m->bkpts[i].v[0];
		const char *f, *full;
		int l;
		if (dec_bkpt_where(b, &f, &full, &l) && l == line &&
		    same_file(file, f, full))
			return b;
	}
	return NULL;
}

/* ---- registers and watches ---- */

void model_take_regnames(struct dbg_model *m, struct dec_regnames *n,
			 const char *arch)
{
	regs_free(m);
	dec_regnames_free(&m->regnames);
	free(m->regnames_arch);
	m->regnames = *n;
	*n = (struct dec_regnames){ 0 };
	m->regnames_arch = arch ? strdup(arch) : NULL;
	m->regs = calloc(m->regnames.n ? m->regnames.n : 1, sizeof *m->regs);
	if (!m->regs)
		return;
	m->nregs = m->regnames.n;
	for (size_t i = 0; i < m->nregs; i++)
		m->regs[i].name = m->regnames.names[i];
	m->changes |= MODEL_CH_REGS;
}

static bool differs(const char *prev, const char *now)
{
	return prev && now && strcmp(prev, now) != 0;
}

void model_set_regvals(struct dbg_model *m, const struct dec_regvals *v)
{
	for (size_t i = 0; i < v->n; i++) {
		int num = v->v[i].number;
		if (num < 0 || (size_t)num >= m->nregs)
			continue;
		struct model_reg *r = &m->regs[num];
		char *val = strdup(v->v[i].value);
		if (!val)
			continue;
		free(r->value);
		r->value = val;
		r->changed = differs(r->prev, val);
	}
	m->changes |= MODEL_CH_REGS;
}

int model_set_watch_value(struct dbg_model *m, size_t i, const char *value,
			  bool error)
{
	if (i >= m->nwatches)
		return CTL_ENOTFOUND;
	struct model_watch *w = &m->watches[i];
	char *v = strdup(value ? value : "");
	if (!v)
		return MI_ENOMEM;
	free(w->value);
	w->value = v;
	w->error = error;
	w->changed = !error && differs(w->prev, v);
	m->changes |= MODEL_CH_WATCHES;
	return 0;
}

/* A new stop: current values become the ones to compare against. */
static void values_aged(struct dbg_model *m)
{
	for (size_t i = 0; i < m->nregs; i++) {
		struct model_reg *r = &m->regs[i];
		if (r->value) {
			free(r->prev);
			r->prev = r->value;
			r->value = NULL;
		}
		r->changed = false;
	}
	for (size_t i = 0; i < m->nwatches; i++) {
		struct model_watch *w = &m->watches[i];
		if (w->value && !w->error) {
			free(w->prev);
			w->prev = w->value;
			w->value = NULL;
		}
		w->changed = false;
	}
}

/* ---- records ---- */

static void on_stopped(struct dbg_model *m, const struct mi_record *rec)
{
	struct dec_stop s;
	if (dec_stop_decode(rec->results, &s) != 0) {
		model_set_error(m, "out of memory decoding a stop");
		return;
	}
	dec_stop_free(&m->stop);
	m->stop = s;
	m->has_stop = true;
	m->stop_count++;
	m->thread_id = m->stop.thread_id;
	m->changes |= MODEL_CH_STOP;
	if (dec_stop_is_device_exception(&m->stop))
		m->had_device_exception = true;
	if (dec_stop_is_exit(&m->stop)) {
		m->exited_signalled =
			m->stop.reason == DEC_REASON_EXITED_SIGNALLED;
		if (m->stop.has_exit_code)
			m->exit_code = m->stop.exit_code;
		free(m->exit_signal);
		m->exit_signal = m->exited_signalled && m->stop.signal_name ?
					 strdup(m->stop.signal_name) : NULL;
		model_set_state(m, MODEL_EXITED);
		program_cleared(m);
		return;
	}
	values_aged(m);
	model_culprit_clear(m);
	model_access_clear(m);
	model_freed_clear(m);
	dec_stack_free(&m->stop_device_frames);
	if (m->stop.focus.valid)
		model_set_focus(m, &m->stop.focus);
	else if (m->focus.valid) {
		struct dec_focus none;
		focus_clear(&none);
		model_set_focus(m, &none);
	}
	m->selected_frame = -1; /* the refresh picks the frame */
	m->user_frame = -1;
	model_set_state(m, MODEL_STOPPED);
}

/* A CUDA library by its file's name: libcuda.so.1 (the driver, loaded
 * by every CUDA use, static cudart included) or libcudart.so.N. */
static void note_library(struct dbg_model *m, const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	base = base ? base + 1 : path;
	m->libs_seen = true;
	if (base && (strncmp(base, "libcuda.so", 10) == 0 ||
		     strncmp(base, "libcudart.so", 12) == 0))
		m->cuda_loaded = true;
}

static unsigned on_notify(struct dbg_model *m, const struct mi_record *rec)
{
	const char *k = rec->klass;
	if (strcmp(k, "breakpoint-created") == 0 ||
	    strcmp(k, "breakpoint-modified") == 0) {
		struct dec_bkpts one;
		if (dec_bkpt_decode(rec->results, &one) == 0)
			model_put_bkpt(m, &one);
	} else if (strcmp(k, "breakpoint-deleted") == 0) {
		int n = dec_bkpt_deleted(rec->results);
		if (n >= 0)
			model_del_bkpt(m, n);
	} else if (strcmp(k, "library-loaded") == 0) {
		note_library(m, mi_find_str(rec->results, "id"));
	} else if (strcmp(k, "thread-group-exited") == 0) {
		uint64_t code;
		const char *c = mi_find_str(rec->results, "exit-code");
		if (dec_u64_parse(c, &code))
			m->exit_code = (int)(code & 0xff);
	}
	return m->changes;
}

/* ---- console text ---- */

static bool one_warning_line(const char *t, size_t n)
{
	return n > 9 && strncmp(t, "warning: ", 9) == 0 && t[n - 1] == '\n' &&
	       !memchr(t, '\n', n - 1);
}

static void warns_flush(struct dbg_model *m)
{
	/* the count first: these lines are wider than a pane */
	for (size_t i = 0; i < m->warns.n; i++) {
		const char *l = m->warns.line[i];
		if (m->warns.count[i] > 1) {
			char n[32];
			snprintf(n, sizeof n, "(x%u) ", m->warns.count[i]);
			model_add_console(m, n, strlen(n));
		}
		model_add_console(m, l, strlen(l));
		model_add_console(m, "\n", 1);
		free(m->warns.line[i]);
	}
	m->warns.n = 0;
}

static void warns_add(struct dbg_model *m, const char *t, size_t n)
{
	n--; /* the newline */
	for (size_t i = 0; i < m->warns.n; i++)
		if (strlen(m->warns.line[i]) == n &&
		    memcmp(m->warns.line[i], t, n) == 0) {
			m->warns.count[i]++;
			return;
		}
	if (m->warns.n == sizeof m->warns.line / sizeof m->warns.line[0])
		warns_flush(m);
	char *l = malloc(n + 1);
	if (!l) {
		model_add_console(m, t, n + 1);
		return;
	}
	memcpy(l, t, n);
	l[n] = '\0';
	m->warns.line[m->warns.n] = l;
	m->warns.count[m->warns.n++] = 1;
}

static void on_console_text(struct dbg_model *m, const char *t, size_t n)
{
	/* the allocation watch's lines are data, not the user's text */
	if (model_alloc_line(m, t, n))
		return;
	if (one_warning_line(t, n)) {
		warns_add(m, t, n);
		return;
	}
	warns_flush(m);
	if (memmem(t, n, "after fork from child process", 29) ||
	    memmem(t, n, "after vfork from child process", 30))
		m->forked = true;
	if (n >= 17 && strncmp(t, "Value returned is", 17) == 0)
		m->said_value = true;
	model_add_console(m, t, n);
}

/* What gdb's CLI says at these stops and gdb 13's MI leaves out, even
 * for a typed command (tests/screens/console_answers.script): why a
 * watchpoint stopped existing, and a finish's value when the finish
 * came as -exec-finish (a key). */
static void explain_stop(struct dbg_model *m, const struct mi_record *rec)
{
	const char *reason = mi_find_str(rec->results, "reason");
	char line[600];
	line[0] = '\0';
	if (reason && strcmp(reason, "watchpoint-scope") == 0) {
		const char *n = mi_find_str(rec->results, "wpnum");
		snprintf(line, sizeof line, "Watchpoint %.20s deleted because "
			 "the program has left the block in which its "
			 "expression is valid.\n", n ? n : "?");
	} else if (reason && strcmp(reason, "function-finished") == 0 &&
		   !m->said_value) {
		const char *var = mi_find_str(rec->results, "gdb-result-var");
		const char *val = mi_find_str(rec->results, "return-value");
		if (var && val)
			snprintf(line, sizeof line, "Value returned is %.40s = "
				 "%.500s\n", var, val);
	}
	if (line[0])
		model_add_console(m, line, strlen(line));
	m->said_value = false;
}

unsigned model_on_record(struct dbg_model *m, const struct mi_record *rec)
{
	/* Report what this record changed even when the bits were already
	 * pending (the controller refreshes on every stop). */
	unsigned before = m->changes;
	m->changes = 0;
	if (rec->kind == MI_REC_EXEC || rec->kind == MI_REC_RESULT)
		warns_flush(m);
	switch (rec->kind) {
	case MI_REC_EXEC:
		if (strcmp(rec->klass, "stopped") == 0) {
			explain_stop(m, rec);
			on_stopped(m, rec);
		} else if (strcmp(rec->klass, "running") == 0) {
			m->said_value = false;
			if (m->had_device_exception)
				m->resumed_after_exception = true;
			if (m->state != MODEL_EXITED)
				model_set_state(m, MODEL_RUNNING);
		}
		break;
	case MI_REC_NOTIFY:
		on_notify(m, rec);
		break;
	case MI_REC_CONSOLE:
	case MI_REC_LOG:
		model_core_line(m, rec->text, rec->text_len,
				rec->kind == MI_REC_LOG);
		on_console_text(m, rec->text, rec->text_len);
		break;
	case MI_REC_TARGET:
		/* remote targets forward the program's output this way */
		model_add_output(m, rec->text, rec->text_len);
		break;
	case MI_REC_RESULT:
		if (strcmp(rec->klass, "error") == 0) {
			const char *msg = dec_error_msg(rec->results);
			model_set_error(m, "%s", msg ? msg : "error");
		}
		break;
	default:
		break;
	}
	unsigned mine = m->changes;
	m->changes |= before;
	return mine;
}

/* ---- queries ---- */

long model_focus_kernel_row(const struct dbg_model *m)
{
	const struct dec_table *k = &m->tables[MODEL_T_KERNELS];
	long by_number = -1;
	for (size_t i = 0; i < k->nr_rows; i++) {
		struct dec_kernel_row row;
		if (dec_table_kernel(k, i, &row) != 0)
			continue;
		if (row.current)
			return (long)i;
		if (by_number < 0 && m->focus.kernel >= 0 &&
		    row.kernel == m->focus.kernel)
			by_number = (long)i;
	}
	return by_number;
}

/* Position of block/thread in the launch: blocks in row-major order,
 * threads in row-major order inside each (the order of coalesced
 * ranges: (0,0,0)/(864,0,0) .. (1,0,0)/(63,0,0) in big_grid). */
static uint64_t launch_pos(struct dec_dim3 block, struct dec_dim3 thread,
			   const struct dec_kernel_row *k)
{
	uint64_t b = dec_dim3_linear(block, k->grid_dim);
	uint64_t t = dec_dim3_linear(thread, k->block_dim);
	if (b == UINT64_MAX || t == UINT64_MAX)
		return UINT64_MAX;
	uint64_t per = (uint64_t)k->block_dim.x * k->block_dim.y *
		       k->block_dim.z;
	return b * per + t;
}

long model_threads_find(const struct dbg_model *m, struct dec_dim3 block,
			struct dec_dim3 thread)
{
	const struct dec_table *t = &m->tables[MODEL_T_THREADS];
	long krow = model_focus_kernel_row(m);
	struct dec_kernel_row k;
	if (krow < 0 || dec_table_kernel(&m->tables[MODEL_T_KERNELS],
					 (size_t)krow, &k) != 0)
		return -1;
	uint64_t want = launch_pos(block, thread, &k);
	if (want == UINT64_MAX)
		return -1;
	for (size_t i = 0; i < t->nr_rows; i++) {
		struct dec_thread_row r;
		if (dec_table_thread(t, i, &r) != 0 ||
		    (r.kernel >= 0 && r.kernel != k.kernel))
			continue;
		uint64_t lo = launch_pos(r.from_block, r.from_thread, &k);
		uint64_t hi = launch_pos(r.to_block, r.to_thread, &k);
		if (lo != UINT64_MAX && hi != UINT64_MAX && lo <= want &&
		    want <= hi)
			return (long)i;
	}
	return -1;
}

const struct dec_frame *model_frame(const struct dbg_model *m)
{
	for (size_t i = 0; i < m->frames.n; i++)
		if (m->frames.frames[i].level == m->selected_frame)
			return &m->frames.frames[i];
	return m->frames.n ? &m->frames.frames[0] : NULL;
}

const struct dec_frame *model_source_frame(const struct dbg_model *m)
{
	for (size_t i = 0; i < m->frames.n; i++) {
		const struct dec_frame *f = &m->frames.frames[i];
		if ((f->file || f->fullname) && f->line > 0)
			return f;
	}
	if (m->has_stop && m->stop.has_frame && m->stop.frame.line > 0 &&
	    (m->stop.frame.file || m->stop.frame.fullname))
		return &m->stop.frame;
	return NULL;
}

static bool own_source(const struct dec_frame *f)
{
	const char *p = f->fullname ? f->fullname : f->file;
	return p && f->line > 0 && strncmp(p, "/usr/include/", 13) != 0 &&
	       !dec_path_in_cuda_toolkit(p) && access(p, R_OK) == 0;
}

const struct dec_frame *model_user_frame(const struct dbg_model *m)
{
	for (size_t i = 0; i < m->frames.n; i++)
		if (own_source(&m->frames.frames[i]))
			return &m->frames.frames[i];
	return NULL;
}

bool model_host_core_crash(const struct dbg_model *m)
{
	return m->is_core && m->core.host && !m->core.gpu &&
	       !m->core.focus.valid && m->core.signal_name;
}

/* The signal a host stop (live, or a host coredump's) names, or NULL. */
static const char *host_stop_signal(const struct dbg_model *m)
{
	if (m->state == MODEL_STOPPED && m->has_stop &&
	    m->stop.reason == DEC_REASON_SIGNAL_RECEIVED &&
	    !m->stop.focus.valid)
		return m->stop.signal_name;
	return model_host_core_crash(m) ? m->core.signal_name : NULL;
}

bool model_host_fault_stop(const struct dbg_model *m)
{
	static const char *const faults[] = { "SIGSEGV", "SIGBUS", "SIGFPE",
					      "SIGILL", "SIGABRT" };
	const char *sig = host_stop_signal(m);
	for (size_t i = 0; sig && i < sizeof faults / sizeof faults[0]; i++)
		if (strcmp(sig, faults[i]) == 0)
			return true;
	return false;
}

bool model_host_address_stop(const struct dbg_model *m)
{
	const char *sig = host_stop_signal(m);
	return sig && (strcmp(sig, "SIGSEGV") == 0 || strcmp(sig, "SIGBUS") == 0);
}

bool model_continue_loses_error(const struct dbg_model *m)
{
	return m->state == MODEL_STOPPED && m->has_stop &&
	       dec_stop_is_device_exception(&m->stop);
}

bool model_var_untrusted(const struct dbg_model *m, int level,
			 const struct dec_var *v)
{
	/* a GPU coredump holds the registers of the exception too (run 25:
	 * helper_assert's driver core showed the same stale arguments) */
	bool device_core = m->is_core && m->focus.valid;
	if (level <= 0 || (!device_core && (!m->has_stop ||
					    !dec_stop_is_device_signal(&m->stop))))
		return false;
	return !(v->type && strstr(v->type, "@parameter"));
}

bool model_can_resume(const struct dbg_model *m)
{
	return m->state == MODEL_STOPPED && !m->is_core;
}

bool model_finish_refused(const struct dbg_model *m)
{
	if (m->frames.n == 0)
		return false;
	const struct dec_frame *outer = &m->frames.frames[m->frames.n - 1];
	return m->selected_frame == outer->level;
}

/* The kernel (or function) a stop is about: skips the device runtime's
 * __assert_fail and __trap frames. */
static bool runtime_func(const char *f)
{
	return !f || !strcmp(f, "__assert_fail") || !strcmp(f, "__trap");
}

/* The function a stop is about: the first frame of the user's own code
 * (an atomicAdd on a bad shared index faults in the toolkit's
 * __iAtomicAdd, frame #0, under atomicAdd in device_atomic_functions.hpp,
 * frame #1; the user's line is frame #2), else the first named frame. */
static const char *stop_function(const struct dbg_model *m)
{
	/* A device stop whose kernel is gone since (a call into the program
	 * ended it: ctl_restore_focus) lists the host thread now; the stop
	 * still happened in the kernel. */
	if (m->has_stop && dec_stop_is_device(&m->stop) && m->stop.has_frame &&
	    m->frames.n && !dec_frame_is_device(&m->frames.frames[0]) &&
	    m->stop.frame.func && !runtime_func(m->stop.frame.func))
		return m->stop.frame.func;
	/* a CPU crash in a library: the program's own frame the controller
	 * chose, as the report's location and the panes show it */
	for (size_t i = 0; m->user_frame > 0 && i < m->frames.n; i++)
		if (m->frames.frames[i].level == m->user_frame &&
		    m->frames.frames[i].func)
			return m->frames.frames[i].func;
	for (size_t i = 0; i < m->frames.n; i++) {
		const struct dec_frame *fr = &m->frames.frames[i];
		if (!runtime_func(fr->func) && strcmp(fr->func, "??") &&
		    !dec_frame_is_toolkit(fr->func, fr->file,
					  dec_frame_is_device(fr)))
			return fr->func;
	}
	for (size_t i = 0; i < m->frames.n; i++) {
		const char *f = m->frames.frames[i].func;
		if (!runtime_func(f) && strcmp(f, "??"))
			return f;
	}
	if (!m->has_stop)
		return NULL;
	if (m->stop.function)
		return m->stop.function;
	const char *f = m->stop.has_frame ? m->stop.frame.func : NULL;
	return runtime_func(f) ? NULL : f;
}

static void describe_exit(const struct dbg_model *m, char *buf, size_t cap)
{
	if (m->exited_signalled)
		snprintf(buf, cap, "killed by %s%s%s%s",
			 m->stop.signal_name ? m->stop.signal_name : "a signal",
			 m->stop.signal_meaning ? " (" : "",
			 m->stop.signal_meaning ? m->stop.signal_meaning : "",
			 m->stop.signal_meaning ? ")" : "");
	else if (m->exit_code == 0)
		snprintf(buf, cap, "exited normally");
	else
		snprintf(buf, cap, "exited with code %d", m->exit_code);
}

char *model_describe_stop(const struct dbg_model *m, char *buf, size_t cap)
{
	char fn[256];
	if (cap == 0)
		return buf;
	buf[0] = '\0';
	if (m->state == MODEL_GONE) {
		snprintf(buf, cap, "%s", m->gone_reason ? m->gone_reason :
				   "debugger gone");
		return buf;
	}
	dec_func_basename(stop_function(m), fn, sizeof fn);
	const char *in = fn[0] ? " in " : "";
	if (!m->has_stop) {
		/* a coredump has no *stopped: the focus says where it is */
		if (m->is_core && m->state == MODEL_STOPPED)
			snprintf(buf, cap, "Coredump%s%s", in, fn);
		return buf;
	}
	const struct dec_stop *s = &m->stop;
	switch (s->reason) {
	case DEC_REASON_EXITED:
	case DEC_REASON_EXITED_NORMALLY:
	case DEC_REASON_EXITED_SIGNALLED:
		describe_exit(m, buf, cap);
		break;
	case DEC_REASON_SIGNAL_RECEIVED:
		if (dec_stop_is_device(s) || !s->signal_name)
			snprintf(buf, cap, "%s%s%s",
				 s->signal_meaning ? s->signal_meaning :
				 s->signal_name ? s->signal_name : "signal",
				 in, fn);
		else
			snprintf(buf, cap, "%s (%s)%s%s", s->signal_name,
				 s->signal_meaning ? s->signal_meaning : "?",
				 in, fn);
		break;
	case DEC_REASON_BREAKPOINT_HIT:
		if (s->bkptno >= 0)
			snprintf(buf, cap, "Breakpoint %d%s%s", s->bkptno, in, fn);
		else
			snprintf(buf, cap, "Kernel entry%s%s", in, fn);
		break;
	case DEC_REASON_END_STEPPING_RANGE:
		snprintf(buf, cap, "Step%s%s", in, fn);
		break;
	case DEC_REASON_FUNCTION_FINISHED:
		snprintf(buf, cap, "Finished%s%s%s%s", in, fn,
			 s->return_value ? ", returned " : "",
			 s->return_value ? s->return_value : "");
		break;
	case DEC_REASON_LOCATION_REACHED:
		snprintf(buf, cap, "Reached%s%s", fn[0] ? " " : "", fn);
		break;
	default:
		snprintf(buf, cap, "Stopped%s%s", in, fn);
		break;
	}
	return buf;
}
