/* The screen: panes, focus, overlays, drawing and key dispatch.  One
 * `struct ui` per run; the main loop (tui/loop.c) owns it and is the only
 * caller of ui_draw(). */
#ifndef CUDBG_TUI_UI_H
#define CUDBG_TUI_UI_H

#include "tui/cells.h"
#include "tui/layout.h"
#include "tui/panes/pane.h"
#include "tui/textlog.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct ui;
struct dbg_model;
struct dbg_ctl;

/* A yes/no question shown over the screen (quit with a live program,
 * continue past a device exception). */
struct ui_question {
	bool open;
	char text[512];
	void (*yes)(struct ui *ui); /* run when answered y */
	bool q_confirms;            /* the quit question: q again is yes */
};

/* Mouse event details for TK_MOUSE. */
struct ui_mouse {
	int x, y;
	int button; /* 1 left, 2 middle, 3 right, 4/5 wheel up/down */
};

/* An action the UI asks of the debugger side (model/controller).  The
 * glue in tui/glue.c turns each into controller calls. */
enum ui_action {
	UA_CONTINUE,
	UA_NEXT,
	UA_STEP,
	UA_FINISH,
	UA_UNTIL,
	UA_RUN,
	UA_INTERRUPT,
	UA_MEMCHECK,   /* run the memcheck pass (again: stop it) */
	UA_TO_FAULT,   /* arg: a finding's number, 1-based, or NULL */
	UA_SAN_TOOL,   /* the next sanitizer tool for M (K) */
	UA_FAULT_THREAD, /* show the faulting thread (the pane that answers
			  * PANE_REQ_FAULT_THREAD: Threads) */
};

/* What the status line shows; filled by the glue from the model (or by
 * tests).  Strings are untrusted (sanitised when drawn). */
enum ui_state {
	UST_NONE,     /* no program yet */
	UST_STARTING, /* debugger starting, program not yet running */
	UST_RUNNING,
	UST_STOPPED,
	UST_EXITED,
	UST_GONE,     /* the debugger exited or crashed */
};

struct ui_status {
	char program[128];
	enum ui_state state;
	int exit_code;     /* UST_EXITED */
	char reason[256];  /* "Warp Assert in nll_loss_forward_..." */
	bool fault;        /* stopped on a device exception: continuing loses it */
	bool core;         /* a coredump: nothing runs, quitting kills nothing */
	char focus[256];   /* "kernel 0 block (0,0,0) thread (23,0,0) ..." */
	char focus_short[128]; /* "k0 blk (0,0,0) thr (23,0,0) ...", for narrow screens */
	struct timespec state_since; /* when state last changed (the clock of
				      * a long start or run on the status line) */
};

/* Where the program is stopped, for the source and SASS panes; filled by
 * the glue at each stop (or by tests).  Strings are untrusted. */
struct ui_where {
	char file[512];      /* as the debugger names it ("step_kernel.cu") */
	char fullname[1024]; /* the debugger's absolute path, may not exist here */
	int line;            /* 0: no line */
	char func[1024];     /* the function (kernel) full name */
	uint64_t pc;
	bool has_pc;
	/* The error PC of a device exception, when it is not the stop PC,
	 * and its line. */
	uint64_t error_pc;
	bool has_error_pc;
	int fault_line;      /* 0: none or the same as line */
	/* What else is known when there is no source: the assertion text's
	 * "FILE:LINE" ("/pytorch/aten/.../Loss.cu:245") and expression. */
	char assert_loc[512];
	char assert_expr[256];
};

/* A breakpoint, for the marks in source and SASS. */
struct ui_bp {
	int number;
	char file[512];     /* as set or resolved; matched by base name too */
	int line;
	uint64_t addr;      /* 0 when unknown */
	bool enabled;
	bool pending;
};

/* A one-line prompt on the hint line ("/" search, an expression...). */
struct ui_prompt {
	bool open;
	char label[32];
	char buf[256];
	size_t len;
	struct pane *pane; /* handed back to done */
	void (*done)(struct ui *ui, struct pane *p, const char *text);
};

