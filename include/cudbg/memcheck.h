/* The memcheck pass: runs the program under compute-sanitizer, keeps its
 * text, parses its XML report and hands back the GPU coredump it wrote.
 *
 * Code: diag/memcheck.c.  No curses, no printing.
 *
 *   compute-sanitizer --tool memcheck --xml --save REPORT
 *       --generate-coredump --coredump-name CORE --print-limit N
 *       [--kernel-name regex=K] [FLAGS]
 *       PROG ARGS
 *
 * The command is an argument vector (never a shell).  REPORT and CORE live
 * in a private directory made with mkdtemp (mode 0700) and removed by
 * diag_memcheck_free() unless keep_temp is set.  Python programs run with
 * PYTORCH_NO_CUDA_MEMORY_CACHING=1 so the caching allocator does not hide
 * overruns inside its big blocks.
 *
 * Non-blocking: diag_memcheck_start() forks and returns; the caller adds
 * the pass's fds (diag_memcheck_pollfds) to its own poll loop and calls
 * diag_memcheck_handle() when they are ready; progress comes through a
 * callback.  diag_memcheck_run() does the same loop itself (batch mode).
 */
#ifndef CUDBG_MEMCHECK_H
#define CUDBG_MEMCHECK_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cudbg/diag.h"

struct diag_san;

/* --memcheck=auto|always|never */
enum diag_memcheck_policy {
	DIAG_MEMCHECK_AUTO,   /* after a live run that failed without a stop */
	DIAG_MEMCHECK_ALWAYS, /* first, before the debugger run */
	DIAG_MEMCHECK_NEVER,
};
/* Parses "auto", "always", "never"; returns the policy or -1. */
int diag_memcheck_policy_parse(const char *s);
const char *diag_memcheck_policy_name(enum diag_memcheck_policy p);

/* Auto policy: whether a live run that ended as `f` describes should be
 * followed by the memcheck pass (no device stop, and a CUDA error on the
 * terminal or a failing exit). */
bool diag_memcheck_wanted(enum diag_memcheck_policy p,
			  const struct diag_fault *f);

struct diag_memcheck_opts {
	const char *sanitizer;   /* path; NULL: compute-sanitizer from PATH,
				  * then $CUDA_HOME/bin, /usr/local/cuda/bin */
	char *const *argv;       /* program and arguments, NULL ended */
	char *const *envp;       /* NULL: this process's environment */
	int python;              /* 1 yes, 0 no, -1 guess from argv */
	unsigned print_limit;    /* 0: default 100 */
	bool keep_temp;          /* keep the private directory */
	const char *tmp_parent;  /* NULL: $TMPDIR or /tmp */
	const char *tool;        /* NULL: "memcheck" */
	char *const *flags;      /* extra compute-sanitizer words, put
				  * before the program (checked with
				  * diag_san_flags_add); may be NULL */
	size_t nflags;
	size_t max_text;         /* text output kept, 0: 4 MiB */
	double core_wait;        /* seconds a precise finding's coredump
				  * may take before the pass stops the
				  * sanitizer (diag_memcheck_early); < 0:
				  * no limit.  diag_memcheck_core_wait()
				  * gives the default. */
	const char *kernel;      /* NULL: every kernel is checked; else a
				  * kernel's name or signature (the one a
				  * live stop named): only kernels whose
				  * mangled name holds its unqualified name
				  * are instrumented (--kernel-name regex=) */
};

enum diag_memcheck_event {
	DIAG_MC_STARTED,  /* text: the command line */
	DIAG_MC_OUTPUT,   /* text: bytes of sanitizer/program output */
	DIAG_MC_FINDING,  /* text: an "=========" error header line */
	DIAG_MC_EXITED,   /* text: "exit 1" or "signal SIGKILL" */
};
typedef void (*diag_memcheck_fn)(void *ctx, enum diag_memcheck_event ev,
				 const char *text, size_t len);

struct diag_memcheck;

/* The --kernel-name argument that selects `kernel` (a name or demangled
 * signature): "regex=NAME" in out.  DIAG_ESYNTAX when its unqualified name
 * is not an identifier (nothing is selected then). */
int diag_memcheck_kernel_filter(const char *kernel, char *out, size_t cap);

/* Starts the pass.  On failure returns NULL with a one-line message in err
 * (sanitizer not found, program missing, cannot make the directory);
 * diag_memcheck_missing(err) tells the first case from the others. */
struct diag_memcheck *diag_memcheck_start(const struct diag_memcheck_opts *o,
					  diag_memcheck_fn fn, void *ctx,
					  char *err, size_t errcap);
bool diag_memcheck_missing(const char *err);
/* Kills a running pass (its process group), reaps it, removes the
 * directory unless kept.  Accepts NULL. */
void diag_memcheck_free(struct diag_memcheck *m);

/* Fills up to max pollfds (POLLIN on its output); returns how many. */
int diag_memcheck_pollfds(const struct diag_memcheck *m, struct pollfd *fds,
			  int max);
/* Reads what is ready, reaps the child.  Returns 1 when the pass has
 * finished, 0 while it runs, negative on error. */
