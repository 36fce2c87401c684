/* The stack pane: the focused thread's frames (device frames for a device
 * stop), the selected one marked; Enter selects a frame.  On request (h)
 * the host thread that launched the kernel is listed below, fetched with
 * -thread-select 1 and -stack-list-frames (cuda-gdb 13; the controller
 * switches the CUDA focus back). */
#include "cudbg/pystack.h"
#include "tui/dbgpane.h"
#include "tui/keys.h"
#include "tui/source.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct stack_state {
	struct listview lv;     /* first: see dpane_state_new */
	struct ui *ui;          /* for answers that arrive later */
	struct dec_stack host;  /* the host stack, when fetched */
	char *host_error;       /* or why it could not be */
	bool host_wanted;       /* fetch it again at each stop */
	bool host_pending;
	unsigned host_stop;     /* model stop_count it belongs to */
	unsigned host_syms;     /* and symbols_read (a later read lists more) */
	/* The live Python stack's rows (ui->pystack): a frame index, or
	 * -1 - N for N folded library frames; a header row comes first. */
	int py_rows[DIAG_PY_MAX_FRAMES];
	int npy;
	bool py_unfold;         /* library frames listed too (Enter on a fold) */
};

static int stack_init(struct pane *p, struct ui *ui)
{
	if (dpane_state_new(p, sizeof(struct stack_state)) != 0)
		return -1;
	((struct stack_state *)p->state)->ui = ui;
	return 0;
}
_Static_assert(offsetof(struct stack_state, lv) == 0, "dpane_state_new: lv first");

static void host_clear(struct stack_state *s)
{
	dec_stack_free(&s->host);
	free(s->host_error);
	s->host_error = NULL;
}

static void stack_free(struct pane *p)
{
	struct stack_state *s = p->state;

	if (s)
		host_clear(s);
	free(s);
	p->state = NULL;
}

/* Rows: device (or only) frames, then a header and the host frames. */
static long host_rows(const struct stack_state *s)
{
	if (s->host.n)
		return 1 + (long)s->host.n;
	return s->host_error || s->host_pending ? 1 : 0;
}

/* Builds the Python rows: the user's frames, consecutive library frames
 * (site-packages, torch, the standard library) folded into one row. */
static void py_rows_build(struct stack_state *s, const struct diag_pystack *ps)
{
	s->npy = 0;
	for (size_t i = 0; ps && i < ps->n_frames && s->npy < DIAG_PY_MAX_FRAMES; i++) {
		if (!ps->frames[i].library || s->py_unfold) {
			s->py_rows[s->npy++] = (int)i;
		} else if (s->npy && s->py_rows[s->npy - 1] < 0) {
			s->py_rows[s->npy - 1]--;
		} else {
			s->py_rows[s->npy++] = -2;
		}
	}
}

static long py_rows(const struct stack_state *s)
{
	return s->npy ? 1 + s->npy : 0;
}

static void py_draw(const struct canvas *c, int y, const struct ui *ui,
		    const struct stack_state *s, long r)
{
	const struct diag_pystack *ps = ui->pystack;
	if (r == 0) {
		canvas_str(c, 0, y, "Python (innermost first):", STYLE(UC_ACCENT, CA_BOLD));
		return;
	}
	int k = s->py_rows[r - 1];
	if (k < 0) {
		canvas_printf(c, 2, y, STYLE(UC_MUTED, 0), "… %d library frame%s (Enter lists them)",
			      -k - 1, -k - 1 == 1 ? "" : "s");
		return;
	}
	const struct diag_pyf *f = &ps->frames[k];
	bool picked = ui->py_pick == k + 1;
	struct style st = STYLE(f->library ? UC_MUTED : picked ? UC_CURRENT : UC_DEFAULT,
				picked ? CA_BOLD : 0);
	int x = canvas_printf(c, 0, y, st, "py ");
	x = canvas_text(c, x, y, f->func, strlen(f->func),
			STYLE(f->library ? UC_MUTED : UC_ACCENT, st.attr));
	canvas_printf(c, x, y, st, " %s:%u", path_base(f->file), f->line);
	if (picked)
		canvas_str(c, c->r.w - 1, y, "◀", STYLE(UC_CURRENT, CA_BOLD));
}

