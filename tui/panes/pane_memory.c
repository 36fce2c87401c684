/* The memory view: bytes at an address or expression, re-read at every
 * stop while on screen (-data-read-memory-bytes), shown as hex with text
 * or as typed rows (int32, uint32, int64, float, double).  For device code
 * the address can be taken in cuda-gdb's global, shared or local space
 * (the expression is cast to an @space pointer). */
#include "tui/dbgpane.h"
#include "tui/keys.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mview { MV_HEX, MV_I32, MV_U32, MV_I64, MV_F32, MV_F64, MV__COUNT };
enum mspace { MS_GENERIC, MS_GLOBAL, MS_SHARED, MS_LOCAL, MS__COUNT };

static const char *const view_name[] = { "hex", "int32", "uint32", "int64", "float", "double" };
static const int view_size[] = { 1, 4, 4, 8, 4, 8 };
static const char *const space_name[] = { "generic", "global", "shared", "local" };

struct memory_state {
	struct listview lv;
	char expr[256];   /* what the user typed */
	enum mview view;
	enum mspace space;
	size_t len;       /* bytes read */
};

static int memory_init(struct pane *p, struct ui *ui)
{
	struct memory_state *s;

	(void)ui;
	if (dpane_state_new(p, sizeof(*s)) != 0)
		return -1;
	s = p->state;
	s->len = 256;
	return 0;
}
_Static_assert(offsetof(struct memory_state, lv) == 0, "dpane_state_new: lv first");

/* Asks the controller for the view (at every stop from now on). */
static int memory_fetch(struct ui *ui, struct memory_state *s)
{
	char full[400];

	if (!s->expr[0])
		return PR_REDRAW;
	if (s->space == MS_GENERIC)
		snprintf(full, sizeof full, "%s", s->expr);
	else
		snprintf(full, sizeof full, "(@%s char *)(%s)", space_name[s->space], s->expr);
	int r = ctl_memory_view(ui->ctl, full, s->len);
	dpane_want_sync(ui);
	return dpane_done(ui, r);
}

static int per_row(const struct memory_state *s, int w)
{
	if (s->view == MV_HEX)
		return w >= 20 + 16 * 4 ? 16 : 8;
	int cell = s->view == MV_F64 || s->view == MV_I64 ? 21 : 13;
	int n = (w - 20) / cell;
	n = n < 1 ? 1 : n > 8 ? 8 : n;
	return n * view_size[s->view];
}

static void hex_row(const struct canvas *c, int x, int y, const unsigned char *b, size_t n,
		    int bpr)
{
	char text[17];

	for (int i = 0; i < bpr; i++)
		if ((size_t)i < n)
			canvas_printf(c, x + i * 3, y, STYLE(UC_DEFAULT, 0), "%02x", b[i]);
	for (size_t i = 0; i < n && i < 16; i++)
		text[i] = isprint(b[i]) ? (char)b[i] : '.';
	text[n < 16 ? n : 16] = '\0';
	canvas_str(c, x + bpr * 3 + 1, y, text, STYLE(UC_MUTED, 0));
}

static void typed_row(const struct memory_state *s, const struct canvas *c, int x, int y,
		      const unsigned char *b, size_t n)
{
	int sz = view_size[s->view], cell = sz == 8 ? 21 : 13;

	for (size_t off = 0, k = 0; off + (size_t)sz <= n; off += (size_t)sz, k++) {
		char v[48];
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		float f;
		double d;
		switch (s->view) {
		case MV_I32: memcpy(&i32, b + off, 4); snprintf(v, sizeof v, "%d", i32); break;
		case MV_U32: memcpy(&u32, b + off, 4); snprintf(v, sizeof v, "%u", u32); break;
		case MV_I64: memcpy(&i64, b + off, 8); snprintf(v, sizeof v, "%lld", (long long)i64); break;
		case MV_F32: memcpy(&f, b + off, 4); snprintf(v, sizeof v, "%.7g", (double)f); break;
		case MV_F64: memcpy(&d, b + off, 8); snprintf(v, sizeof v, "%.15g", d); break;
		default: v[0] = '\0'; break;
		}
		canvas_printf(c, x + (int)k * cell, y, STYLE(UC_DEFAULT, 0), "%*s", cell - 1, v);
	}
}

static size_t mem_bytes(const struct dbg_model *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->memory.n; i++)
		n += m->memory.v[i].len;
	return n;
}

