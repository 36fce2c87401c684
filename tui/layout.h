/* Layout: a pure function from the terminal size and what is shown to the
 * rectangles of the screen's areas.  No curses, no state. */
#ifndef CUDBG_TUI_LAYOUT_H
#define CUDBG_TUI_LAYOUT_H

#include "tui/cells.h"

/* The screen's areas.  Each pane lives in one area (its home); an area
 * shows one of its panes at a time, with the others as tabs in its title
 * bar. */
enum area {
	AREA_SOURCE,      /* source code */
	AREA_SASS,        /* disassembly, beside the source */
	AREA_SIDE_TOP,    /* right column, upper half (GPU panes) */
	AREA_SIDE_BOTTOM, /* right column, lower half (program state) */
	AREA_CONSOLE,     /* bottom left: the debugger console */
	AREA_OUTPUT,      /* bottom right: the program's output */
	AREA__PANES,      /* areas above this hold panes */
	AREA_STATUS = AREA__PANES, /* the status line (top row) */
	AREA_HINTS,       /* the key hint / message line (bottom row) */
	AREA__COUNT
};

enum code_mode { CODE_BOTH, CODE_SOURCE, CODE_SASS };

enum layout_kind {
	LAYOUT_FULL,      /* every area */
	LAYOUT_SINGLE,    /* status, one area, hints: small terminal or zoom */
	LAYOUT_TOO_SMALL, /* only a message fits */
};

/* Below this the screen shows only a message asking for more room. */
#define LAYOUT_MIN_COLS 40
#define LAYOUT_MIN_ROWS 10
/* Below this (but above the minimum) one area at a time is shown. */
#define LAYOUT_FULL_COLS 80
#define LAYOUT_FULL_ROWS 20

struct layout_req {
	int cols, rows;
	enum code_mode code;  /* which of source and SASS share the top left */
	enum area focus;      /* the focused area (shown alone in SINGLE) */
	bool zoom;            /* show the focused area alone at any size */
	unsigned empty;       /* bits (1 << area) of areas with no pane: their
			       * room goes to their neighbours */
	bool diag_first;      /* the SASS area shows the diagnosis: stacked,
			       * it goes above the source; side by side it
			       * gets half the width */
};

struct layout {
	enum layout_kind kind;
	/* Each area's rectangle including its title row; w == 0 when the
	 * area is not shown.  Areas never overlap; a column is left between
	 * areas side by side for a separator (drawn by the UI). */
	struct rect area[AREA__COUNT];
};

void layout_compute(const struct layout_req *req, struct layout *out);

/* The area containing screen point (x, y), or -1. */
int layout_area_at(const struct layout *l, int x, int y);

#endif
