/* The warp watch: one expression's value in every lane of the focused
 * warp, side by side (the controller switches the lane focus, evaluates,
 * and switches back: -cuda-focus-switch lane N, -data-evaluate-expression;
 * about 1 ms a lane in cuda-gdb 13).  Inactive lanes (from the warp's
 * active mask) and divergent lanes are marked; the focused lane is
 * highlighted.  Evaluated again at every stop and focus change while on
 * screen. */
#include "tui/dbgpane.h"
#include "tui/keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LANES 32

struct warpwatch_state {
	int top;                  /* first grid row shown */
	int rows;                 /* grid rows at the last draw */
	/* What the last evaluation ran at: evaluate again when it moves. */
	unsigned at_stop;
	struct dec_focus at_focus;
	bool ran;
};

static int warpwatch_init(struct pane *p, struct ui *ui)
{
	(void)ui;
	p->state = calloc(1, sizeof(struct warpwatch_state));
	return p->state ? 0 : -1;
}

static void warpwatch_free(struct pane *p)
{
	free(p->state);
	p->state = NULL;
}

/* The focused warp's masks from the warps table; false when unknown. */
static bool warp_masks(const struct dbg_model *m, uint32_t *active, uint32_t *divergent)
{
	const struct dec_table *t = &m->tables[MODEL_T_WARPS];

	for (size_t i = 0; t->arena && i < t->nr_rows; i++) {
		struct dec_warp_row r;
		if (dec_table_warp(t, i, &r) == 0 && r.warp == m->focus.warp) {
			*active = r.active_lanes_mask;
			*divergent = r.divergent_lanes_mask;
			return true;
		}
	}
	return false;
}

static const struct model_lane_value *lane_value(const struct dbg_model *m, int lane)
{
	for (size_t i = 0; i < m->nlanes; i++)
		if (m->lanes[i].lane == lane)
			return &m->lanes[i];
	return NULL;
}

/* What a lane's cell shows, and its style. */
static const char *cell_text(const struct dbg_model *m, int lane, bool known, uint32_t active,
			     uint32_t divergent, struct style *st)
{
	const struct model_lane_value *v = lane_value(m, lane);
	bool focus = lane == m->focus.lane;

	*st = STYLE(focus ? UC_CURRENT : UC_DEFAULT, focus ? CA_BOLD : 0);
	if (v && v->value && v->error) {
		*st = STYLE(UC_ERROR, 0);
		return "?";
	}
	if ((v && v->divergent) || (known && ((divergent >> lane) & 1)))
		st->color = focus ? UC_CURRENT : UC_WARN;
	if (v && v->value)
		return v->value;
	if (v)
		return m->warp_busy ? "…" : "-";
	if (known && !((active >> lane) & 1)) {
		*st = STYLE(UC_MUTED, 0);
		return "inactive";
	}
	*st = STYLE(UC_MUTED, 0);
	return m->warp_busy ? "…" : "-";
}

/* The character after a lane's number: the focus, divergence, a
 * failure (colours say the same where there are colours). */
static const char *lane_mark(const struct dbg_model *m, int lane, bool known, uint32_t divergent)
{
	const struct model_lane_value *v = lane_value(m, lane);

	if (v && v->error && v->value)
		return "!";
	if (lane == m->focus.lane)
		return "▸";
	if ((v && v->divergent) || (known && ((divergent >> lane) & 1)))
		return "~";
	return " ";
}

/* The first error and how many lanes share an error. */
static const char *first_error(const struct dbg_model *m, int *count)
{
	const char *e = NULL;

	*count = 0;
	for (size_t i = 0; i < m->nlanes; i++)
		if (m->lanes[i].error && m->lanes[i].value) {
			if (!e)
				e = m->lanes[i].value;
			(*count)++;
		}
	return e;
}

