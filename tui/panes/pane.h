/* Panes: tables of functions over a pane's state.
 *
 * A pane is one file, tui/panes/pane_NAME.c, that defines
 *     const struct pane_ops pane_NAME_ops = { .name = "NAME", ... };
 * and one line `PANE(NAME)` in tui/panes/panes.def.  See docs/architecture-tui.md.
 *
 * Rules: draw() only draws (into the canvas it is given, nothing else) and
 * never talks to the debugger; key()/click()/on_change() change state and
 * return PR_* flags; only the main loop redraws. */
#ifndef CUDBG_TUI_PANE_H
#define CUDBG_TUI_PANE_H

#include "tui/cells.h"
#include "tui/layout.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ui;
struct pane;

/* What key(), click() and on_change() return. */
enum pane_result {
	PR_IGNORED = 0, /* not mine: the UI tries its global keys */
	PR_HANDLED = 1, /* consumed */
	PR_REDRAW = 2,  /* consumed, and the screen must be redrawn */
	PR_QUIT = 4,    /* leave the program */
};

/* What changed, for on_change(); bits. */
enum ui_change {
	UCH_STATE = 1 << 0,       /* program/debugger state (running, stopped...) */
	UCH_STOP = 1 << 1,        /* a new stop: frame, focus, fault */
	UCH_FRAME = 1 << 2,       /* the selected frame changed */
	UCH_BREAKPOINTS = 1 << 3,
	UCH_GPU = 1 << 4,         /* CUDA tables (kernels, threads...) */
	UCH_OUTPUT = 1 << 5,      /* program output arrived */
	UCH_CONSOLE = 1 << 6,     /* console/stream text arrived */
	UCH_VARS = 1 << 7,        /* locals, watches, registers */
	UCH_DIAG = 1 << 8,        /* the fault diagnosis changed */
	UCH_SOURCE = 1 << 9,      /* source directories or files */
	UCH_LAYOUT = 1 << 10,     /* panes were shown or hidden */
	UCH_SESSION = 1 << 11,    /* a new debugger session (the pass's
				   * coredump, a rerun): what was cached of
				   * the old one's process is stale */
	UCH_ALL = 0x7fffffff,
};

/* What a pane can be asked to do by the glue (UA_FAULT_THREAD), by
 * another pane through it, without either naming the pane. */
enum pane_request {
	PANE_REQ_FAULT_THREAD, /* show and focus the thread that faulted */
	PANE_REQ_DIAGNOSIS,    /* show and focus the diagnosis */
	PANE_REQ_PROCESSES,    /* show (not focus) a job's processes */
};

/* One key of a pane: the same row drives its dispatch and its line in
 * the help overlay, so the two cannot drift.  A table ends with
 * PANE_KEYS_END.  The focused pane's table is tried before its key()
 * (not while the console line editor has the keyboard). */
struct pane_key {
	int key, alt; /* TK_* or a byte; TK_NONE: none */
	/* Handles the key; PR_IGNORED lets key() and then the global keys
	 * have it.  NULL: a help line only, for keys key() or the shared
	 * list code handles (arrows, the console's line editor). */
	int (*fn)(struct pane *p, struct ui *ui, int key);
	const char *keys; /* help's keys when not key and alt ("b  click gutter") */
	const char *what; /* the help line */
};
#define PANE_KEYS_END { -1, -1, NULL, NULL, NULL }

/* A pane's search (/ and C-r open it, n N go on, Esc ends it), kept by
 * the pane in its state; the keys and their help lines are the same in
 * every pane that has one (tui/listview.c). */
struct pane_search {
	char pat[256];
	bool on;  /* n/N go to matches until Esc (not the debugger's next) */
	int dir;  /* 1 after /, -1 after C-r */
};

struct textlog_line;

/* How a pane's rows are searched. */
struct pane_search_ops {
	struct pane_search *(*state)(struct pane *p);
	/* Rows to search; -1: nothing to search now (the keys are not
	 * taken: / says "no search here", n steps). */
	long (*count)(struct pane *p, struct ui *ui);
	/* The row a search starts after (the cursor). */
	long (*cursor)(struct pane *p, struct ui *ui);
	/* The text of row; tmp is scratch the pane may return into. */
	const char *(*text)(struct pane *p, struct ui *ui, long row, size_t *len,
			    struct textlog_line *tmp);
	/* Shows row (a match) as the cursor. */
	void (*select)(struct pane *p, struct ui *ui, long row);
};

