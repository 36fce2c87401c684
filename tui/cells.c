/* The cell grid and canvases.  No curses here. */
#include "tui/cells.h"
#include "tui/sanitize.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cell blank = { ' ', 0, UC_DEFAULT, 0, 1 };

int grid_resize(struct grid *g, int w, int h)
{
	struct cell *c;

	if (w < 0)
		w = 0;
	if (h < 0)
		h = 0;
	c = calloc((size_t)w * (size_t)h + 1, sizeof(*c));
	if (!c) {
		free(g->cells);
		g->cells = NULL;
		g->w = g->h = 0;
		return -1;
	}
	free(g->cells);
	g->cells = c;
	g->w = w;
	g->h = h;
	grid_clear(g);
	return 0;
}

void grid_free(struct grid *g)
{
	if (!g)
		return;
	free(g->cells);
	g->cells = NULL;
	g->w = g->h = 0;
}

void grid_clear(struct grid *g)
{
	size_t n = (size_t)g->w * (size_t)g->h;

	for (size_t i = 0; i < n; i++)
		g->cells[i] = blank;
	g->cursor_x = g->cursor_y = -1;
}

struct cell *grid_at(struct grid *g, int x, int y)
{
	if (x < 0 || y < 0 || x >= g->w || y >= g->h)
		return NULL;
	return &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
}

char *grid_dump(const struct grid *g)
{
	/* A cell holds at most two code points of 4 bytes each. */
	size_t cap = (size_t)g->h * ((size_t)g->w * 8 + 1) + 1;
	char *out = malloc(cap), *p = out;

	if (!out)
		return NULL;
	for (int y = 0; y < g->h; y++) {
		char *end = p;
		for (int x = 0; x < g->w; x++) {
			const struct cell *c = &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
			if (c->width == 0)
				continue;
			p += utf8_encode(c->ch, p);
			if (c->comb)
				p += utf8_encode(c->comb, p);
			if (c->ch != ' ' || c->comb)
				end = p;
		}
		p = end;
		*p++ = '\n';
	}
	*p = '\0';
	return out;
}

struct canvas canvas_of(struct grid *g, struct rect r)
{
	struct canvas c = { g, r };

	/* Clip to the grid once, so drawing never checks the grid edges. */
	if (c.r.x < 0) {
		c.r.w += c.r.x;
		c.r.x = 0;
	}
	if (c.r.y < 0) {
		c.r.h += c.r.y;
		c.r.y = 0;
	}
	if (c.r.x + c.r.w > g->w)
		c.r.w = g->w - c.r.x;
	if (c.r.y + c.r.h > g->h)
		c.r.h = g->h - c.r.y;
	if (c.r.w < 0)
		c.r.w = 0;
	if (c.r.h < 0)
		c.r.h = 0;
	return c;
}

struct canvas canvas_sub(const struct canvas *c, int x, int y, int w, int h)
{
	struct canvas s = { c->g, { c->r.x + x, c->r.y + y, w, h } };

	if (x < 0) {
		s.r.w += x;
		s.r.x = c->r.x;
	}
	if (y < 0) {
		s.r.h += y;
		s.r.y = c->r.y;
	}
	if (s.r.x + s.r.w > c->r.x + c->r.w)
		s.r.w = c->r.x + c->r.w - s.r.x;
	if (s.r.y + s.r.h > c->r.y + c->r.h)
		s.r.h = c->r.y + c->r.h - s.r.y;
	if (s.r.w < 0)
		s.r.w = 0;
	if (s.r.h < 0)
		s.r.h = 0;
	return s;
}

static struct cell *canvas_cell(const struct canvas *c, int x, int y)
{
	if (x < 0 || y < 0 || x >= c->r.w || y >= c->r.h)
		return NULL;
	return grid_at(c->g, c->r.x + x, c->r.y + y);
}

/* Breaks up a wide glyph that a write at grid column x (absolute) would
 * cut in half, so no cell is left pointing at half a glyph. */
static void unsplit_wide(struct grid *g, int x, int y)
{
	struct cell *c = grid_at(g, x, y), *n;

	if (!c)
		return;
	if (c->width == 0) {
		struct cell *l = grid_at(g, x - 1, y);
		if (l)
			*l = (struct cell){ ' ', 0, l->color, l->attr, 1 };
	} else if (c->width == 2 && (n = grid_at(g, x + 1, y)) != NULL) {
		*n = (struct cell){ ' ', 0, n->color, n->attr, 1 };
	}
}

static void put_glyph(const struct canvas *c, int x, int y, uint32_t cp,
		      int width, struct style st)
{
	struct cell *cell = canvas_cell(c, x, y);
	int gx = c->r.x + x, gy = c->r.y + y;

	if (!cell)
		return;
	unsplit_wide(c->g, gx, gy);
	if (width == 2) {
		struct cell *tail = canvas_cell(c, x + 1, y);
		if (!tail) { /* no room for the right half */
			*cell = (struct cell){ ' ', 0, st.color, st.attr, 1 };
			return;
		}
		unsplit_wide(c->g, gx + 1, gy);
		*tail = (struct cell){ 0, 0, st.color, st.attr, 0 };
	}
	*cell = (struct cell){ cp, 0, st.color, st.attr, (uint8_t)width };
}

