/* The debugger session: one debugger child process (cuda-gdb, gdb, or a
 * fake that answers from a transcript), its GDB/MI pipes, the program's
 * pty, a token table of continuations, and events.
 *
 * Code: mi/session.c, mi/spawn.c, mi/replay.c.
 *
 * Shape:
 *   - session_new() starts the debugger and queues the start sequence
 *     (-inferior-tty-set, capability probes, settings, source dirs, the
 *     backend's attach/target/core command).  It never blocks on the
 *     debugger; on_ready fires when the sequence has been answered (not
 *     at all when the debugger dies first: on_exit fires instead).
 *   - Every command carries a numeric token; its result record (^done,
 *     ^running, ^connected, ^error, ^exit) goes to the continuation given
 *     with it.  Async (*, +, =) and stream (~, @, &) records, results with
 *     no known token and unparseable lines go to on_record, in the order
 *     the debugger wrote them.  Prompts are dropped.
 *   - All I/O is non-blocking.  The caller owns the poll loop: it asks for
 *     pollfds with session_pollfds(), adds its own, polls with a timeout no
 *     longer than session_timeout_ms(), and hands the revents back with
 *     session_handle().  session_run_until() is that loop for batch mode
 *     and tests.
 *   - The debugger's exit or crash (EOF, EIO, waitpid) becomes one on_exit
 *     event with a one-line reason; every pending continuation is then
 *     called with SESSION_REPLY_GONE.  Nothing here exits or prints.
 *
 * Children: the session reaps its debugger with waitid()/waitpid() on
 * that pid from the loop (no SIGCHLD handler).  Do not reap with
 * waitpid(-1) elsewhere, or the debugger's exit status is lost.
 *
 * Handlers are called only from inside session_handle() /
 * session_run_until() (never from session_new or session_send).  A
 * handler may call session_send(), but must not call session_free(): free
 * the session after the loop call returns.
 *
 * Error convention of mi/: 0 or positive on success, a negative SESSION_E*
 * code on failure; session_error() has the text.
 */
#ifndef CUDBG_SESSION_H
#define CUDBG_SESSION_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cudbg/leansym.h"
#include "cudbg/mi.h"

enum {
	SESSION_ENOMEM = -100,    /* allocation failed */
	SESSION_EINVAL = -101,    /* bad argument (e.g. a newline in a command) */
	SESSION_ENOTFOUND = -102, /* debugger not found / not executable */
	SESSION_ESPAWN = -103,    /* fork/exec/pipe/pty failed */
	SESSION_EGONE = -104,     /* the debugger has exited */
	SESSION_ETIMEOUT = -105,  /* session_run_until ran out of time */
	SESSION_ETRANSCRIPT = -106, /* --replay transcript unreadable/bad */
	SESSION_ERECORD = -107,   /* --record file cannot be written */
	SESSION_EIO = -108,       /* poll/read/write failed */
};

/* How the program is reached. */
enum session_backend {
	SESSION_NONE,   /* no session (e.g. only a sanitizer report) */
	SESSION_LAUNCH, /* debugger --args PROG ARGS; session_run() runs it */
	SESSION_ATTACH, /* -target-attach PID */
	SESSION_REMOTE, /* -target-select remote HOST:PORT */
	SESSION_CORE,   /* target cudacore FILE (GPU) or -target-select core */
	SESSION_REPLAY, /* a fake debugger answering from a transcript */
};

/* Kind of a command's result as seen by its continuation. */
enum session_reply_kind {
	SESSION_REPLY_DONE,      /* ^done */
	SESSION_REPLY_RUNNING,   /* ^running (the stop comes later as *stopped) */
	SESSION_REPLY_CONNECTED, /* ^connected */
	SESSION_REPLY_ERROR,     /* ^error; msg holds the debugger's text */
	SESSION_REPLY_EXIT,      /* ^exit */
	SESSION_REPLY_GONE,      /* never answered: the debugger went away
				  * (or the session is being freed); msg says
				  * why, rec is NULL */
};

