/* Helpers for the panes over the debugger model (see tui/dbgpane.h). */
#include "tui/dbgpane.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct dbg_model *dpane_stopped(const struct ui *ui, const char **why)
{
	const struct dbg_model *m = ui->model;

	*why = NULL;
	if (!m) {
		*why = "no debugger is connected";
		return NULL;
	}
	switch (m->state) {
	case MODEL_STOPPED: return m;
	case MODEL_NOT_STARTED: *why = "the program has not started (r runs it)"; break;
	case MODEL_STARTING: *why = "the program is starting"; break;
	case MODEL_RUNNING: *why = "the program is running (Ctrl-C interrupts it)"; break;
	case MODEL_EXITED: *why = "the program has exited"; break;
	case MODEL_GONE: *why = "the debugger is gone"; break;
	}
	return NULL;
}

const struct dbg_model *dpane_device(const struct ui *ui, const char **why)
{
	const struct dbg_model *m = dpane_stopped(ui, why);

	if (!m)
		return NULL;
	if (!m->cuda) {
		*why = "no GPU state: the debugger is not cuda-gdb";
		return NULL;
	}
	if (!m->focus.valid && !m->is_core) {
		*why = "stopped in host code: there is no CUDA focus";
		return NULL;
	}
	return m;
}

const struct dec_table *dpane_table(const struct dbg_model *m,
				    enum model_table which, const char **why)
{
	const struct dec_table *t = &m->tables[which];

	*why = NULL;
	if (m->table_error[which]) {
		*why = m->table_error[which];
		return NULL;
	}
	if (!t->arena) {
		*why = "not fetched yet";
		return NULL;
	}
	return t;
}

int dpane_note(const struct canvas *c, int y, const char *text)
{
	return canvas_wrap(c, 1, y, c->r.w - 1, text, STYLE(UC_MUTED, 0), true);
}

int dpane_error(const struct canvas *c, int y, const char *what,
		const char *why)
{
	char buf[512];

	snprintf(buf, sizeof buf, "%s: %s", what, why ? why : "error");
	return canvas_wrap(c, 1, y, c->r.w - 1, buf, STYLE(UC_ERROR, 0), true);
}

/* Without cuda-gdb behind the screen the GPU panes have nothing to show:
 * their area gives its room to the program state panes. */
static void gpu_area_sync(struct ui *ui)
{
	const struct dbg_model *m = ui->model;
	unsigned bit = 1u << AREA_SIDE_TOP;
	bool hide = m && m->state != MODEL_STARTING && !m->cuda;

	if (hide == ((ui->lreq.empty & bit) != 0))
		return;
	if (hide)
		ui->lreq.empty |= bit;
	else
		ui->lreq.empty &= ~bit;
	if (hide && ui->lreq.focus == AREA_SIDE_TOP)
		ui->lreq.focus = AREA_SIDE_BOTTOM;
	if (ui->lreq.cols > 0 && ui->lreq.rows > 0)
		ui_resize(ui, ui->lreq.cols, ui->lreq.rows);
}

void dpane_want_sync(struct ui *ui)
{
	unsigned want = 0;

	if (!ui->ctl)
		return;
	gpu_area_sync(ui);
	for (int i = 0; i < ui->npanes; i++)
		if (ui_pane_visible(ui, &ui->panes[i]))
			want |= ui->panes[i].ops->wants;
	/* A memory view the user never set has nothing to fetch. */
	if (!ui->model || !ui->model->mem_expr)
		want &= ~(unsigned)MODEL_WANT_MEMORY;
	ctl_want(ui->ctl, want);
}

char *dpane_dim3(char *buf, size_t cap, struct dec_dim3 d)
{
	if (d.valid)
		snprintf(buf, cap, "(%u,%u,%u)", d.x, d.y, d.z);
	else
		snprintf(buf, cap, "?");
	return buf;
}

static int cmp_u32(uint32_t a, uint32_t b)
{
	return a < b ? -1 : a > b;
}

int dpane_dim3_cmp(struct dec_dim3 a, struct dec_dim3 b)
{
	int r = cmp_u32(a.z, b.z);

	if (!r)
		r = cmp_u32(a.y, b.y);
	if (!r)
		r = cmp_u32(a.x, b.x);
	return r;
}

int dpane_bt_cmp(struct dec_dim3 ab, struct dec_dim3 at, struct dec_dim3 bb,
		 struct dec_dim3 bt)
{
	int r = dpane_dim3_cmp(ab, bb);

	return r ? r : dpane_dim3_cmp(at, bt);
}

