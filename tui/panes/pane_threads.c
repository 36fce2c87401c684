/* The threads pane: cuda-gdb's coalesced thread ranges (block and thread
 * range, count, file:line, PC), paged by block with
 * `-cuda-info-threads block (x,y,z)` (the whole grid of a full H200 is a
 * 10 MB answer of 42,023 rows; never uncoalesced).  When the debugger
 * only answers for the whole grid (older versions, recordings), paging
 * moves within that table instead.  Only the visible rows are decoded at
 * each draw; the focus and fault rows are found by binary search. */
#include "tui/dbgpane.h"
#include "tui/source.h"
#include "tui/keys.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct threads_state {
	struct listview lv;
	long focus_row, fault_row;  /* rows holding them, -1 none */
	/* Put the cursor on the focus row once the table shows it (after a
	 * stop or a focus switch), or on the fault row, or on the first row
	 * of goto_block. */
	bool follow_focus, follow_fault;
	struct dec_dim3 goto_block; /* valid: pending jump */
	unsigned seen_stop;         /* model stop_count last seen */
	struct dec_focus seen_focus;
};

static int threads_init(struct pane *p, struct ui *ui)
{
	struct threads_state *s;

	(void)ui;
	if (dpane_state_new(p, sizeof(*s)) != 0)
		return -1;
	s = p->state;
	s->focus_row = s->fault_row = -1;
	s->follow_focus = true;
	return 0;
}
_Static_assert(offsetof(struct threads_state, lv) == 0, "dpane_state_new: lv first");

static const struct dec_table *threads_table(const struct ui *ui)
{
	const char *why;
	const struct dbg_model *m = dpane_device(ui, &why);

	return m ? dpane_table(m, MODEL_T_THREADS, &why) : NULL;
}

/* The row holding (block, thread), or with `at_or_after`, the first row
 * at or after it; -1 when none.  Rows are in cuda-gdb's order. */
static long row_find(const struct dec_table *t, struct dec_dim3 b,
		     struct dec_dim3 th, bool at_or_after)
{
	long lo = 0, hi = (long)t->nr_rows - 1, last_le = -1;
	struct dec_thread_row r;

	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;
		if (dec_table_thread(t, (size_t)mid, &r) != 0)
			return -1;
		if (dpane_bt_cmp(r.from_block, r.from_thread, b, th) <= 0) {
			last_le = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (last_le >= 0 && dec_table_thread(t, (size_t)last_le, &r) == 0 &&
	    dpane_bt_cmp(b, th, r.to_block, r.to_thread) <= 0)
		return last_le;
	if (!at_or_after)
		return -1;
	return last_le + 1 < (long)t->nr_rows ? last_le + 1 : -1;
}

static void rows_locate(struct threads_state *s, const struct ui *ui)
{
	const struct dec_table *t = threads_table(ui);
	struct dec_focus f;

	s->focus_row = s->fault_row = -1;
	s->lv.count = t ? (long)t->nr_rows : 0;
	if (!t)
		return;
	if (ui->model->focus.block.valid && ui->model->focus.thread.valid)
		s->focus_row = row_find(t, ui->model->focus.block,
					ui->model->focus.thread, false);
	if (dpane_fault(ui->model, &f))
		s->fault_row = row_find(t, f.block, f.thread, false);
}

/* Selects row and scrolls it to the middle of the pane. */
static void select_centred(struct listview *lv, long row)
{
	lv->cursor = row;
	lv->top = row - lv->height / 2;
	listview_fit(lv, lv->height);
}

/* Applies a pending cursor move now that the table may show it. */
static void cursor_follow(struct threads_state *s, const struct ui *ui)
{
	const struct dec_table *t = threads_table(ui);

	if (!t)
		return;
	if (s->goto_block.valid) {
		long r = row_find(t, s->goto_block, (struct dec_dim3){ 0, 0, 0, true }, true);
		if (r >= 0) {
			listview_select(&s->lv, r);
			s->lv.top = r; /* the block's rows start the page */
			listview_fit(&s->lv, s->lv.height);
			s->goto_block.valid = false;
		}
		return;
	}
	if (s->follow_fault && s->fault_row >= 0) {
		select_centred(&s->lv, s->fault_row);
		s->follow_fault = s->follow_focus = false;
	} else if (s->follow_focus && s->focus_row >= 0) {
		select_centred(&s->lv, s->focus_row);
		s->follow_focus = false;
	}
}

static int threads_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	struct threads_state *s = p->state;
	const struct dbg_model *m = ui->model;