static void frame_draw(const struct canvas *c, int y, const struct dec_frame *f,
		       struct style st)
{
	int x = canvas_printf(c, 0, y, st, "#%-2d ", f->level);

	x = canvas_text(c, x, y, f->func ? f->func : "??", f->func ? strlen(f->func) : 2,
			STYLE(st.color == UC_DEFAULT ? UC_ACCENT : st.color, st.attr));
	if (f->file && f->line > 0) {
		const char *b = strrchr(f->file, '/');
		canvas_printf(c, x, y, st, " %s:%d", b ? b + 1 : f->file, f->line);
	} else if (f->from) {
		x = canvas_str(c, x, y, " from ", STYLE(UC_MUTED, 0));
		canvas_text(c, x, y, f->from, strlen(f->from), STYLE(UC_MUTED, 0));
	} else if (f->has_addr) {
		canvas_printf(c, x, y, STYLE(UC_MUTED, 0), " at %#llx", (unsigned long long)f->addr);
	}
}

static void stack_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct stack_state *s = p->state;
	const char *why;
	const struct dbg_model *m = dpane_stopped(ui, &why);

	if (!m) {
		dpane_note(c, 0, why);
		return;
	}
	long nf = (long)m->frames.n, nh = host_rows(s);
	py_rows_build(s, ui->pystack);
	s->lv.count = nf + nh + py_rows(s);
	listview_fit(&s->lv, c->r.h);
	if (s->lv.count == 0) {
		dpane_note(c, 0, "no stack");
		return;
	}
	for (int y = 0; y < s->lv.height; y++) {
		long row = s->lv.top + y;
		if (row >= s->lv.count)
			break;
		if (row < nf) {
			const struct dec_frame *f = &m->frames.frames[row];
			bool sel = f->level == m->selected_frame;
			frame_draw(c, y, f, STYLE(sel ? UC_CURRENT : UC_DEFAULT, sel ? CA_BOLD : 0));
			if (sel)
				canvas_str(c, c->r.w - 1, y, "◀", STYLE(UC_CURRENT, CA_BOLD));
		} else if (row >= nf + nh) {
			py_draw(c, y, ui, s, row - nf - nh);
		} else if (row == nf) {
			if (s->host_error)
				dpane_error(c, y, "host stack", s->host_error);
			else
				canvas_str(c, 0, y, s->host_pending ? "host thread 1: fetching…"
								    : "host thread 1 (the launch):",
					   STYLE(UC_MUTED, CA_BOLD));
		} else {
			frame_draw(c, y, &s->host.frames[row - nf - 1], STYLE(UC_MUTED, 0));
		}
		if (row == s->lv.cursor)
			dpane_cursor(ui, p, c, y);
	}
}

static void host_got(void *ctx, struct dec_stack *st, const char *err)
{
	struct pane *p = ctx;
	struct stack_state *s = p->state;

	host_clear(s);
	s->host_pending = false;
	if (st) {
		s->host = *st;
		*st = (struct dec_stack){ 0 };
	} else {
		s->host_error = strdup(err ? err : "error");
	}
	s->ui->dirty = true;
}

static int host_fetch(struct pane *p, struct ui *ui)
{
	struct stack_state *s = p->state;
	int64_t r;

	host_clear(s);
	s->host_pending = true;
	s->host_stop = ui->model->stop_count;
	s->host_syms = ui->model->symbols_read;
	r = ctl_host_stack(ui->ctl, NULL, host_got, p);
	if (r < 0)
		s->host_pending = false;
	return dpane_done(ui, r);
}

