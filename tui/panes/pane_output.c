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
	char search[256];
	bool search_on;  /* n/N go to matches until Esc (not `next`) */
	int search_dir;  /* 1 after /, -1 after C-r */
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


static void search_go(struct output_state *s, struct ui *ui, int dir)
{
	long n = (long)textlog_count(&ui->output), from = s->lv.cursor;
	struct textlog_line tmp;

	for (long i = 1; i <= n; i++) {
		long row = ((from + dir * i) % n + n) % n;
		const struct textlog_line *l = textlog_get(&ui->output, (size_t)row, &tmp);
		if (l && pane_text_find(l->text, l->len, s->search)) {
			s->follow = false;
			listview_select(&s->lv, row);
			if ((dir > 0 && row <= from) || (dir < 0 && row >= from))
				ui_message(ui, UC_MUTED, "search wrapped");
			return;
		}
	}
	ui_message(ui, UC_WARN, "not found: %s", s->search);
}

static void search_start(struct ui *ui, struct pane *p, const char *text, int dir)
{
	struct output_state *s = p->state;

	if (!text[0])
		return;
	snprintf(s->search, sizeof s->search, "%s", text);
	s->search_on = true;
	s->search_dir = dir;
	search_go(s, ui, dir);
}

static void search_done(struct ui *ui, struct pane *p, const char *text)
{
	search_start(ui, p, text, 1);
}

static void rsearch_done(struct ui *ui, struct pane *p, const char *text)
{
	search_start(ui, p, text, -1);
}

static int output_key(struct pane *p, struct ui *ui, int key)
{
	struct output_state *s = p->state;
	int r;

	switch (key) {
	case '/':
		ui_prompt_open(ui, p, "/", search_done);
		return PR_REDRAW;
	case TK_CTRL('r'):
		ui_prompt_open(ui, p, "?", rsearch_done);
		return PR_REDRAW;
	case 'n': case 'N':
		if (!s->search_on)
			return PR_IGNORED; /* n is `next` when no search is on */
		search_go(s, ui, key == 'n' ? s->search_dir : -s->search_dir);
		return PR_REDRAW;
	case TK_ESC:
		if (!s->search_on)
			return PR_IGNORED;
		s->search_on = false;
		return PR_REDRAW;
	}
	r = listview_hscroll(&s->hscroll, key);
	if (r != PR_IGNORED)
		return r;
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
	if (s->search_on) {
		size_t n = strlen(buf);
		snprintf(buf + n, cap - n, "%s/%s", n ? "  " : "", s->search);
	}
}

static const struct key_help output_help[] = {
	{ "Up Down PgUp PgDn", "scroll (End follows the output again)" },
	{ "Left Right", "scroll sideways" },
	{ "/  C-r", "search forwards / backwards" },
	{ "n  N", "next / previous match while a search is on" },
	{ "Esc", "end the search (n is `next` again)" },
	{ NULL, NULL },
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
	.help = output_help,
};
