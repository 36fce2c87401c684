/* The GPU map: the focused kernel's grid as a map of blocks (not
 * resident, running, at a breakpoint, faulted, in focus) and the device's
 * SMs with their active warps, so a 264-block launch is seen at a glance.
 * Built from the kernels, blocks, threads, SMs and warps tables.  The
 * block states are reduced to ranges of linear block indexes when the
 * tables change; a draw walks cells and ranges once, so a grid of any
 * size costs the same (one cell then stands for several blocks). */
#include "tui/dbgpane.h"
#include "tui/keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum bstate { B_NONE, B_RUNNING, B_BREAK, B_FAULT };

struct brange {
	uint64_t from, to; /* linear block indexes, inclusive */
	uint8_t state;
};

struct gpumap_state {
	struct brange *r;       /* by state, then from; disjoint per state */
	size_t n, cap;
	size_t first[5];        /* ranges of state k: [first[k], first[k+1]) */
	struct dec_dim3 grid;   /* grid dimensions (valid when known) */
	struct dec_dim3 block_dim;
	uint64_t total;         /* blocks in the grid */
	int64_t focus;          /* linear index of the focus block, -1 */
	int64_t fault;          /* of the faulting block, -1 */
	uint64_t cursor;        /* the selected block */
	bool cursor_set;
	int cols;               /* cells per row at the last draw */
	uint64_t per_cell;      /* blocks per cell at the last draw */
	char why[256];          /* what is missing (a copy: the model's text
				 * may go before the next draw) */
	bool stale;             /* the model changed since the last build */
};

static int gpumap_init(struct pane *p, struct ui *ui)
{
	struct gpumap_state *s = calloc(1, sizeof(*s));

	(void)ui;
	if (!s)
		return -1;
	s->focus = s->fault = -1;
	s->per_cell = 1;
	s->cols = 1;
	p->state = s;
	return 0;
}

static void gpumap_free(struct pane *p)
{
	struct gpumap_state *s = p->state;

	if (s)
		free(s->r);
	free(s);
	p->state = NULL;
}

static uint64_t linear(const struct gpumap_state *s, struct dec_dim3 b)
{
	return (uint64_t)b.x + (uint64_t)s->grid.x * ((uint64_t)b.y + (uint64_t)s->grid.y * b.z);
}

static struct dec_dim3 unlinear(const struct gpumap_state *s, uint64_t i)
{
	uint64_t gx = s->grid.x ? s->grid.x : 1, gy = s->grid.y ? s->grid.y : 1;

	return (struct dec_dim3){ (uint32_t)(i % gx), (uint32_t)(i / gx % gy),
				  (uint32_t)(i / gx / gy), true };
}

static void range_add(struct gpumap_state *s, struct dec_dim3 a, struct dec_dim3 b,
		      uint8_t st)
{
	if (!a.valid || !b.valid)
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct brange *v = realloc(s->r, cap * sizeof(*v));
		if (!v)
			return;
		s->r = v;
		s->cap = cap;
	}
	uint64_t f = linear(s, a), t = linear(s, b);
	s->r[s->n++] = (struct brange){ f < t ? f : t, f < t ? t : f, st };
}