/* What a continuation receives.  Everything here is valid only during the
 * call; copy what you keep. */
struct session_reply {
	enum session_reply_kind kind;
	uint64_t token;
	const struct mi_record *rec; /* the result record; NULL for GONE */
	const char *msg;      /* ERROR: decoded msg=; GONE: the reason; else NULL */
	const char *command;  /* the command as sent, without its token */
	const char *console;  /* console (~) text captured for this command
			       * (SESSION_CAPTURE), "" otherwise; NUL ended */
	size_t console_len;
	double seconds;       /* from writing the command to this reply */
};

typedef void (*session_reply_fn)(void *ctx, const struct session_reply *r);

/* How the debugger ended. */
struct session_exit {
	bool exited;        /* exited normally: see status */
	int status;         /* exit status when exited */
	bool signaled;      /* killed by a signal: see sig */
	int sig;
	const char *reason; /* one line for a person, e.g. "gdb was killed by
			     * signal 9 (Killed) while '-exec-next' was in
			     * flight" or "cuda-gdb exited with status 1:
			     * <its last stderr line>" */
};

struct session_handlers {
	void *ctx;
	/* Async, stream and unparseable lines, unknown-token results. */
	void (*on_record)(void *ctx, const struct mi_record *rec);
	/* Raw bytes the program wrote to its pty: untrusted, unsanitised. */
	void (*on_output)(void *ctx, const char *buf, size_t len);
	/* One line the debugger wrote to stderr (no newline); untrusted. */
	void (*on_stderr)(void *ctx, const char *line, size_t len);
	/* The start sequence was answered.  status 0, or negative with msg
	 * when the backend command failed (attach refused, bad core...);
	 * the session stays usable either way. */
	void (*on_ready)(void *ctx, int status, const char *msg);
	/* The debugger is gone.  Called once. */
	void (*on_exit)(void *ctx, const struct session_exit *ex);
};

/* What to start.  Strings are copied by session_new(). */
struct session_config {
	enum session_backend backend;
	/* Debugger to run: a path or a name looked up in PATH.  NULL:
	 * "cuda-gdb" from PATH, else $CUDA_HOME/bin/cuda-gdb, else
	 * /usr/local/cuda/bin/cuda-gdb; plain gdb only when named here. */
	const char *debugger;
	char *const *argv;     /* LAUNCH: PROG ARGS... (NULL ended); CORE,
				* ATTACH, REMOTE: optional PROG at argv[0] */
	long pid;              /* ATTACH */
	const char *remote;    /* REMOTE: "HOST:PORT" */
	const char *core;      /* CORE: coredump file */
	const char *replay;    /* REPLAY: transcript (.mi.log or .mi.log.gz) */
	bool replay_realtime;  /* REPLAY: honour recorded delays */
	const char *record;    /* write a transcript here, or NULL */
	bool record_force;     /* overwrite an existing record file */
	const char *const *dirs; /* source directories (-environment-directory) */
	size_t ndirs;
	int start_timeout_ms;  /* give up when the first answer, or any answer
				* with nothing heard meanwhile, takes longer
				* (0: 60000) */
	/* LAUNCH: `-gdb-set cuda launch_blocking on` in the start sequence
	 * (plain gdb refuses it, harmlessly): each kernel launch waits for
	 * the kernel, so at a device stop the host thread is still in the
	 * faulting kernel's launch (cuda-gdb 13, facts: Host side).  And
	 * CUDA_LAUNCH_BLOCKING=1 in the program's environment unless the
	 * user's has one: the setting misses CUDA graph launches. */
	bool launch_blocking;
	/* LAUNCH, host symbols read eagerly: a dprintf on each function of
	 * the device allocation API (mi/alloc_watch.c), so that a fault in
	 * freed memory can name the free.  x86-64 only. */
	bool alloc_watch;
	/* LAUNCH: the program's processes get the death reporter
	 * (preload/death.c): CUDBG_JOB_DIR=child_dir and LD_PRELOAD=
	 * child_preload in its environment, so a child that dies of a fatal
	 * signal leaves child_dir/death.PID even when its parent reaps it.
	 * NULL: none. */
	const char *child_dir, *child_preload;
	/* LAUNCH: `-gdb-set auto-solib-add off` in the start sequence; at
	 * each stop after new libraries loaded, `sharedlibrary` of only
	 * SESSION_HOST_LIBS, and of SESSION_HOST_LIBS_LATE when the operator
	 * is wanted (mi/ctl_refresh.c).  Under cuda-gdb a PyTorch program
	 * reached its fault in 5.1 s reading none, against 15 s reading
	 * every library as it loaded (H200, docs/performance.md). */
	bool lazy_host_symbols;
	/* The libraries a lazy session reads at a stop (gdb's regular
	 * expression; copied), or NULL for SESSION_HOST_LIBS.  Set from
	 * $CUDBG_HOST_LIBS, the developers' knob for measuring another list
	 * (docs/performance.md). */
	const char *host_libs;
	/* Where lean copies of libraries are kept (leansym_cache_dir()), or
	 * NULL: torch's CUDA library is read by `sharedlibrary` as it is. */
	const char *symbol_cache;
};

