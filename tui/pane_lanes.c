/* The lanes pane: the lanes of the focused warp, their state (active,
 * divergent, inactive), PC, thread and per-lane exception
 * (-cuda-info-lanes, fetched at each stop while on screen). */
#include "tui/dbgpane.h"
#include "tui/keys.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lanes_state {
	struct listview lv;
};

static int lanes_init(struct pane *p, struct ui *ui)
{
	(void)ui;
	return dpane_state_new(p, sizeof(struct lanes_state));
}
_Static_assert(offsetof(struct lanes_state, lv) == 0, "dpane_state_new: lv first");


static const struct dec_table *lanes_table(const struct ui *ui, const char **why)
{
	const struct dbg_model *m = dpane_device(ui, why);

	return m ? dpane_table(m, MODEL_T_LANES, why) : NULL;
}

static bool has_exception(const struct dec_lane_row *r)
{
	return r->exception && *r->exception && strcmp(r->exception, "None") != 0;
}

static void lanes_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct lanes_state *s = p->state;
	const char *why;
	const struct dec_table *t = lanes_table(ui, &why);
	const struct dbg_model *m = ui->model;
	char th[48];

	if (!t) {
		if (m && m->table_error[MODEL_T_LANES])
			dpane_error(c, 0, "no lanes table", why);
		else
			dpane_note(c, 0, why);
		return;
	}
	s->lv.count = (long)t->nr_rows;
	listview_fit(&s->lv, c->r.h - 1);
	canvas_str(c, 0, 0, "  Ln State     Thread     Exception    PC", STYLE(UC_MUTED, CA_BOLD));
	for (int y = 0; y < s->lv.height; y++) {
		struct dec_lane_row r;
		long row = s->lv.top + y;
		if (dec_table_lane(t, (size_t)row, &r) != 0)
			break;
		bool focus = r.lane == m->focus.lane, bad = has_exception(&r);
		bool active = r.state && !strcmp(r.state, "active");
		bool divergent = r.state && !strcmp(r.state, "divergent");
		uint8_t col = bad ? UC_FAULT : focus ? UC_CURRENT : divergent ? UC_WARN
			      : active ? UC_DEFAULT : UC_MUTED;
		struct style st = STYLE(col, focus ? CA_BOLD : 0);
		int x = canvas_printf(c, 0, y + 1, st, "%s%3d %-9s %-10s ", focus ? "▶" : bad ? "!" : " ",
				      r.lane, r.state ? r.state : "?", dpane_dim3(th, sizeof th, r.thread));
		x = canvas_printf(c, x, y + 1, st, "%-12s ", bad ? r.exception : "-");
		canvas_printf(c, x, y + 1, st, "%#llx", (unsigned long long)r.pc);
		if (row == s->lv.cursor)
			dpane_cursor(ui, p, c, y + 1);
	}
}

static void lanes_title(struct pane *p, struct ui *ui, char *buf, size_t cap)
{
	(void)p;
	if (ui->model && ui->model->focus.valid && ui->model->focus.warp >= 0)
		snprintf(buf, cap, "SM %d warp %d", ui->model->focus.sm, ui->model->focus.warp);
}

static int lanes_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	struct lanes_state *s = p->state;
	const char *why;
	const struct dec_table *t;

	if (what & (UCH_LAYOUT | UCH_STATE))
		dpane_want_sync(ui);
	if (!(what & (UCH_GPU | UCH_STOP | UCH_STATE)))
		return PR_HANDLED;
	t = lanes_table(ui, &why);
	s->lv.count = t ? (long)t->nr_rows : 0;
	for (long i = 0; t && (what & UCH_STOP) && i < s->lv.count; i++) {
		struct dec_lane_row r;
		if (dec_table_lane(t, (size_t)i, &r) == 0 && r.lane == ui->model->focus.lane)
			listview_select(&s->lv, i);
	}
	return PR_REDRAW;
}

static int lanes_key(struct pane *p, struct ui *ui, int key)
{
	struct lanes_state *s = p->state;
	const char *why;
	const struct dec_table *t = lanes_table(ui, &why);
	struct dec_lane_row r;

	if (key == TK_ENTER || key == '\n') {
		if (!t || s->lv.cursor < 0 || dec_table_lane(t, (size_t)s->lv.cursor, &r) != 0)
			return PR_HANDLED;
		if (r.lane == ui->model->focus.lane) {
			ui_message(ui, UC_MUTED, "lane %d has the focus already", r.lane);
			return PR_REDRAW;
		}
		return dpane_done(ui, ctl_focus_lane(ui->ctl, r.lane));
	}
	return listview_key(&s->lv, key);
}

static int lanes_click(struct pane *p, struct ui *ui, int x, int y)
{
	(void)ui;
	(void)x;
	return listview_click(&((struct lanes_state *)p->state)->lv, y - 1);
}

static const struct key_help lanes_help[] = {
	{ "Enter", "switch the CUDA focus to the lane" },
	{ NULL, NULL },
};

const struct pane_ops pane_lanes_ops = {
	.name = "lanes",
	.title = "Lanes",
	.home = AREA_SIDE_TOP,
	.init = lanes_init,
	.draw = lanes_draw,
	.key = lanes_key,
	.click = lanes_click,
	.on_change = lanes_on_change,
	.title_info = lanes_title,
	.free = dpane_state_free,
	.help = lanes_help,
};
