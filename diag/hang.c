/* Hang summary: the live threads of an interrupted kernel per source line,
 * with counts and block ranges, and the waits they are in.  See
 * include/cudbg/hang.h.
 *
 * Input is the coalesced -cuda-info-threads table (cuda-gdb 13): each row
 * is a run of consecutive threads, from (block, thread) to (block,
 * thread), at one PC, in row-major order (x fastest) over the grid.  A
 * run can cross blocks and start or end inside one, so threads are
 * placed on one line of global indices, block * block_size + thread,
 * and blocks are counted from there. */
#include "cudbg/decode.h"
#include "cudbg/hang.h"
#include "cudbg/model.h"
#include "diag/state.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A row's block span touching more blocks than this is counted by its
 * ends only (no grid has that many resident blocks; a bad table must not
 * cost minutes). */
enum { HANG_MAX_SPAN = 1 << 20, HANG_MAX_GROUPS = 64 };

struct span {
	uint64_t lo, hi; /* block indices, inclusive */
};

struct spans {
	struct span *v;
	size_t n, cap;
	bool oom;
};

static void spans_add(struct spans *s, uint64_t lo, uint64_t hi)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct span *v = realloc(s->v, cap * sizeof *v);
		if (!v) {
			s->oom = true;
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct span){ lo, hi };
}

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Distinct blocks covered by the spans. */
static long spans_count(struct spans *s)
{
	if (!s->n)
		return 0;
	qsort(s->v, s->n, sizeof *s->v, span_cmp);
	long n = 0;
	uint64_t lo = s->v[0].lo, hi = s->v[0].hi;
	for (size_t i = 1; i < s->n; i++) {
		if (s->v[i].lo <= hi + 1) {
			if (s->v[i].hi > hi)
				hi = s->v[i].hi;
			continue;
		}
		n += (long)(hi - lo + 1);
		lo = s->v[i].lo;
		hi = s->v[i].hi;
	}
	return n + (long)(hi - lo + 1);
}

/* ---- what a line waits on ---------------------------------------------- */

static bool has_word(const char *s, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = s; (p = strstr(p, w)); p += n) {
		bool left = p == s || !(isalnum((unsigned char)p[-1]) ||
					p[-1] == '_');
		bool right = !(isalnum((unsigned char)p[n]) || p[n] == '_');
		if (left && right)
			return true;
	}
	return false;
}

/* The code part of a line (a // comment dropped). */
static void code_of(const char *text, char *out, size_t cap)
{
	snprintf(out, cap, "%s", text ? text : "");
	char *c = strstr(out, "//");
	if (c)
		*c = '\0';
}

bool diag_hang_line_barrier(const char *text)
{
	char s[1024];
	code_of(text, s, sizeof s);
	return strstr(s, "__syncthreads") || strstr(s, "__syncwarp") ||
	       strstr(s, "bar.sync") || strstr(s, "barrier.sync") ||
	       strstr(s, ".sync()") || strstr(s, "grid.sync") ||
	       strstr(s, "__barrier_sync");
}

/* `while (COND) { }` or `while (COND);`: a loop with an empty body can
 * only end when memory it reads is changed by someone else (big_grid.cu's
 * `while (!go) { }` on a volatile declared elsewhere). */
static bool empty_body_loop(const char *s)
{
	const char *w = strstr(s, "while");
	const char *p = w ? strchr(w, '(') : NULL;
	int depth = 0;
	for (; p && *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && --depth == 0)
			break;
	}
	if (!p || !*p)
		return false;
	p++;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == ';')
		return true;
	if (*p != '{')
		return false;
	p++;
	while (isspace((unsigned char)*p))
		p++;
	return *p == '}';
}

/* A loop whose condition reads memory: `while (*flag == 0)`,
 * `while (atomicAdd(&x, 0) < n)`, `while (!ready[b]) {}`, a volatile or
 * an atomic.  A plain counted loop (`for (i = 0; i < n; i++)`) is not a
 * wait. */