/* The libraries whose symbols a stop of a lazy session reads first
 * (gdb's regular expression, GNU syntax: \| separates): the interpreter
 * (the Python stack's calls, when it is a shared library), c10, and the
 * CUDA runtime and driver, which the launching thread is inside with
 * launch blocking.  These are small: the Python line waits for this read
 * and no longer (run 10's screen showed it 2.4 s after the stop while
 * torch's CPU and Python libraries were read here too). */
#define SESSION_HOST_LIBS "libpython\\|libc10\\|libcuda\\.\\|libcudart"
/* Read later, when the operator is wanted (ctl_read_late_symbols): the
 * ATen dispatcher's frames are in torch's CPU and Python libraries (2.2 s
 * on the H200, run 9), and torch's CUDA library alone cost 8 s: without
 * its unwind tables gdb stops walking the host stack inside it, short of
 * the operator's frames (cuda-gdb's own look-ups in each new library take
 * the time: tests/fixtures/gpu/run11/solibprof.txt).  The screen shows
 * the Python line first and the operator after it. */
#define SESSION_HOST_LIBS_LATE "libtorch_cpu\\|libtorch_python\\|libtorch_cuda"
/* The same libraries, each read from a lean copy where one can be made
 * (include/cudbg/leansym.h: the CUDA library's 8 s came down to 0.4-0.6
 * s, the CPU and Python libraries' 1.4-1.5 s were read the ordinary
 * way until 2026-12-07): the start of the file name whose
 * =library-loaded record names it and where its .text lies, its word in
 * SESSION_HOST_LIBS_LATE (the late read names those with no copy), and
 * the names its copy keeps.  Index i is bit 1 << i of a lean mask. */
enum { SESSION_LEAN_LIBS = 3 };
struct session_lean_lib {
	const char *file;   /* "libtorch_cuda.so" */
	const char *word;   /* "libtorch_cuda" */
	enum leansym_names names;
};
extern const struct session_lean_lib session_lean_libs[SESSION_LEAN_LIBS];

/* What the start probes learned.  Valid once on_ready fired (fields stay
 * zero/false where a probe failed). */
struct session_caps {
	bool probed;            /* the probes were answered */
	bool is_cuda_gdb;       /* -gdb-version names cuda-gdb */
	char version[128];      /* first line of -gdb-version, "" if unknown */
	int gdb_major, gdb_minor;   /* GNU gdb version (the base of cuda-gdb) */
	int cuda_major, cuda_minor; /* cuda-gdb's own version, 0 for gdb */
	bool has_cuda_tables;   /* -cuda-info-threads exists (or, in a replay
				 * that never asked, the debugger is cuda-gdb) */
	bool has_python;        /* "python" in -list-features */
	bool async;             /* mi-async accepted */
};

struct session;