static int range_cmp(const void *a, const void *b)
{
	const struct brange *x = a, *y = b;

	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/* Sorts, merges overlapping ranges of one state (a breakpoint may hold
 * thousands of thread rows) and indexes where each state starts. */
static void ranges_normalise(struct gpumap_state *s)
{
	size_t w = 0;

	qsort(s->r, s->n, sizeof(*s->r), range_cmp);
	for (size_t i = 0; i < s->n; i++) {
		if (w && s->r[w - 1].state == s->r[i].state &&
		    s->r[i].from <= s->r[w - 1].to + 1) {
			if (s->r[i].to > s->r[w - 1].to)
				s->r[w - 1].to = s->r[i].to;
			continue;
		}
		s->r[w++] = s->r[i];
	}
	s->n = w;
	for (int k = 0, i = 0; k <= 4; k++) {
		while ((size_t)i < s->n && s->r[i].state < k)
			i++;
		s->first[k] = (size_t)i;
	}
}

static bool grid_of(const struct dbg_model *m, struct gpumap_state *s)
{
	const struct dec_table *k = &m->tables[MODEL_T_KERNELS];
	struct dec_kernel_row r;

	for (size_t i = 0; k->arena && i < k->nr_rows; i++)
		if (dec_table_kernel(k, i, &r) == 0 && r.grid_dim.valid &&
		    (r.kernel == m->focus.kernel || k->nr_rows == 1)) {
			s->grid = r.grid_dim;
			s->block_dim = r.block_dim;
			return s->grid.x && s->grid.y && s->grid.z;
		}
	return false;
}

/* Blocks holding a thread stopped on an enabled breakpoint, from the
 * threads table (the whole grid, or the focused block's page). */
static void breaks_add(const struct dbg_model *m, struct gpumap_state *s)
{
	const struct dec_table *t = &m->tables[MODEL_T_THREADS];
	uint64_t addr[64];
	size_t na = 0;

	for (size_t i = 0; i < m->nbkpts && na < 64; i++) {
		const struct dec_bkpt *b = model_bkpt(m, i);
		if (b && b->enabled && b->addr)
			addr[na++] = b->addr;
		for (size_t j = 0; b && j < b->nlocs && na < 64; j++)
			if (b->locs[j].enabled && b->locs[j].addr)
				addr[na++] = b->locs[j].addr;
	}
	for (size_t i = 0; na && t->arena && i < t->nr_rows; i++) {
		struct dec_thread_row r;
		if (dec_table_thread(t, i, &r) != 0)
			continue;
		for (size_t j = 0; j < na; j++)
			if (r.pc == addr[j]) {
				range_add(s, r.from_block, r.to_block, B_BREAK);
				break;
			}
	}
}

/* Rebuilds the block ranges from the model's tables. */
static void map_build(struct gpumap_state *s, const struct ui *ui)
{
	const char *why;
	const struct dbg_model *m = dpane_device(ui, &why);
	const struct dec_table *b;
	struct dec_focus f;

	s->n = 0;
	s->total = 0;
	s->focus = s->fault = -1;
	snprintf(s->why, sizeof s->why, "%s", why ? why : "");
	if (!m)
		return;
	if (!grid_of(m, s)) {
		snprintf(s->why, sizeof s->why, "%s",
			 m->table_error[MODEL_T_KERNELS] ? m->table_error[MODEL_T_KERNELS]
							 : "the kernels table has no grid size");
		return;
	}
	s->total = (uint64_t)s->grid.x * s->grid.y * s->grid.z;
	if ((b = dpane_table(m, MODEL_T_BLOCKS, &why)) != NULL) {
		for (size_t i = 0; i < b->nr_rows; i++) {
			struct dec_block_row r;
			if (dec_table_block(b, i, &r) == 0 &&
			    (r.kernel == m->focus.kernel || r.kernel < 0))
				range_add(s, r.from, r.to, B_RUNNING);
		}
	} else {
		snprintf(s->why, sizeof s->why, "%s", why); /* focus and fault still show */
	}
	breaks_add(m, s);
	if (m->has_stop && m->stop.reason == DEC_REASON_BREAKPOINT_HIT &&
	    m->stop.focus.valid)
		range_add(s, m->stop.focus.block, m->stop.focus.block, B_BREAK);
	if (dpane_fault(m, &f)) {
		range_add(s, f.block, f.block, B_FAULT);
		s->fault = (int64_t)linear(s, f.block);
	}
	if (m->focus.block.valid)
		s->focus = (int64_t)linear(s, m->focus.block);
	ranges_normalise(s);
	if (!s->cursor_set || s->cursor >= s->total)
		s->cursor = s->focus >= 0 ? (uint64_t)s->focus : 0;
	s->cursor_set = true;
}

static int gpumap_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	struct gpumap_state *s = p->state;

	if (what & (UCH_LAYOUT | UCH_STATE))
		dpane_want_sync(ui);
	if (what & UCH_STOP)
		s->cursor_set = false; /* back to the focus */
	if (what & (UCH_GPU | UCH_STOP | UCH_STATE | UCH_BREAKPOINTS | UCH_FRAME))
		s->stale = true;
	/* Building scans the threads table for breakpoint PCs (42,023 rows
	 * on a full H200): only for a map on screen. */
	if (s->stale && ui_pane_visible(ui, p)) {
		map_build(s, ui);
		s->stale = false;
		return PR_REDRAW;
	}
	return PR_HANDLED;
}

/* ---- drawing ---- */