	if (what & (UCH_LAYOUT | UCH_STATE))
		dpane_want_sync(ui);
	if (!m || !(what & (UCH_GPU | UCH_STOP | UCH_STATE | UCH_FRAME)))
		return PR_HANDLED;
	if (m->stop_count != s->seen_stop ||
	    !dec_dim3_eq(m->focus.block, s->seen_focus.block) ||
	    !dec_dim3_eq(m->focus.thread, s->seen_focus.thread)) {
		if (m->stop_count == s->seen_stop && m->focus.valid && s->seen_focus.valid) {
			/* a switch, not a stop: say where the focus went */
			char b[48], t[48];
			ui_message(ui, UC_MUTED, "focus: block %s thread %s",
				   dpane_dim3(b, sizeof b, m->focus.block),
				   dpane_dim3(t, sizeof t, m->focus.thread));
		}
		s->seen_stop = m->stop_count;
		s->seen_focus = m->focus;
		s->follow_focus = true;
	}
	rows_locate(s, ui);
	cursor_follow(s, ui);
	return PR_REDRAW;
}

/* ---- drawing ---- */

struct row_text {
	char block[48], thread[48], count[40], loc[96], pc[24];
};

static void row_format(const struct dec_thread_row *r, struct row_text *o)
{
	dpane_dim3_range(o->block, sizeof o->block, r->from_block, r->to_block);
	if (dec_dim3_eq(r->from_block, r->to_block))
		dpane_dim3_range(o->thread, sizeof o->thread, r->from_thread, r->to_thread);
	else
		snprintf(o->thread, sizeof o->thread, "(%u,%u,%u)..(%u,%u,%u)",
			 r->from_thread.x, r->from_thread.y, r->from_thread.z,
			 r->to_thread.x, r->to_thread.y, r->to_thread.z);
	if (r->sm >= 0) /* uncoalesced: where the thread runs */
		snprintf(o->count, sizeof o->count, "sm%d w%d l%d", r->sm, r->warp, r->lane);
	else
		snprintf(o->count, sizeof o->count, "%ld", r->count);
	if (r->filename && *r->filename && r->line > 0)
		snprintf(o->loc, sizeof o->loc, "%s:%d", path_base(r->filename), r->line);
	else
		snprintf(o->loc, sizeof o->loc, "(no line info)");
	snprintf(o->pc, sizeof o->pc, "%#llx", (unsigned long long)r->pc);
}

/* Column widths fitted to the rows on screen. */
struct cols {
	int block, thread, count, loc;
};

static void cols_fit(struct cols *w, const struct row_text *rt)
{
	int n;

	if ((n = (int)strlen(rt->block)) > w->block)
		w->block = n;
	if ((n = (int)strlen(rt->thread)) > w->thread)
		w->thread = n;
	if ((n = (int)strlen(rt->count)) > w->count)
		w->count = n;
	if ((n = (int)strlen(rt->loc)) > w->loc)
		w->loc = n;
}

static void row_draw(const struct canvas *c, int y, const struct row_text *rt,
		     const struct cols *w, const char *mark, struct style st)
{
	int x = canvas_str(c, 0, y, mark, st);

	x = canvas_printf(c, x < 2 ? 2 : x, y, st, "%-*s ", w->block, rt->block);
	x = canvas_printf(c, x, y, st, "%-*s ", w->thread, rt->thread);
	x = canvas_printf(c, x, y, st, "%*s ", w->count, rt->count);
	x = canvas_text(c, x, y, rt->loc, strlen(rt->loc), st);
	x = canvas_printf(c, x, y, st, "%*s", w->loc - (int)strlen(rt->loc), "");
	canvas_printf(c, x + 1, y, STYLE(st.color == UC_DEFAULT ? UC_MUTED : st.color, st.attr),
		      "%s", rt->pc);
}

