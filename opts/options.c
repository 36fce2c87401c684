/* Command-line parsing for cudbg-tui (see include/cudbg/options.h). */
#include "cudbg/options.h"
#include "cudbg/diagrun.h"
#include "cudbg/hints.h"
#include "cudbg/leansym.h"
#include "cudbg/memcheck.h"
#include "cudbg/sanitizer.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_text[] =
"usage: cudbg-tui [options] PROG [ARGS...]     debug PROG (a CUDA program)\n"
"       cudbg-tui [options] --pid PID [PROG]   attach to a running process\n"
"       cudbg-tui [options] --remote HOST:PORT [PROG]\n"
"                                              connect to cuda-gdbserver\n"
"       cudbg-tui [options] --core FILE [PROG] open a GPU or CPU coredump\n"
"       cudbg-tui [options] --replay FILE      replay a recorded session\n"
"       cudbg-tui --demo [NAME]                replay recorded GPU faults (a\n"
"                                              menu; no GPU needed)\n"
"\n"
"Everything after PROG (or after --) is passed to the program unchanged.\n"
"\n"
"options:\n"
"  --batch              no screen: run to the first stop or the end and\n"
"                       print a report (exit 0 no fault, 1 fault, 2 error)\n"
"  --json               the batch report as JSON (implies --batch)\n"
"  --record FILE        write a transcript of the session to FILE\n"
"  --force              let --record overwrite an existing FILE\n"
"  --replay-realtime    with --replay, keep the recorded delays\n"
"  --debugger PATH      the debugger to run (default: cuda-gdb from PATH\n"
"                       or $CUDA_HOME/bin; gdb works for CPU programs)\n"
"  -d, --directory DIR  add DIR to the source search path (repeatable)\n"
"  -b, --break LOC      set a breakpoint before the program runs: a\n"
"                       function, kernel or FILE:LINE (repeatable)\n"
"  -x, --command FILE   run the debugger commands in FILE at start, as\n"
"                       gdb -x does (repeatable; ~/.gdbinit is not read\n"
"                       unless the config file says 'gdbinit yes')\n"
"  -ex, --eval-command CMD\n"
"                       run one debugger command at start (repeatable;\n"
"                       in order with -x)\n"
"  --no-run             the screen starts with the program not yet\n"
"                       running (press r); by default it runs at once\n"
; /* (two arrays: ISO C asks compilers for 4095 bytes of literal) */
static const char usage_more[] =
"  --memcheck=WHEN      auto (default), always or never: when to run the\n"
"                       program under compute-sanitizer memcheck\n"
"  --sanitizer PATH     the compute-sanitizer binary to use\n"
"  --sanitizer-tool=TOOL memcheck (default), racecheck (shared-memory\n"
"                       races), initcheck (uninitialised reads) or\n"
"                       synccheck (barrier misuse): the tool the pass runs\n"
"  --sanitizer-flags FLAGS\n"
"                       extra compute-sanitizer options for the pass,\n"
"                       split at blanks, no shell (repeatable; e.g.\n"
"                       \"--print-level error\"); the ones the pass\n"
"                       sets itself (--tool, --xml, --save, ...) are\n"
"                       refused\n"
"  --memcheck-kernel NAME\n"
"                       the memcheck pass checks only kernels named NAME\n"
"                       (faster; the screen's M does this by itself after\n"
"                       a stop in a kernel)\n"
"  --sanitizer-report FILE.xml\n"
"                       load a saved compute-sanitizer XML report\n"
"  --timeout SECS       a program still running after SECS is\n"
"                       interrupted and reported as a hang (where its\n"
"                       threads are); also bounds the debugger's start\n"
"  --job                run PROG as a job of many processes (DataLoader\n"
"                       workers, torch.multiprocessing, torchrun, mpirun):\n"
"                       once, with a GPU coredump per faulting process,\n"
"                       then open the first faulting process's coredump\n"
"  --core-dir DIR       open a directory of per-process coredumps (a job\n"
"                       that died): the first by time, the rest listed\n"
"  --keep-temp          keep the private temporary directory (reports,\n"
"                       coredumps) and print where it is\n"
"  --no-launch-blocking the program runs with asynchronous kernel\n"
"                       launches (faster; the operator, script line and\n"
"                       launch line of a device fault may then be a\n"
"                       later one's)\n"
"  --no-alloc-watch     do not watch the program's device allocations and\n"
"                       frees (by default a program that is not Python,\n"
"                       under cuda-gdb, has them watched so that a fault\n"
"                       in freed memory names its free)\n"
"  --alloc-watch        watch them under any debugger\n"
"  --no-python-stack    do not call into a Python program's interpreter\n"
"                       at a stop to take its stack\n"
"  --all-host-symbols   a Python program's debugger reads every shared\n"
"                       library's symbols as it loads (slower start; by\n"
"                       default only Python's, torch's and c10's, at a\n"
"                       stop)\n"
"  --dap                serve the Debug Adapter Protocol on stdin/stdout\n"
"                       for an editor (docs/dap.md); the program comes\n"
"                       from the editor's launch request\n"
"  --dap-port PORT      the same for one client on 127.0.0.1:PORT (0: a\n"
"                       free port, said on stderr)\n"
"  --version            print the version and exit\n"
"  --help               print this help and exit\n"
"\n"
"With no arguments on a machine without a GPU it starts the demo.\n"
"Settings: $XDG_CONFIG_HOME/cudbg-tui/config (man cudbg-tui).\n";

