/* The program's output: its terminal (pty) bytes, bounded scrollback,
 * sanitised when drawn.  Follows the end until the user scrolls up. */
#include "tui/keys.h"
#include "tui/ui.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct output_state {
	struct listview lv;
	bool follow; /* keep the last line in view */
	size_t hscroll;
	struct pane_search search;
};

static int output_init(struct pane *p, struct ui *ui)
{
	(void)ui;
	if (listview_state_new(p, sizeof(struct output_state), 0) != 0)
		return -1;
	((struct output_state *)p->state)->follow = true;
	return 0;
}
_Static_assert(offsetof(struct output_state, lv) == 0, "listview_state_new: lv first");

static void output_free(struct pane *p)
{
	free(p->state);
	p->state = NULL;
}

static void output_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct output_state *s = p->state;
	struct textlog_line tmp;

	s->lv.count = (long)textlog_count(&ui->output);
	if (s->follow)
		s->lv.cursor = s->lv.count - 1;
	listview_fit(&s->lv, c->r.h);
	if (s->lv.count == 0) {
		canvas_str(c, 1, 0, "(no output from the program yet)", STYLE(UC_MUTED, 0));
		return;
	}
	for (int y = 0; y < c->r.h; y++) {
		const struct textlog_line *l = textlog_get(&ui->output, (size_t)(s->lv.top + y), &tmp);
		if (!l)
			break;
		canvas_text_skip(c, 0, y, l->text, l->len, s->hscroll, STYLE(UC_DEFAULT, 0));
		if (!s->follow && s->lv.top + y == s->lv.cursor && ui_focus_pane(ui) == p)
			canvas_set_style(c, 0, y, c->r.w, STYLE(UC_CURSOR, 0));
	}
}


static int output_sideways(struct pane *p, struct ui *ui, int key)
{
	(void)ui;
	return listview_hscroll(&((struct output_state *)p->state)->hscroll, key);
}

/* The list keys scroll; on the last line it follows the output again. */
static int output_key(struct pane *p, struct ui *ui, int key)
{
	struct output_state *s = p->state;
	int r;

	(void)ui;
	r = listview_key(&s->lv, key);
	if (r != PR_IGNORED)
		s->follow = s->lv.cursor >= s->lv.count - 1;
	return r;
}

static int output_click(struct pane *p, struct ui *ui, int x, int y)
{
	struct output_state *s = p->state;

	(void)ui;
	(void)x;
	if (listview_click(&s->lv, y) == PR_IGNORED)
		return PR_IGNORED;
	s->follow = s->lv.cursor >= s->lv.count - 1;
	return PR_REDRAW;
}

static void output_title(struct pane *p, struct ui *ui, char *buf, size_t cap)
{
	struct output_state *s = p->state;

	if (ui->output.dropped)
		snprintf(buf, cap, "(%llu earlier lines dropped)%s",
			 (unsigned long long)ui->output.dropped, s->follow ? "" : " scrolled");
	else if (!s->follow)
		snprintf(buf, cap, "scrolled");
	if (s->search.on) {
		size_t n = strlen(buf);
		snprintf(buf + n, cap - n, "%s/%s", n ? "  " : "", s->search.pat);
	}
}

static struct pane_search *output_search(struct pane *p)
{
	return &((struct output_state *)p->state)->search;
}

static long output_rows(struct pane *p, struct ui *ui)
{
	(void)p;
	return (long)textlog_count(&ui->output);
}

static long output_cursor(struct pane *p, struct ui *ui)
{
	(void)ui;
	return ((struct output_state *)p->state)->lv.cursor;
}

static const char *output_text(struct pane *p, struct ui *ui, long row, size_t *len,
			       struct textlog_line *tmp)
{
	(void)p;
	return pane_textlog_row(&ui->output, row, len, tmp);
}

/* A match stops following the output. */
static void output_select(struct pane *p, struct ui *ui, long row)
{
	struct output_state *s = p->state;

	(void)ui;
	s->follow = false;
	listview_select(&s->lv, row);
}

static const struct pane_search_ops output_search_ops = {
	output_search, output_rows, output_cursor, output_text, output_select,
};

static const struct pane_key output_keys[] = {
	{ TK_NONE, TK_NONE, NULL, "Up Down PgUp PgDn",
	  "scroll (End follows the output again)" },
	{ TK_LEFT, TK_RIGHT, output_sideways, NULL, "scroll sideways" },
	PANE_KEYS_END,
};

const struct pane_ops pane_output_ops = {
	.name = "output",
	.title = "Program output",
	.home = AREA_OUTPUT,
	.init = output_init,
	.draw = output_draw,
	.key = output_key,
	.click = output_click,
	.title_info = output_title,
	.free = output_free,
	.keys = output_keys,
	.search = &output_search_ops,
};