/* What the screen's own policy does, which the glue (tui/glue.c) holds:
 * the run and step keys (a queue of steps typed ahead, replay to fault,
 * the memcheck pass), the diagnosis and the processes of a job.  Tests
 * fill it with recorders.  A pane's request of the debugger is no
 * action: panes call the controller (ui->ctl) themselves, through
 * tui/dbgpane.h's helpers, which report a refusal (ui_refused) and keep
 * the quit check on every console path (dpane_console). */
struct diag_run_view;

struct ui_actions {
	/* UA_*; arg: a location for UA_UNTIL ("file:line") or NULL.  0,
	 * or -1 after setting a message with ui_message(). */
	int (*act)(struct ui *ui, enum ui_action a, const char *arg);
	/* The diagnosis pipeline's account (include/cudbg/diagrun.h) as the glue's
	 * run holds it; update: feed it the model and what the screen knows
	 * beyond it (findings, a hang, the Python stack) first.  The Hints
	 * pane renders it.  May be NULL. */
	const struct diag_run_view *(*diagnosis)(struct ui *ui, bool update);
	/* Switches the session to process
	 * `index` of ui->job (its coredump).  May be NULL. */
	int (*open_process)(struct ui *ui, size_t index);
};

/* A full-screen modal (the --demo menu, tui/demo.c): while ui->modal is
 * set it draws the whole screen and gets every key and click. */
struct ui_modal {
	void (*draw)(struct ui *ui, void *ctx);
	int (*key)(struct ui *ui, void *ctx, int key, const struct ui_mouse *m);
};

struct config_bind;

struct ui {
	struct grid grid;
	struct layout layout;
	struct layout_req lreq;

	struct pane *panes;         /* every pane of tui/panes/panes.def */
	int npanes;
	int area_pane[AREA__PANES]; /* the pane each area shows, -1 none */
	/* Screen columns of a cut tab bar's ‹ and › at the last draw (a
	 * click there goes to the previous / next tab); 0: not drawn. */
	int tab_less_x[AREA__PANES], tab_more_x[AREA__PANES];

	bool console_input;  /* keys go to the console's line editor */
	bool help_open;
	int help_top;        /* first help line shown */
	struct ui_question ask;
	char message[256];   /* shown on the hint line until the next key */
	uint8_t message_color;
	bool mono;           /* no colours (NO_COLOR or the terminal) */
	bool quit;
	int exit_code;
	bool dirty;          /* a redraw is due */
	bool suspend;        /* C-z: the loop stops us with the terminal
			      * restored, then repaints */
	bool repaint;        /* C-l: the terminal is repainted from scratch */

	struct textlog output;  /* the program's terminal (pty) */
	struct textlog console; /* the debugger console transcript */

	/* Source search directories (-d), in order; NULL ended. */
	const char *const *source_dirs;

	struct ui_status status;
	unsigned long stops; /* stops seen, counted by the glue (:wait-stop) */
	unsigned long diag_runs; /* analyses run for the screen (the glue;
				  * :assert-diagnoses: view actions run none) */
	struct ui_where where;
	/* The live Python stack at this stop (tui/glue_py.c; NULL: none),
	 * the bad value it found (NULL: none), and the Python frame the
	 * Source pane shows: 1 + an index into pystack->frames picked in
	 * the Stack pane, or 0: the stopped frame, else (when that has no
	 * source) the user's innermost frame. */
	const struct diag_pystack *pystack;
	const char *py_bad;
	int py_pick;
	struct ui_bp *bps;  /* the breakpoints (the glue's array) */
	size_t nbps;
	struct ui_prompt prompt;

	/* A command in flight, for the spinner on the status line. */
	bool busy;
	char busy_what[64];
	/* The memcheck pass or replay to fault under way, in words, for the
	 * status line and the Hints pane ("" when none). */
	char pass[128];
	struct timespec pass_since;
	char to_fault_arg[16]; /* the finding T or Enter asked for */
	struct timespec busy_since;
	unsigned spin;
	/* A step from a key is in flight: the loop draws when it stopped
	 * (or after a bound), not the "running" in between. */
	bool hold_draw;
	struct timespec hold_since;

	const struct ui_actions *actions; /* NULL: no debugger behind */
	void *actions_ctx;                /* theirs */

	/* The debugger model and its controller (include/cudbg/model.h),
	 * NULL in framework tests.  Panes read the model (never keep its
	 * pointers across a loop pass) and act through the controller from
	 * key()/on_change(), never from draw(). */
	const struct dbg_model *model;
	struct dbg_ctl *ctl;

