/* The glue between the screen and the debugger side: starts the
 * controller (include/cudbg/model.h) for the options, plugs the session
 * into the main loop, turns UI actions into controller calls, and copies
 * what the panes show from the model into the UI after every event. */
#ifndef CUDBG_TUI_GLUE_H
#define CUDBG_TUI_GLUE_H

#include "tui/loop.h"
#include "tui/ui.h"

struct cudbg_options;
struct glue;

/* Starts the debugger for the options.  NULL with a one-line reason in
 * err on failure. */
struct glue *glue_new(struct ui *ui, const struct cudbg_options *o, char *err,
		      size_t cap);
/* Stops the debugger (and the program) and frees.  Accepts NULL. */
void glue_free(struct glue *g);
/* The loop source for the session. */
struct loop_source glue_source(struct glue *g);
/* Copies model changes into the UI (also run after each loop pass). */
void glue_sync(struct glue *g);

#endif