const char *options_usage(void)
{
	static char all[sizeof usage_text + sizeof usage_more];
	if (!all[0])
		snprintf(all, sizeof all, "%s%s", usage_text, usage_more);
	return all;
}

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, cap, fmt, ap);
	va_end(ap);
	return -1;
}

static int push_str(const char ***arr, size_t *n, const char *s)
{
	const char **a = realloc(*arr, (*n + 1) * sizeof **arr);
	if (!a)
		return -1;
	a[(*n)++] = s;
	*arr = a;
	return 0;
}

/* The long options, for getopt_long.  Each one's val is OPT_BASE plus
 * its index, so a val names its option (getopt_long reports the val of
 * an option given a value it does not take); set_value() and set_flag()
 * dispatch on the name.  Unique abbreviations are accepted (--bat for
 * --batch), as getopt_long does; an exact name always wins over the
 * longer ones it begins (--core, --core-dir). */
enum { OPT_BASE = 256 };
/* Each long option's val is OPT_BASE + its index, numbered as the table
 * is written (__COUNTER__, which GCC and clang have), so the table is
 * const. */
enum { COUNTER0 = __COUNTER__ + 1 };
#define VAL(name) { name, required_argument, NULL, OPT_BASE + __COUNTER__ - COUNTER0 }
#define FLAG(name) { name, no_argument, NULL, OPT_BASE + __COUNTER__ - COUNTER0 }
static const struct option long_opts[] = {
	VAL("pid"), VAL("remote"), VAL("core"), VAL("replay"), VAL("record"),
	VAL("debugger"), VAL("directory"), VAL("memcheck"), VAL("sanitizer"),
	VAL("sanitizer-report"), VAL("sanitizer-tool"), VAL("mi-exec"),
	VAL("timeout"), VAL("break"), VAL("command"), VAL("eval-command"),
	VAL("core-dir"), VAL("dap-port"), VAL("memcheck-kernel"),
	VAL("sanitizer-flags"),
	FLAG("batch"), FLAG("json"), FLAG("demo"), FLAG("keep-temp"),
	FLAG("version"), FLAG("help"), FLAG("force"), FLAG("replay-realtime"),
	FLAG("mi-log"), FLAG("no-run"), FLAG("no-launch-blocking"),
	FLAG("no-python-stack"), FLAG("job"), FLAG("dap"),
	FLAG("all-host-symbols"), FLAG("alloc-watch"), FLAG("no-alloc-watch"),
	{ NULL, 0, NULL, 0 },
};
#undef VAL
#undef FLAG
#define NLONG (sizeof long_opts / sizeof long_opts[0] - 1)

/* The short options: -h, -d DIR, -b LOC ('+': stop at the program, ':':
 * a missing value comes back as ':').  gdb's -x FILE and -ex CMD are
 * whole words that getopt cannot express (-ex is two letters); they are
 * taken before getopt sees them (take_gdb_word). */
static const char short_opts[] = "+:hd:b:";

/* "--NAME" of a long option's val into buf. */
static const char *long_name(int val, char *buf, size_t cap)
{
	snprintf(buf, cap, "--%s", long_opts[val - OPT_BASE].name);
	return buf;
}

