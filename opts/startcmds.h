/* The debugger commands the user asks for at start: ~/.gdbinit when the
 * config file says `gdbinit yes`, then -x FILE and -ex CMD in order.
 * Sent once the debugger is ready, before the -b breakpoints and the
 * run, by the screen (tui/glue.c) and batch mode (batch/batch.c). */
#ifndef CUDBG_TUI_STARTCMDS_H
#define CUDBG_TUI_STARTCMDS_H

#include <stddef.h>

struct cudbg_options;
struct dbg_ctl;

/* Sends them (asynchronously; the debugger's answers and errors show in
 * the console like typed commands).  Returns 0, or -1 with the command
 * that could not be sent in err.  A replay sends none: they are not in
 * the recording. */
int start_commands_send(const struct cudbg_options *o, struct dbg_ctl *c,
			char *err, size_t cap);

#endif