static void threads_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct threads_state *s = p->state;
	const char *why;
	const struct dbg_model *m = dpane_device(ui, &why);
	const struct dec_table *t;
	struct row_text rows[256];
	struct cols w = { 5, 7, 3, 4 };
	int n = 0;

	if (!m) {
		dpane_note(c, 0, why);
		return;
	}
	if (!(t = dpane_table(m, MODEL_T_THREADS, &why))) {
		dpane_error(c, 0, "no thread table", why);
		return;
	}
	listview_fit(&s->lv, c->r.h - 1);
	for (int y = 0; y < s->lv.height && y < 256; y++) {
		struct dec_thread_row r;
		if (dec_table_thread(t, (size_t)(s->lv.top + y), &r) != 0)
			break;
		row_format(&r, &rows[n++]);
		cols_fit(&w, &rows[y]);
	}
	struct row_text hdr = { "Block", "Threads", "Cnt", "Line", "PC" };
	if (t->kind == DEC_TABLE_THREADS_UNCOAL)
		snprintf(hdr.count, sizeof hdr.count, "Runs on");
	row_draw(c, 0, &hdr, &w, "", STYLE(UC_MUTED, CA_BOLD));
	if (n == 0)
		dpane_note(c, 1, "no threads: nothing of this kernel is on the GPU");
	for (int y = 0; y < n; y++) {
		long row = s->lv.top + y;
		bool focus = row == s->focus_row, fault = row == s->fault_row;
		struct style st = STYLE(fault ? UC_FAULT : focus ? UC_CURRENT : UC_DEFAULT,
					focus ? CA_BOLD : 0);
		row_draw(c, y + 1, &rows[y], &w, focus ? "▶" : fault ? "!" : " ", st);
		if (row == s->lv.cursor)
			dpane_cursor(ui, p, c, y + 1);
	}
}

static void threads_title(struct pane *p, struct ui *ui, char *buf, size_t cap)
{
	const struct dec_table *t = threads_table(ui);
	char b[48];

	if (!t)
		return;
	struct threads_state *s = p->state;
	char at[32] = "";

	if (s->lv.cursor >= 0 && t->nr_rows)
		snprintf(at, sizeof at, ", row %ld", s->lv.cursor + 1);
	if (t->kind == DEC_TABLE_THREADS_UNCOAL)
		snprintf(buf, cap, "block %s uncoalesced, %zu threads%s",
			 dpane_dim3(b, sizeof b, ui->model->threads_block), t->nr_rows, at);
	else if (ui->model->threads_block.valid)
		snprintf(buf, cap, "block %s, %zu range%s%s",
			 dpane_dim3(b, sizeof b, ui->model->threads_block), t->nr_rows,
			 t->nr_rows == 1 ? "" : "s", at);
	else
		snprintf(buf, cap, "whole grid, %zu range%s%s", t->nr_rows,
			 t->nr_rows == 1 ? "" : "s", at);
}

/* ---- keys ---- */

/* The focused kernel's grid dimensions, when the kernels table has them. */
static struct dec_dim3 grid_dim(const struct dbg_model *m)
{
	const struct dec_table *k = &m->tables[MODEL_T_KERNELS];
	struct dec_kernel_row r;

	for (size_t i = 0; k->arena && i < k->nr_rows; i++)
		if (dec_table_kernel(k, i, &r) == 0 &&
		    (r.kernel == m->focus.kernel || k->nr_rows == 1))
			return r.grid_dim;
	return (struct dec_dim3){ 0 };
}

/* The block after (dir 1) or before (dir -1) b in launch order. */
static bool block_step(const struct dbg_model *m, struct dec_dim3 *b, int dir)
{
	struct dec_dim3 g = grid_dim(m);
	uint32_t *v[3] = { &b->x, &b->y, &b->z };
	uint32_t lim[3] = { g.valid ? g.x : UINT32_MAX, g.valid ? g.y : 1,
			    g.valid ? g.z : 1 };

	for (int i = 0; i < 3; i++) {
		if (dir > 0 && *v[i] + 1 < lim[i]) {
			(*v[i])++;
			return true;
		}
		if (dir < 0 && *v[i] > 0) {
			(*v[i])--;
			return true;
		}
		*v[i] = dir > 0 ? 0 : lim[i] - 1;
	}
	return false;
}

