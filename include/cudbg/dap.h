/* The Debug Adapter Protocol server: `cudbg-tui --dap` speaks DAP over
 * stdin/stdout (or one client on 127.0.0.1:PORT with --dap-port) and
 * drives the same controller (include/cudbg/model.h) and diagnosis
 * (include/cudbg/diagrun.h) as the screen and batch mode.
 *
 * Code: dap/.  No curses.  docs/dap.md describes the
 * requests, the CUDA focus mapping and editor configurations.
 */
#ifndef CUDBG_DAP_H
#define CUDBG_DAP_H

struct cudbg_options;

/* Serves one client until it disconnects.  Returns the process exit code:
 * 0 after a clean disconnect, 2 when the port cannot be opened (a
 * one-line message on stderr). */
int dap_main(const struct cudbg_options *o);

#endif
