/* The breakpoints pane: every breakpoint with its state, hit count,
 * location (pending ones with what was asked) and condition; enable,
 * disable, delete, set a condition, add one. */
#include "tui/dbgpane.h"
#include "tui/source.h"
#include "tui/keys.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bps_state {
	struct listview lv;
	int cond_for; /* the breakpoint the condition prompt is for */
};

static int bps_init(struct pane *p, struct ui *ui)
{
	(void)ui;
	return dpane_state_new(p, sizeof(struct bps_state));
}
_Static_assert(offsetof(struct bps_state, lv) == 0, "dpane_state_new: lv first");


/* "saxpy2 step_kernel.cu:11", "<PENDING> step_kernel.cu:11", "x (watch)". */
static void where_text(const struct dec_bkpt *b, char *buf, size_t cap)
{
	const char *file = NULL, *full = NULL;
	int line = 0;
	char fn[128] = "";

	if (b->what) {
		snprintf(buf, cap, "%s (%s)", b->what, b->type ? b->type : "watch");
		return;
	}
	if (b->func)
		dec_func_basename(b->func, fn, sizeof fn);
	if (b->pending && !b->func) {
		snprintf(buf, cap, "pending: %s", b->pending_text ? b->pending_text
					  : b->original_location ? b->original_location : "?");
		return;
	}
	if (dec_bkpt_where(b, &file, &full, &line))
		snprintf(buf, cap, "%s%s%s:%d", fn, fn[0] ? " " : "", path_base(file), line);
	else if (b->addr_text)
		snprintf(buf, cap, "%s%s%s", fn, fn[0] ? " " : "", b->addr_text);
	else
		snprintf(buf, cap, "%s", b->original_location ? b->original_location : "?");
	if (b->multiple && b->nlocs > 1) {
		size_t n = strlen(buf);
		snprintf(buf + n, cap - n, " (%zu locations)", b->nlocs);
	}
}

static void bps_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct bps_state *s = p->state;
	const struct dbg_model *m = ui->model;
	char where[512];

	if (!m) {
		dpane_note(c, 0, "no debugger is connected");
		return;
	}
	s->lv.count = (long)m->nbkpts;
	listview_fit(&s->lv, c->r.h);
	if (m->nbkpts == 0) {
		dpane_note(c, 0, "no breakpoints: b in the source sets one, a here asks for a location");
		return;
	}
	for (int y = 0; y < s->lv.height; y++) {
		size_t i = (size_t)(s->lv.top + y);
		const struct dec_bkpt *b = i < m->nbkpts ? model_bkpt(m, i) : NULL;
		if (!b)
			break;
		bool hit = m->state == MODEL_STOPPED && m->has_stop && m->stop.bkptno == b->number;
		struct style st = STYLE(!b->enabled ? UC_MUTED : hit ? UC_CURRENT : UC_DEFAULT,
					hit ? CA_BOLD : 0);
		int x = canvas_str(c, 0, y, b->enabled ? "●" : "○",
				   STYLE(b->enabled ? UC_BREAK : UC_MUTED, 0));
		where_text(b, where, sizeof where);
		x = canvas_printf(c, x, y, st, "%3s ", b->number_text ? b->number_text : "?");
		x = canvas_text(c, x, y, where, strlen(where), st);
		if (b->times > 0)
			x = canvas_printf(c, x, y, STYLE(UC_MUTED, 0), "  hit %d", b->times);
		if (b->cond) {
			x = canvas_str(c, x, y, "  if ", STYLE(UC_MUTED, 0));
			canvas_text(c, x, y, b->cond, strlen(b->cond), STYLE(UC_WARN, 0));
		}
		if ((long)i == s->lv.cursor)
			dpane_cursor(ui, p, c, y);
	}
}

static int bps_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	struct bps_state *s = p->state;

	if (what & (UCH_LAYOUT | UCH_STATE))
		dpane_want_sync(ui);
	if (!(what & (UCH_BREAKPOINTS | UCH_STOP | UCH_STATE)))
		return PR_HANDLED;
	s->lv.count = ui->model ? (long)ui->model->nbkpts : 0;
	listview_fit(&s->lv, s->lv.height);
	return PR_REDRAW;
}