	/* The modal above, and the key bindings of
	 * the config file (include/cudbg/config.h): a bound key does what
	 * its target key does as a global key, except while typing in the
	 * console or a prompt and under an overlay. */
	const struct ui_modal *modal;
	void *modal_ctx;
	const struct config_bind *binds;
	size_t nbinds;
	/* The job of many (docs/multiprocess.md)
	 * processes the session belongs to (--job, --core-dir; the
	 * options' table, not owned), NULL otherwise; job_current is the
	 * process whose coredump the session shows (an index into it). */
	const struct job *job;
	long job_current;
};

/* Creates every pane; returns 0 or -1. */
int ui_init(struct ui *ui);
void ui_free(struct ui *ui); /* accepts a zeroed ui */

/* Sets the screen size; re-lays out and marks the screen dirty. */
void ui_resize(struct ui *ui, int cols, int rows);
/* Draws everything into ui->grid. */
void ui_draw(struct ui *ui);

/* One key (TK_* or a byte); m for TK_MOUSE.  Returns PR_* flags. */
int ui_key(struct ui *ui, int key, const struct ui_mouse *m);
/* Tells every pane what changed (enum ui_change bits). */
void ui_changed(struct ui *ui, unsigned what);

/* The focused pane, or NULL. */
struct pane *ui_focus_pane(struct ui *ui);
/* Whether p is on screen now. */
bool ui_pane_visible(const struct ui *ui, const struct pane *p);
/* Finds a pane by its ops name. */
struct pane *ui_pane(struct ui *ui, const char *name);
/* Shows pane p in its area and focuses it. */
void ui_focus(struct ui *ui, struct pane *p);
/* The keys the screen shows for hint steps' actions (enum diag_action
 * of cudbg/hints.h: "M", "T"; NULL: the action's name), in the Hints
 * pane and in the report the diagnosis pipeline renders for it. */
extern const char *const ui_diag_action_keys[];

/* Asks the panes, in order, to do r (enum pane_request) until one does
 * it (it shows itself as r says).  PR_* flags; PR_IGNORED when none
 * did. */
int ui_pane_request(struct ui *ui, int r);
void ui_set_code_mode(struct ui *ui, enum code_mode m);

/* A message on the hint line (sanitised when drawn). */
void ui_message(struct ui *ui, uint8_t color, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The one reporter of a refused controller call (r < 0), from the panes
 * and the glue alike: its reason (the model's error, or what CTL_EINVAL
 * means) on the hint line.  0 when r >= 0, else -1. */
int ui_refused(struct ui *ui, int64_t r);
/* Opens a yes/no question. */
void ui_ask(struct ui *ui, void (*yes)(struct ui *), const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Opens the hint-line prompt; done runs on Enter (not on Esc). */
void ui_prompt_open(struct ui *ui, struct pane *p, const char *label,
		    void (*done)(struct ui *, struct pane *, const char *));

/* Appends program output / console text (raw bytes, sanitised at draw). */
void ui_output(struct ui *ui, const char *s, size_t len);
void ui_console_text(struct ui *ui, const char *s, size_t len, uint8_t kind);

/* Runs an action through ui->actions, or says there is no debugger. */
int ui_act(struct ui *ui, enum ui_action a, const char *arg);

/* Replay to fault for finding number `finding` ("3"; NULL: the first
 * with a location), asking first while a live program would be lost. */
void ui_to_fault(struct ui *ui, const char *finding);
/* The memcheck pass (asks first while a live program would be lost);
 * while one runs, stops it. */
void ui_memcheck(struct ui *ui);

/* q, or quit typed in the console (q, quit, :q, q!): quits, asking first
 * while the program is alive.  Returns PR_* flags. */
int ui_quit(struct ui *ui);

/* Focuses the console and starts line input. */
void ui_console_enter(struct ui *ui);

/* Lines in the help overlay. */
int ui_help_count(struct ui *ui);

/* Elapsed seconds since ts (monotonic). */
double ui_elapsed(const struct timespec *ts);
/* What the status line says for a command in flight: words for the slow
 * ones a user cannot read as MI (a library's symbols read at a stop,
 * the calls that take the Python stack), else the command itself. */
const char *ui_busy_words(const char *cmd);

#endif
