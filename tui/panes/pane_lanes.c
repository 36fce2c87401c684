/* The lanes pane: the lanes of the focused warp, their state (active,
 * divergent, inactive), PC, thread and per-lane exception
 * (-cuda-info-lanes, fetched at each stop while on screen).  The table
 * pane work is in tui/dbgtable.c. */
#include "tui/keys.h"
#include "tui/dbgtable.h"

#include <stdio.h>
#include <string.h>

static bool has_exception(const struct dec_lane_row *r)
{
	return r->exception && *r->exception && strcmp(r->exception, "None") != 0;
}

static bool lanes_draw_row(struct pane *p, struct ui *ui, const struct canvas *c,
			   int y, const struct dec_table *t, size_t row)
{
	const struct dbg_model *m = ui->model;
	struct dec_lane_row r;
	char th[48];

	(void)p;
	if (dec_table_lane(t, row, &r) != 0)
		return false;
	bool focus = r.lane == m->focus.lane, bad = has_exception(&r);
	bool active = r.state && !strcmp(r.state, "active");
	bool divergent = r.state && !strcmp(r.state, "divergent");
	uint8_t col = bad ? UC_FAULT : focus ? UC_CURRENT : divergent ? UC_WARN
		      : active ? UC_DEFAULT : UC_MUTED;
	struct style st = STYLE(col, focus ? CA_BOLD : 0);
	int x = canvas_printf(c, 0, y, st, "%s%3d %-9s %-10s ", focus ? "▶" : bad ? "!" : " ",
			      r.lane, r.state ? r.state : "?", dpane_dim3(th, sizeof th, r.thread));
	x = canvas_printf(c, x, y, st, "%-12s ", bad ? r.exception : "-");
	canvas_printf(c, x, y, st, "%#llx", (unsigned long long)r.pc);
	return true;
}

static bool lanes_holds_focus(const struct dbg_model *m, const struct dec_table *t,
			      size_t row)
{
	struct dec_lane_row r;

	return dec_table_lane(t, row, &r) == 0 && r.lane == m->focus.lane;
}

static int lanes_enter(struct ui *ui, const struct dec_table *t, size_t row)
{
	struct dec_lane_row r;

	if (dec_table_lane(t, row, &r) != 0)
		return PR_HANDLED;
	if (r.lane == ui->model->focus.lane) {
		ui_message(ui, UC_MUTED, "lane %d has the focus already", r.lane);
		return PR_REDRAW;
	}
	return dpane_done(ui, ctl_focus_lane(ui->ctl, r.lane));
}

static const struct dtable_ops lanes_table = {
	.table = MODEL_T_LANES,
	.no_table = "no lanes table",
	.heading = "  Ln State     Thread     Exception    PC",
	.draw_row = lanes_draw_row,
	.holds_focus = lanes_holds_focus,
	.enter = lanes_enter,
};

static int lanes_init(struct pane *p, struct ui *ui)
{
	(void)ui;
	return dtable_state_new(p, &lanes_table, sizeof(struct dtable));
}

static void lanes_title(struct pane *p, struct ui *ui, char *buf, size_t cap)
{
	(void)p;
	if (ui->model && ui->model->focus.valid && ui->model->focus.warp >= 0)
		snprintf(buf, cap, "SM %d warp %d", ui->model->focus.sm, ui->model->focus.warp);
}

static const struct pane_key lanes_keys[] = {
	{ TK_ENTER, TK_NONE, dtable_enter, NULL, "switch the CUDA focus to the lane" },
	PANE_KEYS_END,
};

const struct pane_ops pane_lanes_ops = {
	.name = "lanes",
	.title = "Lanes",
	.home = AREA_SIDE_TOP,
	.wants = MODEL_WANT_LANES,
	.init = lanes_init,
	.draw = dtable_draw,
	.key = dtable_key,
	.click = dpane_click_table,
	.on_change = dtable_on_change,
	.title_info = lanes_title,
	.free = dpane_state_free,
	.keys = lanes_keys,
};