static void memory_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct memory_state *s = p->state;
	const char *why;
	const struct dbg_model *m = dpane_stopped(ui, &why);

	if (!m) {
		dpane_note(c, 0, why);
		return;
	}
	if (!s->expr[0] || !m->mem_expr) {
		dpane_note(c, 0, "no address: a (or Enter) asks for an address or expression, "
				 "read again at every stop");
		return;
	}
	int x = canvas_str(c, 0, 0, "at ", STYLE(UC_MUTED, 0));
	x = canvas_text(c, x, 0, s->expr, strlen(s->expr), STYLE(UC_ACCENT, CA_BOLD));
	canvas_printf(c, x, 0, STYLE(UC_MUTED, 0), "  %zu bytes, %s%s%s", s->len, view_name[s->view],
		      s->space ? ", " : "", s->space ? space_name[s->space] : "");
	if (m->mem_error) {
		dpane_error(c, 1, "cannot read", m->mem_error);
		return;
	}
	int bpr = per_row(s, c->r.w);
	/* rows of every block read (gdb may split around unreadable
	 * pages) */
	long total = 0;
	for (size_t i = 0; i < m->memory.n; i++)
		total += (long)((m->memory.v[i].len + (size_t)bpr - 1) / (size_t)bpr);
	s->lv.count = total;
	listview_fit(&s->lv, c->r.h - 1);
	if (total == 0) {
		dpane_note(c, 1, m->memory.n ? "nothing readable there" : "reading…");
		return;
	}
	long row = 0;
	for (size_t i = 0; i < m->memory.n; i++) {
		const struct dec_mem_block *b = &m->memory.v[i];
		for (size_t off = 0; off < b->len; off += (size_t)bpr, row++) {
			int y = (int)(row - s->lv.top) + 1;
			if (row < s->lv.top)
				continue;
			if (y >= c->r.h)
				return;
			size_t n = b->len - off < (size_t)bpr ? b->len - off : (size_t)bpr;
			int ax = canvas_printf(c, 0, y, STYLE(UC_LINENO, 0), "%#llx ",
					       (unsigned long long)(b->begin + off));
			if (s->view == MV_HEX)
				hex_row(c, ax, y, b->bytes + off, n, bpr);
			else
				typed_row(s, c, ax, y, b->bytes + off, n);
			if (row == s->lv.cursor)
				dpane_cursor(ui, p, c, y);
		}
	}
}

static void addr_done(struct ui *ui, struct pane *p, const char *text)
{
	struct memory_state *s = p->state;

	if (!*text)
		return;
	snprintf(s->expr, sizeof s->expr, "%s", text);
	s->lv.top = s->lv.cursor = 0;
	memory_fetch(ui, s);
}

/* Moves the view by its length: the expression becomes the address. */
static int memory_move(struct ui *ui, struct memory_state *s, int dir)
{
	const struct dbg_model *m = ui->model;

	if (!m->memory.n) {
		ui_message(ui, UC_MUTED, "nothing read yet");
		return PR_REDRAW;
	}
	uint64_t at = m->memory.v[0].begin;
	at = dir > 0 ? at + s->len : at - s->len;
	snprintf(s->expr, sizeof s->expr, "%#llx", (unsigned long long)at);
	return memory_fetch(ui, s);
}

/* The memory keys read only while the program is stopped. */
static bool memory_ready(struct ui *ui)
{
	const char *why;

	return dpane_stopped(ui, &why) != NULL;
}

static int memory_read(struct pane *p, struct ui *ui, int key)
{
	(void)key;
	if (!memory_ready(ui))
		return PR_IGNORED;
	ui_prompt_open(ui, p, "address or expression:", addr_done);
	return PR_REDRAW;
}

static int memory_view(struct pane *p, struct ui *ui, int key)
{
	struct memory_state *s = p->state;

	(void)key;
	if (!memory_ready(ui))
		return PR_IGNORED;
	s->view = (enum mview)((s->view + 1) % MV__COUNT);
	return PR_REDRAW;
}

static int memory_space(struct pane *p, struct ui *ui, int key)
{
	struct memory_state *s = p->state;

	(void)key;
	if (!memory_ready(ui))
		return PR_IGNORED;
	s->space = (enum mspace)((s->space + 1) % MS__COUNT);
	return memory_fetch(ui, s);
}

static int memory_size(struct pane *p, struct ui *ui, int key)
{
	struct memory_state *s = p->state;

	if (!memory_ready(ui))
		return PR_IGNORED;
	if (key == '+' && s->len < 4096)
		s->len *= 2;
	else if (key == '-' && s->len > 16)
		s->len /= 2;
	return memory_fetch(ui, s);
}

static int memory_step(struct pane *p, struct ui *ui, int key)
{
	if (!memory_ready(ui))
		return PR_IGNORED;
	return memory_move(ui, p->state, key == '>' ? 1 : -1);
}

static int memory_key(struct pane *p, struct ui *ui, int key)
{
	(void)ui;
	return listview_key(&((struct memory_state *)p->state)->lv, key);
}

static int memory_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	(void)p;
	if (what & (UCH_LAYOUT | UCH_STATE))
		dpane_want_sync(ui);
	return (what & (UCH_VARS | UCH_STOP | UCH_STATE)) ? PR_REDRAW : PR_HANDLED;
}

static void memory_title(struct pane *p, struct ui *ui, char *buf, size_t cap)
{
	struct memory_state *s = p->state;

	if (ui->model && s->expr[0] && ui->model->memory.n)
		snprintf(buf, cap, "%zu bytes read", mem_bytes(ui->model));
}

static const struct pane_key memory_keys[] = {
	{ 'a', TK_ENTER, memory_read, NULL, "read at an address or expression" },
	{ 't', TK_NONE, memory_view, NULL, "hex, int32, uint32, int64, float, double" },
	{ 'S', TK_NONE, memory_space, NULL, "device address space: global, shared, local" },
	{ '+', '-', memory_size, NULL, "read more / fewer bytes" },
	{ '<', '>', memory_step, NULL, "the bytes before / after" },
	PANE_KEYS_END,
};

const struct pane_ops pane_memory_ops = {
	.name = "memory",
	.title = "Memory",
	.home = AREA_SIDE_BOTTOM,
	.wants = MODEL_WANT_MEMORY,
	.init = memory_init,
	.draw = memory_draw,
	.key = memory_key,
	.on_change = memory_on_change,
	.title_info = memory_title,
	.free = dpane_state_free,
	.keys = memory_keys,
};
