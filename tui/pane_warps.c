/* The warps pane: the warps of the focused SM with their active and
 * divergent lane masks, PC, block and first active thread
 * (-cuda-info-warps, fetched at each stop while on screen). */
#include "tui/dbgpane.h"
#include "tui/keys.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

struct warps_state {
	struct listview lv;
};

static int warps_init(struct pane *p, struct ui *ui)
{
	(void)ui;
	return dpane_state_new(p, sizeof(struct warps_state));
}
_Static_assert(offsetof(struct warps_state, lv) == 0, "dpane_state_new: lv first");


static const struct dec_table *warps_table(const struct ui *ui, const char **why)
{
	const struct dbg_model *m = dpane_device(ui, why);

	return m ? dpane_table(m, MODEL_T_WARPS, why) : NULL;
}

static void warps_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct warps_state *s = p->state;
	const char *why;
	const struct dec_table *t = warps_table(ui, &why);
	const struct dbg_model *m = ui->model;
	struct dec_focus f;
	bool has_fault;
	char b[48], th[48];

	if (!t) {
		if (m && m->table_error[MODEL_T_WARPS])
			dpane_error(c, 0, "no warps table", why);
		else
			dpane_note(c, 0, why);
		return;
	}
	has_fault = dpane_fault(m, &f) && f.sm == m->focus.sm;
	s->lv.count = (long)t->nr_rows;
	listview_fit(&s->lv, c->r.h - 1);
	canvas_str(c, 0, 0, "  Wp Active     Divergent  Block      Thread     PC",
		   STYLE(UC_MUTED, CA_BOLD));
	for (int y = 0; y < s->lv.height; y++) {
		struct dec_warp_row r;
		long row = s->lv.top + y;
		if (dec_table_warp(t, (size_t)row, &r) != 0)
			break;
		bool focus = r.warp == m->focus.warp, fault = has_fault && r.warp == f.warp;
		uint8_t col = fault ? UC_FAULT : focus ? UC_CURRENT
				 : !r.active_lanes_mask ? UC_MUTED : UC_DEFAULT;
		struct style st = STYLE(col, focus ? CA_BOLD : 0);
		int x = canvas_printf(c, 0, y + 1, st, "%s%3d 0x%08x ", focus ? "▶" : fault ? "!" : " ",
				      r.warp, r.active_lanes_mask);
		x = canvas_printf(c, x, y + 1, r.divergent_lanes_mask ? STYLE(UC_WARN, 0) : st,
				  "0x%08x ", r.divergent_lanes_mask);
		canvas_printf(c, x, y + 1, st, "%-10s %-10s %#llx", dpane_dim3(b, sizeof b, r.block),
			      dpane_dim3(th, sizeof th, r.thread), (unsigned long long)r.active_pc);
		if (row == s->lv.cursor)
			dpane_cursor(ui, p, c, y + 1);
	}
}

static void warps_title(struct pane *p, struct ui *ui, char *buf, size_t cap)
{
	(void)p;
	if (ui->model && ui->model->focus.valid && ui->model->focus.sm >= 0)
		snprintf(buf, cap, "SM %d", ui->model->focus.sm);
}

static int warps_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	struct warps_state *s = p->state;
	const char *why;
	const struct dec_table *t;

	if (what & (UCH_LAYOUT | UCH_STATE))
		dpane_want_sync(ui);
	if (!(what & (UCH_GPU | UCH_STOP | UCH_STATE)))
		return PR_HANDLED;
	t = warps_table(ui, &why);
	s->lv.count = t ? (long)t->nr_rows : 0;
	for (long i = 0; t && (what & (UCH_STOP | UCH_GPU)) && i < s->lv.count; i++) {
		struct dec_warp_row r;
		if (dec_table_warp(t, (size_t)i, &r) == 0 && r.warp == ui->model->focus.warp &&
		    (what & UCH_STOP))
			listview_select(&s->lv, i);
	}
	return PR_REDRAW;
}

static int warps_key(struct pane *p, struct ui *ui, int key)
{
	struct warps_state *s = p->state;
	const char *why;
	const struct dec_table *t = warps_table(ui, &why);
	struct dec_warp_row r;

	if (key == TK_ENTER || key == '\n') {
		if (!t || s->lv.cursor < 0 || dec_table_warp(t, (size_t)s->lv.cursor, &r) != 0)
			return PR_HANDLED;
		if (!r.active_lanes_mask || !r.block.valid || !r.thread.valid) {
			ui_message(ui, UC_WARN, "warp %d has no active thread", r.warp);
			return PR_REDRAW;
		}
		return dpane_focus(ui, r.block, r.thread);
	}
	return listview_key(&s->lv, key);
}

static int warps_click(struct pane *p, struct ui *ui, int x, int y)
{
	(void)ui;
	(void)x;
	return listview_click(&((struct warps_state *)p->state)->lv, y - 1);
}

static const struct key_help warps_help[] = {
	{ "Enter", "focus the warp's first active thread" },
	{ NULL, NULL },
};

const struct pane_ops pane_warps_ops = {
	.name = "warps",
	.title = "Warps",
	.home = AREA_SIDE_TOP,
	.init = warps_init,
	.draw = warps_draw,
	.key = warps_key,
	.click = warps_click,
	.on_change = warps_on_change,
	.title_info = warps_title,
	.free = dpane_state_free,
	.help = warps_help,
};