bool diag_hang_line_spins(const char *text)
{
	char s[1024];
	code_of(text, s, sizeof s);
	bool loop = has_word(s, "while") || strstr(s, "for (;;)") ||
		    strstr(s, "for(;;)");
	if (!loop)
		return false;
	if (empty_body_loop(s))
		return true;
	if (strstr(s, "volatile") || strstr(s, "atomic") ||
	    strstr(s, "ld_acquire") || strstr(s, "__ldcg") ||
	    strstr(s, "__ldvolatile") || strstr(s, "->") || strchr(s, '['))
		return true;
	/* a dereference in the condition: `(*flag` or `!*flag` */
	const char *w = strstr(s, "while");
	for (const char *p = w ? w : s; *p; p++)
		if (*p == '*' && p > s && (p[-1] == '(' || p[-1] == '!' ||
					   p[-1] == ' '))
			return true;
	return has_word(s, "flag") || has_word(s, "ready") ||
	       has_word(s, "done") || has_word(s, "lock");
}

static enum diag_hang_wait wait_of(const char *text)
{
	if (!text)
		return DIAG_HANG_RUNNING;
	if (diag_hang_line_barrier(text))
		return DIAG_HANG_BARRIER;
	return diag_hang_line_spins(text) ? DIAG_HANG_SPIN : DIAG_HANG_RUNNING;
}

/* ---- building ----------------------------------------------------------- */

struct build {
	struct diag *d;
	struct diag_hang *h;
	struct spans *group_spans; /* [h->n_groups] */
	struct spans live;
	/* barrier rows: threads per block at a barrier */
	struct span *bar;          /* lo = block, hi = threads */
	size_t n_bar, cap_bar;
	struct dec_dim3 grid, block;
	bool oom;
};

static struct diag_dim3 d3(struct dec_dim3 v)
{
	return (struct diag_dim3){ v.x, v.y, v.z };
}

static void widen(struct diag_dim3 *lo, struct diag_dim3 *hi,
		  struct dec_dim3 v)
{
	if (v.x < lo->x) lo->x = v.x;
	if (v.y < lo->y) lo->y = v.y;
	if (v.z < lo->z) lo->z = v.z;
	if (v.x > hi->x) hi->x = v.x;
	if (v.y > hi->y) hi->y = v.y;
	if (v.z > hi->z) hi->z = v.z;
}

/* Whether a line holds no code (blank or a comment only). */
static bool no_code(const char *text)
{
	char s[1024];
	code_of(text, s, sizeof s);
	for (const char *p = s; *p; p++)
		if (!isspace((unsigned char)*p))
			return false;
	return true;
}

/* The line a row's threads wait at: their own, or the barrier just
 * before it when their own line neither waits nor spins.  A warp that
 * arrived at a barrier stops with its PC past the barrier instruction,
 * so cuda-gdb 13 names the next line (run 2 on the H200: hang_barrier's
 * producer warp at the line after its __syncthreads(), hang_spin's
 * waiting warps at the line after theirs).  *source gets the text of
 * the line returned (malloc'd, or NULL); *past is set when it moved. */
static unsigned wait_line(struct build *b, const char *file, unsigned line,
			  char **source, bool *past)
{
	*past = false;
	*source = diag_read_source_line(b->d, file, line);
	if (!*source || wait_of(*source) != DIAG_HANG_RUNNING)
		return line;
	for (unsigned back = 1; back <= 3 && back < line; back++) {
		char *prev = diag_read_source_line(b->d, file, line - back);
		if (!prev)
			return line;
		bool skip = no_code(prev);
		if (!skip && diag_hang_line_barrier(prev)) {
			free(*source);
			*source = prev;
			*past = true;
			return line - back;
		}
		free(prev);
		if (!skip)
			break;
	}
	return line;
}

