/* One diagnosis of a batch run: the collector hooked into the controller,
 * the memcheck pass by policy, the coredump it wrote opened in the
 * debugger, values read for the hints, and the report.
 *
 * Code: diag/diagrun.c.  Used by batch mode (batch/batch.c)
 * so the report has one code path; the screen uses the pieces
 * (diag.h, memcheck.h, hints.h) directly in its own loop.  Nothing here
 * prints; errors come back as one-line messages.
 */
#ifndef CUDBG_DIAGRUN_H
#define CUDBG_DIAGRUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "cudbg/diag.h"
#include "cudbg/memcheck.h"

struct cudbg_options;
struct dbg_ctl;
struct dbg_model;
struct dec_stack;
struct dbg_ctl_hooks;
struct diag_rules;

struct diag_run;

/* From the command line: the program, source dirs, --memcheck,
 * --sanitizer, --sanitizer-report, --keep-temp, --debugger.  Loads the
 * rules file (exe_dir: where the binary is, for a build tree's data/).
 * NULL with a one-line message in err when the rules file or the
 * sanitizer report cannot be read (usage/environment errors). */
struct diag_run *diag_run_new(const struct cudbg_options *o,
			      const char *exe_dir, char *err, size_t cap);
void diag_run_free(struct diag_run *r); /* accepts NULL */

struct diag *diag_run_diag(struct diag_run *r);
const struct diag_rules *diag_run_rules(const struct diag_run *r);

/* Fills the controller hooks so every record, program byte and stderr
 * line reaches the collector, and the debugger's readiness is timed
 * (h->ctx is the run). */
void diag_run_hooks(struct diag_run *r, struct dbg_ctl_hooks *h);

/* A flag that ends the waits of the memcheck pass when it becomes
 * non-zero (batch mode's signal handler sets it): the sanitizer and the
 * program it runs are then stopped at once.  NULL: no such flag. */
void diag_run_set_cancel(struct diag_run *r, const volatile sig_atomic_t *flag);

/* The private directory of the memcheck pass (its report and coredump),
 * or NULL when no pass ran.  It is removed by diag_run_free() unless
 * --keep-temp was given. */
const char *diag_run_temp_dir(const struct diag_run *r);

/* Before the live run: with --memcheck=always, runs the memcheck pass
 * first.  c (may be NULL) is a debugger started already: its session is
 * served while the pass runs (its start sequence answered, the program's
 * symbols loaded), so that after the pass only the coredump is left to
 * open (ctl_open_core) or the program to run; the pass's end is noted in
 * its recording.  Returns 0 (a missing sanitizer is a fact for the
 * hints, not an error) or a negative code. */
int diag_run_before(struct diag_run *r, struct dbg_ctl *c, int timeout_ms);

/* When things happened, in seconds on CLOCK_MONOTONIC (0: not at all):
 * for the phase timings batch mode prints with CUDBG_TIMING=1. */
struct diag_run_times {
	double pass_start, pass_end; /* the memcheck pass */
	double debugger_ready;       /* the first debugger of the hooks
				      * (diag_run_hooks) answered its start
				      * sequence */
};
void diag_run_get_times(const struct diag_run *r, struct diag_run_times *t);

/* After the live run stopped or ended (c may be NULL): reads the values
 * the hints want in the kernel's frame; with --memcheck=auto, runs the
 * pass when the run ended without a device stop but failed, then opens
 * its coredump in the debugger (target cudacore) so the faulting
 * thread's locals join the account. */
int diag_run_after(struct diag_run *r, struct dbg_ctl *c, int timeout_ms);

/* The GPU coredump the memcheck pass wrote (it stopped at the first
 * error), or NULL.  Owned by the run; valid until diag_run_free(). */
const char *diag_run_core(const struct diag_run *r);

/* The report (text, or a JSON object for the "diagnosis" member),
 * malloc'd; NULL when out of memory. */
char *diag_run_report(struct diag_run *r, bool json, const char *mode,
		      const char *stop_reason);
/* 0 no fault, 1 fault, 2 environment error. */
int diag_run_exit_code(struct diag_run *r);

/* The controller answers its own commands (stack, locals, focus query,
 * lanes table) in continuations, which the record hook never sees: feed
 * the decoded model after each settled stop (the screen too) so the
 * collector has the device stack, the kernel frame's values, the lanes
 * carrying the exception and a coredump's focus. */
void diag_feed_model(struct diag *d, const struct dbg_model *m);
/* diag_feed_model() and the rest of the run the model holds, for an
 * account built from the model alone (the screen's): the program's
 * output still in its ring (the newest 64 KiB) and, once it exited, how
 * it ended. */
void diag_feed_model_run(struct diag *d, const struct dbg_model *m);
/* A stack from ctl_host_stack() (the launching host thread). */
void diag_feed_stack(struct diag *d, const struct dec_stack *st);

#endif
