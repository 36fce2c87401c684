/* The interactive screen.
 *
 * Code: tui/.  Declared here by the options
 * and entry point so main.c can call it.  main.c has
 * already checked that stdin and stdout are terminals.
 */
#ifndef CUDBG_TUI_H
#define CUDBG_TUI_H

struct cudbg_options;

/* Runs the screen until the user quits.  Restores the terminal before it
 * returns.  Returns the process exit code (0 normally, 2 on an
 * environment error, with a one-line message already printed). */
int tui_main(const struct cudbg_options *o);

#endif