static long group_find(struct build *b, const struct dec_thread_row *r)
{
	struct diag_hang *h = b->h;
	bool by_line = r->filename && *r->filename && r->line > 0;
	char *source = NULL;
	bool past = false;
	unsigned line = by_line ? wait_line(b, r->filename, (unsigned)r->line,
					    &source, &past)
				: 0;
	for (size_t i = 0; i < h->n_groups; i++) {
		struct diag_hang_group *g = &h->groups[i];
		if (by_line ? g->file && g->line == line &&
				      strcmp(g->file, r->filename) == 0
			    : !g->file && g->pc == r->pc) {
			g->past_barrier |= past;
			free(source);
			return (long)i;
		}
	}
	if (h->n_groups >= HANG_MAX_GROUPS) {
		free(source);
		return -1;
	}
	struct diag_hang_group *v = realloc(h->groups,
					    (h->n_groups + 1) * sizeof *v);
	struct spans *sp = realloc(b->group_spans,
				   (h->n_groups + 1) * sizeof *sp);
	if (v)
		h->groups = v;
	if (sp)
		b->group_spans = sp;
	if (!v || !sp) {
		free(source);
		b->oom = true;
		return -1;
	}
	struct diag_hang_group *g = &h->groups[h->n_groups];
	memset(g, 0, sizeof *g);
	memset(&b->group_spans[h->n_groups], 0, sizeof *sp);
	g->pc = r->pc;
	g->block_lo = d3(r->from_block);
	g->block_hi = d3(r->from_block);
	if (by_line) {
		g->file = diag_strdup(r->filename);
		g->line = line;
		g->source = source;
		g->past_barrier = past;
		g->wait = wait_of(g->source);
	}
	return (long)h->n_groups++;
}

static void bar_add(struct build *b, uint64_t block, uint64_t threads)
{
	if (b->n_bar == b->cap_bar) {
		size_t cap = b->cap_bar ? b->cap_bar * 2 : 16;
		struct span *v = realloc(b->bar, cap * sizeof *v);
		if (!v) {
			b->oom = true;
			return;
		}
		b->bar = v;
		b->cap_bar = cap;
	}
	b->bar[b->n_bar++] = (struct span){ block, threads };
}

/* Threads of each block the row covers that sit at a barrier. */
static void bar_row(struct build *b, uint64_t g_lo, uint64_t g_hi,
		    long count, uint64_t bs)
{
	uint64_t b_lo = g_lo / bs, b_hi = g_hi / bs;
	if (b_hi - b_lo > HANG_MAX_SPAN)
		return;
	for (uint64_t k = b_lo; k <= b_hi; k++) {
		uint64_t lo = k * bs > g_lo ? k * bs : g_lo;
		uint64_t hi = (k + 1) * bs - 1 < g_hi ? (k + 1) * bs - 1 : g_hi;
		uint64_t n = hi - lo + 1;
		if (b_lo == b_hi && count > 0 && (uint64_t)count < n)
			n = (uint64_t)count; /* holes in the run */
		bar_add(b, k, n);
	}
}

static struct dec_dim3 unlinear(uint64_t i, struct dec_dim3 dims)
{
	struct dec_dim3 v = { .valid = true };
	v.x = (uint32_t)(i % dims.x);
	v.y = (uint32_t)(i / dims.x % dims.y);
	v.z = (uint32_t)(i / ((uint64_t)dims.x * dims.y));
	return v;
}

/* The first block whose threads at a barrier are fewer than a block:
 * the others are elsewhere or have exited, and the barrier never opens. */
static void bar_judge(struct build *b)
{
	struct diag_hang *h = b->h;
	if (!b->n_bar || h->block_size <= 0)
		return;
	qsort(b->bar, b->n_bar, sizeof *b->bar, span_cmp);
	for (size_t i = 0; i < b->n_bar;) {
		uint64_t blk = b->bar[i].lo, n = 0;
		for (; i < b->n_bar && b->bar[i].lo == blk; i++)
			n += b->bar[i].hi;
		if (n < (uint64_t)h->block_size) {
			h->barrier_divergent = true;
			h->barrier_block = d3(unlinear(blk, b->grid));
			h->barrier_threads = (long)n;
			return;
		}
	}
}

/* Whether the threads at the barriers wait for spinning threads of the
 * same code: every barrier comes after a spin loop in its file, so the
 * spinners reach it once their loop ends (hang_spin: thread 0 spins on a
 * flag, the rest of its block waits at the __syncthreads() after the
 * loop).  Then the spin is the cause, not the barrier.  A barrier before
 * the spin (hang_barrier: the producer warp waits at a barrier in its
 * branch, the consumers spin on a flag it raises after it) is one the
 * spinners never come to: the barrier is the cause. */
