/* --job and --core-dir (app/job_main.c, docs/multiprocess.md). */
#ifndef CUDBG_TUI_JOB_MAIN_H
#define CUDBG_TUI_JOB_MAIN_H

struct cudbg_options;

/* Runs the job (or reads the core directory), then opens the first
 * faulting process's coredump in batch mode or the screen.  Returns the
 * exit code: 0 no fault, 1 a fault, 2 usage or environment error (a
 * one-line message already printed). */
int job_main(const struct cudbg_options *o);

#endif