static const char *const state_glyph[] = { "·", "■", "●", "✖" };
static const uint8_t state_color[] = { UC_MUTED, UC_GOOD, UC_BREAK, UC_FAULT };

/* The worst state of blocks [lo, hi]; at[k] walks state k's ranges
 * (cells come in increasing order). */
static uint8_t cell_state(const struct gpumap_state *s, size_t at[4], uint64_t lo, uint64_t hi)
{
	for (int k = B_FAULT; k > B_NONE; k--) {
		while (at[k] < s->first[k + 1] && s->r[at[k]].to < lo)
			at[k]++;
		if (at[k] < s->first[k + 1] && s->r[at[k]].from <= hi)
			return (uint8_t)k;
	}
	return B_NONE;
}

static int draw_blocks(struct gpumap_state *s, struct ui *ui, struct pane *p,
		       const struct canvas *c, int y, int rows)
{
	uint64_t cells = (uint64_t)rows * (uint64_t)c->r.w;
	size_t at[4] = { s->first[0], s->first[1], s->first[2], s->first[3] };

	s->cols = c->r.w > 0 ? c->r.w : 1;
	s->per_cell = cells && s->total > cells ? (s->total + cells - 1) / cells : 1;
	uint64_t ncells = (s->total + s->per_cell - 1) / s->per_cell;
	for (uint64_t i = 0; i < ncells; i++) {
		uint64_t lo = i * s->per_cell, hi = lo + s->per_cell - 1;
		uint8_t st = cell_state(s, at, lo, hi);
		bool focus = s->focus >= 0 && (uint64_t)s->focus >= lo && (uint64_t)s->focus <= hi;
		int x = (int)(i % (uint64_t)s->cols), yy = y + (int)(i / (uint64_t)s->cols);
		struct style sty = STYLE(focus ? UC_CURRENT : state_color[st], focus ? CA_BOLD : 0);
		canvas_str(c, x, yy, focus ? "◆" : state_glyph[st], sty);
		if (s->cursor >= lo && s->cursor <= hi && ui_focus_pane(ui) == p)
			canvas_set_style(c, x, yy, 1, STYLE(UC_CURSOR, 0));
	}
	return (int)((ncells + (uint64_t)s->cols - 1) / (uint64_t)s->cols);
}

static void draw_legend(const struct canvas *c, int y)
{
	int x = 0;

	for (int i = 0; i < 4; i++) {
		static const char *const names[] = { "not resident", "running", "breakpoint", "fault" };
		x = canvas_str(c, x, y, state_glyph[i], STYLE(state_color[i], 0));
		x = canvas_printf(c, x, y, STYLE(UC_MUTED, 0), " %s  ", names[i]);
	}
	x = canvas_str(c, x, y, "◆", STYLE(UC_CURRENT, CA_BOLD));
	canvas_str(c, x, y, " focus", STYLE(UC_MUTED, 0));
}

