/* The diagnosis pipeline: one object that is fed a session's events
 * (diag_run_hooks) and model updates (diag_run_update), holds the rules,
 * the current account, its hints and its report, and decides the memcheck
 * pass by policy (diag_run_auto_pass, the only copy of the auto policy).
 * Batch mode (batch/batch.c), the screen (tui/glue*.c; the Hints pane
 * renders what it holds) and the DAP server (dap/) each drive one; see
 * docs/architecture.md, "One diagnosis pipeline".
 *
 * All three stream, through the same calls: the records' text, program
 * bytes and stderr lines go to the collector through the hooks, the
 * model at each settled stop (diag_run_fault, diag_run_after; the
 * screen's diag_run_update), and diag_run_after() reads the values the
 * hints want, the host stack and the lanes, and runs the pass by policy.
 * The screen replaces its controller on a rerun, a pass's coredump or
 * another process of a job, and starts a new account for it then
 * (diag_run_restart), so nothing of the old session carries over.
 *
 * Code: diag/diagrun.c (the account from the model: diag/model_feed.c).
 * Nothing here prints; errors come back as one-line messages.
 */
#ifndef CUDBG_DIAGRUN_H
#define CUDBG_DIAGRUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "cudbg/diag.h"
#include "cudbg/memcheck.h"
#include "cudbg/pystack.h"

struct dbg_ctl;
struct dbg_model;
struct dec_stack;
struct session_handlers;
struct diag_rules;

struct diag_run;
struct diag_hints;
struct session_caps;

/* What the pipeline needs to know, filled by the entry point from its
 * command line (opts/options.c options_diag_config()).  Pointers are
 * borrowed: they must outlive the run. */
struct diag_run_config {
	char *const *argv;          /* the program, NULL ended, or NULL */
	const char *const *dirs;    /* source directories */
	size_t ndirs;
	enum diag_memcheck_policy memcheck;
	const char *sanitizer;      /* the sanitizer binary, or NULL */
	const char *sanitizer_tool; /* NULL: memcheck */
	char *const *san_flags;      /* --sanitizer-flags words (checked) */
	size_t nsan_flags;
	const char *memcheck_kernel; /* the pass checks only kernels of this
				      * name (--kernel-name), NULL: every one */
	const char *sanitizer_report; /* a saved XML report, or NULL */
	const char *debugger;       /* for the pass's coredump */
	const char *replay;         /* a recording whose pass text is read */
	bool report_elsewhere;      /* the caller lends a saved report of its
				     * own (the screen's --sanitizer-report):
				     * a replay's findings are not read from
				     * its pass text */
	bool keep_temp;
	/* where the launched program's processes write their deaths
	 * (preload/death.c; session_config.child_dir), or NULL */
	const char *child_dir;
	bool can_rerun;             /* a launch: the pass can run the program */
	bool no_pystack;            /* never ask for the Python stack */
	/* The screen: a rules file that cannot be read leaves the run
	 * without hints (diag_run_rules_error says why) instead of failing. */
	bool rules_optional;
	/* Labels of the hint steps' actions in the report (the screen's
	 * keys: "M", "T"), indexed by enum diag_action; NULL: names. */
	const char *const *action_labels;
};

/* Removes dir, its files and its subdirectories down to `depth` levels
 * (0: files only); best effort, errors ignored (a private temp dir). */
void diag_remove_dir(const char *dir, int depth);

/* Loads the rules file (exe_dir: where the binary is, for a build
 * tree's data/) and the sanitizer report.  NULL with a one-line message
 * in err when the rules file (unless rules_optional) or the sanitizer
 * report cannot be read (usage/environment errors). */
struct diag_run *diag_run_new(const struct diag_run_config *cfg,
			      const char *exe_dir, char *err, size_t cap);
void diag_run_free(struct diag_run *r); /* accepts NULL */

struct diag *diag_run_diag(struct diag_run *r);
/* The rules, or NULL when they could not be read (rules_optional); then
 * diag_run_rules_error() says why. */