/* Shows block b: a page of its own, or its rows in the whole-grid
 * table. */
static int page_to(struct pane *p, struct ui *ui, struct dec_dim3 b)
{
	struct threads_state *s = p->state;
	const struct dbg_model *m = ui->model;

	s->goto_block = b;
	s->follow_focus = s->follow_fault = false;
	if (m->threads_block.valid && !dec_dim3_eq(m->threads_block, b))
		return dpane_done(ui, ctl_threads_page(ui->ctl, b));
	cursor_follow(s, ui);
	if (s->goto_block.valid) {
		char buf[48];
		s->goto_block.valid = false;
		ui_message(ui, UC_WARN, "block %s has no threads on the GPU",
			   dpane_dim3(buf, sizeof buf, b));
	}
	return PR_REDRAW;
}

static int page_step(struct pane *p, struct ui *ui, int dir)
{
	struct threads_state *s = p->state;
	const struct dec_table *t = threads_table(ui);
	const struct dbg_model *m = ui->model;
	struct dec_thread_row r;
	struct dec_dim3 b;

	if (m->threads_block.valid) {
		b = m->threads_block;
	} else if (t && s->lv.cursor >= 0 && dec_table_thread(t, (size_t)s->lv.cursor, &r) == 0) {
		b = dir > 0 ? r.to_block : r.from_block;
		/* at a block's first row, going back means the block before */
		if (dir < 0 && dec_dim3_eq(r.from_block, r.to_block) &&
		    row_find(t, b, (struct dec_dim3){ 0, 0, 0, true }, true) < s->lv.cursor)
			return page_to(p, ui, b);
	} else {
		return PR_HANDLED;
	}
	if (!block_step(m, &b, dir)) {
		ui_message(ui, UC_MUTED, dir > 0 ? "this is the last block" : "this is the first block");
		return PR_REDRAW;
	}
	return page_to(p, ui, b);
}

static void goto_done(struct ui *ui, struct pane *p, const char *text)
{
	const char *s = text;
	struct dec_dim3 b, th;

	if (strncmp(s, "block", 5) == 0)
		s += 5;
	if (!dpane_parse_dim3(&s, &b)) {
		ui_message(ui, UC_ERROR, "\"%s\": give a block, and a thread to switch the focus "
			   "(e.g. 132 or (3,0,0) (17,0,0))", text);
		return;
	}
	while (*s == ' ')
		s++;
	if (strncmp(s, "thread", 6) == 0)
		s += 6;
	if (dpane_parse_dim3(&s, &th)) {
		((struct threads_state *)p->state)->follow_focus = true;
		dpane_focus(ui, b, th);
		return;
	}
	page_to(p, ui, b);
}

static int jump_fault(struct pane *p, struct ui *ui)
{
	struct threads_state *s = p->state;
	const struct dbg_model *m = ui->model;
	struct dec_focus f;
	char b[48], t[48];

	if (!dpane_fault(m, &f)) {
		ui_message(ui, UC_MUTED, "the last stop was not a device exception");
		return PR_REDRAW;
	}
	ui_message(ui, UC_MUTED, "faulting thread: block %s thread %s",
		   dpane_dim3(b, sizeof b, f.block), dpane_dim3(t, sizeof t, f.thread));
	s->goto_block.valid = false;
	s->follow_fault = true;
	if (!dec_dim3_eq(f.block, m->focus.block) || !dec_dim3_eq(f.thread, m->focus.thread))
		return dpane_focus(ui, f.block, f.thread);
	if (m->threads_block.valid && !dec_dim3_eq(m->threads_block, f.block))
		return dpane_done(ui, ctl_threads_page(ui->ctl, f.block));
	rows_locate(s, ui);
	cursor_follow(s, ui);
	return PR_REDRAW;
}

