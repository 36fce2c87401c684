/* The watch pane: expressions the controller re-evaluates at every stop,
 * each with its value, marked when it changed since the previous stop. */
#include "tui/dbgpane.h"
#include "tui/keys.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct watch_state {
	struct listview lv;
	size_t hscroll;
};

static int watch_init(struct pane *p, struct ui *ui)
{
	(void)ui;
	return dpane_state_new(p, sizeof(struct watch_state));
}
_Static_assert(offsetof(struct watch_state, lv) == 0, "dpane_state_new: lv first");


static void watch_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct watch_state *s = p->state;
	const struct dbg_model *m = ui->model;

	if (!m) {
		dpane_note(c, 0, "no debugger is connected");
		return;
	}
	s->lv.count = (long)m->nwatches;
	listview_fit(&s->lv, c->r.h);
	if (m->nwatches == 0) {
		dpane_note(c, 0, "no watch expressions: a adds one; they are evaluated at every stop");
		return;
	}
	for (int y = 0; y < s->lv.height; y++) {
		size_t i = (size_t)(s->lv.top + y);
		if (i >= m->nwatches)
			break;
		const struct model_watch *w = &m->watches[i];
		int x = canvas_str(c, 0, y, w->changed ? "* " : "  ", STYLE(UC_WARN, CA_BOLD));
		x = canvas_text(c, x, y, w->expr, strlen(w->expr), STYLE(UC_ACCENT, 0));
		x = canvas_str(c, x, y, " = ", STYLE(UC_MUTED, 0));
		if (!w->value)
			canvas_str(c, x, y, m->state == MODEL_STOPPED ? "…" : "(not evaluated: not stopped)",
				   STYLE(UC_MUTED, 0));
		else
			canvas_text_skip(c, x, y, w->value, strlen(w->value), s->hscroll,
					 STYLE(w->error ? UC_ERROR : UC_DEFAULT,
					       w->changed ? CA_BOLD : 0));
		if ((long)i == s->lv.cursor)
			dpane_cursor(ui, p, c, y);
	}
}

static int watch_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	struct watch_state *s = p->state;

	if (what & (UCH_LAYOUT | UCH_STATE))
		dpane_want_sync(ui);
	if (!(what & (UCH_VARS | UCH_STOP | UCH_STATE)))
		return PR_HANDLED;
	s->lv.count = ui->model ? (long)ui->model->nwatches : 0;
	listview_fit(&s->lv, s->lv.height);
	return PR_REDRAW;
}

static void add_done(struct ui *ui, struct pane *p, const char *text)
{
	struct watch_state *s = p->state;
	int r;

	if (!*text)
		return;
	r = ctl_watch_add(ui->ctl, text);
	if (r < 0) {
		dpane_done(ui, r);
		return;
	}
	listview_select(&s->lv, r);
	ui->dirty = true;
}

static int watch_add(struct pane *p, struct ui *ui, int key)
{
	(void)key;
	if (!ui->ctl)
		return PR_IGNORED;
	ui_prompt_open(ui, p, "watch:", add_done);
	return PR_REDRAW;
}

/* Enter adds the first watch; with watches it does nothing. */
static int watch_enter(struct pane *p, struct ui *ui, int key)
{
	(void)key;
	if (!ui->ctl)
		return PR_IGNORED;
	if (ui->model->nwatches == 0)
		ui_prompt_open(ui, p, "watch:", add_done);
	return PR_REDRAW;
}

static int watch_remove(struct pane *p, struct ui *ui, int key)
{
	struct watch_state *s = p->state;

	(void)key;
	if (!ui->ctl)
		return PR_IGNORED;
	if (s->lv.cursor < 0)
		return PR_HANDLED;
	dpane_done(ui, ctl_watch_remove(ui->ctl, (size_t)s->lv.cursor));
	s->lv.count = (long)ui->model->nwatches;
	listview_fit(&s->lv, s->lv.height);
	return PR_REDRAW;
}

static int watch_sideways(struct pane *p, struct ui *ui, int key)
{
	if (!ui->ctl)
		return PR_IGNORED;
	return listview_hscroll(&((struct watch_state *)p->state)->hscroll, key);
}

static int watch_key(struct pane *p, struct ui *ui, int key)
{
	(void)ui;
	return listview_key(&((struct watch_state *)p->state)->lv, key);
}

static const struct pane_key watch_keys[] = {
	{ 'a', TK_INSERT, watch_add, NULL, "add a watch expression" },
	{ TK_ENTER, TK_NONE, watch_enter, NULL, NULL },
	{ 'd', TK_DELETE, watch_remove, NULL, "remove the selected one" },
	{ TK_LEFT, TK_RIGHT, watch_sideways, NULL, NULL },
	{ TK_NONE, TK_NONE, NULL, "*", "marks a value changed since the last stop" },
	PANE_KEYS_END,
};

const struct pane_ops pane_watch_ops = {
	.name = "watch",
	.title = "Watch",
	.home = AREA_SIDE_BOTTOM,
	.init = watch_init,
	.draw = watch_draw,
	.key = watch_key,
	.click = dpane_click,
	.on_change = watch_on_change,
	.free = dpane_state_free,
	.keys = watch_keys,
};