/* Starts the debugger.  On failure returns NULL and writes a one-line
 * reason into err (cap bytes), e.g. "cuda-gdb not found in PATH or
 * $CUDA_HOME/bin; install the CUDA toolkit, set CUDA_HOME, or choose a
 * debugger with --debugger (gdb works for CPU programs)".  *code (may be
 * NULL) gets the SESSION_E* code. */
struct session *session_new(const struct session_config *cfg,
			    const struct session_handlers *h,
			    char *err, size_t cap, int *code);

/* Ends the session: asks the debugger to exit (-gdb-exit), waits briefly,
 * then kills its whole process group (and, for LAUNCH, a program the
 * debugger left behind); pending continuations get SESSION_REPLY_GONE;
 * the recording is completed and closed.  No handler other than the
 * continuations runs.  Accepts NULL. */
void session_free(struct session *s);

/* Sends one MI command (printf format; one line, no newline; the token
 * is added here).  Returns the token (> 0) or a negative code.  fn may be
 * NULL (the result is then dropped, except that an ^error reaches
 * on_record).  Use mi_quote() for user text inside commands. */
__attribute__((format(printf, 4, 5)))
int64_t session_send(struct session *s, session_reply_fn fn, void *ctx,
		     const char *fmt, ...);

enum {
	SESSION_CAPTURE = 1, /* hand console (~) text that arrives before the
			      * result to the continuation (reply.console)
			      * instead of on_record */
	SESSION_UNBOUNDED = 2, /* a command the user typed: no answer bound
				* (every other command is ended with the
				* debugger when nothing is heard for the
				* start timeout, --timeout) */
};
__attribute__((format(printf, 5, 6)))
int64_t session_send_flags(struct session *s, unsigned flags,
			   session_reply_fn fn, void *ctx,
			   const char *fmt, ...);

/* Like session_send(), for commands that may answer with a big table
 * (-cuda-info-threads on a full device is one line of 10-60 MB): when the
 * answer line grows past 64 KiB, its body rows are handed to row_fn one
 * at a time as their bytes arrive, instead of the whole line being
 * buffered and parsed into one tree; the continuation then gets the table
 * with an empty body (reply.rec->streamed).  Smaller answers come whole as
 * usual, so a caller handles both.  This keeps memory to the decoded rows
 * and the loop responsive while such a line arrives. */
typedef void (*session_row_fn)(void *ctx, const struct mi_node *row);
__attribute__((format(printf, 5, 6)))
int64_t session_send_rows(struct session *s, session_row_fn row_fn,
			  session_reply_fn fn, void *ctx, const char *fmt, ...);

/* Drops every pending continuation whose ctx is `ctx` (their results then
 * go nowhere): call when the object they point to is freed. */
void session_forget(struct session *s, const void *ctx);

/* LAUNCH (and a replay of a launch): runs the program (-exec-run; in a
 * replay the recorded run command).  Returns the token or a negative
 * code (SESSION_EINVAL when session_needs_run() is false). */
int64_t session_run(struct session *s, session_reply_fn fn, void *ctx);

/* LAUNCH, ready, with no program running (not yet run, or exited):
 * opens a coredump in this debugger instead, with the command the CORE
 * backend sends (`target cudacore FILE` for a GPU core, gdb's
 * `-target-select core FILE` for a host one).  A debugger started early
 * (its start-up, its Python and the program's symbols loaded while
 * something else runs) then only has to read the core.  From the call on
 * the session is a CORE session (session_needs_run() false, the pid the
 * core names is never killed); when the debugger refuses, it is a launch
 * again and fn gets the ^error with a one-line msg.  Returns the token,
 * SESSION_EINVAL (wrong state), SESSION_ENOTFOUND (core unreadable) or
 * another negative code; session_error() has the text. */
int64_t session_open_core(struct session *s, const char *core,
			  session_reply_fn fn, void *ctx);

/* Interrupts the running program (-exec-interrupt --all).  The debugger
 * runs in its own session, so a terminal ^C never reaches it. */