const struct diag_rules *diag_run_rules(const struct diag_run *r);
const char *diag_run_rules_error(const struct diag_run *r);
/* A replay's recorded interrupt of a running program, in seconds after
 * its run began (diag_replay_notes's hang_seconds: what --timeout stands
 * for in a replay, which has no clock); -1 when it holds none, when r is
 * no replay's, or r is NULL. */
double diag_run_replay_hang_seconds(const struct diag_run *r);
/* The signal that had that interrupt sent (batch mode's SIGINT or
 * SIGTERM, diag_interrupt_note), 0 for --timeout, none or NULL. */
int diag_run_replay_interrupt_signal(const struct diag_run *r);

/* Fills the controller hooks so the records' text, program bytes and stderr
 * lines reach the collector, and the debugger's readiness is timed
 * (h->ctx is the run). */
void diag_run_hooks(struct diag_run *r, struct session_handlers *h);

/* A flag that ends the waits of the memcheck pass when it becomes
 * non-zero (batch mode's signal handler sets it): the sanitizer and the
 * program it runs are then stopped at once.  NULL: no such flag. */
void diag_run_set_cancel(struct diag_run *r, const volatile sig_atomic_t *flag);
/* The session failed (the debugger stopped answering, was killed, the
 * program did not start...): the report carries the line and, with no
 * fault found, says the diagnosis is incomplete instead of "no fault
 * found".  Borrowed until the next report; NULL clears it. */
void diag_run_set_error(struct diag_run *r, const char *error);
/* The session ends after diag_run_after's report (batch): what it calls
 * into the program for need not be undone (the Python stack's buffer
 * is left to the program's end: one call fewer). */
void diag_run_set_final_stop(struct diag_run *r);

/* Called about ten times a second while the pass runs (before or after
 * the debugger run), with what runs ("the memcheck pass", "the racecheck
 * pass") and its seconds so far, and once with secs < 0 when it ended:
 * batch mode draws its clock on a terminal.  fn NULL: none. */
typedef void (*diag_run_progress_fn)(void *ctx, const char *what, double secs);
void diag_run_set_progress(struct diag_run *r, diag_run_progress_fn fn,
			   void *ctx);

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
/* The pass's options as this run starts it (the sanitizer, the program,
 * the tool, the kernel filter, --keep-temp): batch's pass and the
 * screen's (which may pick another tool, K) start from the same. */
struct diag_memcheck_opts;
void diag_run_pass_opts(const struct diag_run *r, struct diag_memcheck_opts *mo);

/* Whether the pass runs before the program's own run (--memcheck=always
 * and a program to rerun): what diag_run_before() does, and what the
 * screen asks before it starts its pass from the loop. */
bool diag_run_pass_first(const struct diag_run *r);

/* After diag_run_before (or a replay of its recording): the pass's
 * findings are the whole report and the program is not run again.  The
 * pass stopped compute-sanitizer at its first error, an imprecise one (a
 * device assert, a trap, a stack overflow), whose coredump would hold no
 * CUDA focus (include/cudbg/memcheck.h, diag_memcheck_early); batch mode
 * reports at once (a live run would double the time of a PyTorch
 * program).  The screen runs the program live anyway: there the user
 * wants the stop. */
bool diag_run_pass_final(const struct diag_run *r);

/* Whether the pass can run the program again (a launch with a program). */
bool diag_run_can_rerun(const struct diag_run *r);

/* When things happened, in seconds on CLOCK_MONOTONIC (0: not at all):
 * for the phase timings batch mode prints with CUDBG_TIMING=1. */
/* The steps of diag_run_after, each's seconds (0: not taken). */
enum diag_after_step {
	DIAG_AFTER_LATE_SYMBOLS, /* torch's CUDA library read at the stop */
	DIAG_AFTER_LANES,        /* the lanes table, the culprit search */
	DIAG_AFTER_FREED,        /* the allocation watch's lookup */
	DIAG_AFTER_HOST_STACK,
	DIAG_AFTER_VALUES,
	DIAG_AFTER_PYSTACK,
	DIAG_AFTER_CHILDREN,
	DIAG_AFTER_COUNT
};

