/* The registers pane: the selected frame's registers, fetched at each stop
 * only while this pane is on screen.  Device frames (cuda-gdb) have the
 * SASS registers R0..R255, predicates P0..P6, uniform registers UR0..
 * and uniform predicates; host frames the CPU's.  Values that changed
 * since the previous stop are marked.  Registers are packed in columns,
 * a heading for each group; only the rows on screen are drawn. */
#include "tui/dbgpane.h"
#include "tui/keys.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct regs_state {
	struct listview lv;
	bool changed_only; /* show only what changed */
};

static int regs_init(struct pane *p, struct ui *ui)
{
	(void)ui;
	return dpane_state_new(p, sizeof(struct regs_state));
}
_Static_assert(offsetof(struct regs_state, lv) == 0, "dpane_state_new: lv first");


enum rgroup { RG_SPECIAL, RG_GENERAL, RG_PRED, RG_UNIFORM, RG_UPRED, RG_OTHER };

static const char *const group_name[] = {
	"", "General (R)", "Predicates (P)", "Uniform (UR)", "Uniform predicates (UP)", "Other",
};

static bool num_suffix(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/* The SASS register groups by name (cuda-gdb 13 names them pc, errorpc,
 * R0..R254, RZ, P0..P6, PT, UR0..UR62, URZ, UP0..UP6, UPT, CC). */
static enum rgroup reg_group(const char *n, bool device)
{
	if (!device)
		return RG_SPECIAL;
	if (n[0] == 'R' && (num_suffix(n + 1) || !strcmp(n, "RZ")))
		return RG_GENERAL;
	if (n[0] == 'P' && (num_suffix(n + 1) || !strcmp(n, "PT")))
		return RG_PRED;
	if (!strncmp(n, "UR", 2) && (num_suffix(n + 2) || !strcmp(n, "URZ")))
		return RG_UNIFORM;
	if (!strncmp(n, "UP", 2) && (num_suffix(n + 2) || !strcmp(n, "UPT")))
		return RG_UPRED;
	return !strcmp(n, "pc") || !strcmp(n, "errorpc") ? RG_SPECIAL : RG_OTHER;
}

static bool device_frame(const struct dbg_model *m)
{
	const struct dec_frame *f = model_frame(m);

	/* cuda-gdb labels device frames arch="m68k" (sic) */
	if (f && f->arch)
		return strcmp(f->arch, "m68k") == 0;
	return m->cuda && m->focus.valid;
}

static bool shown(const struct regs_state *s, const struct model_reg *r)
{
	return r->name && r->name[0] && r->value && (!s->changed_only || r->changed);
}

/* One row of the packed layout: a heading, or registers [from, to). */
struct rrow {
	int group;   /* >= 0: a heading for that group */
	size_t from, to;
};

/* Lays the registers out in rows of `cols`; returns the rows (at most
 * cap written). */
static size_t layout_rows(const struct regs_state *s, const struct dbg_model *m, int cols,
			  bool device, struct rrow *out, size_t cap)
{
	size_t n = 0, i = 0;
	int last = -1;

	while (i < m->nregs) {
		if (!shown(s, &m->regs[i])) {
			i++;
			continue;
		}
		int g = (int)reg_group(m->regs[i].name, device);
		if (g != last && g != RG_SPECIAL && device) {
			if (n < cap)
				out[n] = (struct rrow){ g, 0, 0 };
			n++;
		}
		last = g;
		size_t from = i;
		int k = 0;
		while (i < m->nregs && k < cols) {
			if (shown(s, &m->regs[i])) {
				if ((int)reg_group(m->regs[i].name, device) != g)
					break;
				k++;
			}
			i++;
		}
		if (n < cap)
			out[n] = (struct rrow){ -1, from, i };
		n++;
	}
	return n;
}

static void regs_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct regs_state *s = p->state;
	const char *why;
	const struct dbg_model *m = dpane_stopped(ui, &why);
	int namew = 2, valw = 4;
	size_t nshown = 0;

	if (!m) {
		dpane_note(c, 0, why);
		return;
	}
	for (size_t i = 0; i < m->nregs; i++) {
		const struct model_reg *r = &m->regs[i];
		if (!shown(s, r))
			continue;
		nshown++;
		if ((int)strlen(r->name) > namew)
			namew = (int)strlen(r->name);
		if ((int)strlen(r->value) > valw)
			valw = (int)strlen(r->value) > 22 ? 22 : (int)strlen(r->value);
	}
	if (nshown == 0) {
		dpane_note(c, 0, s->changed_only ? "no register changed since the previous stop"
			   : m->nregs == 0 ? "no register names: the debugger gave none (yet)"
					   : "no register values: the debugger gave none for this frame");
		return;
	}
	bool device = device_frame(m);
	int cellw = namew + 1 + valw + 2, cols = c->r.w / cellw;
	if (cols < 1)
		cols = 1;
	size_t total = layout_rows(s, m, cols, device, NULL, 0);
	struct rrow *rows = calloc(total ? total : 1, sizeof(*rows));
	if (!rows)
		return;
	layout_rows(s, m, cols, device, rows, total);
	s->lv.count = (long)total;
	listview_fit(&s->lv, c->r.h);
	for (int y = 0; y < s->lv.height && s->lv.top + y < (long)total; y++) {
		const struct rrow *rw = &rows[s->lv.top + y];
		if (rw->group >= 0) {
			canvas_str(c, 0, y, group_name[rw->group], STYLE(UC_MUTED, CA_BOLD));
			continue;
		}
		int k = 0;
		for (size_t i = rw->from; i < rw->to; i++) {
			const struct model_reg *r = &m->regs[i];
			if (!shown(s, r))
				continue;
			struct canvas cell = canvas_sub(c, k * cellw, y, cellw - 1, 1);
			struct style st = STYLE(r->changed ? UC_WARN : UC_DEFAULT, r->changed ? CA_BOLD : 0);
			canvas_str(&cell, 0, 0, r->name, STYLE(UC_ACCENT, 0));
			canvas_text(&cell, namew + 1, 0, r->value, strlen(r->value), st);
			k++;
		}
		if (s->lv.top + y == s->lv.cursor)
			dpane_cursor(ui, p, c, y);
	}
	free(rows);
}