/* One cell per SM: its active warps as a bar (▁ few .. █ all). */
static int draw_sms(const struct dbg_model *m, const struct canvas *c, int y, int max_rows)
{
	static const char *const bars[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	const char *why;
	const struct dec_table *t = dpane_table(m, MODEL_T_SMS, &why);
	const struct dec_table *d = &m->tables[MODEL_T_DEVICES];
	struct dec_device_row dev;
	int per_sm = 64, used = 1, w = c->r.w > 0 ? c->r.w : 1;
	struct dec_focus f;
	bool fault = dpane_fault(m, &f);

	if (d->arena && d->nr_rows && dec_table_device(d, 0, &dev) == 0 && dev.num_warps > 0)
		per_sm = dev.num_warps;
	if (!t) {
		dpane_error(c, y, "SMs", why);
		return 1;
	}
	canvas_printf(c, 0, y, STYLE(UC_MUTED, CA_BOLD), "SMs of device %d: %zu active",
		      m->focus.device, t->nr_rows);
	for (size_t i = 0; i < t->nr_rows && (int)(i / (size_t)w) < max_rows - 1; i++) {
		struct dec_sm_row r;
		if (dec_table_sm(t, i, &r) != 0)
			continue;
		int n = dpane_popcount(r.active_warps_mask);
		int lvl = n <= 0 ? -1 : (n * 8 - 1) / per_sm;
		uint8_t col = fault && r.sm == f.sm ? UC_FAULT : r.sm == m->focus.sm ? UC_CURRENT : UC_GOOD;
		canvas_str(c, (int)(i % (size_t)w), y + 1 + (int)(i / (size_t)w),
			   lvl < 0 ? "·" : bars[lvl > 7 ? 7 : lvl], STYLE(col, 0));
		used = 2 + (int)(i / (size_t)w);
	}
	return used;
}

/* The focused SM's warps: active, divergent, faulted, in focus. */
static int draw_warps(const struct dbg_model *m, const struct canvas *c, int y)
{
	const char *why;
	const struct dec_table *t = dpane_table(m, MODEL_T_WARPS, &why);
	struct dec_focus f;
	bool fault = dpane_fault(m, &f) && f.sm == m->focus.sm;
	int x;

	if (!t)
		return dpane_error(c, y, "warps", why);
	x = canvas_printf(c, 0, y, STYLE(UC_MUTED, CA_BOLD), "SM %d warps ", m->focus.sm);
	for (size_t i = 0; i < t->nr_rows; i++) {
		struct dec_warp_row r;
		if (dec_table_warp(t, i, &r) != 0)
			continue;
		bool focus = r.warp == m->focus.warp, bad = fault && r.warp == f.warp;
		const char *g = focus ? "◆" : bad ? "✖" : !r.active_lanes_mask ? "·"
						 : r.divergent_lanes_mask ? "~" : "■";
		canvas_str(c, x + (int)i, y, g, STYLE(focus ? UC_CURRENT : bad ? UC_FAULT : UC_GOOD,
						       focus ? CA_BOLD : 0));
	}
	return 1;
}

static void gpumap_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct gpumap_state *s = p->state;
	const char *why;
	const struct dbg_model *m = dpane_device(ui, &why);
	char g[48], b[48];
	int y = 0, sm_rows, grid_rows;

	if (!m || !s->total) {
		if (m && s->why[0])
			dpane_error(c, 0, "no grid to map", s->why);
		else
			dpane_note(c, 0, why ? why : "no grid to map");
		return;
	}
	uint64_t resident = 0;
	for (size_t i = s->first[B_RUNNING]; i < s->first[B_RUNNING + 1]; i++)
		resident += s->r[i].to - s->r[i].from + 1;
	y += canvas_printf(c, 0, 0, STYLE(UC_MUTED, CA_BOLD), "Grid %s of %s: %llu blocks, %llu resident",
			   dpane_dim3(g, sizeof g, s->grid), dpane_dim3(b, sizeof b, s->block_dim),
			   (unsigned long long)s->total, (unsigned long long)resident) > 0;
	sm_rows = c->r.h >= 12 ? 4 : c->r.h >= 8 ? 2 : 0;
	grid_rows = c->r.h - y - 1 - sm_rows;
	if (grid_rows < 1)
		grid_rows = 1;
	y += draw_blocks(s, ui, p, c, y, grid_rows);
	if (s->why[0])
		y += dpane_error(c, y, "blocks", s->why);
	if (s->per_cell > 1)
		canvas_printf(c, 0, y++, STYLE(UC_MUTED, 0), "one cell = %llu blocks",
			      (unsigned long long)s->per_cell);
	draw_legend(c, y++);
	if (sm_rows >= 2 && y < c->r.h) {
		struct canvas rest = canvas_sub(c, 0, y, c->r.w, c->r.h - y);
		int used = draw_sms(m, &rest, 0, rest.r.h - 1);
		if (used < rest.r.h)
			draw_warps(m, &rest, used);
	}
}

static void gpumap_title(struct pane *p, struct ui *ui, char *buf, size_t cap)
{
	struct gpumap_state *s = p->state;
	char b[48];

	static const char *const words[] = { "not resident", "running", "at a breakpoint",
					     "faulted" };
	size_t at[4] = { s->first[0], s->first[1], s->first[2], s->first[3] };

	(void)ui;
	if (!s->total || s->cursor >= s->total)
		return;
	uint8_t st = cell_state(s, at, s->cursor, s->cursor);
	snprintf(buf, cap, "block %s %s%s", dpane_dim3(b, sizeof b, unlinear(s, s->cursor)),
		 words[st], (int64_t)s->cursor == s->focus ? ", in focus" : "");
}

/* ---- keys ---- */

