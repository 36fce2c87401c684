/* The main loop: one ppoll over the keyboard, the debugger session's fds
 * and a signal self-pipe.  Never blocks on the debugger; only it redraws. */
#ifndef CUDBG_TUI_LOOP_H
#define CUDBG_TUI_LOOP_H

#include "tui/backend.h"
#include "tui/ui.h"

#include <poll.h>
#include <sys/types.h>

/* Where the debugger side plugs in (the glue over session.h; tests use
 * fakes).  All optional. */
struct loop_source {
	/* Fills at most max pollfds; returns how many. */
	int (*fds)(void *ctx, struct pollfd *pfd, int max);
	/* After ppoll: handles the revents of the fds it filled. */
	void (*ready)(void *ctx, struct pollfd *pfd, int n);
	/* Milliseconds until it needs a call to ready() anyway, -1 none. */
	int (*timeout_ms)(void *ctx);
	/* SIGCHLD arrived: reap. */
	void (*child)(void *ctx);
	/* True when no command is in flight and nothing is queued (for the
	 * script's :wait-idle). */
	bool (*idle)(void *ctx);
	/* The UI is leaving: stop the debugger and the program. */
	void (*shutdown)(void *ctx);
	void *ctx;
};

struct script;

struct loop {
	struct ui *ui;
	struct backend *be;
	struct loop_source src;
	struct script *script; /* a test script, or NULL */
	char error[512];       /* why the loop failed */
};

/* Installs the signal handlers (flags and a self-pipe only) and the
 * crash handlers that restore the terminal.  Returns 0 or -1. */
int loop_signals_init(void);
/* The process group a crash must kill (the debugger's; 0: none). */
void loop_set_crash_pgid(pid_t pgid);
/* The same for the memcheck pass (compute-sanitizer and the program). */
void loop_set_crash_pass_pgid(pid_t pgid);
/* The same for the program the debugger started (its own group). */
void loop_set_crash_program_pgid(pid_t pgid);

/* Runs until the UI quits, a terminating signal, or the script ends.
 * Returns the exit status: 0, 1 when a script failed, 128+N after signal
 * N. */
int loop_run(struct loop *L);

/* One pass of the loop waiting at most max_ms (-1: until something
 * happens), for benchmarks and tests: keys, redraw, one poll, what it
 * brought, keys and redraw again. */
void loop_step(struct loop *L, int max_ms);

#endif