static bool barrier_waits_on_spin(const struct diag_hang *h)
{
	bool any_bar = false;
	for (size_t i = 0; i < h->n_groups; i++) {
		const struct diag_hang_group *g = &h->groups[i];
		if (g->wait != DIAG_HANG_BARRIER)
			continue;
		if (!g->file)
			return false;
		bool after_spin = false;
		for (size_t j = 0; j < h->n_groups; j++) {
			const struct diag_hang_group *s = &h->groups[j];
			after_spin |= s->wait == DIAG_HANG_SPIN && s->file &&
				      strcmp(s->file, g->file) == 0 &&
				      s->line < g->line;
		}
		if (!after_spin)
			return false;
		any_bar = true;
	}
	return any_bar;
}

static void add_row(struct build *b, const struct dec_thread_row *r)
{
	struct diag_hang *h = b->h;
	long gi = group_find(b, r);
	if (gi < 0)
		return;
	struct diag_hang_group *g = &h->groups[gi];
	long count = r->count > 0 ? r->count : 1;
	g->threads += count;
	h->threads_live += count;
	widen(&g->block_lo, &g->block_hi, r->from_block);
	widen(&g->block_lo, &g->block_hi, r->to_block);
	uint64_t b_lo = dec_dim3_linear(r->from_block, b->grid);
	uint64_t b_hi = dec_dim3_linear(r->to_block, b->grid);
	if (b_lo == UINT64_MAX || b_hi == UINT64_MAX || b_hi < b_lo) {
		g->blocks = -1; /* unknown grid: count by ends only */
		return;
	}
	spans_add(&b->group_spans[gi], b_lo, b_hi);
	spans_add(&b->live, b_lo, b_hi);
	uint64_t t_lo = dec_dim3_linear(r->from_thread, b->block);
	uint64_t t_hi = dec_dim3_linear(r->to_thread, b->block);
	uint64_t bs = (uint64_t)h->block_size;
	if (g->wait == DIAG_HANG_BARRIER && h->block_size > 0 &&
	    t_lo != UINT64_MAX && t_hi != UINT64_MAX)
		bar_row(b, b_lo * bs + t_lo, b_hi * bs + t_hi, count, bs);
}

static int group_cmp(const void *a, const void *b)
{
	const struct diag_hang_group *x = a, *y = b;
	return x->threads > y->threads ? -1 : x->threads < y->threads;
}

/* The kernel's grid and block shape from the kernels table. */
static void kernel_dims(const struct dbg_model *m, struct build *b)
{
	long row = model_focus_kernel_row(m);
	struct dec_kernel_row k;
	if (row < 0 ||
	    dec_table_kernel(&m->tables[MODEL_T_KERNELS], (size_t)row, &k) != 0)
		return;
	if (k.grid_dim.valid && k.grid_dim.x && k.grid_dim.y && k.grid_dim.z) {
		b->grid = k.grid_dim;
		b->h->blocks_total = (long)((uint64_t)k.grid_dim.x *
					    k.grid_dim.y * k.grid_dim.z);
	}
	if (k.block_dim.valid && k.block_dim.x && k.block_dim.y &&
	    k.block_dim.z) {
		b->block = k.block_dim;
		b->h->block_size = (long)((uint64_t)k.block_dim.x *
					  k.block_dim.y * k.block_dim.z);
	}
}

static char *kernel_name(const struct dbg_model *m)
{
	const char *fn = NULL;
	for (size_t i = 0; i < m->frames.n; i++) {
		const struct dec_frame *f = &m->frames.frames[i];
		if (f->arch && strcmp(f->arch, "m68k") == 0 && f->func)
			fn = f->func; /* the outermost device frame */
	}
	if (!fn && m->has_stop && m->stop.frame.func)
		fn = m->stop.frame.func;
	if (!fn) {
		/* the kernels table's invocation, "busy(,args=[...])" */
		long row = model_focus_kernel_row(m);
		struct dec_kernel_row k;
		if (row >= 0 && dec_table_kernel(&m->tables[MODEL_T_KERNELS],
						 (size_t)row, &k) == 0 &&
		    k.invocation && k.invocation[0] &&
		    k.invocation[0] != '(')
			return diag_strndup(k.invocation,
					strcspn(k.invocation, "("));
	}
	if (!fn)
		return NULL;
	char buf[512];
	dec_func_short(fn, buf, sizeof buf);
	return diag_strdup(buf[0] ? buf : fn);
}

