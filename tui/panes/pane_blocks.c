/* The blocks pane: the focused kernel's resident blocks as cuda-gdb
 * coalesces them (from, to, count, state), fetched at each stop while the
 * pane is on screen.  The table pane work is in tui/dbgtable.c. */
#include "tui/keys.h"
#include "tui/dbgtable.h"

#include <stdio.h>

/* Whether block b lies in the row's range (linear order). */
static bool row_holds(const struct dec_block_row *r, struct dec_dim3 b)
{
	return b.valid && dpane_dim3_cmp(r->from, b) <= 0 && dpane_dim3_cmp(b, r->to) <= 0;
}

/* Whether the faulting thread (if the last stop was a fault) is in r. */
static bool row_faulted(const struct dbg_model *m, const struct dec_block_row *r)
{
	struct dec_focus f;

	return dpane_fault(m, &f) && row_holds(r, f.block);
}

static bool blocks_draw_row(struct pane *p, struct ui *ui, const struct canvas *c,
			    int y, const struct dec_table *t, size_t row)
{
	struct dec_block_row r;
	char range[96];

	(void)p;
	if (dec_table_block(t, row, &r) != 0)
		return false;
	bool focus = row_holds(&r, ui->model->focus.block);
	bool fault = row_faulted(ui->model, &r);
	struct style st = STYLE(fault ? UC_FAULT : focus ? UC_CURRENT : UC_DEFAULT,
				focus ? CA_BOLD : 0);
	int x = canvas_printf(c, 0, y, st, "%s%2d %-23s %5ld %-8s",
			      focus ? "▶" : fault ? "!" : " ", r.kernel,
			      dpane_dim3_range(range, sizeof range, r.from, r.to), r.count,
			      r.state ? r.state : "?");
	if (r.sm >= 0)
		canvas_printf(c, x, y, st, " %d", r.sm);
	return true;
}

static bool blocks_holds_focus(const struct dbg_model *m, const struct dec_table *t,
			       size_t row)
{
	struct dec_block_row r;

	return dec_table_block(t, row, &r) == 0 && row_holds(&r, m->focus.block);
}

/* Enter focuses the first thread of the range's first block. */
static int blocks_enter(struct ui *ui, const struct dec_table *t, size_t row)
{
	struct dec_block_row r;

	if (dec_table_block(t, row, &r) != 0)
		return PR_HANDLED;
	return dpane_focus(ui, r.from, (struct dec_dim3){ 0, 0, 0, true });
}

/* F: back to the thread that faulted. */
static int blocks_fault(struct pane *p, struct ui *ui, int key)
{
	struct dec_focus f;

	(void)p;
	if (key != 'F')
		return PR_IGNORED;
	if (!dpane_fault(ui->model, &f)) {
		ui_message(ui, UC_MUTED, "the last stop was not a device exception");
		return PR_REDRAW;
	}
	return dpane_focus(ui, f.block, f.thread);
}

static const struct dtable_ops blocks_table = {
	.table = MODEL_T_BLOCKS,
	.no_table = "no blocks table",
	.heading = "  K Blocks                  Count State    SM",
	.empty = "no block of this kernel is on the GPU",
	.draw_row = blocks_draw_row,
	.holds_focus = blocks_holds_focus,
	.enter = blocks_enter,
};

static int blocks_init(struct pane *p, struct ui *ui)
{
	(void)ui;
	return dtable_state_new(p, &blocks_table, sizeof(struct dtable));
}

static const struct pane_key blocks_keys[] = {
	{ TK_ENTER, TK_NONE, dtable_enter, NULL, "focus the first block of the range" },
	{ 'F', TK_NONE, blocks_fault, NULL, "switch to the faulting thread" },
	PANE_KEYS_END,
};

const struct pane_ops pane_blocks_ops = {
	.name = "blocks",
	.title = "Blocks",
	.home = AREA_SIDE_TOP,
	.wants = MODEL_WANT_BLOCKS,
	.init = blocks_init,
	.draw = dtable_draw,
	.key = dtable_key,
	.click = dpane_click_table,
	.on_change = dtable_on_change,
	.free = dpane_state_free,
	.keys = blocks_keys,
};