char *dpane_dim3_range(char *buf, size_t cap, struct dec_dim3 from,
		       struct dec_dim3 to)
{
	if (!from.valid || !to.valid || dec_dim3_eq(from, to))
		return dpane_dim3(buf, cap, from.valid ? from : to);
	if (from.y == to.y && from.z == to.z)
		snprintf(buf, cap, "(%u..%u,%u,%u)", from.x, to.x, from.y, from.z);
	else
		snprintf(buf, cap, "(%u,%u,%u)..(%u,%u,%u)", from.x, from.y,
			 from.z, to.x, to.y, to.z);
	return buf;
}

bool dpane_fault(const struct dbg_model *m, struct dec_focus *out)
{
	if (!m || !m->has_stop || !dec_stop_is_device_exception(&m->stop) ||
	    !m->stop.focus.valid)
		return false;
	*out = m->stop.focus;
	return out->block.valid && out->thread.valid;
}

int dpane_done(struct ui *ui, int64_t r)
{
	ui_refused(ui, r);
	return PR_REDRAW;
}

/* Whether a console line asks to quit (the console opens with `:`, so
 * vim's `:q` arrives as q). */
static bool quit_command(const char *line)
{
	static const char *const words[] = { "q", "quit", "q!", "wq", "qa", "qa!", NULL };

	while (*line == ' ' || *line == ':')
		line++;
	size_t n = strcspn(line, " ");
	if (line[n + strspn(line + n, " ")] != '\0')
		return false;
	for (int i = 0; words[i]; i++)
		if (strlen(words[i]) == n && strncmp(line, words[i], n) == 0)
			return true;
	return false;
}

int dpane_console(struct ui *ui, const char *line)
{
	if (quit_command(line)) {
		ui->console_input = false;
		ui_quit(ui);
		return 0;
	}
	if (!ui->ctl)
		return 1;
	return ui_refused(ui, ctl_console_typed(ui->ctl, line));
}

int dpane_focus(struct ui *ui, struct dec_dim3 block, struct dec_dim3 thread)
{
	char b[48], t[48];

	if (!ui->ctl) {
		ui_message(ui, UC_WARN, "no debugger is connected");
		return PR_REDRAW;
	}
	if (dpane_done(ui, ctl_focus_thread(ui->ctl, block, thread)) && !ui->message[0])
		ui_message(ui, UC_MUTED, "switching the focus to block %s thread %s",
			   dpane_dim3(b, sizeof b, block), dpane_dim3(t, sizeof t, thread));
	return PR_REDRAW;
}

static bool parse_u32(const char **s, uint32_t *v)
{
	char *end;
	unsigned long n;

	if (!isdigit((unsigned char)**s))
		return false;
	n = strtoul(*s, &end, 10);
	if (n > UINT32_MAX)
		return false;
	*v = (uint32_t)n;
	*s = end;
	return true;
}

static void skip_blanks(const char **s)
{
	while (**s == ' ' || **s == '\t')
		(*s)++;
}

bool dpane_parse_dim3(const char **s, struct dec_dim3 *out)
{
	const char *p = *s;
	bool paren;
	uint32_t v[3] = { 0, 0, 0 };
	int n = 0;

	skip_blanks(&p);
	paren = *p == '(';
	if (paren)
		p++;
	while (n < 3) {
		skip_blanks(&p);
		if (!parse_u32(&p, &v[n]))
			break;
		n++;
		skip_blanks(&p);
		if (*p != ',')
			break;
		p++;
	}
	if (n == 0)
		return false;
	skip_blanks(&p);
	if (paren && *p++ != ')')
		return false;
	*out = (struct dec_dim3){ v[0], v[1], v[2], true };
	*s = p;
	return true;
}

void dpane_cursor(struct ui *ui, struct pane *p, const struct canvas *c,
		  int y)
{
	if (ui_focus_pane(ui) == p)
		canvas_set_style(c, 0, y, c->r.w, STYLE(UC_CURSOR, 0));
}

int dpane_popcount(uint64_t v)
{
	int n = 0;

	while (v) {
		v &= v - 1;
		n++;
	}
	return n;
}

int dpane_state_new(struct pane *p, size_t size)
{
	return listview_state_new(p, size, 10);
}

void dpane_state_free(struct pane *p)
{
	free(p->state);
	p->state = NULL;
}

int dpane_click(struct pane *p, struct ui *ui, int x, int y)
{
	(void)ui;
	(void)x;
	return listview_click(p->state, y);
}

int dpane_click_table(struct pane *p, struct ui *ui, int x, int y)
{
	return dpane_click(p, ui, x, y - 1);
}
