/* Private to mi/session*.c: the session's state. */
#ifndef CUDBG_MI_SESSION_INT_H
#define CUDBG_MI_SESSION_INT_H

#include "cudbg/session.h"
#include "mi/spawn.h"

#include <stdarg.h>

struct transcript_writer;

struct pending {
	uint64_t token;
	session_reply_fn fn;   /* NULL: forgotten or fire-and-forget */
	session_row_fn row_fn; /* rows of a streamed table, or NULL */
	void *ctx;
	unsigned flags;
	double sent;           /* session_elapsed() when queued */
	char *command;         /* without the token */
};

struct linebuf {
	char *buf;
	size_t len, cap;
};

struct session {
	enum session_backend backend;
	enum session_backend replay_of; /* REPLAY: what the recording did */
	struct session_handlers h;
	struct session_caps caps;
	char *path;            /* debugger binary, or the transcript */
	char name[64];         /* for messages: "cuda-gdb", "gdb", "replay" */
	struct spawn_child child;
	int pty_master, pty_slave; /* the slave stays open here so the
				    * master never sees a hangup */
	char tty[128];
	struct mi_parser *parser;
	double t0;             /* CLOCK_MONOTONIC at start */

	char *ob;              /* commands not yet written */
	size_t ob_len, ob_off, ob_cap;
	struct pending *pend;  /* in the order sent */
	size_t npend, pend_cap;
	uint64_t next_token;
	struct linebuf capture;  /* console text for pend[0] (CAPTURE) */
	struct linebuf errline;  /* partial stderr line */
	struct linebuf ttyline;  /* partial program line (for recording) */

	struct transcript_writer *rec;
	char *rec_path;        /* the --record file, for messages */
	bool rec_failed, rec_failed_told;
	char rec_error[600];   /* why the recording stopped, "" while fine */

	/* start sequence */
	int start_left;        /* start commands not yet answered */
	int ready_status;
	char ready_msg[512];
	bool ready, answered;  /* on_ready fired; any reply seen */
	double start_timeout;  /* seconds: the bound on every answer */
	double last_heard_at;  /* session_elapsed() when the debugger last
				* wrote anything on its MI stream */
	char stalled[120];     /* a command left unanswered for
				* start_timeout with nothing heard since */
	bool stalled_ready;    /* ... after the start was done */
	char *replay_run;      /* REPLAY: the recorded run command */
	char **launch_argv;    /* LAUNCH: the program as the debugger runs
				* it: a script's interpreter in front
				* (spawn_resolve_scripts); owned */
	char **replay_start;   /* REPLAY: recorded backend commands */
	size_t nreplay_start;
	/* REPLAY: the recorded environment commands (the death reporter's,
	 * HYDRA_FULL_ERROR), sent where a live start sends them (its
	 * answers come in the same order) */
	char **replay_env;
	size_t nreplay_env;
	bool gpu_core;         /* CORE: opened with target cudacore */
	bool replay_cuda;      /* REPLAY: the recording shows cuda-gdb */
	/* REPLAY: the recording's "userframe|" notes, in order, and the next */
	int *replay_user_frames;
	size_t nreplay_user_frames, next_user_frame;
	/* Lazy host symbols (session_config.lazy_host_symbols): the two
	 * `sharedlibrary` commands a stop sends, first and late; for a
	 * REPLAY the recorded ones (NULL when it has none), so that the
	 * replay asks what the recording asked. */
	bool lazy_symbols;
	char *syms_first, *syms_late;
	/* The late read by lean mask (session_late_symbols_command; mask 0
	 * is syms_late, the last NULL: nothing left; unused in a REPLAY,
	 * which has the recorded late command only), the lean copies'
	 * directory (NULL: none), and for a REPLAY the recorded
	 * `add-symbol-file` commands of lean copies (nlean of them). */
	char *syms_late_by_mask[1u << SESSION_LEAN_LIBS];
	char *symbol_cache;
	char **syms_lean;
	size_t nlean;
	/* A Python stack noted for the recording (session_note_pystack), or
	 * for a REPLAY the one its recording noted; NULL when none */
	char *noted_pystack;
	size_t noted_pystack_len;
	struct transcript *replay_t; /* REPLAY: loaded, until the fork */

	/* the target, as far as the session tracks it */
	bool running;
	unsigned stops;
	long inferior_pid;     /* from =thread-group-started, 0 when none */
	long announced_pid;    /* the same, kept after the program ended
				* (0: none announced yet); never signalled */
	pid_t program_pid;     /* LAUNCH: the last program started (0: none),
				* kept after it ends: gdb makes it the leader
				* of a session of its own, and all of that
				* session is killed at the end */
	unsigned long long program_start; /* its start time (/proc), to
					   * tell a reused pid */

	/* the end */
	bool spoke;            /* a valid MI line was seen */
	bool not_mi;           /* the first line was not MI */
	bool timed_out;        /* killed for not answering at start */
	char first_line[96];   /* printable copy, for that message */
	double out_eof_at;     /* stdout EOF time, 0 while open */
	bool reaped;
	int wstatus;
	bool gone, gone_reported, closing;
	char last_stderr[200];
	char error[512];
};

void session_set_error(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void session_record(struct session *s, char tag, const char *text,
		    size_t len);
int64_t session_sendv(struct session *s, unsigned flags, session_reply_fn fn,
		      void *ctx, const char *fmt, va_list ap)
	__attribute__((format(printf, 5, 0)));
void session_fail_pending(struct session *s, const char *why);
void session_read_stdout(struct session *s, size_t budget);
void session_read_stderr(struct session *s, size_t budget);
/* Reads what the program wrote that is still on its way through the pty
 * (bounded: 10 ms without new bytes ends it). */
void session_drain_program_tail(struct session *s);
struct mi_parser *session_make_parser(struct session *s);
void session_flush_side_lines(struct session *s);

/* session_end.c */
void session_check_child(struct session *s);
void session_not_mi(struct session *s);

/* session_end.c: remembers the program just started, whose session is
 * killed at the end (its children too). */
void session_note_program(struct session *s, pid_t pid);

/* Appends one line to noted_pystack (a REPLAY's scan, and
 * session_note_pystack).  0, or -1 when out of memory. */
int session_keep_pystack_line(struct session *s, const char *line, size_t len);

#endif