static int parse_pid(struct cudbg_options *o, const char *v, char *err,
		     size_t cap)
{
	char *end;
	errno = 0;
	long pid = strtol(v, &end, 10);
	if (errno || end == v || *end || pid <= 0 || pid > INT_MAX)
		return fail(err, cap, "--pid needs a process id (a positive "
			    "number), not '%s'", v);
	o->pid = pid;
	return 0;
}

/* HOST:PORT with a port in 1..65535; HOST may be empty (gdb then means
 * localhost) or a bracketed IPv6 address. */
static int check_remote(const char *v, char *err, size_t cap)
{
	const char *colon = strrchr(v, ':');
	char *end;
	if (!colon || !colon[1])
		return fail(err, cap, "--remote needs HOST:PORT (e.g. "
			    "gpuhost:2345), not '%s'", v);
	errno = 0;
	long port = strtol(colon + 1, &end, 10);
	if (errno || *end || port < 1 || port > 65535)
		return fail(err, cap, "--remote: '%s' is not a port number "
			    "(1-65535)", colon + 1);
	return 0;
}

static int parse_memcheck(struct cudbg_options *o, const char *v, char *err,
			  size_t cap)
{
	if (strcmp(v, "auto") == 0)
		o->memcheck = CUDBG_MEMCHECK_AUTO;
	else if (strcmp(v, "always") == 0)
		o->memcheck = CUDBG_MEMCHECK_ALWAYS;
	else if (strcmp(v, "never") == 0)
		o->memcheck = CUDBG_MEMCHECK_NEVER;
	else
		return fail(err, cap, "--memcheck takes auto, always or never, "
			    "not '%s'", v);
	o->memcheck_given = true;
	return 0;
}

static int parse_dap_port(struct cudbg_options *o, const char *v, char *err,
			  size_t cap)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (end == v || *end || n < 0 || n > 65535)
		return fail(err, cap, "--dap-port needs a port (0-65535; 0 "
			    "picks a free one), not '%s'", v);
	o->dap_port = (int)n;
	o->dap = o->dap_listen = true;
	return 0;
}

static int parse_timeout(struct cudbg_options *o, const char *v, char *err,
			 size_t cap)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (end == v || *end || n <= 0 || n > 86400)
		return fail(err, cap, "--timeout needs seconds (1-86400), "
			    "not '%s'", v);
	o->timeout_s = (int)n;
	return 0;
}

/* -x FILE / -ex CMD, in command-line order.  A file that cannot be read
 * is named now, not by the debugger later. */
static int push_dbg_cmd(struct cudbg_options *o, const char *v, bool file,
			char *err, size_t cap)
{
	if (file && access(v, R_OK) != 0)
		return fail(err, cap, "-x %s: cannot read it (%s)", v, strerror(errno));
	bool *k = realloc(o->dbg_cmd_is_file, (o->ndbg_cmds + 1) * sizeof *k);
	if (!k)
		return fail(err, cap, "out of memory");
	o->dbg_cmd_is_file = k;
	size_t n = o->ndbg_cmds;
	if (push_str(&o->dbg_cmds, &o->ndbg_cmds, v))
		return fail(err, cap, "out of memory");
	k[n] = file;
	return 0;
}

