/* Replay to fault: rerun the program live and stop the faulting thread
 * just before its bad access, from a memcheck finding.
 *
 * Code: diag/refault.c.  No curses, no printing.
 *
 * The recipe (cuda-gdb 13, see ../shared/docs/cuda-gdb-facts.md,
 * "Stopping one thread before its fault"): a breakpoint condition on CUDA
 * built-ins cannot be set before the kernel's module is loaded, and adding
 * it after the first hit is too late (the warps are already past).  So:
 *   -gdb-set cuda break_on_launch application
 *   -exec-run
 *   at the kernel-entry stop (breakpoint-hit without bkptno):
 *     -break-insert -c "blockIdx.x == B && threadIdx.x == T" FILE:LINE
 *     -gdb-set cuda break_on_launch none
 *     -exec-continue
 *   the stop lands on the thread; a stop on another thread (the condition
 *   leaves out y/z when they are 0) is continued, a bounded number of times.
 *
 * This is a state machine over MI records: it says which command to send
 * next and consumes every record; the caller owns the debugger session
 * (the model's controller, or a test replaying a transcript).
 */
#ifndef CUDBG_REFAULT_H
#define CUDBG_REFAULT_H

#include <stdbool.h>
#include <stddef.h>

#include "cudbg/diag.h"

struct dbg_ctl;
struct mi_record;
struct diag_san_record;

struct diag_refault_target {
	char file[512];    /* breakpoint file (a basename, as gdb wants) */
	unsigned line;
	char kernel[256];  /* kernel name to stop in ("" = any) */
	struct diag_dim3 block, thread;
	struct diag_dim3 block_dim; /* 0s when unknown; with y/z > 1 the
				     * condition names every axis */
};

/* Fills a target from a sanitizer finding (needs thread, block, path and
 * line).  Returns 0 or DIAG_ENOTFOUND when the record has no location. */
int diag_refault_target_from(const struct diag_san_record *r,
			     struct diag_refault_target *t);
/* From a precise stop (diag/refault_stop.c), no finding needed: a device
 * assert() or __trap() (the stop's focus is the thread that ran it), or
 * compute-sanitizer's coredump (its focus is the faulting thread).  The
 * line is the innermost frame with source (the kernel's, under
 * __assert_fail).  Hardware exceptions are not precise (the focus is lane
 * 0 of the warp).  Returns 0 or DIAG_ENOTFOUND. */
struct dbg_model;
bool diag_refault_stop_precise(const struct dbg_model *m);
int diag_refault_target_from_stop(const struct dbg_model *m,
				  struct diag_refault_target *t);
/* The -break-insert condition for the target, into buf. */
size_t diag_refault_condition(const struct diag_refault_target *t, char *buf,
			      size_t cap);

enum diag_refault_state {
	DIAG_RF_START,       /* nothing sent */
	DIAG_RF_SETUP,       /* break_on_launch being set */
	DIAG_RF_RUNNING,     /* waiting for the kernel-entry stop */
	DIAG_RF_INSERTING,   /* conditional breakpoint being inserted */
	DIAG_RF_CONTINUING,  /* waiting for the breakpoint */
	DIAG_RF_ARRIVED,     /* stopped on the target thread */
	DIAG_RF_FAILED,      /* see diag_refault_error() */
};

struct diag_refault;

struct diag_refault *diag_refault_new(const struct diag_refault_target *t);
void diag_refault_free(struct diag_refault *r); /* accepts NULL */

/* The next command to send (no token, no newline), or NULL when the
 * machine waits for a record.  Each command is handed out once. */
const char *diag_refault_next(struct diag_refault *r);
/* Whether diag_refault_next() has a command now. */
bool diag_refault_pending(const struct diag_refault *r);
/* The results (^done/^error) of the commands it handed out and every
 * async record (*stopped ...), in order; results of other commands the
 * caller sends meanwhile must not be fed.  Returns the state after it. */
enum diag_refault_state diag_refault_on_record(struct diag_refault *r,
					       const struct mi_record *rec);
enum diag_refault_state diag_refault_state(const struct diag_refault *r);
const char *diag_refault_error(const struct diag_refault *r);
int diag_refault_bkptno(const struct diag_refault *r); /* inserted, or -1 */

/* Runs the machine on a controller (include/cudbg/model.h): its commands
 * go out on the controller's session with their own continuations (so
 * the results of the controller's refresh never reach the machine), the
 * program is started with session_run (in a replay, the recorded run
 * command).  The caller's on_record hook must pass every record to
 * diag_refault_on_async() (it keeps only async ones).  Returns the final
 * state: ARRIVED once the stop's refresh is done (the model then shows
 * the thread and its locals), FAILED, or the current state on timeout. */
enum diag_refault_state diag_refault_drive(struct diag_refault *r,
					   struct dbg_ctl *c, int timeout_ms);
/* The same without blocking, for the screen's loop: sends what the
 * machine has ready and returns its state; call it again after every
 * event (and check ARRIVED once the controller is no longer busy).  Call
 * diag_refault_detach() before freeing the machine. */
enum diag_refault_state diag_refault_pump(struct diag_refault *r,
					  struct dbg_ctl *c);
void diag_refault_detach(struct diag_refault *r, struct dbg_ctl *c);
void diag_refault_on_async(struct diag_refault *r,
			   const struct mi_record *rec);

#endif
