/* Command-line options of cudbg-tui.
 *
 * Code: opts/options.c (the "options" layer, below the frontends).  Others read the struct; add a
 * field by asking the owner (or add it at the end and say so).
 *
 * Everything after the first non-option word (or after "--") belongs to
 * the program: it is kept as an argument vector and later given to the
 * debugger as separate argv words, never through a shell.
 */
#ifndef CUDBG_OPTIONS_H
#define CUDBG_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "cudbg/session.h"

struct cudbg_config;

enum cudbg_memcheck {
	CUDBG_MEMCHECK_AUTO,   /* default: after a live run that failed
				* without a device stop */
	CUDBG_MEMCHECK_ALWAYS, /* run the memcheck pass first */
	CUDBG_MEMCHECK_NEVER,
};

struct cudbg_options {
	enum session_backend backend; /* SESSION_NONE with --demo or with
				       * only --sanitizer-report */
	char **argv;          /* PROG ARGS... (NULL ended) or NULL; points
			       * into main's argv (not copied) */
	int argc;             /* words in argv */
	long pid;             /* --pid */
	const char *remote;   /* --remote HOST:PORT */
	const char *core;     /* --core FILE */
	const char *replay;   /* --replay FILE */
	bool replay_realtime; /* --replay-realtime: honour recorded delays */
	const char *record;   /* --record FILE */
	bool force;           /* --force: --record may overwrite */
	const char *debugger; /* --debugger PATH, or NULL */
	const char **dirs;    /* -d/--directory DIR, in order (malloc'd
			       * array; strings point into argv) */
	size_t ndirs;
	const char **breaks;  /* -b/--break LOC, in order (malloc'd array;
			       * strings point into argv); inserted before
			       * the program runs */
	size_t nbreaks;
	/* -x FILE (--command) and -ex CMD (--eval-command), as gdb takes
	 * them: run in the debugger in order once it is ready, before the
	 * -b breakpoints and the run ("source FILE" for -x).  Strings point
	 * into argv; is_file[i] tells -x from -ex. */
	const char **dbg_cmds;
	bool *dbg_cmd_is_file;
	size_t ndbg_cmds;
	bool gdbinit;         /* source ~/.gdbinit first (config: gdbinit yes) */
	bool no_run;          /* --no-run: the screen waits for `r` instead
			       * of running a launched program at once */
	bool batch;           /* --batch */
	bool json;            /* --json (implies --batch) */
	enum cudbg_memcheck memcheck; /* --memcheck=auto|always|never */
	bool memcheck_given;  /* --memcheck was on the command line (a
			       * config file may change only the default) */
	const char *sanitizer;        /* --sanitizer PATH, or NULL */
	const char *sanitizer_report; /* --sanitizer-report FILE.xml */
	const char *memcheck_kernel;  /* --memcheck-kernel NAME, or NULL:
				       * the pass checks every kernel */
	const char *sanitizer_tool;   /* --sanitizer-tool: "memcheck" ...
				       * (static), NULL: memcheck */
	/* --sanitizer-flags TEXT (repeatable) after the config file's
	 * `sanitizer-flags` words: extra compute-sanitizer words for the
	 * pass, split at blanks and checked (diag_san_flags_add); owned
	 * (malloc'd copies, NULL ended), freed by options_free. */
	char **san_flags;
	size_t nsan_flags;
	bool demo;            /* --demo */
	bool keep_temp;       /* --keep-temp: keep the private temp dir */
	/* A Python program runs with cuda-gdb's `cuda launch_blocking on`
	 * (the host stays at the faulting kernel's launch: the operator and
	 * the script line are right) unless --no-launch-blocking; its stack
	 * is taken from the interpreter at a stop unless --no-python-stack
	 * (include/cudbg/pystack.h). */
	bool no_launch_blocking;
	bool alloc_watch, no_alloc_watch; /* --alloc-watch, --no-alloc-watch */
	bool no_pystack;
	/* A Python program under cuda-gdb reads the symbols of only the
	 * shared libraries the report needs (the interpreter's, torch's and
	 * c10's), at a stop, unless --all-host-symbols
	 * (session_config.lazy_host_symbols). */
	bool all_host_symbols;
	bool help;            /* --help: print options_usage(), exit 0 */
	bool version;         /* --version */
	/* Hidden developer mode: --mi-log runs the session to its first
	 * stop (or through the --mi-exec commands) and prints every record
	 * as a sanitised line.  Used by tests/sh. */
	bool mi_log;
	const char **mi_exec; /* --mi-exec CMD, in order */
	size_t nmi_exec;
	int timeout_s;        /* --timeout SECS: a hang after SECS of running
			       * (batch, screen); --mi-log answers (0: 60) */
	const char *demo_name; /* --demo NAME: that demo without the menu
				* (points into argv), NULL for the menu */
	const struct cudbg_config *config; /* the config file, set by main
					    * (include/cudbg/config.h), or
					    * NULL */
	/* jobs of many processes (docs/multiprocess.md) */
	bool job;             /* --job: run PROG's whole process tree
			       * fault-first with coredumps on exception */
	const char *core_dir; /* --core-dir DIR: per-process coredumps */
	const struct job *job_table; /* set by app/job_main.c for the
				      * session of the faulting process:
				      * the report and the Processes pane
				      * show it; NULL otherwise */
	/* the Debug Adapter Protocol server (docs/dap.md) */
	bool dap;             /* --dap: serve DAP on stdin/stdout */
	bool dap_listen;      /* --dap-port given */
	int dap_port;         /* --dap-port PORT (0: any free port) */
};

/* Parses argv into *o (zeroed first).  Returns 0, or -1 with a one-line
 * message in err (the caller prints "cudbg-tui: " err and exits 2).
 * On success call options_free() later. */
int options_parse(struct cudbg_options *o, int argc, char **argv,
		  char *err, size_t cap);
void options_free(struct cudbg_options *o); /* accepts a zeroed struct */

/* Fills a session_config from the options (pointers into *o). */
void options_session_config(const struct cudbg_options *o,
			    struct session_config *cfg);

/* Fills the diagnosis pipeline's config from the options (pointers into
 * *o): diag/ never reads the command line itself. */
struct diag_run_config;
void options_diag_config(const struct cudbg_options *o,
			 struct diag_run_config *cfg);

/* The --help text (static). */
const char *options_usage(void);

#define CUDBG_VERSION "0.1.0"

#endif