static int set_value(struct cudbg_options *o, const char *name,
		     const char *v, char *err, size_t cap)
{
	if (!*v && strcmp(name, "--remote") != 0)
		return fail(err, cap, "%s needs a value", name);
	if (strcmp(name, "--pid") == 0)
		return parse_pid(o, v, err, cap);
	if (strcmp(name, "--remote") == 0) {
		o->remote = v;
		return check_remote(v, err, cap);
	}
	if (strcmp(name, "--core") == 0)
		o->core = v;
	else if (strcmp(name, "--core-dir") == 0)
		o->core_dir = v;
	else if (strcmp(name, "--replay") == 0)
		o->replay = v;
	else if (strcmp(name, "--record") == 0)
		o->record = v;
	else if (strcmp(name, "--debugger") == 0)
		o->debugger = v;
	else if (strcmp(name, "--directory") == 0) {
		if (push_str(&o->dirs, &o->ndirs, v))
			return fail(err, cap, "out of memory");
	} else if (strcmp(name, "--break") == 0) {
		if (push_str(&o->breaks, &o->nbreaks, v))
			return fail(err, cap, "out of memory");
	} else if (strcmp(name, "--memcheck") == 0)
		return parse_memcheck(o, v, err, cap);
	else if (strcmp(name, "--sanitizer") == 0)
		o->sanitizer = v;
	else if (strcmp(name, "--memcheck-kernel") == 0) {
		char f[300];
		if (diag_memcheck_kernel_filter(v, f, sizeof f) < 0)
			return fail(err, cap, "--memcheck-kernel takes a kernel's "
				    "name (letters, digits, _), not '%s'", v);
		o->memcheck_kernel = v;
	} else if (strcmp(name, "--sanitizer-report") == 0)
		o->sanitizer_report = v;
	else if (strcmp(name, "--sanitizer-tool") == 0) {
		if (!(o->sanitizer_tool = diag_san_tool_parse(v)))
			return fail(err, cap, "--sanitizer-tool takes memcheck, "
				    "racecheck, initcheck or synccheck, not "
				    "'%s'", v);
	}
	else if (strcmp(name, "--sanitizer-flags") == 0) {
		if (diag_san_flags_add(&o->san_flags, &o->nsan_flags, v, err,
				       cap) < 0) {
			char why[512];
			snprintf(why, sizeof why, "%s", err);
			return fail(err, cap, "--sanitizer-flags: %s", why);
		}
	}
	else if (strcmp(name, "--mi-exec") == 0) {
		if (push_str(&o->mi_exec, &o->nmi_exec, v))
			return fail(err, cap, "out of memory");
	} else if (strcmp(name, "--timeout") == 0)
		return parse_timeout(o, v, err, cap);
	else if (strcmp(name, "--command") == 0 || strcmp(name, "--eval-command") == 0)
		return push_dbg_cmd(o, v, strcmp(name, "--command") == 0, err, cap);
	else if (strcmp(name, "--dap-port") == 0)
		return parse_dap_port(o, v, err, cap);
	return 0;
}

static void set_flag(struct cudbg_options *o, const char *name)
{
	if (strcmp(name, "--batch") == 0)
		o->batch = true;
	else if (strcmp(name, "--json") == 0)
		o->json = o->batch = true;
	else if (strcmp(name, "--demo") == 0)
		o->demo = true;
	else if (strcmp(name, "--keep-temp") == 0)
		o->keep_temp = true;
	else if (strcmp(name, "--no-launch-blocking") == 0)
		o->no_launch_blocking = true;
	else if (strcmp(name, "--no-python-stack") == 0)
		o->no_pystack = true;
	else if (strcmp(name, "--alloc-watch") == 0)
		o->alloc_watch = true;
	else if (strcmp(name, "--no-alloc-watch") == 0)
		o->no_alloc_watch = true;
	else if (strcmp(name, "--all-host-symbols") == 0)
		o->all_host_symbols = true;
	else if (strcmp(name, "--version") == 0)
		o->version = true;
	else if (strcmp(name, "--help") == 0)
		o->help = true;
	else if (strcmp(name, "--force") == 0)
		o->force = true;
	else if (strcmp(name, "--replay-realtime") == 0)
		o->replay_realtime = true;
	else if (strcmp(name, "--mi-log") == 0)
		o->mi_log = true;
	else if (strcmp(name, "--no-run") == 0)
		o->no_run = true;
	else if (strcmp(name, "--job") == 0)
		o->job = true;
	else if (strcmp(name, "--dap") == 0)
		o->dap = true;
}

/* gdb's -x FILE and -ex CMD, as whole words (-xFILE is not taken):
 * argv[optind] when it is one, consuming its value.  Returns 1 when it
 * took one, 0 when argv[optind] is something else, -1 on an error. */
static int take_gdb_word(struct cudbg_options *o, int argc, char **argv,
			 char *err, size_t cap)
{
	const char *w = argv[optind];
	if (strcmp(w, "-x") != 0 && strcmp(w, "-ex") != 0)
		return 0;
	if (optind + 1 >= argc)
		return fail(err, cap, "%s needs a value", w);
	optind += 2;
	if (set_value(o, w[1] == 'x' ? "--command" : "--eval-command",
		      argv[optind - 1], err, cap))
		return -1;
	return 1;
}

/* How many long options begin with the word's name (for the message of
 * an ambiguous abbreviation). */
static size_t prefix_matches(const char *word)
{
	size_t len = strcspn(word + 2, "="), n = 0;
	for (size_t k = 0; k < NLONG; k++)
		if (strncmp(long_opts[k].name, word + 2, len) == 0)
			n++;
	return n;
}