static void judge(struct diag_hang *h)
{
	bool all = h->n_groups > 0;
	for (size_t i = 0; i < h->n_groups; i++) {
		h->spin |= h->groups[i].wait == DIAG_HANG_SPIN;
		all &= h->groups[i].wait != DIAG_HANG_RUNNING;
	}
	h->all_waiting = all && (h->n_groups > 1 || h->blocks_live > 1 ||
				 h->barrier_divergent);
}

static void device_summary(struct build *b, const struct dbg_model *m)
{
	const struct dec_table *t = &m->tables[MODEL_T_THREADS];
	int kernel = m->focus.kernel;
	kernel_dims(m, b);
	for (size_t i = 0; i < t->nr_rows && !b->oom; i++) {
		struct dec_thread_row r;
		if (dec_table_thread(t, i, &r) != 0)
			continue;
		if (kernel >= 0 && r.kernel >= 0 && r.kernel != kernel)
			continue;
		add_row(b, &r);
	}
	struct diag_hang *h = b->h;
	for (size_t i = 0; i < h->n_groups; i++)
		if (h->groups[i].blocks >= 0)
			h->groups[i].blocks = spans_count(&b->group_spans[i]);
	h->blocks_live = spans_count(&b->live);
	bar_judge(b);
	h->spin_holds_barrier = barrier_waits_on_spin(h);
	if (h->n_groups) /* qsort wants a real array, even of none */
		qsort(h->groups, h->n_groups, sizeof *h->groups, group_cmp);
	h->kernel = kernel_name(m);
}

static char *frame_source(struct diag *d, const struct dec_frame *f)
{
	if (!f->file || f->line <= 0)
		return NULL;
	return diag_read_source_line(d, f->fullname ? f->fullname : f->file,
				     (unsigned)f->line);
}

/* The innermost frame whose source is here: an interrupt often lands in
 * libc (write.c of a printf, with glibc's line info but no file), and the
 * user's loop is further out. */
static const struct dec_frame *user_frame(struct diag *d,
					  const struct dbg_model *m,
					  char **source)
{
	for (size_t i = 0; i < m->frames.n; i++) {
		char *s = frame_source(d, &m->frames.frames[i]);
		if (s) {
			*source = s;
			return &m->frames.frames[i];
		}
	}
	const struct dec_frame *f = model_source_frame(m);
	if (!f && m->frames.n)
		f = &m->frames.frames[0];
	if (!f && m->has_stop)
		f = &m->stop.frame;
	return f;
}

static void host_summary(struct diag *d, struct diag_hang *h,
			 const struct dbg_model *m)
{
	char *source = NULL;
	const struct dec_frame *f = user_frame(d, m, &source);
	if (!f)
		return;
	h->host_func = diag_strdup(f->func);
	const struct dec_frame *in = m->frames.n ? &m->frames.frames[0]
		: m->has_stop ? &m->stop.frame : NULL;
	h->host_inner = in ? diag_strdup(in->func) : NULL;
	if (f->file && f->line > 0) {
		h->host_file = diag_strdup(f->file);
		h->host_line = (unsigned)f->line;
		h->host_source = source;
		h->spin = wait_of(h->host_source) == DIAG_HANG_SPIN;
	} else {
		free(source);
	}
}

int diag_hang_from_model(struct diag *d, const struct dbg_model *m,
			 double seconds, bool recorded, int signal)
{
	if (!d || !m || m->state != MODEL_STOPPED)
		return DIAG_ESTATE;
	struct diag_hang *h = calloc(1, sizeof *h);
	if (!h)
		return DIAG_ENOMEM;
	h->seconds = seconds;
	h->recorded = recorded;
	h->signal = signal;
	h->blocks_total = -1;
	h->block_size = -1;
	h->device = m->focus.valid;
	struct build b = { .d = d, .h = h };
	if (h->device)
		device_summary(&b, m);
	else
		host_summary(d, h, m);
	if (h->n_groups)
		for (size_t i = 0; i < h->n_groups; i++)
			free(b.group_spans[i].v);
	free(b.group_spans);
	free(b.live.v);
	free(b.bar);
	if (b.oom || b.live.oom) {
		diag_hang_free(h);
		free(h);
		return DIAG_ENOMEM;
	}
	judge(h);
	diag_hang_clear(d);
	d->hang = h;
	return 0;
}