static int threads_enter(struct pane *p, struct ui *ui)
{
	struct threads_state *s = p->state;
	const struct dec_table *t = threads_table(ui);
	struct dec_thread_row r;

	if (!t || s->lv.cursor < 0 || dec_table_thread(t, (size_t)s->lv.cursor, &r) != 0)
		return PR_HANDLED;
	if (s->lv.cursor == s->focus_row) {
		ui_message(ui, UC_MUTED, "the focus is already in this range");
		return PR_REDRAW;
	}
	s->follow_focus = true;
	return dpane_focus(ui, r.from_block, r.from_thread);
}

/* One block's threads one by one, with SM, warp and lane: only on
 * request (a block of 1024 threads is 1024 rows). */
static int uncoalesce(struct pane *p, struct ui *ui)
{
	struct threads_state *s = p->state;
	const struct dec_table *t = threads_table(ui);
	struct dec_thread_row r;
	struct dec_dim3 b = ui->model->focus.block;

	if (t && s->lv.cursor >= 0 && dec_table_thread(t, (size_t)s->lv.cursor, &r) == 0)
		b = r.from_block;
	s->follow_focus = true;
	return dpane_done(ui, ctl_threads_uncoalesced(ui->ctl, b));
}

/* The threads keys act only on a device stop (else the list's own). */
static bool threads_ready(struct ui *ui)
{
	const char *why;

	return dpane_device(ui, &why) != NULL;
}

static int threads_enter_key(struct pane *p, struct ui *ui, int key)
{
	(void)key;
	return threads_ready(ui) ? threads_enter(p, ui) : PR_IGNORED;
}

static int threads_goto(struct pane *p, struct ui *ui, int key)
{
	(void)key;
	if (!threads_ready(ui))
		return PR_IGNORED;
	ui_prompt_open(ui, p, "block [thread]:", goto_done);
	return PR_REDRAW;
}

static int threads_page(struct pane *p, struct ui *ui, int key)
{
	return threads_ready(ui) ? page_step(p, ui, key == '>' ? 1 : -1) : PR_IGNORED;
}

static int threads_fault(struct pane *p, struct ui *ui, int key)
{
	(void)key;
	return threads_ready(ui) ? jump_fault(p, ui) : PR_IGNORED;
}

static int threads_uncoalesce(struct pane *p, struct ui *ui, int key)
{
	(void)key;
	return threads_ready(ui) ? uncoalesce(p, ui) : PR_IGNORED;
}

static int threads_all(struct pane *p, struct ui *ui, int key)
{
	struct threads_state *s = p->state;
	const char *why;
	const struct dbg_model *m = dpane_device(ui, &why);

	(void)key;
	if (!m)
		return PR_IGNORED;
	s->follow_focus = true;
	return dpane_done(ui, ctl_threads_page(ui->ctl, m->threads_block.valid
						 ? (struct dec_dim3){ 0 }
						 : m->focus.block));
}

static int threads_request(struct pane *p, struct ui *ui, enum pane_request r)
{
	if (r != PANE_REQ_FAULT_THREAD)
		return PR_IGNORED;
	ui_focus(ui, p);
	return jump_fault(p, ui);
}

static int threads_key(struct pane *p, struct ui *ui, int key)
{
	(void)ui;
	return listview_key(&((struct threads_state *)p->state)->lv, key);
}

static const struct pane_key threads_keys[] = {
	{ TK_ENTER, TK_NONE, threads_enter_key, NULL, "focus the first thread of the range" },
	{ 'g', TK_NONE, threads_goto, NULL, "go to block 132, or thread (3,0,0) (17,0,0)" },
	{ '<', '>', threads_page, NULL, "previous / next block" },
	{ 'F', TK_NONE, threads_fault, NULL, "jump to the faulting thread" },
	{ 'a', TK_NONE, threads_all, NULL, "whole grid (large) / the focused block" },
	{ 'U', TK_NONE, threads_uncoalesce, NULL, "the block thread by thread (SM, warp, lane)" },
	PANE_KEYS_END,
};

const struct pane_ops pane_threads_ops = {
	.name = "threads",
	.title = "Threads",
	.home = AREA_SIDE_TOP,
	.request = threads_request,
	.init = threads_init,
	.draw = threads_draw,
	.key = threads_key,
	.click = dpane_click_table,
	.on_change = threads_on_change,
	.title_info = threads_title,
	.free = dpane_state_free,
	.keys = threads_keys,
};
