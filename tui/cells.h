/* The cell model: a grid of screen cells that knows nothing of curses.
 * Panes draw into a canvas (a clipped rectangle of the grid);
 * a backend (tui/term.c for curses, the headless dump for tests) shows the
 * grid.  Text enters cells only through canvas_text*(), which runs it
 * through the sanitiser, so raw bytes never reach a cell. */
#ifndef CUDBG_TUI_CELLS_H
#define CUDBG_TUI_CELLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Colours by meaning; the backend maps them to colour pairs, or to
 * attributes on a monochrome terminal or under NO_COLOR. */
enum ui_color {
	UC_DEFAULT,
	UC_STATUS,       /* the status line */
	UC_STATUS_ALERT, /* the status line when stopped on a fault */
	UC_TITLE,        /* an area's title bar */
	UC_TITLE_FOCUS,  /* the focused area's title bar */
	UC_TAB_ACTIVE,   /* the visible pane's name in a title bar */
	UC_LINENO,
	UC_CURRENT,      /* the current line or PC */
	UC_FAULT,        /* the faulting line or PC */
	UC_BREAK,        /* a breakpoint mark */
	UC_CURSOR,       /* the selected row of the focused pane */
	UC_KEYWORD,
	UC_TYPE,
	UC_STRING,
	UC_COMMENT,
	UC_NUMBER,
	UC_PREPROC,
	UC_MATCH,        /* a search match */
	UC_ERROR,
	UC_WARN,
	UC_GOOD,
	UC_MUTED,
	UC_ACCENT,
	UC_HINT,         /* the key hint line */
	UC_OVERLAY,      /* help and question boxes */
	UC__COUNT
};

enum cell_attr {
	CA_BOLD = 1,
	CA_REVERSE = 2,
	CA_UNDERLINE = 4,
	CA_DIM = 8,
};

struct style {
	uint8_t color; /* enum ui_color */
	uint8_t attr;  /* enum cell_attr bits */
};

#define STYLE(c, a) ((struct style){ (uint8_t)(c), (uint8_t)(a) })

struct cell {
	uint32_t ch;   /* code point; 0 in the right half of a wide glyph */
	uint32_t comb; /* one combining mark drawn with ch, or 0 */
	uint8_t color; /* enum ui_color */
	uint8_t attr;  /* enum cell_attr bits */
	uint8_t width; /* 1 or 2; 0 for the right half of a wide glyph */
};

struct grid {
	int w, h;
	struct cell *cells; /* h rows of w cells */
	int cursor_x, cursor_y; /* the terminal cursor; -1 hides it */
};

struct rect {
	int x, y, w, h;
};

/* A clipped drawing surface: coordinates are relative to r, and nothing
 * outside r is touched. */
struct canvas {
	struct grid *g;
	struct rect r;
};

/* Returns 0, or -1 when out of memory (the grid is then empty). */
int grid_resize(struct grid *g, int w, int h);
void grid_free(struct grid *g); /* frees the cells; g itself is the caller's */
void grid_clear(struct grid *g);
struct cell *grid_at(struct grid *g, int x, int y); /* NULL outside */

/* Writes the grid as text, one line per row, trailing blanks cut, into a
 * malloc'ed string (caller frees). */
char *grid_dump(const struct grid *g);

struct canvas canvas_of(struct grid *g, struct rect r);
/* A sub-canvas at (x, y, w, h) relative to c, clipped to c. */
struct canvas canvas_sub(const struct canvas *c, int x, int y, int w, int h);

/* Draws untrusted text at (x, y), sanitised, clipped at the canvas edge;
 * tabs expand to the next multiple of 8 counted from x; the first `skip`
 * columns of the text are not drawn (horizontal scrolling).  Returns the
 * column after the last one drawn (relative to the canvas). */
int canvas_text_skip(const struct canvas *c, int x, int y, const char *s,
		     size_t len, size_t skip, struct style st);
int canvas_text(const struct canvas *c, int x, int y, const char *s,
		size_t len, struct style st);
int canvas_str(const struct canvas *c, int x, int y, const char *s,
	       struct style st);
int canvas_printf(const struct canvas *c, int x, int y, struct style st,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Text right-aligned so that it ends at the canvas's right edge. */
int canvas_str_right(const struct canvas *c, int y, const char *s,
		     struct style st);
void canvas_fill(const struct canvas *c, int x, int y, int w, int h,
		 uint32_t ch, struct style st);
/* Sets the style of a run of cells, keeping their text. */
void canvas_set_style(const struct canvas *c, int x, int y, int w,
		      struct style st);
/* Word-wraps text (breaking at spaces, or anywhere in a long word) into
 * lines of w columns from (x, y); '\n' breaks too.  Returns the lines
 * used; draws them only when draw is true (false measures). */
int canvas_wrap(const struct canvas *c, int x, int y, int w, const char *text,
		struct style st, bool draw);
/* Places the terminal cursor at (x, y) of the canvas. */
void canvas_cursor(const struct canvas *c, int x, int y);

#endif
