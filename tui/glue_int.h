/* The glue's state, shared by tui/glue.c (model to screen, actions) and
 * tui/glue_diag.c (the memcheck pass, replay to fault and the screen's
 * diagnosis pipeline, which the Hints pane renders), and the other
 * tui/glue_*.c.  Private to them. */
#ifndef CUDBG_TUI_GLUE_INT_H
#define CUDBG_TUI_GLUE_INT_H

#include "cudbg/assertline.h"
#include "cudbg/memcheck.h"
#include "cudbg/model.h"
#include "cudbg/pystack.h"
#include "cudbg/refault.h"
#include "cudbg/sanitizer.h"
#include "tui/ui.h"

struct cudbg_options;
struct diag_hang;
struct diag_run;

/* Steps typed ahead that wait (200 `n` in one burst is a real use). */
#define GLUE_STEP_QUEUE 1024

struct glue {
	struct ui *ui;
	struct dbg_ctl *ctl;
	const char **dirs;       /* NULL-ended copy of the -d list */
	uint64_t out_seen;       /* bytes of the model's rings copied */
	uint64_t con_seen;
	struct ui_bp *bps;
	size_t capbps;
	const char *const *breaks; /* -b locations (point into argv) */
	size_t nbreaks;
	bool autorun;            /* run a launched program once ready */
	bool started;            /* breaks and autorun done */

	/* tui/glue_diag.c */
	const struct cudbg_options *o; /* outlives the glue */
	struct diag_run *dr;      /* the diagnosis pipeline: rules, the
				   * account, its hints and report, the
				   * auto policy (include/cudbg/diagrun.h); owned */
	struct diag_memcheck *mc; /* the running or last pass: its private
				   * directory holds the report and the core */
	struct diag_memcheck *mc_prev; /* the pass before (its core may be
					* the open session until mc ends) */
	size_t mc_findings;       /* error headers seen while it runs */
	bool mc_running, mc_ran, mc_cancelled;
	char mc_kernel[256];      /* the kernel M narrowed the pass to after
				   * a stop in it ("" : every kernel) */
	bool sanitizer_missing;   /* the last start found no sanitizer */
	char pass_failed[512];    /* why the last pass gave no report ("":
				   * it did, or none ran): the san-failed
				   * hint, as in batch */
	struct diag_san *san;     /* findings: the last pass's, or
				   * --sanitizer-report's; owned */
	bool san_lent;            /* san is lent to the pipeline's account
				   * (glue_diag.c feed) */

	const char *san_path;     /* --sanitizer-report while san is its */
	const char *san_tool;     /* the pass's tool, NULL: memcheck (K) */
	struct diag_refault *rf;  /* replay to fault under way, or NULL */
	struct diag_refault_target rf_target;
	bool rf_from_stop;        /* the target is the stop's thread (an
				   * assert, a trap, the sanitizer's core) */
	bool auto_checked;        /* the auto policy looked at this run */
	unsigned culprit_stop;    /* the stop (glue_stop_key) the culprit-lane
				   * search last ran at, and moved the focus
				   * for */
	unsigned access_stop;     /* the stop (count) a host crash's address
				   * was asked at (ctl_host_access) */
	bool culprit_moved;
	unsigned freed_stop;      /* the stop the freed-memory lookup ran at */
	bool rec_told;            /* the recording's failure is on the
				   * status line */
	bool core_from_pass;      /* the session is the pass's coredump */
	bool core_pending;        /* ...being opened: say what it shows */
	char program[128];        /* the status line's first program name */
	size_t core_nerr;
	double core_secs;
	bool run_after_pass;      /* --memcheck=always held the live run */
	int nsession_fds;         /* the session's share of the loop's fds */

	/* tui/glue_py.c: the live Python stack of stop py_stop (0: none) */
	struct diag_pystack_result py;
	unsigned long py_stop;
	bool py_after_done;     /* the value and the late symbols asked for */
	bool py_checked, py_argv; /* diag_argv_is_python, once (glue_py.c) */

	/* tui/glue_hang.c */
	struct {
		double run_began;     /* CLOCK_MONOTONIC s; 0: not running */
		double seconds;       /* how long it ran when interrupted */
		bool interrupting;    /* our interrupt (C-c, --timeout) */
		bool tables_asked;    /* ctl_hang_tables sent */
		struct diag_hang *summary; /* owned; NULL when none */
		bool scanned;         /* recorded looked up (replays) */
		double recorded;      /* the recording's interrupt, or -1 */
	} hang;
	bool cmds_sent;           /* -x / -ex went to the first session */
	long clock_shown;         /* the second the status line's clock shows */