static void regs_title(struct pane *p, struct ui *ui, char *buf, size_t cap)
{
	struct regs_state *s = p->state;
	const struct dbg_model *m = ui->model;
	size_t changed = 0;

	if (!m || m->state != MODEL_STOPPED || !m->nregs)
		return;
	for (size_t i = 0; i < m->nregs; i++)
		changed += m->regs[i].changed;
	snprintf(buf, cap, "%s, %zu changed%s", device_frame(m) ? "device (SASS)" : "host",
		 changed, s->changed_only ? " (shown)" : "");
}

static int regs_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	(void)p;
	if (what & (UCH_LAYOUT | UCH_STATE))
		dpane_want_sync(ui);
	return (what & (UCH_VARS | UCH_STOP | UCH_FRAME | UCH_STATE)) ? PR_REDRAW : PR_HANDLED;
}

static int regs_changed(struct pane *p, struct ui *ui, int key)
{
	struct regs_state *s = p->state;

	(void)ui;
	(void)key;
	s->changed_only = !s->changed_only;
	s->lv.top = 0;
	s->lv.cursor = 0;
	return PR_REDRAW;
}

static int regs_key(struct pane *p, struct ui *ui, int key)
{
	(void)ui;
	return listview_key(&((struct regs_state *)p->state)->lv, key);
}

static const struct pane_key regs_keys[] = {
	{ 'x', 'C', regs_changed, NULL, "only what changed since the last stop, or all" },
	PANE_KEYS_END,
};

const struct pane_ops pane_registers_ops = {
	.name = "registers",
	.title = "Regs",
	.home = AREA_SIDE_BOTTOM,
	.wants = MODEL_WANT_REGS,
	.init = regs_init,
	.draw = regs_draw,
	.key = regs_key,
	.on_change = regs_on_change,
	.title_info = regs_title,
	.free = dpane_state_free,
	.keys = regs_keys,
};