/* getopt_long's '?' and ':' as one line naming the word at argv[at]. */
static int option_error(int c, char **argv, int at, char *err, size_t cap)
{
	char name[48];
	const char *word = argv[at];
	if (c == ':')
		return fail(err, cap, "%s needs a value", optopt >= OPT_BASE
			    ? long_name(optopt, name, sizeof name) : word);
	if (optopt >= OPT_BASE)
		return fail(err, cap, "%s takes no value",
			    long_name(optopt, name, sizeof name));
	if (word[0] == '-' && word[1] == '-' && prefix_matches(word) > 1)
		return fail(err, cap, "ambiguous option '%s' (it begins more "
			    "than one); try 'cudbg-tui --help'", word);
	return fail(err, cap, "unknown option '%s'; try 'cudbg-tui --help'",
		    word);
}

/* One option from getopt_long into o. */
static int apply_option(struct cudbg_options *o, int c, char *err,
			size_t cap)
{
	char name[48];
	if (c == 'h') {
		o->help = true;
		return 0;
	}
	if (c == 'd' || c == 'b')
		return set_value(o, c == 'd' ? "--directory" : "--break",
				 optarg, err, cap);
	long_name(c, name, sizeof name);
	if (long_opts[c - OPT_BASE].has_arg == no_argument) {
		set_flag(o, name);
		return 0;
	}
	return set_value(o, name, optarg, err, cap);
}

/* getopt keeps state between calls (the rest of a "-hd" word, the '+'
 * of the option string): optind 0 makes glibc start afresh, and a call
 * over an empty argument list does that now, so that take_gdb_word may
 * move optind before the first real call (tests parse many times). */
static void restart_getopt(void)
{
	char prog[] = "cudbg-tui";
	char *none[] = { prog, NULL };
	optind = 0;
	(void)getopt_long(1, none, short_opts, long_opts, NULL);
	optind = 1;
}

/* The options before the program (or "--"); *first is then the index of
 * the program's word. */
static int parse_words(struct cudbg_options *o, int argc, char **argv,
		       int *first, char *err, size_t cap)
{
	opterr = 0;  /* the messages are ours, one line each */
	restart_getopt();
	for (;;) {
		int at = optind;
		if (at < argc && argv[at][0] == '-') {
			int took = take_gdb_word(o, argc, argv, err, cap);
			if (took < 0)
				return -1;
			if (took)
				continue;
		}
		int c = getopt_long(argc, argv, short_opts, long_opts, NULL);
		if (c == -1)
			break;
		if (c == '?' || c == ':')
			return option_error(c, argv, at, err, cap);
		if (apply_option(o, c, err, cap))
			return -1;
	}
	*first = optind;
	return 0;
}

/* Exactly one way of reaching a program. */
static int pick_backend(struct cudbg_options *o, char *err, size_t cap)
{
	if (o->dap) {
		/* the editor's launch request names the program */
		if (o->argv)
			return fail(err, cap, "--dap takes the program from the "
				    "editor's launch configuration, not the "
				    "command line ('%s' given)", o->argv[0]);
		o->backend = SESSION_NONE;
		return 0;
	}
	int ways = (o->pid > 0) + (o->remote != NULL) + (o->core != NULL) +
		   (o->replay != NULL) + o->demo + (o->core_dir != NULL);
	if (ways > 1)
		return fail(err, cap, "choose one of --pid, --remote, --core, "
			    "--core-dir, --replay and --demo");
	if (o->job && (ways > 0 || !o->argv))
		return fail(err, cap, "--job needs a command to run (--job "
			    "PROG [ARGS...]), without --pid, --remote, --core, "
			    "--core-dir, --replay or --demo");
	if (o->replay || o->demo) {
		/* --demo NAME opens that demo without the menu */
		if (o->demo && o->argc == 1) {
			o->demo_name = o->argv[0];
			o->argv = NULL;
			o->argc = 0;
		}
		if (o->demo && o->argv)
			return fail(err, cap, "--demo takes one demo name at "
				    "most ('%s' given after '%s')",
				    o->argv[1], o->argv[0]);
		if (o->argv)
			return fail(err, cap, "%s takes no program: the "
				    "recording has it ('%s' given)",
				    o->demo ? "--demo" : "--replay",
				    o->argv[0]);
		o->backend = o->demo ? SESSION_NONE : SESSION_REPLAY;
		return 0;
	}
	if (ways == 1) {
		if (o->argc > 1)
			return fail(err, cap, "program arguments ('%s') apply "
				    "only when cudbg-tui starts the program",
				    o->argv[1]);
		o->backend = o->pid > 0 ? SESSION_ATTACH
			   : o->remote ? SESSION_REMOTE : SESSION_CORE;
		return 0;
	}
	if (o->argv) {
		o->backend = SESSION_LAUNCH;
		return 0;
	}
	if (o->sanitizer_report) {
		o->backend = SESSION_NONE;
		return 0;
	}
	return fail(err, cap, "no program given; usage: cudbg-tui [options] "
		    "PROG [ARGS...] (try 'cudbg-tui --help' or --demo)");
}

