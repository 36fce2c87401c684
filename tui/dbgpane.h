/* Helpers shared by the panes that show the debugger model: the GPU panes
 * (threads, GPU map, kernels, blocks, warps, lanes, devices) and the
 * program state panes (locals, stack, watches, warp watch, breakpoints,
 * registers, memory).
 *
 * The panes read ui->model (const, never kept across a loop pass) and
 * act through ui->ctl from key()/on_change(); both are NULL in framework
 * tests, where the panes say there is no debugger. */
#ifndef CUDBG_TUI_DBGPANE_H
#define CUDBG_TUI_DBGPANE_H

#include "cudbg/model.h"
#include "tui/ui.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The model when the program is stopped (a core counts), else NULL with
 * a reason for a person in *why ("the program is running"). */
const struct dbg_model *dpane_stopped(const struct ui *ui, const char **why);
/* As dpane_stopped, and the session is cuda-gdb with a CUDA focus. */
const struct dbg_model *dpane_device(const struct ui *ui, const char **why);
/* The table, or NULL with *why: the debugger's error or "not fetched". */
const struct dec_table *dpane_table(const struct dbg_model *m,
				    enum model_table which, const char **why);

/* Draws a muted note, wrapped, from row y; returns the rows used. */
int dpane_note(const struct canvas *c, int y, const char *text);
/* Draws "what: why" (why untrusted) as an error note. */
int dpane_error(const struct canvas *c, int y, const char *what,
		const char *why);

/* Tells the controller which optional data the panes on screen need
 * (their pane_ops.wants, MODEL_WANT_*); call on UCH_LAYOUT and
 * UCH_STATE. */
void dpane_want_sync(struct ui *ui);

/* "(3,0,0)", or "?" when d is not valid. */
char *dpane_dim3(char *buf, size_t cap, struct dec_dim3 d);
/* Orders dim3s as cuda-gdb lists blocks and threads (z, then y, then x).
 * <0, 0 or >0. */
int dpane_dim3_cmp(struct dec_dim3 a, struct dec_dim3 b);
/* Orders (block, thread) pairs the same way. */
int dpane_bt_cmp(struct dec_dim3 ab, struct dec_dim3 at, struct dec_dim3 bb,
		 struct dec_dim3 bt);
/* "(132..133,0,0)"-style compact ranges: "(a,b,c)" when equal, the x
 * range when only x differs, else "(a,b,c)..(d,e,f)". */
char *dpane_dim3_range(char *buf, size_t cap, struct dec_dim3 from,
		       struct dec_dim3 to);

/* The thread that faulted: the focus of the last stop when it was a
 * device exception (or trap).  False when the stop was not. */
bool dpane_fault(const struct dbg_model *m, struct dec_focus *out);

/* Result of a controller call: a refusal becomes a message on the hint
 * line (ui_refused, the one reporter).  Returns PR_REDRAW. */
int dpane_done(struct ui *ui, int64_t r);
/* A console command from any pane (the console, a hint's step): gdb's
 * q and quit, and vim's :q, :q!, :wq, :qa ask the screen to quit (gdb
 * would quit at once and kill the program; the screen asks first);
 * anything else goes to the controller as typed.  0 sent or quitting,
 * -1 refused (said), 1 no debugger is connected (nothing said). */
int dpane_console(struct ui *ui, const char *line);
/* Switches the CUDA focus to block/thread; PR_REDRAW. */
int dpane_focus(struct ui *ui, struct dec_dim3 block, struct dec_dim3 thread);

/* Parses "(x,y,z)", "x,y,z" or "x" (y and z 0) at *s, skipping blanks;
 * advances *s.  False when there is no such triple. */
bool dpane_parse_dim3(const char **s, struct dec_dim3 *out);

/* Marks the cursor row (when the pane has the focus). */
void dpane_cursor(struct ui *ui, struct pane *p, const struct canvas *c,
		  int y);

/* Number of set bits. */
int dpane_popcount(uint64_t v);

/* A list pane's state: listview_state_new with the default height;
 * dpane_state_free() frees it.  Returns 0 or -1. */
int dpane_state_new(struct pane *p, size_t size);
void dpane_state_free(struct pane *p);
/* The click of a list pane whose state starts with its listview: selects
 * the row clicked; _table for a list under a heading line. */
int dpane_click(struct pane *p, struct ui *ui, int x, int y);
int dpane_click_table(struct pane *p, struct ui *ui, int x, int y);

#endif
