/* What the GPU table panes share (see tui/dbgtable.h). */
#include "tui/dbgtable.h"
#include "tui/keys.h"

int dtable_state_new(struct pane *p, const struct dtable_ops *ops, size_t size)
{
	if (dpane_state_new(p, size) != 0)
		return -1;
	((struct dtable *)p->state)->ops = ops;
	return 0;
}
_Static_assert(offsetof(struct dtable, lv) == 0, "dpane_state_new: lv first");

/* The pane's table while the GPU is stopped, else NULL with *why. */
static const struct dec_table *dtable_get(const struct ui *ui,
					  const struct dtable_ops *ops,
					  const char **why)
{
	const struct dbg_model *m = dpane_device(ui, why);

	return m ? dpane_table(m, ops->table, why) : NULL;
}

/* Why there is no table: the debugger's refusal stands out as an error,
 * anything else (running, not fetched yet) is a plain note. */
static void dtable_draw_why(const struct ui *ui, const struct dtable_ops *ops,
			    const struct canvas *c, const char *why)
{
	if (ui->model && ui->model->table_error[ops->table])
		dpane_error(c, 0, ops->no_table, why);
	else
		dpane_note(c, 0, why);
}

void dtable_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct dtable *s = p->state;
	const struct dtable_ops *ops = s->ops;
	const char *why;
	const struct dec_table *t = dtable_get(ui, ops, &why);

	if (!t) {
		dtable_draw_why(ui, ops, c, why);
		return;
	}
	/* Line 0 is the heading: the list has the rest. */
	s->lv.count = (long)t->nr_rows;
	listview_fit(&s->lv, c->r.h - 1);
	canvas_str(c, 0, 0, ops->heading, STYLE(UC_MUTED, CA_BOLD));
	if (t->nr_rows == 0 && ops->empty)
		dpane_note(c, 1, ops->empty);
	/* Only the rows on screen are decoded. */
	for (int y = 0; y < s->lv.height; y++) {
		long row = s->lv.top + y;
		if (!ops->draw_row(p, ui, c, y + 1, t, (size_t)row))
			break;
		if (row == s->lv.cursor)
			dpane_cursor(ui, p, c, y + 1);
	}
}

int dtable_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	struct dtable *s = p->state;
	const char *why;
	const struct dec_table *t;

	if (what & (UCH_LAYOUT | UCH_STATE))
		dpane_want_sync(ui);
	if (!(what & (UCH_GPU | UCH_STOP | UCH_STATE)))
		return PR_HANDLED;
	t = dtable_get(ui, s->ops, &why);
	s->lv.count = t ? (long)t->nr_rows : 0;
	/* At a new stop the cursor starts on the focus; between stops it
	 * stays where the user put it. */
	for (long i = 0; t && (what & UCH_STOP) && i < s->lv.count; i++)
		if (s->ops->holds_focus(ui->model, t, (size_t)i))
			listview_select(&s->lv, i);
	return PR_REDRAW;
}

int dtable_key(struct pane *p, struct ui *ui, int key)
{
	struct dtable *s = p->state;

	(void)ui;
	return listview_key(&s->lv, key);
}

int dtable_enter(struct pane *p, struct ui *ui, int key)
{
	struct dtable *s = p->state;
	const char *why;
	const struct dec_table *t = dtable_get(ui, s->ops, &why);

	(void)key;
	if (!t || s->lv.cursor < 0)
		return PR_HANDLED;
	return s->ops->enter(ui, t, (size_t)s->lv.cursor);
}
