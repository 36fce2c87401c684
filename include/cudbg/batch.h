/* Batch mode: run the session to its first stop or the program's end and
 * print what stopped it (text, or JSON with --json), then the diagnosis.
 *
 * Owner: helper "model" (tui/batch.c).  Declared here by the options and
 * entry point (helper "session") so main.c can call it.
 */
#ifndef CUDBG_BATCH_H
#define CUDBG_BATCH_H

struct cudbg_options;

/* Returns the process exit code: 0 no fault found, 1 a fault was found,
 * 2 usage or environment error (a one-line message already printed). */
int batch_main(const struct cudbg_options *o);

#endif