static int cursor_move(struct gpumap_state *s, int64_t cells)
{
	int64_t c = (int64_t)(s->cursor / s->per_cell) + cells;
	int64_t ncells = (int64_t)((s->total + s->per_cell - 1) / s->per_cell);

	if (c < 0)
		c = 0;
	if (c >= ncells)
		c = ncells - 1;
	s->cursor = (uint64_t)c * s->per_cell;
	return PR_REDRAW;
}

/* Arrows (and h j k l), PgUp PgDn, End: the cursor over the grid. */
static int gpumap_move(struct pane *p, struct ui *ui, int key)
{
	struct gpumap_state *s = p->state;

	(void)ui;
	if (!s->total)
		return PR_IGNORED;
	switch (key) {
	case TK_LEFT: case 'h': return cursor_move(s, -1);
	case TK_RIGHT: case 'l': return cursor_move(s, 1);
	case TK_UP: case 'k': return cursor_move(s, -s->cols);
	case TK_DOWN: case 'j': return cursor_move(s, s->cols);
	case TK_PGUP: return cursor_move(s, -s->cols * 4);
	case TK_PGDN: return cursor_move(s, s->cols * 4);
	case TK_END: s->cursor = s->total - 1; return PR_REDRAW;
	}
	return PR_IGNORED;
}

static int gpumap_home(struct pane *p, struct ui *ui, int key)
{
	struct gpumap_state *s = p->state;

	(void)ui;
	(void)key;
	if (!s->total)
		return PR_IGNORED;
	s->cursor = s->focus >= 0 ? (uint64_t)s->focus : 0;
	return PR_REDRAW;
}

static int gpumap_fault(struct pane *p, struct ui *ui, int key)
{
	struct gpumap_state *s = p->state;
	struct dec_focus f;

	(void)key;
	if (!s->total)
		return PR_IGNORED;
	if (!dpane_fault(ui->model, &f)) {
		ui_message(ui, UC_MUTED, "the last stop was not a device exception");
		return PR_REDRAW;
	}
	s->cursor = linear(s, f.block);
	return dpane_focus(ui, f.block, f.thread);
}

static int gpumap_enter(struct pane *p, struct ui *ui, int key)
{
	struct gpumap_state *s = p->state;

	(void)key;
	if (!s->total)
		return PR_IGNORED;
	return dpane_focus(ui, unlinear(s, s->cursor), (struct dec_dim3){ 0, 0, 0, true });
}

static int gpumap_click(struct pane *p, struct ui *ui, int x, int y)
{
	struct gpumap_state *s = p->state;
	uint64_t cell;

	(void)ui;
	if (!s->total || y < 1)
		return PR_IGNORED;
	cell = (uint64_t)(y - 1) * (uint64_t)s->cols + (uint64_t)x;
	if (cell * s->per_cell >= s->total)
		return PR_IGNORED;
	s->cursor = cell * s->per_cell;
	return PR_REDRAW;
}

static const struct pane_key gpumap_keys[] = {
	{ TK_LEFT, TK_RIGHT, gpumap_move, "arrows", "move over the blocks of the grid" },
	{ TK_UP, TK_DOWN, gpumap_move, NULL, NULL },
	{ 'h', 'l', gpumap_move, NULL, NULL },
	{ 'k', 'j', gpumap_move, NULL, NULL },
	{ TK_PGUP, TK_PGDN, gpumap_move, NULL, NULL },
	{ TK_END, TK_NONE, gpumap_move, NULL, NULL },
	{ TK_ENTER, TK_NONE, gpumap_enter, NULL, "switch the CUDA focus to the block (thread 0)" },
	{ 'F', TK_NONE, gpumap_fault, NULL, "switch to the faulting thread" },
	{ TK_HOME, TK_NONE, gpumap_home, NULL, "back to the focused block" },
	PANE_KEYS_END,
};

const struct pane_ops pane_gpumap_ops = {
	.name = "gpumap",
	.title = "Map",
	.home = AREA_SIDE_TOP,
	.wants = MODEL_WANT_BLOCKS | MODEL_WANT_SMS | MODEL_WANT_WARPS,
	.init = gpumap_init,
	.draw = gpumap_draw,
	.click = gpumap_click,
	.on_change = gpumap_on_change,
	.title_info = gpumap_title,
	.free = gpumap_free,
	.keys = gpumap_keys,
};