static const struct dec_bkpt *cursor_bkpt(struct bps_state *s, const struct ui *ui)
{
	if (!ui->model || s->lv.cursor < 0)
		return NULL;
	return model_bkpt(ui->model, (size_t)s->lv.cursor);
}

static void cond_done(struct ui *ui, struct pane *p, const char *text)
{
	struct bps_state *s = p->state;

	dpane_done(ui, ctl_break_condition(ui->ctl, s->cond_for, text));
}

/* "LOCATION [if COND]". */
static void add_done(struct ui *ui, struct pane *p, const char *text)
{
	char loc[256];
	const char *cond = strstr(text, " if ");
	size_t n = cond ? (size_t)(cond - text) : strlen(text);

	(void)p;
	if (!*text)
		return;
	if (n >= sizeof loc)
		n = sizeof loc - 1;
	memcpy(loc, text, n);
	loc[n] = '\0';
	dpane_done(ui, ctl_break_insert(ui->ctl, loc, cond ? cond + 4 : NULL));
}

static int bps_add(struct pane *p, struct ui *ui, int key)
{
	(void)key;
	if (!ui->ctl)
		return PR_IGNORED;
	ui_prompt_open(ui, p, "break at [if cond]:", add_done);
	return PR_REDRAW;
}

/* The breakpoint the keys act on: the cursor's; NULL with *r the PR_* to
 * return (no debugger: PR_IGNORED, the list's own keys; no row:
 * PR_HANDLED). */
static const struct dec_bkpt *bps_target(struct pane *p, struct ui *ui, int *r)
{
	const struct dec_bkpt *b = ui->ctl ? cursor_bkpt(p->state, ui) : NULL;

	*r = ui->ctl ? PR_HANDLED : PR_IGNORED;
	return b;
}

static int bps_toggle(struct pane *p, struct ui *ui, int key)
{
	int r;
	const struct dec_bkpt *b = bps_target(p, ui, &r);

	(void)key;
	return b ? dpane_done(ui, ctl_break_enable(ui->ctl, b->number, !b->enabled)) : r;
}

static int bps_delete(struct pane *p, struct ui *ui, int key)
{
	int r;
	const struct dec_bkpt *b = bps_target(p, ui, &r);

	(void)key;
	return b ? dpane_done(ui, ctl_break_delete(ui->ctl, b->number)) : r;
}

static int bps_condition(struct pane *p, struct ui *ui, int key)
{
	struct bps_state *s = p->state;
	int r;
	const struct dec_bkpt *b = bps_target(p, ui, &r);

	(void)key;
	if (!b)
		return r;
	s->cond_for = b->number;
	ui_prompt_open(ui, p, "condition (empty: none):", cond_done);
	if (b->cond) {
		snprintf(ui->prompt.buf, sizeof ui->prompt.buf, "%s", b->cond);
		ui->prompt.len = strlen(ui->prompt.buf);
	}
	return PR_REDRAW;
}

static int bps_key(struct pane *p, struct ui *ui, int key)
{
	(void)ui;
	return listview_key(&((struct bps_state *)p->state)->lv, key);
}

static const struct pane_key bps_keys[] = {
	{ ' ', TK_ENTER, bps_toggle, NULL, "enable / disable the breakpoint" },
	{ 'd', TK_DELETE, bps_delete, NULL, "delete it" },
	{ 'C', TK_NONE, bps_condition, NULL, "set or clear its condition" },
	{ 'a', TK_INSERT, bps_add, NULL, "add one: LOCATION [if COND]" },
	PANE_KEYS_END,
};

const struct pane_ops pane_breakpoints_ops = {
	.name = "breakpoints",
	.title = "Breaks",
	.home = AREA_SIDE_BOTTOM,
	.init = bps_init,
	.draw = bps_draw,
	.key = bps_key,
	.click = dpane_click,
	.on_change = bps_on_change,
	.free = dpane_state_free,
	.keys = bps_keys,
};
