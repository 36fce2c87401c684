/* The locals pane: arguments and local variables of the selected frame
 * (-stack-list-variables, refreshed by the controller at each stop and
 * frame change).  Aggregates come without a value under --simple-values;
 * Enter prints any variable in full. */
#include "tui/dbgpane.h"
#include "tui/keys.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct locals_state {
	struct listview lv;
	size_t hscroll;
};

static int locals_init(struct pane *p, struct ui *ui)
{
	(void)ui;
	return dpane_state_new(p, sizeof(struct locals_state));
}
_Static_assert(offsetof(struct locals_state, lv) == 0, "dpane_state_new: lv first");


static void locals_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct locals_state *s = p->state;
	const char *why;
	const struct dbg_model *m = dpane_stopped(ui, &why);
	int namew = 4;

	if (!m) {
		dpane_note(c, 0, why);
		return;
	}
	s->lv.count = (long)m->vars.n;
	listview_fit(&s->lv, c->r.h);
	if (m->vars.n == 0) {
		dpane_note(c, 0, m->frames.n ? "no locals or arguments in this frame"
					   : "no frame: nothing to list");
		return;
	}
	bool args = false;
	for (size_t i = 0; i < m->vars.n; i++) {
		int n = (int)strlen(m->vars.v[i].name);
		if (n > namew)
			namew = n < 24 ? n : 24;
		args |= m->vars.v[i].is_arg;
	}
	int pre = args ? 4 : 0; /* "arg " before arguments */
	for (int y = 0; y < s->lv.height; y++) {
		size_t i = (size_t)(s->lv.top + y);
		if (i >= m->vars.n)
			break;
		const struct dec_var *v = &m->vars.v[i];
		int x = canvas_str(c, 0, y, v->is_arg ? "arg " : "", STYLE(UC_MUTED, 0));
		x = canvas_text(c, pre, y, v->name, strlen(v->name), STYLE(UC_ACCENT, 0));
		x = canvas_printf(c, x < pre + namew ? pre + namew : x, y, STYLE(UC_MUTED, 0), " = ");
		if (model_var_untrusted(m, m->selected_frame, v))
			canvas_printf(c, x, y, STYLE(UC_WARN, 0), "%s",
				      STALE_VALUE_TEXT);
		else if (v->value)
			canvas_text_skip(c, x, y, v->value, strlen(v->value), s->hscroll,
					 STYLE(UC_DEFAULT, 0));
		else
			canvas_printf(c, x, y, STYLE(UC_MUTED, 0), "{...} %s", v->type ? v->type : "");
		if ((long)i == s->lv.cursor)
			dpane_cursor(ui, p, c, y);
	}
}

static void locals_title(struct pane *p, struct ui *ui, char *buf, size_t cap)
{
	const char *why;
	const struct dbg_model *m = dpane_stopped(ui, &why);
	const struct dec_frame *f = m ? model_frame(m) : NULL;

	(void)p;
	if (f)
		snprintf(buf, cap, "frame %d %s", f->level, f->func ? f->func : "??");
}

static int locals_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	struct locals_state *s = p->state;

	if (what & (UCH_LAYOUT | UCH_STATE))
		dpane_want_sync(ui);
	if (!(what & (UCH_VARS | UCH_STOP | UCH_FRAME | UCH_STATE)))
		return PR_HANDLED;
	s->lv.count = ui->model ? (long)ui->model->vars.n : 0;
	listview_fit(&s->lv, s->lv.height);
	return PR_REDRAW;
}

static void printed(void *ctx, const char *expr, const char *value, bool error)
{
	struct ui *ui = ctx;
	char line[1024];

	snprintf(line, sizeof line, "%s = %s\n", expr, value);
	/* The whole value goes to the console; the hint line shows the
	 * start of it. */
	ui_console_text(ui, line, strlen(line), error ? 'e' : 'c');
	ui_message(ui, error ? UC_ERROR : UC_DEFAULT, "%s = %s", expr, value);
}

static const struct dec_var *cursor_var(struct locals_state *s, const struct ui *ui)
{
	const char *why;
	const struct dbg_model *m = dpane_stopped(ui, &why);

	if (!m || s->lv.cursor < 0 || (size_t)s->lv.cursor >= m->vars.n)
		return NULL;
	return &m->vars.v[s->lv.cursor];
}

static int locals_sideways(struct pane *p, struct ui *ui, int key)
{
	(void)ui;
	return listview_hscroll(&((struct locals_state *)p->state)->hscroll, key);
}

static int locals_print(struct pane *p, struct ui *ui, int key)
{
	const struct dec_var *v = cursor_var(p->state, ui);

	(void)key;
	if (!v)
		return PR_HANDLED;
	return dpane_done(ui, ctl_evaluate(ui->ctl, v->name, printed, ui));
}

static int locals_watch(struct pane *p, struct ui *ui, int key)
{
	const struct dec_var *v = cursor_var(p->state, ui);

	(void)key;
	if (!v)
		return PR_HANDLED;
	if (ctl_watch_add(ui->ctl, v->name) < 0)
		return dpane_done(ui, -1);
	ui_message(ui, UC_MUTED, "watching %s", v->name);
	return PR_REDRAW;
}

static int locals_warp_watch(struct pane *p, struct ui *ui, int key)
{
	const struct dec_var *v = cursor_var(p->state, ui);

	(void)key;
	if (!v)
		return PR_HANDLED;
	return dpane_done(ui, ctl_warp_watch(ui->ctl, v->name));
}

static int locals_key(struct pane *p, struct ui *ui, int key)
{
	(void)ui;
	return listview_key(&((struct locals_state *)p->state)->lv, key);
}

static const struct pane_key locals_keys[] = {
	{ TK_ENTER, TK_NONE, locals_print, NULL, "print it in full (also in the console)" },
	{ 'w', TK_NONE, locals_watch, NULL, "watch the variable" },
	{ 'W', TK_NONE, locals_warp_watch, NULL, "watch the variable in every lane of the warp" },
	{ TK_LEFT, TK_RIGHT, locals_sideways, NULL, "scroll long values" },
	PANE_KEYS_END,
};

const struct pane_ops pane_locals_ops = {
	.name = "locals",
	.title = "Locals",
	.home = AREA_SIDE_BOTTOM,
	.init = locals_init,
	.draw = locals_draw,
	.key = locals_key,
	.click = dpane_click,
	.on_change = locals_on_change,
	.title_info = locals_title,
	.free = dpane_state_free,
	.keys = locals_keys,
};
