/* The devices pane: each GPU (name, SM type, SMs, warps per SM, lanes
 * per warp, registers) and below it the focused device's active SMs with
 * their active warps (-cuda-info-devices and -cuda-info-sms, fetched at
 * each stop while on screen).  Rows: devices first, then SMs. */
#include "tui/dbgpane.h"
#include "tui/keys.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct devices_state {
	struct listview lv;
};

static int devices_init(struct pane *p, struct ui *ui)
{
	(void)ui;
	return dpane_state_new(p, sizeof(struct devices_state));
}
_Static_assert(offsetof(struct devices_state, lv) == 0, "dpane_state_new: lv first");


/* Rows: [devices][1 SM header][sms]. */
static void counts(const struct dbg_model *m, size_t *nd, size_t *ns)
{
	const char *why;
	const struct dec_table *d = dpane_table(m, MODEL_T_DEVICES, &why);
	const struct dec_table *s = dpane_table(m, MODEL_T_SMS, &why);

	*nd = d ? d->nr_rows : 0;
	*ns = s ? s->nr_rows : 0;
}

static void device_row(const struct ui *ui, const struct canvas *c, int y, size_t i)
{
	const struct dbg_model *m = ui->model;
	const struct dec_table *t = &m->tables[MODEL_T_DEVICES];
	struct dec_device_row r;

	if (dec_table_device(t, i, &r) != 0)
		return;
	bool focus = r.device == m->focus.device;
	struct style st = STYLE(focus ? UC_CURRENT : UC_DEFAULT, focus ? CA_BOLD : 0);
	int x = canvas_printf(c, 0, y, st, "%s%2d ", focus ? "▶" : " ", r.device);
	x = canvas_text(c, x, y, r.name ? r.name : "?", r.name ? strlen(r.name) : 1, st);
	canvas_printf(c, x, y, st, " %s, %d SMs x %d warps x %d lanes, %d regs",
		      r.sm_type ? r.sm_type : "?", r.num_sms, r.num_warps, r.num_lanes, r.num_regs);
}

static void sm_row(const struct ui *ui, const struct canvas *c, int y, size_t i)
{
	const struct dbg_model *m = ui->model;
	const struct dec_table *t = &m->tables[MODEL_T_SMS];
	struct dec_sm_row r;
	struct dec_focus f;

	if (dec_table_sm(t, i, &r) != 0)
		return;
	bool focus = r.sm == m->focus.sm, bad = dpane_fault(m, &f) && f.sm == r.sm;
	struct style st = STYLE(bad ? UC_FAULT : focus ? UC_CURRENT : UC_DEFAULT, focus ? CA_BOLD : 0);
	int x = canvas_printf(c, 0, y, st, "%s%3d %2d warps ", focus ? "▶" : bad ? "!" : " ", r.sm,
			      dpane_popcount(r.active_warps_mask));
	/* one cell per warp slot: the mask at a glance */
	for (int w = 0; w < 64 && x + w < c->r.w; w++)
		canvas_str(c, x + w, y, (r.active_warps_mask >> w) & 1 ? "■" : "·",
			   STYLE((r.active_warps_mask >> w) & 1 ? UC_GOOD : UC_MUTED, 0));
}

static void devices_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct devices_state *s = p->state;
	const char *why;
	const struct dbg_model *m = dpane_device(ui, &why);
	size_t nd, ns;

	if (!m) {
		dpane_note(c, 0, why);
		return;
	}
	if (!dpane_table(m, MODEL_T_DEVICES, &why) && m->table_error[MODEL_T_DEVICES]) {
		dpane_error(c, 0, "no devices table", why);
		return;
	}
	counts(m, &nd, &ns);
	s->lv.count = (long)(nd + 1 + ns);
	listview_fit(&s->lv, c->r.h);
	for (int y = 0; y < s->lv.height; y++) {
		size_t row = (size_t)(s->lv.top + y);
		if (row < nd) {
			device_row(ui, c, y, row);
		} else if (row == nd) {
			if (!dpane_table(m, MODEL_T_SMS, &why))
				dpane_error(c, y, "SMs", why);
			else
				canvas_printf(c, 0, y, STYLE(UC_MUTED, CA_BOLD),
					      "  SM active warps (device %d)", m->focus.device);
		} else if (row < nd + 1 + ns) {
			sm_row(ui, c, y, row - nd - 1);
		} else {
			break;
		}
		if ((long)row == s->lv.cursor)
			dpane_cursor(ui, p, c, y);
	}
}

static int devices_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	(void)p;
	if (what & (UCH_LAYOUT | UCH_STATE))
		dpane_want_sync(ui);
	return (what & (UCH_GPU | UCH_STOP | UCH_STATE)) ? PR_REDRAW : PR_HANDLED;
}

static int devices_enter(struct pane *p, struct ui *ui, int key)
{
	struct devices_state *s = p->state;
	const char *why;
	const struct dbg_model *m = dpane_device(ui, &why);
	size_t nd, ns;
	const char *what;
	long n;

	(void)key;
	if (!m)
		return PR_IGNORED;
	counts(m, &nd, &ns);
	if (s->lv.cursor < 0)
		return PR_HANDLED;
	if ((size_t)s->lv.cursor < nd) {
		struct dec_device_row r;
		if (dec_table_device(&m->tables[MODEL_T_DEVICES], (size_t)s->lv.cursor, &r) != 0)
			return PR_HANDLED;
		what = "device";
		n = r.device;
	} else if ((size_t)s->lv.cursor > nd) {
		struct dec_sm_row r;
		if (dec_table_sm(&m->tables[MODEL_T_SMS], (size_t)s->lv.cursor - nd - 1, &r) != 0)
			return PR_HANDLED;
		what = "sm";
		n = r.sm;
	} else {
		return PR_HANDLED;
	}
	/* to the first resident thread there; the controller refreshes
	 * every pane afterwards */
	return dpane_done(ui, ctl_cuda_switch(ui->ctl, what, n));
}

static int devices_key(struct pane *p, struct ui *ui, int key)
{
	(void)ui;
	return listview_key(&((struct devices_state *)p->state)->lv, key);
}

static const struct pane_key devices_keys[] = {
	{ TK_ENTER, TK_NONE, devices_enter, NULL, "switch the CUDA focus to the device or SM" },
	PANE_KEYS_END,
};

const struct pane_ops pane_devices_ops = {
	.name = "devices",
	.title = "Devices",
	.home = AREA_SIDE_TOP,
	.wants = MODEL_WANT_DEVICES | MODEL_WANT_SMS,
	.init = devices_init,
	.draw = devices_draw,
	.key = devices_key,
	.click = dpane_click,
	.on_change = devices_on_change,
	.free = dpane_state_free,
	.keys = devices_keys,
};