int diag_memcheck_handle(struct diag_memcheck *m);
/* Runs the loop until the pass ends or timeout_ms passes (<0: no limit).
 * Returns 1 finished, 0 timed out, negative on error. */
int diag_memcheck_wait(struct diag_memcheck *m, int timeout_ms);
/* Stops the pass early (SIGTERM, then SIGKILL on the next call). */
void diag_memcheck_cancel(struct diag_memcheck *m);

bool diag_memcheck_done(const struct diag_memcheck *m);
pid_t diag_memcheck_pid(const struct diag_memcheck *m);
/* After done: exit status of compute-sanitizer (its own exit code follows
 * the program's unless errors were found). */
bool diag_memcheck_signalled(const struct diag_memcheck *m);
int diag_memcheck_status(const struct diag_memcheck *m);
double diag_memcheck_seconds(const struct diag_memcheck *m);

/* The kept text output (bounded; the middle is cut when too long). */
const char *diag_memcheck_text(const struct diag_memcheck *m, size_t *len);
const char *diag_memcheck_dir(const struct diag_memcheck *m);
const char *diag_memcheck_report_path(const struct diag_memcheck *m);
/* Why the pass stopped the sanitizer itself, before it wrote its XML
 * (diag/memcheck.c, stop_in_core): the coredump of a precise finding
 * took longer than core_wait, or its finding's nearest allocation alone
 * would take longer than that to dump, or the first finding is
 * imprecise (its coredump would hold no CUDA focus) and the text names
 * its line and kernel.  The findings then come from the text; there is
 * no coredump. */
enum diag_memcheck_early {
	DIAG_MC_EARLY_NO,
	DIAG_MC_EARLY_SLOW_CORE,
	DIAG_MC_EARLY_BIG_CORE,
	DIAG_MC_EARLY_IMPRECISE,
};
enum diag_memcheck_early diag_memcheck_early(const struct diag_memcheck *m);
/* After DIAG_MC_EARLY_BIG_CORE: the allocation's size in bytes. */
uint64_t diag_memcheck_big_alloc(const struct diag_memcheck *m);
/* After done: whether the pass's first finding was imprecise (a warp
 * assert, a trap, a stack overflow) and its coredump written or begun
 * (DIAG_MC_EARLY_IMPRECISE).  cuda-gdb 13 finds no CUDA focus in such a
 * coredump. */
bool diag_memcheck_first_imprecise(const struct diag_memcheck *m);
/* Whether the text says where the first error is in source: its own
 * line, a device frame's, or (imprecise) an assertion line. */
bool diag_memcheck_first_has_line(const struct diag_memcheck *m);
/* The coredump when it is worth opening (after done), else NULL: not an
 * imprecise first error's (no CUDA focus in it), nor a precise one's
 * whose text names no line (the core has none either: the live run
 * stops at the line).  Batch, the screen and the DAP server decide by
 * it. */
const char *diag_memcheck_core_to_open(const struct diag_memcheck *m);
/* Seconds from the start to "Generating coredump file"; 0: none began. */
double diag_memcheck_core_began(const struct diag_memcheck *m);
/* The default core_wait: $CUDBG_PASS_CORE_WAIT seconds when set (a
 * negative value or "never": no limit), else 2; a value that is not a
 * number gives 2 (app/main.c refuses it at start-up). */
double diag_memcheck_core_wait(void);
/* Reads V (NULL or empty: the default, 2) into *WAIT; returns -1, with
 * *WAIT 2, when V is neither "never" nor a finite number of seconds. */
int diag_memcheck_core_wait_parse(const char *v, double *wait);

/* The coredump when one was written (after done), else NULL. */
const char *diag_memcheck_core_path(const struct diag_memcheck *m);

/* After done: parses the XML report (plus the text output for allocation
 * distances).  Returns the report (caller frees, or hands it to
 * diag_add_sanitizer) or NULL with a message in err. */
struct diag_san *diag_memcheck_report(struct diag_memcheck *m, char *err,
				      size_t errcap);

/* The pass's text output in a recording (docs/transcript-format.md):
 * the live diagnosis reads it (allocation distances, a device assert's
 * message), the XML does not hold it, so --record keeps it as "#" notes
 * "sanitizer| LINE" (escaped: '\\' and control bytes as \xHH; a long
 * line goes on in "sanitizer+ REST" notes) and a replay reads them back.
 * diag_pass_text_note writes text into s's recording (no-op when not
 * recording).  diag_pass_text_read returns the text of a recording's
 * notes (malloc'd, *len set; NULL with *len 0 when it has none, or with
 * a message in err when the file cannot be read: err[0] is set then;
 * NULL when path is no regular file, a pipe the replay itself reads). */
struct session;
void diag_pass_text_note(struct session *s, const char *text, size_t len);
char *diag_pass_text_read(const char *path, size_t *len, char *err,
			  size_t cap);
/* The same for the pass's XML report ("sanxml| LINE" notes): a replay of
 * the recording reads the findings the live pass read, Python frames
 * and all, without the file beside it. */