void diag_hang_clear(struct diag *d)
{
	if (!d || !d->hang)
		return;
	diag_hang_free(d->hang);
	free(d->hang);
	d->hang = NULL;
}

struct diag_hang *diag_hang_take(struct diag *d)
{
	struct diag_hang *h = d ? d->hang : NULL;
	if (d)
		d->hang = NULL;
	return h;
}

const struct diag_hang *diag_hang_of(const struct diag *d)
{
	return d ? d->hang : NULL;
}

void diag_hang_free(struct diag_hang *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n_groups; i++) {
		free(h->groups[i].file);
		free(h->groups[i].source);
	}
	free(h->groups);
	free(h->kernel);
	free(h->host_file);
	free(h->host_func);
	free(h->host_source);
	free(h->host_inner);
	memset(h, 0, sizeof *h);
}

/* ---- text --------------------------------------------------------------- */

size_t diag_hang_headline(const struct diag_hang *h, char *out, size_t cap)
{
	if (!cap)
		return 0;
	int n;
	char sig[24] = "";
	if (h && h->signal)
		diag_signal_name(h->signal, sig, sizeof sig);
	if (!h)
		n = snprintf(out, cap, "Hang");
	else if (h->signal)
		n = snprintf(out, cap, "Interrupted by %s after %.0f s%s: %s%s "
			     "still running", sig, h->seconds,
			     h->recorded ? " (recorded)" : "",
			     h->kernel ? "kernel " : "the program was",
			     h->kernel ? h->kernel : "");
	else if (h->kernel)
		n = snprintf(out, cap, "Hang: kernel %s still running after "
			     "%.0f s%s", h->kernel, h->seconds,
			     h->recorded ? " (recorded)" : "");
	else
		n = snprintf(out, cap, "Hang: the program was still running "
			     "after %.0f s%s", h->seconds,
			     h->recorded ? " (recorded)" : "");
	if (n < 0)
		n = 0;
	return (size_t)n < cap ? (size_t)n : cap - 1;
}

static void put_axis(struct dbuf *b, uint32_t lo, uint32_t hi)
{
	if (lo == hi)
		dbuf_printf(b, "%u", lo);
	else
		dbuf_printf(b, "%u..%u", lo, hi);
}

static void put_blocks(struct dbuf *b, const struct diag_hang_group *g)
{
	bool one = g->block_lo.x == g->block_hi.x &&
		   g->block_lo.y == g->block_hi.y &&
		   g->block_lo.z == g->block_hi.z;
	dbuf_puts(b, one ? "block (" : "blocks (");
	put_axis(b, g->block_lo.x, g->block_hi.x);
	dbuf_putc(b, ',');
	put_axis(b, g->block_lo.y, g->block_hi.y);
	dbuf_putc(b, ',');
	put_axis(b, g->block_lo.z, g->block_hi.z);
	dbuf_putc(b, ')');
	if (!one && g->blocks > 0)
		dbuf_printf(b, " [%ld block%s]", g->blocks,
			    g->blocks == 1 ? "" : "s");
}

static const char *const wait_words[] = {
	[DIAG_HANG_RUNNING] = "",
	[DIAG_HANG_SPIN] = " (spin-wait)",
	[DIAG_HANG_BARRIER] = " (barrier)",
};

static void put_group(struct dbuf *b, const struct diag_hang_group *g)
{
	put_blocks(b, g);
	dbuf_printf(b, ": %ld thread%s at ", g->threads,
		    g->threads == 1 ? "" : "s");
	if (g->file) {
		const char *base = strrchr(g->file, '/');
		dbuf_printf(b, "%s:%u", base ? base + 1 : g->file, g->line);
	} else {
		dbuf_printf(b, "pc 0x%llx (no line info)",
			    (unsigned long long)g->pc);
	}
	dbuf_puts(b, wait_words[g->wait]);
	if (g->past_barrier)
		dbuf_puts(b, " (cuda-gdb names the line past it)");
	dbuf_putc(b, '\n');
}

