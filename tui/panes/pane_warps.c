/* The warps pane: the warps of the focused SM with their active and
 * divergent lane masks, PC, block and first active thread
 * (-cuda-info-warps, fetched at each stop while on screen).  The table
 * pane work is in tui/dbgtable.c. */
#include "tui/keys.h"
#include "tui/dbgtable.h"

#include <stdio.h>

/* Whether the faulting thread (if the last stop was a fault) ran in warp
 * r of the SM shown (the focused one). */
static bool warp_faulted(const struct dbg_model *m, const struct dec_warp_row *r)
{
	struct dec_focus f;

	return dpane_fault(m, &f) && f.sm == m->focus.sm && r->warp == f.warp;
}

static bool warps_draw_row(struct pane *p, struct ui *ui, const struct canvas *c,
			   int y, const struct dec_table *t, size_t row)
{
	const struct dbg_model *m = ui->model;
	struct dec_warp_row r;
	char b[48], th[48];

	(void)p;
	if (dec_table_warp(t, row, &r) != 0)
		return false;
	bool focus = r.warp == m->focus.warp, fault = warp_faulted(m, &r);
	uint8_t col = fault ? UC_FAULT : focus ? UC_CURRENT
			 : !r.active_lanes_mask ? UC_MUTED : UC_DEFAULT;
	struct style st = STYLE(col, focus ? CA_BOLD : 0);
	int x = canvas_printf(c, 0, y, st, "%s%3d 0x%08x ", focus ? "▶" : fault ? "!" : " ",
			      r.warp, r.active_lanes_mask);
	x = canvas_printf(c, x, y, r.divergent_lanes_mask ? STYLE(UC_WARN, 0) : st,
			  "0x%08x ", r.divergent_lanes_mask);
	canvas_printf(c, x, y, st, "%-10s %-10s %#llx", dpane_dim3(b, sizeof b, r.block),
		      dpane_dim3(th, sizeof th, r.thread), (unsigned long long)r.active_pc);
	return true;
}

static bool warps_holds_focus(const struct dbg_model *m, const struct dec_table *t,
			      size_t row)
{
	struct dec_warp_row r;

	return dec_table_warp(t, row, &r) == 0 && r.warp == m->focus.warp;
}

/* Enter focuses the warp's first active thread. */
static int warps_enter(struct ui *ui, const struct dec_table *t, size_t row)
{
	struct dec_warp_row r;

	if (dec_table_warp(t, row, &r) != 0)
		return PR_HANDLED;
	if (!r.active_lanes_mask || !r.block.valid || !r.thread.valid) {
		ui_message(ui, UC_WARN, "warp %d has no active thread", r.warp);
		return PR_REDRAW;
	}
	return dpane_focus(ui, r.block, r.thread);
}

static const struct dtable_ops warps_table = {
	.table = MODEL_T_WARPS,
	.no_table = "no warps table",
	.heading = "  Wp Active     Divergent  Block      Thread     PC",
	.draw_row = warps_draw_row,
	.holds_focus = warps_holds_focus,
	.enter = warps_enter,
};

static int warps_init(struct pane *p, struct ui *ui)
{
	(void)ui;
	return dtable_state_new(p, &warps_table, sizeof(struct dtable));
}

static void warps_title(struct pane *p, struct ui *ui, char *buf, size_t cap)
{
	(void)p;
	if (ui->model && ui->model->focus.valid && ui->model->focus.sm >= 0)
		snprintf(buf, cap, "SM %d", ui->model->focus.sm);
}

static const struct pane_key warps_keys[] = {
	{ TK_ENTER, TK_NONE, dtable_enter, NULL, "focus the warp's first active thread" },
	PANE_KEYS_END,
};

const struct pane_ops pane_warps_ops = {
	.name = "warps",
	.title = "Warps",
	.home = AREA_SIDE_TOP,
	.wants = MODEL_WANT_WARPS,
	.init = warps_init,
	.draw = dtable_draw,
	.key = dtable_key,
	.click = dpane_click_table,
	.on_change = dtable_on_change,
	.title_info = warps_title,
	.free = dpane_state_free,
	.keys = warps_keys,
};