struct diag_run_times {
	double pass_start, pass_end; /* the memcheck pass */
	double debugger_ready;       /* the first debugger of the hooks
				      * (diag_run_hooks) answered its start
				      * sequence */
	double after[DIAG_AFTER_COUNT];
};

/* The step's name in CUDBG_TIMING's line ("late_symbols", ...). */
const char *diag_after_step_name(enum diag_after_step s);
void diag_run_get_times(const struct diag_run *r, struct diag_run_times *t);

/* After the live run stopped or ended (c may be NULL): reads the values
 * the hints want in the kernel's frame; with --memcheck=auto, runs the
 * pass when the run ended without a device stop but failed, then opens
 * its coredump in the debugger (target cudacore) so the faulting
 * thread's locals join the account. */
int diag_run_after(struct diag_run *r, struct dbg_ctl *c, int timeout_ms);

/* The deaths the program's processes wrote (preload/death.c,
 * diag_run_config.child_dir: death.PID, "PID SIGNAL PPID" and the
 * command line) join the account; the program's own death (s's program:
 * its debugger saw it) is no child's.  Each is noted once in s's
 * recording, and a replay of it reads them from there.  s may be NULL.
 * diag_run_after() reads them; the screen's feed at each update. */
struct session;
void diag_run_read_child_deaths(struct diag_run *r, struct session *s);

/* The GPU coredump the memcheck pass wrote (it stopped at the first
 * error), or NULL.  Owned by the run; valid until diag_run_free(). */
const char *diag_run_core(const struct diag_run *r);
/* diag_run_core when that coredump is worth opening
 * (diag_memcheck_core_to_open): NULL for an imprecise first error's (a
 * device assert, a trap), in which cuda-gdb 13 finds no CUDA focus
 * (docs/tool-quirks.md), and for a first error whose text names no
 * source line. */
const char *diag_run_core_to_open(const struct diag_run *r);

/* Feeds the model m (diag_feed_model) and analyses: the account as it
 * stands (a streaming run: batch, DAP).  Valid until the run is fed
 * again. */
const struct diag_fault *diag_run_fault(struct diag_run *r,
					const struct dbg_model *m);

/* The screen's step: the model m fed to the account the hooks have
 * streamed into (diag_feed_model, as diag_run_fault does), then what
 * feed(ctx, d) adds (findings, a hang summary, the Python stack: each
 * replaces what an earlier feed gave; may be NULL), the account analysed,
 * its hints matched and its report rendered as --batch prints it.
 * Returns 0, or a negative DIAG_E* code (no rules: DIAG_ENOTFOUND; the
 * view is then empty). */
typedef void (*diag_run_feed_fn)(void *ctx, struct diag *d);
int diag_run_update(struct diag_run *r, const struct dbg_model *m,
		    diag_run_feed_fn feed, void *ctx);

/* The first assertion line the account has read from the program's
 * output (the streamed bytes, a pass's text), or NULL: the screen's
 * Source pane names it for a kernel without line info. */
struct diag_assert_entry;
const struct diag_assert_entry *diag_run_first_assert(const struct diag_run *r);

/* A new account for a new session (the screen's rerun, a pass's
 * coredump, another process of a job): the old one and the view into
 * it are dropped; the program, the source directories and a replay's
 * pass text carry over.  0 or DIAG_ENOMEM (the old account stays). */
int diag_run_restart(struct diag_run *r);

/* What the last diag_run_update() (or report) left: owned by the run,
 * valid until the next update, report or diag_run_free(). */
struct diag_run_view {
	const struct diag_fault *fault;  /* NULL before the first update */
	const struct diag_hints *hints;
	const char *report;              /* the text report, or NULL */
	/* what its lines lead to (a key step's action, a finding) */
	const struct diag_line_tag *report_tags;
	size_t n_report_tags;
	const char *stop_reason;         /* what the model says stopped it */
	bool account;   /* there is something to diagnose: a stop, an
			 * exit, a sanitizer report, the pass ran */
	const char *no_rules; /* why there are no hints (the rules file
			       * could not be read), or NULL */
	unsigned long generation;        /* changes at each update */
};
const struct diag_run_view *diag_run_view(const struct diag_run *r);