static void put_rest(struct dbuf *b, const struct diag_hang *h)
{
	if (h->blocks_total > 0 && h->blocks_live >= 0 &&
	    h->blocks_total > h->blocks_live) {
		long n = h->blocks_total - h->blocks_live;
		/* The threads table lists resident threads only: a block not
		 * in it has finished or was never scheduled. */
		dbuf_printf(b, "%ld of %ld block%s finished or not started\n",
			    n, h->blocks_total, h->blocks_total == 1 ? "" : "s");
	}
	if (h->barrier_divergent)
		dbuf_printf(b, "block (%u,%u,%u): only %ld of %ld threads at "
			    "the barrier\n", h->barrier_block.x,
			    h->barrier_block.y, h->barrier_block.z,
			    h->barrier_threads, h->block_size);
}

const struct diag_pyframe *diag_hang_user_line(const struct diag_fault *f)
{
	const struct diag_hang *h = f ? f->hang : NULL;
	/* a source line of the program's own (a C program's loop) is
	 * already the place */
	if (!h || h->device || h->host_source || !f->python.found ||
	    !f->python.call.file || !f->python.call.line)
		return NULL;
	return &f->python.call;
}

char *diag_hang_lines(const struct diag_hang *h, const struct diag_pyframe *user)
{
	struct dbuf b = {0};
	dbuf_put(&b, "", 0);
	if (!h)
		return dbuf_take(&b);
	for (size_t i = 0; i < h->n_groups; i++)
		put_group(&b, &h->groups[i]);
	if (h->device && !h->n_groups)
		dbuf_puts(&b, "no thread of the kernel was listed\n");
	put_rest(&b, h);
	if (user)
		/* the interpreter's C frame (clock_nanosleep in a
		 * time.sleep) is how, the script's line is where */
		dbuf_printf(&b, "stopped at %s:%u%s%s (your line; the thread "
			    "was in %s)\n", user->file, user->line,
			    user->func ? " in " : "", user->func ? user->func : "",
			    h->host_inner ? h->host_inner
			    : h->host_func ? h->host_func : "the interpreter");
	else if (!h->device && h->host_file)
		dbuf_printf(&b, "stopped at %s:%u%s%s%s\n", h->host_file,
			    h->host_line, h->host_func ? " in " : "",
			    h->host_func ? h->host_func : "",
			    h->spin ? " (spin-wait)" : "");
	else if (!h->device && h->host_func)
		dbuf_printf(&b, "stopped in %s\n", h->host_func);
	return dbuf_take(&b);
}

/* ---- placeholders {hang.*} (docs/hints.md) ------------------------------ */

static const struct diag_hang_group *group_waiting(const struct diag_hang *h,
						   enum diag_hang_wait w)
{
	for (size_t i = 0; i < h->n_groups; i++)
		if (h->groups[i].wait == w)
			return &h->groups[i];
	return NULL;
}

static bool put_where(struct dbuf *b, const struct diag_hang_group *g)
{
	if (!g || !g->file)
		return false;
	const char *base = strrchr(g->file, '/');
	dbuf_printf(b, "%s:%u", base ? base + 1 : g->file, g->line);
	return true;
}

static bool put_group_text(struct dbuf *b, const struct diag_hang_group *g)
{
	if (!g)
		return false;
	struct dbuf t = {0};
	put_group(&t, g);
	if (t.oom || !t.s) {
		dbuf_free(&t);
		return false;
	}
	if (t.len && t.s[t.len - 1] == '\n')
		t.s[--t.len] = '\0';
	dbuf_puts(b, t.s);
	dbuf_free(&t);
	return true;
}

static bool ph_eq(const char *p, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(p, lit, n) == 0;
}