static void warpwatch_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct warpwatch_state *s = p->state;
	const char *why;
	const struct dbg_model *m = dpane_device(ui, &why);
	uint32_t active = 0, divergent = 0;
	int valw = 1, nerr;

	if (!m) {
		dpane_note(c, 0, why);
		return;
	}
	if (!m->warp_expr) {
		dpane_note(c, 0, "no expression: e (or Enter) asks for one, evaluated in every "
				 "lane of the focused warp");
		return;
	}
	bool known = warp_masks(m, &active, &divergent);
	for (int l = 0; l < LANES; l++) {
		struct style st;
		int n = (int)strlen(cell_text(m, l, known, active, divergent, &st));
		if (n > valw)
			valw = n;
	}
	if (valw > 24)
		valw = 24;
	int cellw = 3 + valw + 2, cols = c->r.w / cellw;
	if (cols < 1)
		cols = 1;
	if (cols > 8)
		cols = 8;
	int x = canvas_text(c, 0, 0, m->warp_expr, strlen(m->warp_expr), STYLE(UC_ACCENT, CA_BOLD));
	canvas_printf(c, x, 0, STYLE(UC_MUTED, 0), " in warp %d (SM %d)%s", m->focus.warp,
		      m->focus.sm, m->warp_busy ? " evaluating…" : "");
	s->rows = (LANES + cols - 1) / cols;
	int avail = c->r.h - 3;
	if (avail < 1)
		avail = 1;
	if (s->top > s->rows - avail)
		s->top = s->rows - avail;
	if (s->top < 0)
		s->top = 0;
	for (int r = s->top; r < s->rows && r - s->top < avail; r++)
		for (int k = 0; k < cols; k++) {
			int lane = r * cols + k;
			struct style st;
			if (lane >= LANES)
				break;
			const char *t = cell_text(m, lane, known, active, divergent, &st);
			int cx = k * cellw, y = 1 + r - s->top;
			canvas_printf(c, cx, y, STYLE(lane == m->focus.lane ? UC_CURRENT : UC_MUTED,
						      lane == m->focus.lane ? CA_BOLD : 0), "%2d%s", lane,
				      lane_mark(m, lane, known, divergent));
			struct canvas cell = canvas_sub(c, cx + 3, y, valw, 1);
			canvas_text(&cell, 0, 0, t, strlen(t), st);
		}
	int y = 1 + (s->rows - s->top < avail ? s->rows - s->top : avail);
	const char *err = first_error(m, &nerr);
	if (err) {
		char what[64];
		snprintf(what, sizeof what, "%d lane%s failed", nerr, nerr == 1 ? "" : "s");
		y += dpane_error(c, y, what, err);
	}
	if (y < c->r.h)
		canvas_str(c, 0, y, "▸ focus  ~ divergent  ! ? failed", STYLE(UC_MUTED, 0));
}

static void run_watch(struct pane *p, struct ui *ui, const char *expr)
{
	struct warpwatch_state *s = p->state;
	const struct dbg_model *m = ui->model;

	s->at_stop = m->stop_count;
	s->at_focus = m->focus;
	s->ran = true;
	dpane_done(ui, ctl_warp_watch(ui->ctl, expr));
}

static int warpwatch_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	struct warpwatch_state *s = p->state;
	const char *why;
	const struct dbg_model *m = dpane_device(ui, &why);

	if (what & (UCH_LAYOUT | UCH_STATE))
		dpane_want_sync(ui);
	if (!m || !(what & (UCH_STOP | UCH_FRAME | UCH_LAYOUT | UCH_VARS | UCH_GPU | UCH_STATE)))
		return PR_HANDLED;
	/* A new stop or another focus: the values shown belong to the old
	 * one; evaluate again while on screen. */
	if (m->warp_expr && !m->warp_busy && ui_pane_visible(ui, p) &&
	    (!s->ran || s->at_stop != m->stop_count || s->at_focus.lane != m->focus.lane ||
	     s->at_focus.warp != m->focus.warp || s->at_focus.sm != m->focus.sm ||
	     !dec_dim3_eq(s->at_focus.block, m->focus.block))) {
		char *e = strdup(m->warp_expr);
		if (e)
			run_watch(p, ui, e);
		free(e);
	}
	return PR_REDRAW;
}

static void expr_done(struct ui *ui, struct pane *p, const char *text)
{
	if (*text)
		run_watch(p, ui, text);
}

static int warpwatch_expr(struct pane *p, struct ui *ui, int key)
{
	(void)key;
	if (!ui->ctl)
		return PR_HANDLED;
	ui_prompt_open(ui, p, "in every lane:", expr_done);
	return PR_REDRAW;
}

static int warpwatch_key(struct pane *p, struct ui *ui, int key)
{
	struct warpwatch_state *s = p->state;

	(void)ui;
	switch (key) {
	case TK_UP: case 'k': s->top--; return PR_REDRAW;
	case TK_DOWN: case 'j': s->top++; return PR_REDRAW;
	}
	return PR_IGNORED;
}

static void warpwatch_title(struct pane *p, struct ui *ui, char *buf, size_t cap)
{
	const struct dbg_model *m = ui->model;

	(void)p;
	if (m && m->warp_expr && m->nlanes)
		snprintf(buf, cap, "%zu lanes", m->nlanes);
}

static const struct pane_key warpwatch_keys[] = {
	{ 'e', TK_ENTER, warpwatch_expr, NULL, "an expression in every lane of the warp" },
	PANE_KEYS_END,
};

const struct pane_ops pane_warpwatch_ops = {
	.name = "warpwatch",
	.title = "Warp",
	.home = AREA_SIDE_BOTTOM,
	.wants = MODEL_WANT_WARPS,
	.init = warpwatch_init,
	.draw = warpwatch_draw,
	.key = warpwatch_key,
	.on_change = warpwatch_on_change,
	.title_info = warpwatch_title,
	.free = warpwatch_free,
	.keys = warpwatch_keys,
};