/* The auto policy, the only copy: whether the memcheck pass should run
 * now, after a run that ended or stopped, given the account as it stands
 * (diag_run_fault / diag_run_update first): --memcheck=auto, the program
 * can be rerun, the debugger is cuda-gdb (caps NULL or not probed yet
 * count as cuda-gdb; a CPU program under plain gdb has nothing for
 * compute-sanitizer), and the run failed without a device stop
 * (diag_memcheck_wanted).  The callers decide only when to ask. */
bool diag_run_auto_pass(struct diag_run *r, const struct session_caps *caps);

/* The report (text, or a JSON object for the "diagnosis" member),
 * malloc'd; NULL when out of memory. */
char *diag_run_report(struct diag_run *r, bool json, const char *mode,
		      const char *stop_reason);
/* The hints of the account as it stands (matched again; owned by the
 * run, valid until the next call that feeds, reports or updates). */
const struct diag_hints *diag_run_hints(struct diag_run *r);
/* 0 no fault, 1 fault, 2 environment error. */
int diag_run_exit_code(struct diag_run *r);

/* The one way the debugger's account reaches the collector: the model's
 * stop (the first device exception, a host signal), a core's story, the
 * exit, the stacks, the selected frame's values, the lanes and kernels
 * tables, the culprit lane and the freed-memory lookup.  Feed it after
 * each settled stop and at the end (diag_run_fault does); what it took
 * once (the first fault) later feeds do not replace. */
void diag_feed_model(struct diag *d, const struct dbg_model *m);
/* The model's CUDA focus as the diagnosis keeps it (valid only with a
 * block and a thread): the one copy the diagnosis and the batch report
 * make. */
struct dec_focus;
void diag_focus_from_model(struct diag_focus *o, const struct dec_focus *f);
/* A stack from ctl_host_stack() (the launching host thread). */
void diag_feed_stack(struct diag *d, const struct dec_stack *st);

/* At a CPU crash by SIGSEGV or SIGBUS: asks the crash's address and
 * which of the crashing line's dereferences (diag_line_derefs, the line
 * read through the run's source directories) holds it
 * (ctl_host_access); the answers reach the diagnosis through the model.
 * 0 when asked, -1 when not such a stop. */
int diag_run_host_access(struct diag_run *r, struct dbg_ctl *c);
/* Starts the culprit-lane search at a warp-level address fault
 * (ctl_culprit_search), with the faulting source line's access asked
 * first when the line has just one (line_one_access, read through the
 * run's source directories).  0 when it started, else ctl_culprit_search's
 * code (CTL_ESTATE: not such a fault). */
int diag_run_culprit_search(struct diag_run *r, struct dbg_ctl *c);
/* When the culprit-lane search failed because the faulting load wrote
 * over its address register (a -G build), starts the search by the
 * faulting source line's access instead (diag_culprit_lvalue, the line
 * read through the run's source directories; ctl_culprit_search_lvalue).
 * 0 when it started (its answers arrive as the search's), -1 when there
 * is nothing to do. */
int diag_run_culprit_by_lvalue(struct diag_run *r, struct dbg_ctl *c);
/* Asks whether this stop's bad address lies in device memory the
 * program freed (ctl_freed_lookup): the lanes' addresses of the faulting
 * access (the culprit's first), or a host SIGSEGV's si_addr.  Call once
 * the culprit search has settled.  0 when asked (the answer arrives in
 * model->freed, MODEL_CH_FREED), -1 when there is nothing to ask: no
 * allocation watched, no such address. */
int diag_run_freed_lookup(struct diag_run *r, struct dbg_ctl *c);
/* The kind of bad value the fault's tensors are read for: the best
 * matching rule's `value` (diag_hints_value), NONE when no rule has one. */
enum diag_pybad_kind diag_run_value_kind(struct diag_run *r);

#endif