	/* tui/glue_steps.c: stepping keys typed while a step is in flight */
	unsigned char steps[GLUE_STEP_QUEUE]; /* enum ui_action, a ring */
	size_t step_head, nsteps;
	bool exec_sent;           /* a step from a key is in flight */
	enum ui_action exec_what; /* which */
	unsigned exec_stops;      /* the model's stop count when it was sent */
	uint64_t exec_pc;         /* and the stop's pc (0: none) */
};

/* tui/glue.c: replaces the debugger session by one for sc (the old
 * debugger and its program are stopped; nothing of it is recorded again).
 * autorun: run a launched program once ready.  Returns 0, or -1 with the
 * reason in err and the old session still in place. */
/* Which stop the screen's per-stop work is of: the stop count, and a
 * coredump (which sends no *stopped: its count stays 0, "none" here)
 * counts as stop 1. */
unsigned glue_stop_key(const struct dbg_model *m);
int glue_switch(struct glue *g, const struct session_config *sc, bool autorun,
		char *err, size_t cap);

/* tui/glue_steps.c */
/* Whether action a is a step the queue takes (continue, next, step,
 * finish). */
bool glue_steps_queues(enum ui_action a);
/* Sends the step now, or queues it behind the one in flight.  0 or -1. */
int glue_steps_act(struct glue *g, enum ui_action a);
/* After every event: sends the next queued step once the last stopped
 * and its refresh is done; ends the hold on drawing. */
void glue_steps_pump(struct glue *g);
/* Drops the queue (an interrupt, a new session). */
void glue_steps_clear(struct glue *g);
/* tui/glue_job.c: --job and --core-dir: the Processes pane's table and
 * its Enter (switch to a process's coredump). */
void glue_job_attach(struct glue *g);
int glue_open_process(struct ui *ui, size_t index);

/* tui/glue_diag.c */
/* Starts the pass or replay the options ask for at start (--memcheck=
 * always); returns whether the program's own run must wait for it. */
bool glue_diag_start(struct glue *g);
/* After every loop event: drives the pass and the replay to fault, and
 * applies the auto policy once the program ended. */
void glue_diag_step(struct glue *g);
/* The pass's fds after the session's; returns how many it filled. */
int glue_diag_fds(struct glue *g, struct pollfd *pfd, int max);
void glue_diag_ready(struct glue *g, struct pollfd *pfd, int n);
/* The record hook of every controller the glue starts. */
void glue_diag_record(struct glue *g, const struct mi_record *rec);
/* UA_MEMCHECK / UA_TO_FAULT (arg: the finding's number, 1-based, or
 * NULL for the first one with a location). */
int glue_diag_memcheck(struct glue *g);
int glue_diag_to_fault(struct glue *g, const char *arg);
/* UA_SAN_TOOL: the tool the next pass runs, in turn memcheck, racecheck,
 * initcheck, synccheck (from --sanitizer-tool at start). */
int glue_diag_next_tool(struct glue *g);
/* C-c while a replay to fault runs: it ends (the program is interrupted
 * by the caller).  Returns whether one was running. */
bool glue_diag_stop_refault(struct glue *g);
/* The pipeline (g->dr, made by glue_diag_new; its hooks are the
 * controller's diag_hooks, start_ctl): glue_diag_update feeds it the model
 * and what the screen adds to it (the findings, a hang summary, the
 * Python stack) and brings its view up to date. */
int glue_diag_new(struct glue *g, char *err, size_t cap);
void glue_diag_update(struct glue *g);
/* A new account for a new session (glue_switch). */
void glue_diag_restart(struct glue *g);
void glue_diag_free(struct glue *g);

/* tui/glue_py.c */
/* After every loop event: at a new settled live stop of a Python program
 * takes its stack from the interpreter (ui->pystack), once per stop. */
void glue_py_step(struct glue *g);
/* Hands this stop's Python stack and bad value to a diagnosis being
 * made (glue_diag_update). */
void glue_py_feed(struct glue *g, struct diag *d);
void glue_py_free(struct glue *g);

/* tui/glue_hang.c */
/* UA_INTERRUPT: C-c; a run interrupted this way is summarised as a hang. */
int glue_hang_interrupt(struct glue *g);
/* After every loop event: --timeout, and the summary once the stop of
 * the interrupt is shown. */
void glue_hang_step(struct glue *g);
/* Milliseconds until --timeout runs out (-1: no such deadline). */
int glue_hang_timeout_ms(struct glue *g);
/* Adds the hang summary to a diagnosis being made (glue_diag_update). */
void glue_hang_feed(struct glue *g, struct diag *d);
void glue_hang_free(struct glue *g);

#endif