struct pane_ops {
	const char *name;  /* id used by scripts and the config: "source" */
	const char *title; /* tab label: "Source" */
	enum area home;    /* where it is shown */
	/* The data the controller must fetch at every stop while the pane
	 * is on screen: MODEL_WANT_* bits (cudbg/model.h; focus, stack,
	 * locals, kernels and the focused block's threads are always
	 * fetched).  dpane_want_sync() ors them over the panes shown. */
	unsigned wants;
	/* Allocates p->state; returns 0 or -1.  Optional. */
	int (*init)(struct pane *p, struct ui *ui);
	/* Brings what the pane shows up to date before a draw, when it is on
	 * screen: the one place a pane may compute (an analysis the model's
	 * changes call for).  Optional. */
	void (*prepare)(struct pane *p, struct ui *ui);
	/* Draws the pane's content into c (its area minus the title row):
	 * only draws. */
	void (*draw)(struct pane *p, struct ui *ui, const struct canvas *c);
	/* A key while the pane has the focus. */
	int (*key)(struct pane *p, struct ui *ui, int key);
	/* A click at (x, y) of the content canvas last drawn.  Optional. */
	int (*click)(struct pane *p, struct ui *ui, int x, int y);
	/* Something changed in the model (enum ui_change bits).  Optional. */
	int (*on_change)(struct pane *p, struct ui *ui, unsigned what);
	/* Extra title text after the tab labels ("step_kernel.cu:9").  Writes
	 * into buf (cap bytes).  Optional. */
	void (*title_info)(struct pane *p, struct ui *ui, char *buf, size_t cap);
	/* Does request r (enum pane_request), showing itself as r says:
	 * PR_* flags, PR_IGNORED when it does not do r.  Optional. */
	int (*request)(struct pane *p, struct ui *ui, enum pane_request r);
	/* Frees p->state.  Optional. */
	void (*free)(struct pane *p);
	const struct pane_key *keys;        /* optional */
	const struct pane_search_ops *search; /* optional */
};

struct pane {
	const struct pane_ops *ops;
	void *state;      /* the pane's own */
	struct rect rect; /* content rectangle at the last draw (screen) */
	bool hidden;      /* not offered as a tab (e.g. nothing to show) */
	int tab_x, tab_w; /* its tab in the title bar at the last draw */
};

/* A scrolling list with a cursor row, for list panes. */
struct listview {
	long count;  /* rows */
	long top;    /* first row shown */
	long cursor; /* selected row, -1 when count == 0 */
	int height;  /* rows visible at the last draw */
};

/* Arrows, PgUp/PgDn, Home/End (and j/k).  Returns PR_REDRAW when it moved,
 * PR_IGNORED for other keys. */
int listview_key(struct listview *lv, int key);
/* Keeps the cursor in range and visible for `height` rows. */
void listview_fit(struct listview *lv, int height);
/* Selects the row shown at line y of the last draw; returns PR_REDRAW or
 * PR_IGNORED. */
int listview_click(struct listview *lv, int y);
/* Moves the cursor to row and scrolls it into view. */
void listview_select(struct listview *lv, long row);
/* A list pane's state: `size` zeroed bytes that start with its struct
 * listview, empty (no cursor) and `height` rows high until the first draw
 * says; it goes to p->state.  Returns 0 or -1. */
int listview_state_new(struct pane *p, size_t size, int height);
/* Left and Right scroll long rows sideways by 8 columns (never before
 * column 0): PR_REDRAW, or PR_IGNORED for other keys. */
int listview_hscroll(size_t *hscroll, int key);

/* ---- calls into particular panes (from other panes) ---- */

/* Shows `file` (found like the debugger's files: as given, or under the
 * -d directories) in the Source pane at `line` (0: the top) and focuses
 * it, until the next stop brings back the stopped frame's file.  For the
 * user's Python line, a file:line of the diagnosis, and `o` in Source.
 * Returns 0, or -1 after a message naming the file. */
int pane_source_open(struct ui *ui, const char *file, int line);

/* The search the panes share (Source, Hints, Console, Program output):
 * where pat first occurs in s[0..len), case-insensitive unless pat has a
 * capital (vim's smartcase); NULL when not found or pat is empty.
 * tui/listview.c */
const char *pane_text_find(const char *s, size_t len, const char *pat);
struct textlog;
/* Row `row` of a text log as a search's text (for panes that show one:
 * Console, Program output); NULL past the end. */
const char *pane_textlog_row(const struct textlog *t, long row, size_t *len,
			     struct textlog_line *tmp);
/* The search keys of a pane with ops->search: PR_* (PR_IGNORED for other
 * keys, or when it has nothing to search). */
int pane_search_key(struct pane *p, struct ui *ui, int key);

/* A pane's keys by its table (tui/panekeys.c): PR_IGNORED when no row
 * takes the key. */
int pane_keys_run(struct pane *p, struct ui *ui, int key);
/* A pane's help lines in order (its search keys, then its table): *i
 * starts at 0; writes the keys into keys and the line into *what;
 * returns 0 past the last. */
int pane_help_next(const struct pane_ops *o, size_t *i, char *keys, size_t cap,
		   const char **what);

#define PANE(name) extern const struct pane_ops pane_##name##_ops;
#include "tui/panes/panes.def"
#undef PANE

#endif