int canvas_text_skip(const struct canvas *c, int x, int y, const char *s,
		     size_t len, size_t skip, struct style st)
{
	size_t i = 0, col = 0; /* col: text column, before skipping */
	int last = -1;         /* canvas column of the last glyph drawn */
	struct san_glyph g;

	if (y < 0 || y >= c->r.h)
		return x;
	while (i < len && (long)col - (long)skip + x < c->r.w) {
		i += sanitize_next(s + i, len - i, &g);
		if (g.cls == SAN_TAB) {
			size_t next = (col / 8 + 1) * 8;
			for (; col < next; col++)
				if (col >= skip)
					put_glyph(c, x + (int)(col - skip), y, ' ', 1, st);
			continue;
		}
		if (g.width == 0) {
			/* A combining mark joins the glyph before it; with
			 * none drawn it sits on a dotted circle. */
			struct cell *prev = last >= 0 ? canvas_cell(c, last, y) : NULL;
			if (prev) {
				prev->comb = g.cp;
				continue;
			}
			g.width = 1;
			if (col >= skip) {
				put_glyph(c, x + (int)(col - skip), y, 0x25CC, 1, st);
				struct cell *dc = canvas_cell(c, x + (int)(col - skip), y);
				if (dc)
					dc->comb = g.cp;
				last = x + (int)(col - skip);
			}
			col++;
			continue;
		}
		if (col >= skip) {
			put_glyph(c, x + (int)(col - skip), y, g.cp, g.width, st);
			last = x + (int)(col - skip);
		} else if (col + (size_t)g.width > skip) {
			/* The left half of a wide glyph was scrolled away. */
			put_glyph(c, x, y, ' ', 1, st);
		}
		col += (size_t)g.width;
	}
	long end = (long)col - (long)skip + x;
	if (end < x)
		end = x;
	return end > c->r.w ? c->r.w : (int)end;
}

int canvas_text(const struct canvas *c, int x, int y, const char *s,
		size_t len, struct style st)
{
	return canvas_text_skip(c, x, y, s, len, 0, st);
}

int canvas_str(const struct canvas *c, int x, int y, const char *s,
	       struct style st)
{
	return canvas_text(c, x, y, s, strlen(s), st);
}

int canvas_printf(const struct canvas *c, int x, int y, struct style st,
		  const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return x;
	return canvas_text(c, x, y, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1, st);
}

int canvas_str_right(const struct canvas *c, int y, const char *s,
		     struct style st)
{
	size_t w = sanitize_width(s, strlen(s));
	int x = c->r.w - (int)w;

	if (x < 0)
		x = 0;
	return canvas_str(c, x, y, s, st);
}

void canvas_fill(const struct canvas *c, int x, int y, int w, int h,
		 uint32_t ch, struct style st)
{
	for (int j = y; j < y + h; j++)
		for (int i = x; i < x + w; i++)
			put_glyph(c, i, j, ch, 1, st);
}

void canvas_set_style(const struct canvas *c, int x, int y, int w,
		      struct style st)
{
	for (int i = x; i < x + w; i++) {
		struct cell *cell = canvas_cell(c, i, y);
		if (cell) {
			cell->color = st.color;
			cell->attr = st.attr;
		}
	}
}

void canvas_cursor(const struct canvas *c, int x, int y)
{
	if (x < 0 || y < 0 || x >= c->r.w || y >= c->r.h) {
		c->g->cursor_x = c->g->cursor_y = -1;
		return;
	}
	c->g->cursor_x = c->r.x + x;
	c->g->cursor_y = c->r.y + y;
}

int canvas_wrap(const struct canvas *c, int x, int y, int w, const char *text,
		struct style st, bool draw)
{
	const char *p = text;
	int lines = 0;

	while (*p) {
		size_t n = strlen(p), cut = 0, i = 0, last_space = 0;
		size_t width = 0;
		while (i < n && p[i] != '\n') {
			struct san_glyph g;
			size_t k = sanitize_next(p + i, n - i, &g);
			if (width + (size_t)g.width > (size_t)w)
				break;
			width += (size_t)g.width;
			if (p[i] == ' ')
				last_space = i;
			i += k;
		}
		cut = i;
		if (i < n && p[i] != '\n' && last_space > 0)
			cut = last_space;
		if (cut == 0)
			cut = i > 0 ? i : 1;
		if (draw)
			canvas_text(c, x, y + lines, p, cut, st);
		lines++;
		p += cut;
		while (*p == ' ' || *p == '\n')
			p++;
	}
	return lines;
}
