/* The screen: pane list, focus, title bars, overlays, key dispatch. */
#include "tui/ui.h"
#include "cudbg/hints.h"
#include "cudbg/model.h"
#include "tui/keys.h"
#include "tui/sanitize.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PANE(name) &pane_##name##_ops,
static const struct pane_ops *const pane_registry[] = {
#include "tui/panes/panes.def"
};
#undef PANE

#define NPANES ((int)(sizeof pane_registry / sizeof pane_registry[0]))

/* Scrollback bounds: the program may write a gigabyte; we keep the end. */
#define OUTPUT_MAX_LINES 20000
#define OUTPUT_MAX_BYTES (8u << 20)
#define CONSOLE_MAX_LINES 10000
#define CONSOLE_MAX_BYTES (4u << 20)

double ui_elapsed(const struct timespec *ts)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - ts->tv_sec) +
	       (double)(now.tv_nsec - ts->tv_nsec) / 1e9;
}

int ui_init(struct ui *ui)
{
	ui->panes = calloc((size_t)NPANES, sizeof(*ui->panes));
	if (!ui->panes)
		return -1;
	ui->npanes = NPANES;
	if (textlog_init(&ui->output, OUTPUT_MAX_LINES, OUTPUT_MAX_BYTES) < 0 ||
	    textlog_init(&ui->console, CONSOLE_MAX_LINES, CONSOLE_MAX_BYTES) < 0)
		return -1;
	ui->output.pty = true;
	for (int a = 0; a < AREA__PANES; a++)
		ui->area_pane[a] = -1;
	for (int i = 0; i < NPANES; i++) {
		struct pane *p = &ui->panes[i];
		p->ops = pane_registry[i];
		if (p->ops->init && p->ops->init(p, ui) < 0)
			return -1;
		if (ui->area_pane[p->ops->home] < 0)
			ui->area_pane[p->ops->home] = i;
	}
	ui->lreq.focus = AREA_SOURCE;
	ui->lreq.code = CODE_BOTH;
	for (int a = 0; a < AREA__PANES; a++)
		if (ui->area_pane[a] < 0)
			ui->lreq.empty |= 1u << a;
	ui->dirty = true;
	return 0;
}

void ui_free(struct ui *ui)
{
	for (int i = 0; ui->panes && i < ui->npanes; i++)
		if (ui->panes[i].ops && ui->panes[i].ops->free)
			ui->panes[i].ops->free(&ui->panes[i]);
	free(ui->panes);
	ui->panes = NULL;
	textlog_free(&ui->output);
	textlog_free(&ui->console);
	grid_free(&ui->grid);
}

/* Picks a focus that the layout shows, keeping the current one when it
 * can.  Focus matters for SINGLE layouts, so it is fixed before laying out
 * again. */
static void ui_relayout(struct ui *ui)
{
	if (ui->lreq.code == CODE_SOURCE && ui->lreq.focus == AREA_SASS)
		ui->lreq.focus = AREA_SOURCE;
	if (ui->lreq.code == CODE_SASS && ui->lreq.focus == AREA_SOURCE)
		ui->lreq.focus = AREA_SASS;
	if (ui->lreq.focus != AREA_CONSOLE)
		ui->console_input = false;
	layout_compute(&ui->lreq, &ui->layout);
	ui_changed(ui, UCH_LAYOUT);
}

void ui_resize(struct ui *ui, int cols, int rows)
{
	if (cols != ui->grid.w || rows != ui->grid.h)
		grid_resize(&ui->grid, cols, rows);
	ui->lreq.cols = cols;
	ui->lreq.rows = rows;
	ui_relayout(ui);
}

struct pane *ui_focus_pane(struct ui *ui)
{
	int i = ui->area_pane[ui->lreq.focus];
	return i >= 0 ? &ui->panes[i] : NULL;
}

bool ui_pane_visible(const struct ui *ui, const struct pane *p)
{
	int a = (int)p->ops->home;

	return ui->layout.kind != LAYOUT_TOO_SMALL && ui->layout.area[a].w > 0 &&
	       ui->area_pane[a] == (int)(p - ui->panes);
}

struct pane *ui_pane(struct ui *ui, const char *name)
{
	for (int i = 0; i < ui->npanes; i++)
		if (strcmp(ui->panes[i].ops->name, name) == 0)
			return &ui->panes[i];
	return NULL;
}

const char *const ui_diag_action_keys[DIAG_ACT_COUNT] = {
	[DIAG_ACT_MEMCHECK] = "M",
	[DIAG_ACT_REPLAY_TO_FAULT] = "T",
};

int ui_pane_request(struct ui *ui, int r)
{
	for (int i = 0; i < ui->npanes; i++) {
		struct pane *p = &ui->panes[i];
		int rc = p->ops->request ? p->ops->request(p, ui, (enum pane_request)r)
					 : PR_IGNORED;
		if (rc != PR_IGNORED)
			return rc;
	}
	return PR_IGNORED;
}

void ui_focus(struct ui *ui, struct pane *p)
{
	enum area a = p->ops->home;

	ui->area_pane[a] = (int)(p - ui->panes);
	if (a == AREA_SASS && ui->lreq.code == CODE_SOURCE)
		ui->lreq.code = CODE_BOTH;
	if (a == AREA_SOURCE && ui->lreq.code == CODE_SASS)
		ui->lreq.code = CODE_BOTH;
	ui->lreq.focus = a;
	ui_relayout(ui);
}

void ui_set_code_mode(struct ui *ui, enum code_mode m)
{
	ui->lreq.code = m;
	ui_relayout(ui);
}

void ui_message(struct ui *ui, uint8_t color, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ui->message, sizeof ui->message, fmt, ap);
	va_end(ap);
	ui->message_color = color;
	ui->dirty = true;
}

int ui_refused(struct ui *ui, int64_t r)
{
	if (r >= 0)
		return 0;
	const struct dbg_model *m = ui->model;
	if (r == CTL_EINVAL)
		ui_message(ui, UC_ERROR, "that is not something the debugger "
			   "can take");
	else
		ui_message(ui, UC_ERROR, "%s", m && m->error ? m->error
							  : "the debugger refused");
	return -1;
}

void ui_ask(struct ui *ui, void (*yes)(struct ui *), const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ui->ask.text, sizeof ui->ask.text, fmt, ap);
	va_end(ap);
	ui->ask.yes = yes;
	ui->ask.open = true;
	ui->ask.q_confirms = false;
	ui->dirty = true;
}

void ui_output(struct ui *ui, const char *s, size_t len)
{
	textlog_append(&ui->output, s, len, 0);
	ui_changed(ui, UCH_OUTPUT);
}

void ui_console_text(struct ui *ui, const char *s, size_t len, uint8_t kind)
{
	textlog_append(&ui->console, s, len, kind);
	ui_changed(ui, UCH_CONSOLE);
}

void ui_changed(struct ui *ui, unsigned what)
{
	for (int i = 0; i < ui->npanes; i++) {
		struct pane *p = &ui->panes[i];
		if (p->ops->on_change)
			p->ops->on_change(p, ui, what);
	}
	ui->dirty = true;
}

int ui_act(struct ui *ui, enum ui_action a, const char *arg)
{
	if (!ui->actions || !ui->actions->act) {
		ui_message(ui, UC_WARN, "no debugger is connected");
		return -1;
	}
	return ui->actions->act(ui, a, arg);
}
