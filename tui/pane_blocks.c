/* The blocks pane: the focused kernel's resident blocks as cuda-gdb
 * coalesces them (from, to, count, state), fetched at each stop while the
 * pane is on screen. */
#include "tui/dbgpane.h"
#include "tui/keys.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct blocks_state {
	struct listview lv;
};

static int blocks_init(struct pane *p, struct ui *ui)
{
	(void)ui;
	return dpane_state_new(p, sizeof(struct blocks_state));
}
_Static_assert(offsetof(struct blocks_state, lv) == 0, "dpane_state_new: lv first");


static const struct dec_table *blocks_table(const struct ui *ui, const char **why)
{
	const struct dbg_model *m = dpane_device(ui, why);

	return m ? dpane_table(m, MODEL_T_BLOCKS, why) : NULL;
}

/* Whether block b lies in the row's range (linear order). */
static bool row_holds(const struct dec_block_row *r, struct dec_dim3 b)
{
	return b.valid && dpane_dim3_cmp(r->from, b) <= 0 && dpane_dim3_cmp(b, r->to) <= 0;
}

static void blocks_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct blocks_state *s = p->state;
	const char *why;
	const struct dec_table *t = blocks_table(ui, &why);
	struct dec_focus f;
	bool has_fault;
	char range[96];

	if (!t) {
		if (ui->model && ui->model->table_error[MODEL_T_BLOCKS])
			dpane_error(c, 0, "no blocks table", why);
		else
			dpane_note(c, 0, why);
		return;
	}
	has_fault = dpane_fault(ui->model, &f);
	s->lv.count = (long)t->nr_rows;
	listview_fit(&s->lv, c->r.h - 1);
	canvas_str(c, 0, 0, "  K Blocks                  Count State    SM",
		   STYLE(UC_MUTED, CA_BOLD));
	if (t->nr_rows == 0)
		dpane_note(c, 1, "no block of this kernel is on the GPU");
	for (int y = 0; y < s->lv.height; y++) {
		struct dec_block_row r;
		long row = s->lv.top + y;
		if (dec_table_block(t, (size_t)row, &r) != 0)
			break;
		bool focus = row_holds(&r, ui->model->focus.block);
		bool fault = has_fault && row_holds(&r, f.block);
		struct style st = STYLE(fault ? UC_FAULT : focus ? UC_CURRENT : UC_DEFAULT,
					focus ? CA_BOLD : 0);
		int x = canvas_printf(c, 0, y + 1, st, "%s%2d %-23s %5ld %-8s",
				      focus ? "▶" : fault ? "!" : " ", r.kernel,
				      dpane_dim3_range(range, sizeof range, r.from, r.to), r.count,
				      r.state ? r.state : "?");
		if (r.sm >= 0)
			canvas_printf(c, x, y + 1, st, " %d", r.sm);
		if (row == s->lv.cursor)
			dpane_cursor(ui, p, c, y + 1);
	}
}

static int blocks_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	struct blocks_state *s = p->state;
	const char *why;
	const struct dec_table *t;

	if (what & (UCH_LAYOUT | UCH_STATE))
		dpane_want_sync(ui);
	if (!(what & (UCH_GPU | UCH_STOP | UCH_STATE)))
		return PR_HANDLED;
	t = blocks_table(ui, &why);
	s->lv.count = t ? (long)t->nr_rows : 0;
	for (long i = 0; t && (what & UCH_STOP) && i < s->lv.count; i++) {
		struct dec_block_row r;
		if (dec_table_block(t, (size_t)i, &r) == 0 && row_holds(&r, ui->model->focus.block))
			listview_select(&s->lv, i);
	}
	return PR_REDRAW;
}

static int blocks_key(struct pane *p, struct ui *ui, int key)
{
	struct blocks_state *s = p->state;
	const char *why;
	const struct dec_table *t = blocks_table(ui, &why);
	struct dec_block_row r;
	struct dec_focus f;

	switch (key) {
	case TK_ENTER: case '\n':
		if (!t || s->lv.cursor < 0 || dec_table_block(t, (size_t)s->lv.cursor, &r) != 0)
			return PR_HANDLED;
		return dpane_focus(ui, r.from, (struct dec_dim3){ 0, 0, 0, true });
	case 'F':
		if (!dpane_fault(ui->model, &f)) {
			ui_message(ui, UC_MUTED, "the last stop was not a device exception");
			return PR_REDRAW;
		}
		return dpane_focus(ui, f.block, f.thread);
	}
	return listview_key(&s->lv, key);
}

static int blocks_click(struct pane *p, struct ui *ui, int x, int y)
{
	(void)ui;
	(void)x;
	return listview_click(&((struct blocks_state *)p->state)->lv, y - 1);
}

static const struct key_help blocks_help[] = {
	{ "Enter", "focus the first block of the range" },
	{ "F", "switch to the faulting thread" },
	{ NULL, NULL },
};

const struct pane_ops pane_blocks_ops = {
	.name = "blocks",
	.title = "Blocks",
	.home = AREA_SIDE_TOP,
	.init = blocks_init,
	.draw = blocks_draw,
	.key = blocks_key,
	.click = blocks_click,
	.on_change = blocks_on_change,
	.free = dpane_state_free,
	.help = blocks_help,
};
