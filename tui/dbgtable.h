/* The GPU table panes (kernels, blocks, warps, lanes): one model table
 * shown a row per line under a heading, the cursor put on the row that
 * holds the CUDA focus at each stop, Enter acting on the cursor's row.
 * This file runs all of that; a pane gives only what differs, in a
 * struct dtable_ops: its table, its heading, its row text, its Enter.
 *
 * A pane's state starts with a struct dtable (made by dtable_state_new,
 * freed by dpane_state_free); its ops table is
 *     .init = NAME_init (calls dtable_state_new), .draw = dtable_draw,
 *     .key = dtable_key, .click = dpane_click_table,
 *     .on_change = dtable_on_change, .free = dpane_state_free
 * and its key table (struct pane_key) has Enter -> dtable_enter and
 * the pane's own keys. */
#ifndef CUDBG_TUI_DBGTABLE_H
#define CUDBG_TUI_DBGTABLE_H

#include "tui/dbgpane.h"

#include <stdbool.h>
#include <stddef.h>

struct dtable_ops {
	enum model_table table; /* the model table shown: MODEL_T_BLOCKS */
	const char *no_table;   /* the refusal's heading: "no blocks table" */
	const char *heading;    /* the column heading, line 0 */
	const char *empty;      /* note when the table has no row; NULL: none */
	/* Draws row `row` of t at line y of c; false when t has no such row. */
	bool (*draw_row)(struct pane *p, struct ui *ui, const struct canvas *c,
			 int y, const struct dec_table *t, size_t row);
	/* Whether row `row` of t holds m's CUDA focus. */
	bool (*holds_focus)(const struct dbg_model *m, const struct dec_table *t,
			    size_t row);
	/* Enter on row `row` of t (the cursor's); returns PR_*. */
	int (*enter)(struct ui *ui, const struct dec_table *t, size_t row);
};

/* The head of a table pane's state. */
struct dtable {
	struct listview lv; /* first: the dpane_* list helpers take it so */
	const struct dtable_ops *ops;
};

/* A table pane's state: `size` bytes (at least a struct dtable, which
 * they start with) whose head shows ops; see dpane_state_new.  Returns 0
 * or -1. */
int dtable_state_new(struct pane *p, const struct dtable_ops *ops, size_t size);

/* The pane_ops functions of a table pane. */
void dtable_draw(struct pane *p, struct ui *ui, const struct canvas *c);
int dtable_on_change(struct pane *p, struct ui *ui, unsigned what);
int dtable_key(struct pane *p, struct ui *ui, int key); /* the list keys */
/* Enter: the ops' enter on the cursor's row (a struct pane_key handler). */
int dtable_enter(struct pane *p, struct ui *ui, int key);

#endif