int64_t session_interrupt(struct session *s, session_reply_fn fn, void *ctx);

/* Interrupts the command the debugger is busy with (a long console
 * command, a huge table): SIGINT to the debugger, as its own terminal's
 * ^C would send; gdb then ends the command with ^error ("Quit").  Returns
 * 0, or SESSION_EINVAL when no command is in flight or the debugger is a
 * replay (which has nothing to interrupt), SESSION_EGONE when it is
 * gone. */
int session_interrupt_command(struct session *s);

/* Writes bytes to the program's terminal (its stdin).  Best effort,
 * non-blocking: returns bytes written or a negative code. */
long session_write_program(struct session *s, const char *buf, size_t len);

/* Tells the program its terminal's size (the pty starts at 80x24); it
 * gets SIGWINCH.  0 or a negative code. */
int session_set_program_size(struct session *s, int cols, int rows);

/* A Python stack known without asking the interpreter: the one a job's
 * faulting process printed when it died (its coredump has no running
 * interpreter).  One line of it in the live script's format ("F", file,
 * line, function, source, tab-separated; include/cudbg/pystack.h), kept
 * for session_noted_pystack() and noted in the recording as
 * SESSION_PYSTACK_NOTE, which a replay of it reads back. */
#define SESSION_PYSTACK_NOTE "pystack| "
void session_note_pystack(struct session *s, const char *line);
/* The lines noted so far, or a replay's recorded ones; NULL when none. */
const char *session_noted_pystack(const struct session *s);

/* The program's own frame the controller chose at a host fault stop
 * (include/cudbg/model.h, user_frame), kept in the recording as a
 * "userframe|" note, so that a replay elsewhere, where the program's
 * sources are not, chooses the same: session_next_user_frame gives a
 * replay's recorded choices in order (-1: none chosen), and
 * SESSION_NO_CHOICE when this is no replay or its recording has no more
 * (an older one). */
enum { SESSION_NO_CHOICE = -2 };
#define SESSION_USER_FRAME_NOTE "userframe| "
int session_next_user_frame(struct session *s);
void session_note_user_frame(struct session *s, int level);

