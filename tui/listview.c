/* The scrolling list every list pane shares. */
#include "tui/keys.h"
#include "tui/panes/pane.h"
#include "tui/textlog.h"
#include "tui/ui.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void listview_fit(struct listview *lv, int height)
{
	if (height < 1)
		height = 1;
	lv->height = height;
	if (lv->count <= 0) {
		lv->cursor = -1;
		lv->top = 0;
		return;
	}
	if (lv->cursor < 0)
		lv->cursor = 0;
	if (lv->cursor >= lv->count)
		lv->cursor = lv->count - 1;
	if (lv->top > lv->cursor)
		lv->top = lv->cursor;
	if (lv->cursor >= lv->top + height)
		lv->top = lv->cursor - height + 1;
	if (lv->top > lv->count - height)
		lv->top = lv->count - height;
	if (lv->top < 0)
		lv->top = 0;
}

void listview_select(struct listview *lv, long row)
{
	lv->cursor = row;
	listview_fit(lv, lv->height);
}

int listview_key(struct listview *lv, int key)
{
	long page = lv->height > 1 ? lv->height - 1 : 1;
	long old = lv->cursor, old_top = lv->top;

	switch (key) {
	case TK_UP: case 'k': lv->cursor--; break;
	case TK_DOWN: case 'j': lv->cursor++; break;
	case TK_PGUP: lv->cursor -= page; lv->top -= page; break;
	case TK_PGDN: lv->cursor += page; lv->top += page; break;
	case TK_HOME: lv->cursor = 0; break;
	case TK_END: lv->cursor = lv->count - 1; break;
	default: return PR_IGNORED;
	}
	if (lv->cursor < 0)
		lv->cursor = 0;
	listview_fit(lv, lv->height);
	return (lv->cursor != old || lv->top != old_top) ? PR_REDRAW : PR_HANDLED;
}

int listview_click(struct listview *lv, int y)
{
	long row = lv->top + y;

	if (y < 0 || row >= lv->count)
		return PR_IGNORED;
	lv->cursor = row;
	return PR_REDRAW;
}

int listview_hscroll(size_t *hscroll, int key)
{
	if (key == TK_LEFT)
		*hscroll = *hscroll >= 8 ? *hscroll - 8 : 0;
	else if (key == TK_RIGHT)
		*hscroll += 8;
	else
		return PR_IGNORED;
	return PR_REDRAW;
}

int listview_state_new(struct pane *p, size_t size, int height)
{
	struct listview *lv = calloc(1, size);

	if (!lv)
		return -1;
	lv->cursor = -1;
	lv->height = height;
	p->state = lv;
	return 0;
}

const char *pane_text_find(const char *s, size_t len, const char *pat)
{
	size_t n = strlen(pat);
	bool fold = true;

	for (const char *c = pat; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			fold = false;
	for (size_t i = 0; n && i + n <= len; i++)
		if (fold ? strncasecmp(s + i, pat, n) == 0
			 : memcmp(s + i, pat, n) == 0)
			return s + i;
	return NULL;
}

const char *pane_textlog_row(const struct textlog *t, long row, size_t *len,
			     struct textlog_line *tmp)
{
	const struct textlog_line *l = textlog_get(t, (size_t)row, tmp);

	if (!l)
		return NULL;
	*len = l->len;
	return l->text;
}

/* Moves to the next (dir 1) or previous (-1) row matching the search,
 * wrapping around. */
static void search_go(struct pane *p, struct ui *ui, int dir)
{
	const struct pane_search_ops *o = p->ops->search;
	struct pane_search *s = o->state(p);
	long n = o->count(p, ui), from = o->cursor(p, ui);

	for (long i = 1; i <= n; i++) {
		long row = ((from + dir * i) % n + n) % n;
		struct textlog_line tmp;
		size_t len = 0;
		const char *t = o->text(p, ui, row, &len, &tmp);
		if (t && pane_text_find(t, len, s->pat)) {
			o->select(p, ui, row);
			if ((dir > 0 && row <= from) || (dir < 0 && row >= from))
				ui_message(ui, UC_MUTED, "search wrapped");
			return;
		}
	}
	ui_message(ui, UC_WARN, "not found: %s", s->pat);
}

static void search_start(struct ui *ui, struct pane *p, const char *text, int dir)
{
	struct pane_search *s = p->ops->search->state(p);

	if (!text[0] || p->ops->search->count(p, ui) <= 0)
		return;
	snprintf(s->pat, sizeof s->pat, "%s", text);
	s->on = true;
	s->dir = dir;
	search_go(p, ui, dir);
}

static void search_done(struct ui *ui, struct pane *p, const char *text)
{
	search_start(ui, p, text, 1);
}

/* C-r: n then goes on backwards and N forwards, as after vim's ? (the
 * help key here). */
static void rsearch_done(struct ui *ui, struct pane *p, const char *text)
{
	search_start(ui, p, text, -1);
}

int pane_search_key(struct pane *p, struct ui *ui, int key)
{
	const struct pane_search_ops *o = p->ops->search;
	struct pane_search *s;

	if (!o || o->count(p, ui) < 0)
		return PR_IGNORED;
	s = o->state(p);
	switch (key) {
	case '/':
		ui_prompt_open(ui, p, "/", search_done);
		return PR_REDRAW;
	case TK_CTRL('r'):
		ui_prompt_open(ui, p, "?", rsearch_done);
		return PR_REDRAW;
	case 'n': case 'N':
		if (!s->on || o->count(p, ui) == 0)
			return PR_IGNORED; /* n is `next` when no search is on */
		search_go(p, ui, key == 'n' ? s->dir : -s->dir);
		return PR_REDRAW;
	case TK_ESC:
		if (!s->on)
			return PR_IGNORED;
		s->on = false;
		return PR_REDRAW;
	}
	return PR_IGNORED;
}