/* {hang.X}: p/n is X.  False when the value is unknown here. */
bool diag_hang_placeholder(const struct diag_hang *h,
			   const struct diag_pyframe *user, const char *p, size_t n,
			   struct dbuf *b)
{
	if (!h)
		return false;
	const struct diag_hang_group *top = h->n_groups ? &h->groups[0] : NULL;
	const struct diag_hang_group *spin = group_waiting(h, DIAG_HANG_SPIN);
	const struct diag_hang_group *bar = group_waiting(h, DIAG_HANG_BARRIER);
	if (ph_eq(p, n, "seconds")) {
		dbuf_printf(b, "%.0f", h->seconds);
		return true;
	}
	if (ph_eq(p, n, "summary"))
		return put_group_text(b, top);
	if (ph_eq(p, n, "where")) {
		if (user) {
			dbuf_printf(b, "%s:%u", user->file, user->line);
			return true;
		}
		if (!h->device && h->host_file) {
			dbuf_printf(b, "%s:%u", h->host_file, h->host_line);
			return true;
		}
		return put_where(b, top);
	}
	if (ph_eq(p, n, "source")) {
		const char *s = user ? user->source
			      : !h->device ? h->host_source
			      : spin ? spin->source : top ? top->source : NULL;
		if (!s || !*s)
			return false;
		dbuf_puts(b, s);
		return true;
	}
	if (ph_eq(p, n, "spin"))
		return !h->device && h->spin && h->host_file
			       ? (dbuf_printf(b, "%s:%u", h->host_file,
					      h->host_line), true)
			       : put_group_text(b, spin);
	if (ph_eq(p, n, "spin.where"))
		return !h->device && h->spin && h->host_file
			       ? (dbuf_printf(b, "%s:%u", h->host_file,
					      h->host_line), true)
			       : put_where(b, spin);
	if (ph_eq(p, n, "barrier"))
		return put_group_text(b, bar);
	if (ph_eq(p, n, "barrier.where"))
		return put_where(b, bar);
	if (ph_eq(p, n, "barrier.source")) {
		if (!bar || !bar->source || !*bar->source)
			return false;
		dbuf_puts(b, bar->source);
		return true;
	}
	if (ph_eq(p, n, "barrier.block")) {
		if (!h->barrier_divergent)
			return false;
		dbuf_printf(b, "(%u,%u,%u)", h->barrier_block.x,
			    h->barrier_block.y, h->barrier_block.z);
		return true;
	}
	if (ph_eq(p, n, "barrier.threads") && h->barrier_divergent) {
		dbuf_printf(b, "%ld", h->barrier_threads);
		return true;
	}
	if (ph_eq(p, n, "block_size") && h->block_size > 0) {
		dbuf_printf(b, "%ld", h->block_size);
		return true;
	}
	if (ph_eq(p, n, "threads") && h->device) {
		dbuf_printf(b, "%ld", h->threads_live);
		return true;
	}
	if (ph_eq(p, n, "blocks") && h->device) {
		dbuf_printf(b, "%ld", h->blocks_live);
		return true;
	}
	if (ph_eq(p, n, "places") && h->device) {
		dbuf_printf(b, "%zu", h->n_groups);
		return true;
	}
	return false;
}

/* ---- copies (the screen keeps one summary and feeds every update) ---- */

static bool group_copy(struct diag_hang_group *dst,
		       const struct diag_hang_group *src)
{
	*dst = *src;
	dst->file = diag_strdup(src->file);
	dst->source = diag_strdup(src->source);
	return (!src->file || dst->file) && (!src->source || dst->source);
}

int diag_hang_set(struct diag *d, const struct diag_hang *src)
{
	if (!d || !src)
		return DIAG_ESTATE;
	struct diag_hang *h = calloc(1, sizeof *h);
	if (!h)
		return DIAG_ENOMEM;
	*h = *src;
	h->groups = NULL;
	h->n_groups = 0;
	h->kernel = diag_strdup(src->kernel);
	h->host_file = diag_strdup(src->host_file);
	h->host_func = diag_strdup(src->host_func);
	h->host_source = diag_strdup(src->host_source);
	h->host_inner = diag_strdup(src->host_inner);
	bool ok = (!src->kernel || h->kernel) &&
		  (!src->host_inner || h->host_inner) &&
		  (!src->host_file || h->host_file) &&
		  (!src->host_func || h->host_func) &&
		  (!src->host_source || h->host_source);
	if (ok && src->n_groups) {
		h->groups = calloc(src->n_groups, sizeof *h->groups);
		ok = h->groups != NULL;
		/* n_groups counts a copy that failed half-way too, so that
		 * diag_hang_free() frees what it holds */
		for (size_t i = 0; ok && i < src->n_groups; i++, h->n_groups++)
			ok = group_copy(&h->groups[i], &src->groups[i]);
	}
	if (!ok) {
		diag_hang_free(h);
		free(h);
		return DIAG_ENOMEM;
	}
	diag_hang_clear(d);
	d->hang = h;
	return 0;
}