/* Adds a "#" note to the recording (no-op when not recording). */
void session_note(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The poll loop.  session_pollfds() fills at most `max` entries (never
 * more than SESSION_MAX_POLLFDS) and returns how many; pass the same
 * entries, with revents, to session_handle().  Poll no longer than
 * session_timeout_ms() (-1: no limit from the session), and call
 * session_handle() after every poll, even when it timed out (it reaps
 * the child and checks the start timeout).  session_handle() returns 0,
 * or SESSION_EGONE once the debugger is gone and everything was
 * delivered. */
#define SESSION_MAX_POLLFDS 4
int session_pollfds(struct session *s, struct pollfd *fds, int max);
int session_handle(struct session *s, const struct pollfd *fds, int n);
int session_timeout_ms(const struct session *s);

/* Runs the loop until pred(ctx) is true (checked first and after each
 * round; pred may be NULL to just wait out the time), the debugger is
 * gone, or timeout_ms passes (-1: no limit).  Returns 1 when pred became
 * true, SESSION_ETIMEOUT, or SESSION_EGONE. */
int session_run_until(struct session *s, bool (*pred)(void *ctx), void *ctx,
		      int timeout_ms);

/* State. */
const struct session_caps *session_caps(const struct session *s);
enum session_backend session_backend(const struct session *s);
/* For a REPLAY: the backend the recording used (LAUNCH when it ran the
 * program with -exec-run, ATTACH, REMOTE, CORE; NONE when it did none of
 * these); otherwise the same as session_backend(). */
enum session_backend session_replay_of(const struct session *s);
/* Lazy host symbols: the whole MI command a stop sends first (late false)
 * or when the operator is wanted (late true), or NULL: not a lazy session
 * (session_config.lazy_host_symbols), or a replay whose recording has no
 * such command (a replay asks what its recording asked). */
const char *session_symbols_command(const struct session *s, bool late);
/* Whether host symbols are read lazily (a replay: whether its recording
 * did). */
bool session_lazy_symbols(const struct session *s);
/* The late `sharedlibrary` command for the libraries of
 * SESSION_HOST_LIBS_LATE not read from lean copies (lean_mask: bit i for
 * session_lean_libs[i]), NULL when none is left or not lazy; a REPLAY's
 * recorded late command whatever the mask. */
const char *session_late_symbols_command(const struct session *s,
					 unsigned lean_mask);
/* The command that reads LIB, session_lean_libs[which] (whose .text the
 * program mapped at text_addr), from its lean copy
 * (include/cudbg/leansym.h), made now in the session's symbol cache:
 * `add-symbol-file COPY -o BIAS`.  NULL (err says why, when there was a
 * try) when not lazy, no cache, or the copy cannot be made; a REPLAY
 * gives its recorded one for that library or NULL.  malloc'd. */
char *session_lean_command(const struct session *s, unsigned which,
			   const char *lib, uint64_t text_addr, char *err,
			   size_t cap);
/* The program must be started with session_run() once ready (LAUNCH, or
 * a replay of a launch); the other backends stop by themselves: ATTACH
 * and REMOTE with a *stopped record, CORE with none at all (cuda-gdb's
 * `target cudacore` answers ^done; the target is stopped once on_ready
 * reports status 0). */
bool session_needs_run(const struct session *s);
bool session_ready(const struct session *s);   /* on_ready has fired */
bool session_alive(const struct session *s);   /* debugger not gone */
/* The program is running (a ^running or an async running record came
 * after the last stopped record).  Tracked from the records; the model keeps the detail. */
bool session_target_running(const struct session *s);
unsigned session_stop_count(const struct session *s); /* *stopped seen */
size_t session_pending(const struct session *s); /* commands in flight */
/* Seconds since the oldest command in flight was written (0 when none);
 * *cmd (may be NULL) gets its text.  For the UI's spinner. */
double session_busy_seconds(const struct session *s, const char **cmd);
double session_elapsed(const struct session *s); /* since start */
/* The debugger binary (for a replay: the transcript). */
const char *session_debugger_path(const struct session *s);
const char *session_tty_name(const struct session *s); /* program's pty */
/* The frontend's own bound ran out (batch --timeout) while a command of
 * ours was still unanswered: the debugger, not the program, went
 * silent.  Ends the debugger as a stalled request would (its exit event
 * then names the command); true when there was such a command. */
bool session_give_up(struct session *s);
pid_t session_debugger_pid(const struct session *s);
/* LAUNCH: the last program the debugger started (0: none); gdb makes it
 * the leader of its own session and process group, which outlive it in
 * its children.  For a crash handler that must take them down too. */
pid_t session_program_pid(const struct session *s);
/* LAUNCH: the pid the debugger last said it started, even when that
 * program ended before it could be checked (0: none).  The debugger's
 * word only: to compare with, never to signal. */
pid_t session_announced_pid(const struct session *s);
const char *session_error(const struct session *s); /* last error text */
/* Why the --record file stopped being written ("writing the recording
 * FILE failed (No space left on device); recording stopped"), or NULL
 * while it is fine.  Owned by the session. */
const char *session_record_error(const struct session *s);
const char *session_backend_name(enum session_backend b);

/* Writes `rec` as one line of canonical GDB/MI text (strings re-quoted
 * with mi_quote, so no control bytes; bytes >= 0x80 pass through) into a
 * malloc'd string; *len (may be NULL) gets its length.  NULL when out of
 * memory.  For logs and tests that compare record streams. */
char *session_format_record(const struct mi_record *rec, size_t *len);

/* A program that is a script whose #! line (or its interpreter's, to
 * binfmt_script's depth) names an interpreter that is not an executable
 * file: the kernel would refuse it with ENOENT although the script is
 * there.  SESSION_ENOTFOUND with a one-line error in err naming both,
 * else 0. */
int session_check_interpreter(char *const *argv, char *err, size_t cap);

#endif
