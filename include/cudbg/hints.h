/* Guided hints: a knowledge base kept as data (data/hints.rules, format in
 * docs/hints.md), loaded at start, validated, and matched against a fault.
 *
 * Code: diag/rules.c, diag/hints.c.  No curses, no
 * printing.
 *
 * A rule has an id, match conditions (exception, assertion expression,
 * kernel, sanitizer error, output text, session facts), a priority, a
 * title, what happened, why it usually happens, evidence lines with
 * {placeholders} filled from the session, and next steps: plain advice,
 * screen actions (`key`), shell commands (`run`) and debugger commands
 * (`gdb`).  Loading checks every key, placeholder, fact name and pattern
 * and refuses duplicate ids; errors name file:line.
 */
#ifndef CUDBG_HINTS_H
#define CUDBG_HINTS_H

#include <stdbool.h>
#include <stddef.h>

#include "cudbg/diag.h"

struct diag_rules;

enum { DIAG_RULES_MAX_BYTES = 1 << 20, DIAG_RULES_MAX = 512 };

/* Loads and validates rules.  On failure returns a negative code and
 * writes "FILE:LINE: what is wrong" into err. */
int diag_rules_load_file(const char *path, struct diag_rules **out,
			 char *err, size_t errcap);
/* Same from memory; `name` is used in messages. */
int diag_rules_load_buf(const char *name, const char *buf, size_t len,
			struct diag_rules **out, char *err, size_t errcap);
void diag_rules_free(struct diag_rules *r); /* accepts NULL */

/* Where the rules file is: $CUDBG_HINTS, else hints.rules in the data
 * directory (diag_data_dir), else the compiled-in DATADIR's path (so a
 * message can name where it was looked for).  `exe_dir` may be NULL. */
const char *diag_rules_default_path(const char *exe_dir, char *buf,
				    size_t cap);
/* The directory of the running binary (/proc/self/exe) into buf, for the
 * data of a build tree it runs from; NULL when it cannot be read. */
const char *diag_exe_dir(char *buf, size_t cap);
/* The death reporter preloaded into a job's or a live program's
 * processes (preload/death.c): beside this binary, else in
 * ../lib/cudbg-tui from it (make install); its path in buf, or NULL when
 * neither has it. */
const char *diag_death_reporter(char *buf, size_t cap);
/* The data directory that holds the file WANT (a path relative to it),
 * copied into buf; NULL when none does.  Looked for, in order:
 * $CUDBG_DATADIR (alone, when set), EXE/../data (a build tree),
 * EXE/../share/cudbg-tui (an installed tree, whatever prefix the objects
 * were built with), the compiled-in DATADIR.  `exe_dir` NULL: the running
 * binary's. */
const char *diag_data_dir(const char *exe_dir, const char *want, char *buf,
			  size_t cap);
/* The compiled-in DATADIR (static storage), for messages. */
const char *diag_datadir_compiled(void);
/* $CUDBG_DATADIR when set and not empty, else NULL: the one place it is
 * read. */
const char *diag_datadir_env(void);

size_t diag_rules_count(const struct diag_rules *r);
const char *diag_rules_id(const struct diag_rules *r, size_t i);

/* Screen actions a step can name; the screen maps each to its key and the
 * batch report prints the name.  X(ENUM, "name", "what it does"). */
#define DIAG_ACTIONS(X)                                                       \
	X(MEMCHECK, "memcheck", "run the program under compute-sanitizer memcheck") \
	X(REPLAY_TO_FAULT, "replay-to-fault", "rerun and stop the faulting thread before the bad access") \
	X(FAULT_THREAD, "fault-thread", "jump to the faulting thread")       \
	X(THREADS, "threads", "show the threads pane")                       \
	X(LANES, "lanes", "show the lanes of the focused warp")              \
	X(SOURCE, "source", "show the source at the fault")                   \
	X(SASS, "sass", "show the SASS at the error PC")                      \
	X(LOCALS, "locals", "show locals and arguments")                      \
	X(BACKTRACE, "backtrace", "show the device backtrace")                \
	X(HOST_STACK, "host-stack", "show the launching host stack")          \
	X(FINDINGS, "findings", "list the sanitizer findings")                \
	X(MEMORY, "memory", "open the memory view at the bad address")        \
	X(CONSOLE, "console", "open the debugger console")                    \
	X(OUTPUT, "output", "show the program's output")

enum diag_action {
#define DIAG_ACTION_ENUM(e, name, text) DIAG_ACT_##e,
	DIAG_ACTIONS(DIAG_ACTION_ENUM)
#undef DIAG_ACTION_ENUM
	DIAG_ACT_COUNT
};
const char *diag_action_name(enum diag_action a);
const char *diag_action_text(enum diag_action a);

enum diag_step_kind {
	DIAG_STEP_TEXT, /* advice in words */
	DIAG_STEP_KEY,  /* a screen action (action is set) */
	DIAG_STEP_RUN,  /* a shell command to run */
	DIAG_STEP_GDB,  /* a command for the debugger console */
};

struct diag_hint_step {
	enum diag_step_kind kind;
	enum diag_action action; /* DIAG_STEP_KEY */
	char *text;              /* filled in */
};

/* One matched rule, rendered for this fault.  Evidence lines whose
 * placeholders have no value in this session are left out. */
struct diag_hint {
	const char *id;
	int priority;
	char *title;
	char *what;
	char *why;
	char **evidence;
	size_t n_evidence;
	struct diag_hint_step *steps;
	size_t n_steps;
};

struct diag_hints {
	struct diag_hint *v; /* best first */
	size_t n;
};

/* Matches every rule against the fault and renders the matching ones,
 * best first (priority, then file order).  `out` is cleared first.
 * Returns the number of hints or DIAG_ENOMEM. */
int diag_hints_match(const struct diag_rules *r, const struct diag_fault *f,
		     struct diag_hints *out);
void diag_hints_clear(struct diag_hints *h); /* frees the contents */

/* The `value` of the best matching rule that has one: the kind of bad
 * value to read from the fault's tensors ("index", "class", "prob",
 * "range01"; diag_pybad_kind_named), or NULL.  A borrowed string. */
const char *diag_hints_value(const struct diag_rules *r,
			     const struct diag_fault *f);

/* Expressions ({eval:A|B}) read by the evidence of the rules that match
 * `f` and that have no value in f->values.  Pointers into the rules; up
 * to max; returns how many. */
size_t diag_hints_wanted(const struct diag_rules *r,
			 const struct diag_fault *f, const char **exprs,
			 size_t max);

/* Renders one template against a fault (tests and the screen's help).
 * Returns a malloc'd string, or NULL when a placeholder has no value
 * (then *missing, if given, names it). */
char *diag_hint_render(const char *tmpl, const struct diag_fault *f,
		       const char **missing);

/* Placeholder names the rules may use ("assert.expr", ...), NULL ended. */
const char *const *diag_placeholders(void);

#endif
