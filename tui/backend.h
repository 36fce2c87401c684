/* Screen backends: curses on a real terminal (tui/term.c), or headless for
 * tests (tui/headless.c). */
#ifndef CUDBG_TUI_BACKEND_H
#define CUDBG_TUI_BACKEND_H

#include "tui/cells.h"
#include "tui/ui.h"

#include <stdbool.h>
#include <stdio.h>

struct backend {
	/* Starts it; returns 0 or -1 with a message in err. */
	int (*start)(struct backend *b, char *err, size_t cap);
	/* Restores the terminal.  Safe to call twice, and from atexit. */
	void (*stop)(struct backend *b);
	/* The fd to poll for keys, -1 when none. */
	int (*key_fd)(struct backend *b);
	/* The next key, TK_NONE when none is waiting; m gets mouse events. */
	int (*read_key)(struct backend *b, struct ui_mouse *m);
	/* The terminal size now. */
	void (*size)(struct backend *b, int *cols, int *rows);
	/* Shows the grid. */
	void (*flush)(struct backend *b, const struct grid *g);
	/* Puts the terminal back as it was before a job-control stop, and
	 * takes it again after (NULL: no terminal, nothing to do). */
	void (*suspend)(struct backend *b);
	void (*resume)(struct backend *b);
	bool mono;   /* set by start: no colours */
	bool repaint; /* the next flush repaints every cell (C-l), then clears it */
	int cols, rows; /* headless: the size to report */
	void *priv;
};

/* The curses backend on the process's terminal.  Colours follow NO_COLOR
 * and the terminal. */
void term_backend(struct backend *b);
/* The same on other streams (benchmarks draw to /dev/null). */
void term_backend_on(struct backend *b, FILE *out, FILE *in);
/* The headless backend: a fixed size, no keys, flush does nothing. */
void headless_backend(struct backend *b, int cols, int rows);

/* Overrides the colours of one role (enum ui_color) before the curses
 * backend starts: fg/bg 0..255, -1 the terminal's default.  From the
 * config file. */
void term_colour_set(int role, short fg, short bg);

/* Called from fatal signal handlers and atexit: puts the terminal back
 * the way it was, async-signal-safely where it can. */
void term_emergency_restore(void);

#endif