/* Two names of one file (the same string, ./X, a symlink, a hard link):
 * compared by device and inode, since any other name would let --record
 * truncate the recording before the replay reads it. */
static bool same_file(const char *a, const char *b)
{
	struct stat x, y;
	if (strcmp(a, b) == 0)
		return true;
	if (stat(a, &x) < 0 || stat(b, &y) < 0)
		return false;
	return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

static int check_combinations(struct cudbg_options *o, char *err, size_t cap)
{
	if (o->force && !o->record)
		return fail(err, cap, "--force only applies to --record FILE");
	if (o->nmi_exec && !o->mi_log)
		return fail(err, cap, "--mi-exec needs --mi-log");
	if (o->replay_realtime && !o->replay)
		return fail(err, cap, "--replay-realtime needs --replay FILE");
	if (o->record && o->replay && same_file(o->record, o->replay))
		return fail(err, cap, "--record '%s' is the recording being "
			    "replayed ('%s'); writing it would destroy it: "
			    "choose another file for --record", o->record,
			    o->replay);
	return 0;
}

int options_parse(struct cudbg_options *o, int argc, char **argv,
		  char *err, size_t cap)
{
	memset(o, 0, sizeof *o);
	int i = argc;
	if (parse_words(o, argc, argv, &i, err, cap)) {
		options_free(o);
		return -1;
	}
	if (i < argc) {
		o->argv = argv + i;
		o->argc = argc - i;
	}
	if (o->help || o->version)
		return 0;
	if (pick_backend(o, err, cap) || check_combinations(o, err, cap)) {
		options_free(o);
		return -1;
	}
	return 0;
}

void options_free(struct cudbg_options *o)
{
	if (!o)
		return;
	free(o->dirs);
	free(o->breaks);
	o->breaks = NULL;
	o->nbreaks = 0;
	free(o->mi_exec);
	diag_san_flags_free(o->san_flags, o->nsan_flags);
	o->san_flags = NULL;
	o->nsan_flags = 0;
	free(o->dbg_cmds);
	free(o->dbg_cmd_is_file);
	o->dbg_cmds = NULL;
	o->dbg_cmd_is_file = NULL;
	o->ndbg_cmds = 0;
	o->dirs = NULL;
	o->mi_exec = NULL;
	o->ndirs = o->nmi_exec = 0;
}

/* ---- the live program's children (preload/death.c) ---- */

static char children_path[PATH_MAX];
static char children_preload[PATH_MAX * 2];

static void children_remove(void)
{
	if (children_path[0])
		diag_remove_dir(children_path, 0);
}

/* The private directory a launched program's processes write their
 * deaths to, made once a process (removed at its exit unless
 * --keep-temp), and the LD_PRELOAD that arms them (the reporter first,
 * the user's preloads after); NULL when the reporter is not installed or
 * the directory cannot be made: no child deaths are then seen. */
static const char *children_dir(const struct cudbg_options *o)
{
	static bool tried;
	if (tried)
		return children_path[0] ? children_path : NULL;
	tried = true;
	char lib[PATH_MAX];
	if (o->backend != SESSION_LAUNCH || o->job || !diag_death_reporter(lib, sizeof lib))
		return NULL;
	const char *tmp = getenv("TMPDIR");
	int n = snprintf(children_path, sizeof children_path,
			 "%s/cudbg-children-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (n < 0 || (size_t)n >= sizeof children_path ||
	    !mkdtemp(children_path)) {
		children_path[0] = '\0';
		return NULL;
	}
	const char *pre = getenv("LD_PRELOAD");
	snprintf(children_preload, sizeof children_preload, "%s%s%s", lib,
		 pre && *pre ? " " : "", pre && *pre ? pre : "");
	if (!o->keep_temp)
		atexit(children_remove);
	return children_path;
}

void options_session_config(const struct cudbg_options *o,
			    struct session_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->backend = o->backend;
	cfg->debugger = o->debugger;
	cfg->argv = o->argv;
	cfg->pid = o->pid;
	cfg->remote = o->remote;
	cfg->core = o->core;
	cfg->replay = o->replay;
	cfg->replay_realtime = o->replay_realtime;
	cfg->record = o->record;
	cfg->record_force = o->force;
	cfg->dirs = o->dirs;
	cfg->ndirs = o->ndirs;
	/* cuda-gdb's setting; plain gdb would read `cuda` as a variable */
	const char *dbg = o->debugger ? strrchr(o->debugger, '/') : NULL;
	dbg = dbg ? dbg + 1 : o->debugger;
	bool cuda_launch = o->backend == SESSION_LAUNCH &&
			   (!dbg || strncmp(dbg, "cuda-gdb", 8) == 0);
	bool py_cuda = cuda_launch && diag_argv_is_python(o->argv);
	/* Every program, not only Python: at a device stop the host thread
	 * is then still in the launch, and its stack holds the user's line
	 * (a cuBLAS call, a graph launch, a shell launcher's python; issue
	 * 28).  The setting belongs to the inferior, so it holds after the
	 * exec of a launcher script.  --no-launch-blocking turns it off. */
	cfg->launch_blocking = cuda_launch && !o->no_launch_blocking;
	cfg->lazy_host_symbols = py_cuda && !o->all_host_symbols;
	/* A Python program's allocator (PyTorch's, CuPy's) keeps what it
	 * frees mapped, and its libraries are read lazily: no watch. */
	cfg->alloc_watch = o->backend == SESSION_LAUNCH && !o->no_alloc_watch &&
			   !cfg->lazy_host_symbols &&
			   (o->alloc_watch || (cuda_launch && !py_cuda));
	const char *libs = getenv("CUDBG_HOST_LIBS");
	cfg->host_libs = libs && *libs ? libs : NULL;
	/* (named once; the process keeps it) */
	static char *symbol_cache;
	if (cfg->lazy_host_symbols && !symbol_cache)
		symbol_cache = leansym_cache_dir();
	cfg->symbol_cache = cfg->lazy_host_symbols ? symbol_cache : NULL;
	/* --timeout bounds the wait for the debugger's first answer too. */
	cfg->start_timeout_ms = o->timeout_s > 0 ? o->timeout_s * 1000 : 0;
	cfg->child_dir = children_dir(o);
	cfg->child_preload = cfg->child_dir ? children_preload : NULL;
}

static enum diag_memcheck_policy memcheck_policy(enum cudbg_memcheck m)
{
	switch (m) {
	case CUDBG_MEMCHECK_ALWAYS: return DIAG_MEMCHECK_ALWAYS;
	case CUDBG_MEMCHECK_NEVER: return DIAG_MEMCHECK_NEVER;
	case CUDBG_MEMCHECK_AUTO: break;
	}
	return DIAG_MEMCHECK_AUTO;
}

void options_diag_config(const struct cudbg_options *o,
			 struct diag_run_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->argv = o->argv;
	cfg->dirs = o->dirs;
	cfg->ndirs = o->ndirs;
	cfg->memcheck = memcheck_policy(o->memcheck);
	/* A tool named by the user is run (issue 29 item 4): with the
	 * default --memcheck=auto a clean exit ran no pass, and the report
	 * said only "no fault found".  --memcheck=never still wins. */
	if (o->sanitizer_tool && cfg->memcheck == DIAG_MEMCHECK_AUTO)
		cfg->memcheck = DIAG_MEMCHECK_ALWAYS;
	cfg->sanitizer = o->sanitizer;
	cfg->sanitizer_tool = o->sanitizer_tool;
	cfg->memcheck_kernel = o->memcheck_kernel;
	cfg->san_flags = o->san_flags;
	cfg->nsan_flags = o->nsan_flags;
	cfg->sanitizer_report = o->sanitizer_report;
	cfg->debugger = o->debugger;
	cfg->replay = o->replay;
	cfg->keep_temp = o->keep_temp;
	cfg->can_rerun = o->backend == SESSION_LAUNCH && o->argv && o->argv[0];
	cfg->no_pystack = o->no_pystack;
	cfg->child_dir = children_dir(o);
}