void diag_pass_xml_note(struct session *s, const char *xml, size_t len);
/* The notes themselves (PRE| LINE ..., without the "# "), one call each,
 * for a writer other than a session's recording (tests/tools/embed_xml:
 * a recording made before the XML was kept gets it from the file the
 * same run wrote). */
typedef void (*diag_pass_note_fn)(void *ctx, const char *note);
void diag_pass_notes(const char *pre, const char *text, size_t len,
		     diag_pass_note_fn emit, void *ctx);
void diag_recorded_program_free(char **v);

/* A death a process of the program's wrote (preload/death.c), kept in
 * s's recording as a "childdeath| PID SIGNAL COMMAND" note (no-op when
 * not recording), so that a replay names it as the live run did. */
void diag_child_death_note(struct session *s, long pid, int sig,
			   const char *cmd);
/* Why the kernel's process events could not be heard (a live run's, the
 * program's forks or not), kept as a "childevents| WHY" note (no-op when
 * not recording), so that a replay says it too. */
void diag_child_events_note(struct session *s, const char *why);
/* The signal that had batch mode interrupt the running program (its
 * first SIGINT or SIGTERM), kept as an "interrupt| SIGNAL" note (no-op
 * when not recording), so that a replay's hang names it too. */
void diag_interrupt_note(struct session *s, int sig);

#define DIAG_PASS_EXIT_NOTE "memcheck pass: the program exited with status "
/* Every note a replay reads from its recording, in one scan (a big
 * recording is inflated once, not once a kind):
 *   pass_text     the pass's text ("sanitizer" notes), pass_len bytes
 *   pass_xml      the pass's XML ("sanxml" notes), xml_len bytes
 *   child_deaths  "PID SIGNAL COMMAND" lines ("childdeath" notes)
 *   child_events  why the process events went unheard ("childevents")
 *   program       the program's command line ("program| WORD" notes,
 *                 one a word: mi/session_start.c), NULL ended; NULL when
 *                 it holds none (made before them, an attach, a core)
 *   ended_note    its first "memcheck pass ended after N s..." note
 *                 ("" and ended false when none), ended_status the
 *                 status of the DIAG_PASS_EXIT_NOTE after it (a pass that
 *                 was the whole run and whose program failed), 0 none
 *   hang_seconds  the seconds between the start of the program's last
 *                 run and a recorded -exec-interrupt while it was still
 *                 running (no *stopped in between), -1 when the
 *                 recording holds no such interrupt: a replay has no
 *                 clock, and this interrupt is what --timeout stands for
 *                 (the replay interrupts where the recording did and
 *                 reports the recorded time; diag_run_replay_hang_seconds).
 *   interrupt_signal  the signal that had that interrupt sent ("interrupt"
 *                 note: batch mode's SIGINT or SIGTERM), 0 for --timeout
 * Each text is malloc'd and NUL ended, NULL when the recording has none;
 * the caller owns all and frees them with diag_replay_notes_free (also
 * after a failure).  Returns 0 (everything empty when path is no regular
 * file: a pipe the replay itself reads), or -1 with a message in err when
 * the file cannot be read or memory ran out. */
struct diag_replay_notes {
	char *pass_text;
	size_t pass_len;
	char *pass_xml;
	size_t xml_len;
	char *child_deaths;
	char *child_events;
	char **program;
	bool ended;
	char ended_note[512];
	int ended_status;
	double hang_seconds;
	int interrupt_signal;
};
int diag_replay_notes_read(const char *path, struct diag_replay_notes *n,
			   char *err, size_t cap);
void diag_replay_notes_free(struct diag_replay_notes *n);

/* Extra compute-sanitizer flags (--sanitizer-flags, the config file's
 * `sanitizer-flags`; diag/sanflags.c).  diag_san_flags_add splits text
 * at blanks (no shell: a quote or backslash is refused), checks the
 * words (the first must be an option; the ones the pass sets itself,
 * --tool, --xml, --save, --generate-coredump, --coredump-name,
 * --log-file, --read, are refused, with why) and appends strdup'd
 * copies to *flags (kept NULL ended; the caller frees with
 * diag_san_flags_free).  Returns 0, or a DIAG_E* code with a one-line
 * message in err and the words before the bad one appended.
 * A user's --print-limit or --kernel-name replaces the pass's own.
 * diag_san_flag_conflict gives why a word conflicts, or NULL. */
int diag_san_flags_add(char ***flags, size_t *n, const char *text,
		       char *err, size_t cap);
void diag_san_flags_free(char **flags, size_t n); /* accepts NULL */
const char *diag_san_flag_conflict(const char *word);
bool diag_san_flags_have(char *const *flags, size_t n, const char *name);

/* Whether argv runs a Python program (python* interpreter, a .py script,
 * or a script whose #! line names python). */
bool diag_argv_is_python(char *const *argv);

/* Finds an executable: a path with '/', else $PATH, else the extra dirs
 * ($CUDA_HOME/bin, /usr/local/cuda/bin).  Writes it into buf. */
int diag_find_tool(const char *name, char *buf, size_t cap);

#endif