static int stack_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	struct stack_state *s = p->state;
	const struct dbg_model *m = ui->model;

	if (what & (UCH_LAYOUT | UCH_STATE))
		dpane_want_sync(ui);
	if (!m || !(what & (UCH_STOP | UCH_FRAME | UCH_STATE)))
		return PR_HANDLED;
	/* the host stack belongs to the stop it was fetched at */
	if ((m->stop_count != s->host_stop || m->symbols_read != s->host_syms) &&
	    !s->host_pending) {
		host_clear(s);
		if (s->host_wanted && m->state == MODEL_STOPPED && m->cuda && m->focus.valid &&
		    ui_pane_visible(ui, p))
			host_fetch(p, ui);
		s->host_stop = m->stop_count;
		s->host_syms = m->symbols_read;
	}
	if (what & UCH_STOP)
		for (size_t i = 0; i < m->frames.n; i++)
			if (m->frames.frames[i].level == m->selected_frame)
				listview_select(&s->lv, (long)i);
	return PR_REDRAW;
}

/* Enter on a Python row: a frame opens its file at its line in the
 * Source pane; a fold lists the library frames. */
static int py_enter(struct stack_state *s, struct ui *ui, int k)
{
	if (k < 0) {
		s->py_unfold = true;
		return PR_REDRAW;
	}
	const struct diag_pyf *f = &ui->pystack->frames[k];
	ui->py_pick = k + 1;
	ui_changed(ui, UCH_SOURCE);
	ui_message(ui, UC_MUTED, "the Source pane shows %s:%u (Python); Enter on a frame "
		   "above goes back", path_base(f->file), f->line);
	return PR_REDRAW;
}

static int stack_select(struct pane *p, struct ui *ui, int key)
{
	struct stack_state *s = p->state;
	const char *why;
	const struct dbg_model *m = dpane_stopped(ui, &why);

	(void)key;
	if (!m)
		return PR_IGNORED;
	long py_first = (long)m->frames.n + host_rows(s);
	if (s->npy && s->lv.cursor > py_first)
		return py_enter(s, ui, s->py_rows[s->lv.cursor - py_first - 1]);
	if (s->lv.cursor < 0 || (size_t)s->lv.cursor >= m->frames.n) {
		ui_message(ui, UC_MUTED, "host frames are shown only; the focus stays on the device");
		return PR_REDRAW;
	}
	ui->py_pick = 0; /* the Source pane follows the frame again */
	ui_changed(ui, UCH_SOURCE);
	return dpane_done(ui, ctl_select_frame(ui->ctl, m->frames.frames[s->lv.cursor].level));
}

static int stack_host(struct pane *p, struct ui *ui, int key)
{
	struct stack_state *s = p->state;
	const char *why;
	const struct dbg_model *m = dpane_stopped(ui, &why);

	(void)key;
	if (!m)
		return PR_IGNORED;
	if (!m->cuda || !m->focus.valid) {
		ui_message(ui, UC_MUTED, "this is the host stack already");
		return PR_REDRAW;
	}
	s->host_wanted = !(s->host.n || s->host_error || s->host_pending);
	if (!s->host_wanted) {
		host_clear(s);
		return PR_REDRAW;
	}
	return host_fetch(p, ui);
}

static int stack_key(struct pane *p, struct ui *ui, int key)
{
	(void)ui;
	return listview_key(&((struct stack_state *)p->state)->lv, key);
}

static void stack_title(struct pane *p, struct ui *ui, char *buf, size_t cap)
{
	const struct dbg_model *m = ui->model;

	(void)p;
	if (m && m->state == MODEL_STOPPED && m->frames.n)
		snprintf(buf, cap, "%zu frames%s", m->frames.n,
			 m->focus.valid ? " (device)" : "");
}

static const struct pane_key stack_keys[] = {
	{ TK_ENTER, TK_NONE, stack_select, NULL,
	  "select the frame (locals, registers follow); on a Python frame, "
	  "show its line in the Source pane" },
	{ 'h', TK_NONE, stack_host, NULL, "show / hide the host stack of the launch" },
	PANE_KEYS_END,
};

const struct pane_ops pane_stack_ops = {
	.name = "stack",
	.title = "Stack",
	.home = AREA_SIDE_BOTTOM,
	.init = stack_init,
	.draw = stack_draw,
	.key = stack_key,
	.click = dpane_click,
	.on_change = stack_on_change,
	.title_info = stack_title,
	.free = stack_free,
	.keys = stack_keys,
};
