/* The debugger model and the controller that keeps it fresh.
 *
 * Code: mi/model.c, mi/ctl.c, mi/ctl_refresh.c.
 *
 * struct dbg_model is plain state: what the panes and batch mode show.  It
 * changes only through the model_* functions below (fed with decoded
 * records) and through the controller.  Every change sets bits in
 * `changes` (MODEL_CH_*); the UI redraws what changed and clears them with
 * model_take_changes().
 *
 * struct dbg_ctl owns a session (include/cudbg/session.h) and a model.  It
 * sends the commands (run, continue, step, breakpoints, focus, evaluate,
 * console) and, on every stop, re-fetches what the panes show: focus,
 * stack, locals, kernels, the focused block's threads, watches, and
 * (when wanted) registers and other CUDA tables.  The caller runs the
 * session's poll loop (session_pollfds/session_handle, or
 * ctl_run_until()).
 *
 * Ownership: the model owns everything it points to (decoded structs with
 * their arenas, malloc'd strings); callers read it through const pointers
 * and never keep pointers across a loop iteration (a refresh replaces the
 * structs).  ctl_free() frees the session and the model.
 *
 * Error convention of mi/: 0 or positive on success, negative CTL_E*,
 * SESSION_E* or MI_E* on failure; model_error() / the console log hold the
 * text for a person.  Nothing here prints or exits.
 */
#ifndef CUDBG_MODEL_H
#define CUDBG_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudbg/decode.h"
#include "cudbg/session.h"

enum {
	CTL_ESTATE = -300,  /* not possible in this state (text in error) */
	CTL_EINVAL = -301,  /* bad argument (empty expression, bad number) */
	CTL_ENOTFOUND = -302, /* no such breakpoint or watch */
};

/* ---- bounded byte ring (program output, console log) ---- */

struct model_ring {
	char *buf;
	size_t cap;      /* bytes kept at most */
	size_t start;    /* index of the oldest byte */
	size_t len;      /* bytes held */
	uint64_t total;  /* bytes ever appended (dropped = total - len) */
};

/* Appends, dropping the oldest bytes beyond cap.  0 or MI_ENOMEM. */
int model_ring_append(struct model_ring *r, const char *buf, size_t len);
/* Copies the held bytes, oldest first, into dst (at most cap bytes, the
 * newest ones when it does not fit); returns bytes written.  No NUL. */
size_t model_ring_copy(const struct model_ring *r, char *dst, size_t cap);
void model_ring_clear(struct model_ring *r);

/* ---- the model ---- */

enum model_state {
	MODEL_NOT_STARTED, /* debugger up, program not run yet */
	MODEL_STARTING,    /* debugger starting / run requested */
	MODEL_RUNNING,
	MODEL_STOPPED,
	MODEL_EXITED,      /* see exit_code / exit_signal */
	MODEL_GONE,        /* the debugger is gone: see gone_reason */
};

const char *model_state_name(enum model_state s); /* "stopped", ... */

/* What changed since the last model_take_changes(). */
enum {
	MODEL_CH_STATE = 1u << 0,
	MODEL_CH_STOP = 1u << 1,     /* a new stop (last_stop replaced) */
	MODEL_CH_FOCUS = 1u << 2,
	MODEL_CH_FRAMES = 1u << 3,
	MODEL_CH_VARS = 1u << 4,
	MODEL_CH_BKPTS = 1u << 5,
	MODEL_CH_WATCHES = 1u << 6,
	MODEL_CH_KERNELS = 1u << 7,
	MODEL_CH_BLOCKS = 1u << 8,
	MODEL_CH_THREADS = 1u << 9,
	MODEL_CH_TABLES = 1u << 10,  /* devices, sms, warps, lanes, contexts */
	MODEL_CH_REGS = 1u << 11,
	MODEL_CH_OUTPUT = 1u << 12,  /* program output */
	MODEL_CH_CONSOLE = 1u << 13, /* console log */
	MODEL_CH_BUSY = 1u << 14,    /* commands in flight changed */
	MODEL_CH_ERROR = 1u << 15,   /* error text changed */
	MODEL_CH_MEMORY = 1u << 16,
	MODEL_CH_WARP_WATCH = 1u << 17,
	MODEL_CH_DISASM = 1u << 18,
	MODEL_CH_CULPRIT = 1u << 19, /* the culprit-lane search */
	MODEL_CH_FREED = 1u << 20,   /* the freed-memory lookup */
	MODEL_CH_ACCESS = 1u << 21,  /* a host crash's address */
	MODEL_CH_ALL = (1u << 22) - 1,
};

/* Optional data the controller fetches at each stop only when a pane
 * shows it (ctl_want). */
enum {
	MODEL_WANT_REGS = 1u << 0,
	MODEL_WANT_BLOCKS = 1u << 1,
	MODEL_WANT_DEVICES = 1u << 2,
	MODEL_WANT_SMS = 1u << 3,
	MODEL_WANT_WARPS = 1u << 4,
	MODEL_WANT_LANES = 1u << 5,
	MODEL_WANT_CONTEXTS = 1u << 6,
	MODEL_WANT_HOST_THREADS = 1u << 7,
	MODEL_WANT_MEMORY = 1u << 8,
};

struct model_watch {
	char *expr;
	char *value;    /* NULL until evaluated */
	bool error;     /* value holds the debugger's error text */
	bool changed;   /* differs from the value at the previous stop */
	char *prev;     /* the value at the previous stop (or NULL) */
};

struct model_reg {
	const char *name; /* borrowed from regnames */
	char *value;      /* NULL when not fetched / unavailable */
	bool changed;     /* differs from the value at the previous stop */
	char *prev;       /* the value at the previous stop (or NULL) */
};

/* One value of the warp watch: an expression in one lane. */
struct model_lane_value {
	int lane;
	struct dec_dim3 thread;
	char *value;      /* or the error text */
	bool error;
	bool active, divergent;
};

/* One lane's address of the faulting access. */
struct model_lane_addr {
	int lane;
	struct dec_dim3 thread;
	uint64_t addr;
	bool has_addr;     /* the address expression evaluated */
};

enum model_culprit_state {
	MODEL_CULPRIT_NONE,    /* not asked at this stop */
	MODEL_CULPRIT_BUSY,
	MODEL_CULPRIT_DONE,    /* lanes[] hold the answers */
	MODEL_CULPRIT_FAILED,  /* why says why */
};

struct model_culprit {
	enum model_culprit_state state;
	uint64_t error_pc;
	char *inst;        /* the faulting instruction's SASS */
	char *expr;        /* the address expression asked in every lane */
	char *why;         /* FAILED: why; kept when the lvalue search that
			    * followed found nothing */
	bool addr_gone;    /* FAILED because the faulting load wrote over
			    * its address register (-G builds) */
	char *lvalue;      /* the faulting line's access ("out[key]") whose
			    * address was asked in every lane instead, or
			    * NULL */
	bool line_first;   /* lvalue is asked before any disassembly (the
			    * line had one access); cleared when the
			    * register search follows */
	struct model_lane_addr *lanes;
	size_t n;
	int back_lane;     /* the lane the focus returns to */
};

/* One call of the device allocation API seen by the allocation watch
 * (mi/alloc_watch.c), in the order the program made them. */
struct model_alloc_event {
	uint64_t addr;     /* an allocation: where the API writes the new
			    * pointer (its first argument); a free: the
			    * pointer freed */
	uint64_t size;     /* an allocation: bytes asked */
	uint64_t ret;      /* the return address into the API's caller */
	uint64_t ret_fp;   /* the same read through the frame pointer, for a
			    * function gdb entered past a whole prologue
			    * (one with line info: cuda_runtime.h's
			    * cudaMalloc<T>); 0 none */
	uint64_t ptr;      /* an allocation: the pointer read back from
			    * addr at the last lookup; 0 unread */
	bool free;
	unsigned char api; /* alloc_watch_api_name(api) */
};

struct model_allocs {
	struct model_alloc_event *ev;
	size_t n, cap;
	size_t dropped;    /* calls seen after the log was full */
	/* the watch's dprintfs (their breakpoint numbers), and whether
	 * they were deleted when the log filled up */
	int bkpts[16];
	size_t nbkpts;
	bool ended;
};

/* Where an allocation API was called: the caller's return address and
 * the line of the call (NULL file when the caller has no line info). */
struct model_alloc_site {
	const char *api;
	uint64_t ret;
	char *func, *file;
	int line;
};

enum model_freed_state {
	MODEL_FREED_NONE,  /* not asked at this stop */
	MODEL_FREED_BUSY,
	MODEL_FREED_DONE,
};

/* Whether a bad address lies in device memory the program freed
 * (ctl_freed_lookup), cleared at each stop. */
/* A return address the lookup may name a site by, and what gdb said of
 * the instruction before it. */
struct model_site_try {
	uint64_t ret;
	unsigned char api;
	bool call;         /* that instruction is a call */
	char *func, *file;
	int line;
};

#define MODEL_SITE_TRIES 8

/* A CPU crash's address (SIGSEGV, SIGBUS: the signal's si_addr) and
 * which of the crashing line's dereferences holds it (ctl_host_access):
 * each asked for its address and size in frame 0, then the one that
 * holds it for its pointer's value and subscript. */
enum model_access_state {
	MODEL_ACCESS_NONE,
	MODEL_ACCESS_BUSY,
	MODEL_ACCESS_DONE,
};

/* One dereference to ask about: its text, the pointer it goes through
 * and its subscript (NULL when none), as the caller split it. */
struct model_deref {
	char *expr, *base, *index;
	uint64_t at, size;          /* answers: &(expr), sizeof(expr) */
	bool has_at, has_size;
};

struct model_access {
	enum model_access_state state;
	bool has_address;
	uint64_t address;
	struct model_deref *derefs; /* owned, with their strings */
	size_t n;
	int match;                  /* the one holding address, or -1 */
	uint64_t base_value;
	bool has_base;
	long long index_value;
	bool has_index;
	size_t pending;             /* answers still to come */
};

struct model_freed {
	enum model_freed_state state;
	bool found;        /* addr lies in [base, base + size), freed */
	bool in_live;      /* not found: addr lies in [base, base + size)
			    * of an allocation not freed (free is empty) */
	uint64_t addr, base, size;
	struct model_alloc_site alloc, free;
	/* the lookup's working state */
	bool has_free;     /* a freed pointer lies below addr */
	size_t free_ev;    /* the free event of the nearest freed pointer */
	size_t alloc_ev;   /* the allocation that gave it, once size != 0 */
	size_t pending;    /* answers still to come */
	bool live;         /* an allocation not freed covers addr */
	size_t live_ev;    /* the latest such */
	uint64_t live_base;
	/* each site's return addresses, the outermost call first: one
	 * allocation is seen by every API it passes through (cudaMalloc<T>,
	 * cudaMalloc, cuMemAlloc_v2), and only the outermost was called
	 * by the program */
	struct model_site_try tries[2][MODEL_SITE_TRIES];
	size_t ntries[2];
};

enum model_table {
	MODEL_T_DEVICES,
	MODEL_T_SMS,
	MODEL_T_WARPS,
	MODEL_T_LANES,
	MODEL_T_KERNELS,
	MODEL_T_BLOCKS,
	MODEL_T_THREADS,  /* the focused block's threads (paged by block) */
	MODEL_T_CONTEXTS,
	MODEL_T_COUNT
};

/* The story a debugger tells while it opens a core, read from its
 * console text (cuda-gdb 13 gives a coredump's stop no *stopped record):
 * mi/core_story.c says which lines.  Strings owned; zeroed: no core. */
struct model_core {
	bool gpu;              /* "Opening GPU coredump: PATH" */
	bool host;             /* "Core was generated by `PROG'." */
	bool stopped;          /* the story told a stop: an exception, a
				* signal or an assert */
	bool no_kernel;        /* a GPU core with no kernel left in it
				* ("No CUDA focus could be set") */
	bool assert_text;      /* "Assertion failed." */
	bool exc_pending;      /* "CUDA Exception: " came without its name */
	char *path;            /* the GPU coredump */
	char *exception;       /* "Warp Illegal Address" */
	bool has_pc;
	uint64_t pc;           /* where the exception was triggered */
	char *function;        /* its function and, with line info, */
	char *file;            /* file and line */
	int line;
	char *signal_name;     /* "Program terminated with signal S, M." */
	char *signal_meaning;
	struct dec_focus focus; /* the first "[Current focus set to ...]" */
};

struct dbg_model {
	enum model_state state;
	unsigned changes;           /* MODEL_CH_* since last take */
	enum session_backend backend;
	enum session_backend target; /* what the session drives: backend, or
				      * for a replay the recorded one */
	bool is_core;               /* a coredump: nothing can run */
	bool cuda;                  /* the debugger is cuda-gdb */

	/* The program's end. */
	bool exited_signalled;
	int exit_code;              /* valid in EXITED unless signalled */
	char *exit_signal;          /* "SIGKILL" when signalled */
	char *gone_reason;          /* MODEL_GONE: one line */
	bool gone_failed;           /* MODEL_GONE: not a clean exit of the
				     * debugger (killed, stalled, a failure
				     * status): the session broke, whatever
				     * the program had done */

	/* The last stop, decoded (has_stop false before the first). */
	bool has_stop;
	struct dec_stop stop;
	unsigned stop_count;
	/* Bumped when a lazy session read more host symbols at a stop
	 * (ctl_read_late_symbols): host stacks listed before are short. */
	unsigned symbols_read;
	/* The first device exception seen, kept after the program moves on
	 * (batch and diagnosis report it even when later stops replace
	 * `stop`). */
	bool had_device_exception;
	/* The program was resumed after that exception (*running): a later
	 * exit is not the fault's (the user continued past it). */
	bool resumed_after_exception;
	/* The program's shared libraries as gdb reported them loaded
	 * (=library-loaded) in this run: whether any came at all (a static
	 * binary has none to report), and whether one was a CUDA library
	 * (libcuda, which every CUDA use loads, or libcudart): without one
	 * the program made no CUDA call. */
	bool libs_seen;
	bool cuda_loaded;
	/* The program started another process in this run (gdb: "[Detaching
	 * after fork from child process N]", vfork too): the debugger
	 * follows the first process only, so what the others loaded and
	 * ran is unknown. */
	bool forked;

	/* Focus: from the stop, the focus query or a focus switch. */
	struct dec_focus focus;
	const char *thread_id;      /* gdb thread of the stop (in stop) */

	/* Stack of the focused thread and the selected frame's variables. */
	struct dec_stack frames;
	/* The device stack at this device exception, kept when the frames
	 * were replaced by a host stack (the kernel gone after calls into
	 * the program: cuda-gdb resumed the GPU for them); empty while
	 * frames is a device stack.  DAP answers the CUDA thread from it. */
	struct dec_stack stop_device_frames;
	int selected_frame;         /* level; -1 when there are no frames */
	/* At a host fault stop, the program's own innermost frame as the
	 * controller chose it (model_user_frame, or a replay's recorded
	 * choice) and selected; -1 otherwise.  The diagnosis and DAP read
	 * it: one decision. */
	int user_frame;
	struct dec_vars vars;       /* locals and arguments (is_arg) */
	struct dec_threads host_threads; /* MODEL_WANT_HOST_THREADS */

	/* Breakpoints by number, ascending. */
	struct dec_bkpts *bkpts;    /* each holds exactly one breakpoint */
	size_t nbkpts;

	struct model_watch *watches;
	size_t nwatches;

	/* CUDA tables (arena NULL when not fetched). */
	struct dec_table tables[MODEL_T_COUNT];
	struct dec_dim3 threads_block; /* block the threads table is for;
					* invalid: the whole grid */
	/* Why the last refresh of a table failed (the debugger's message,
	 * e.g. "not in this recording"); NULL when it did not.  The table
	 * is then empty: what it held belonged to an earlier stop. */
	char *table_error[MODEL_T_COUNT];

	/* Registers of the selected frame (MODEL_WANT_REGS). */
	struct dec_regnames regnames;
	char *regnames_arch;        /* arch the names belong to */
	struct model_reg *regs;     /* [regnames.n] */
	size_t nregs;

	/* Memory view (MODEL_WANT_MEMORY). */
	char *mem_expr;             /* address expression, NULL when unset */
	size_t mem_len;
	struct dec_memory memory;
	char *mem_error;

	/* Warp watch: one expression in every lane of the focused warp. */
	char *warp_expr;
	struct model_lane_value *lanes;
	size_t nlanes;
	bool warp_busy;

	/* The culprit-lane search at a warp-level address fault
	 * (ctl_culprit_search): cleared at each stop. */
	struct model_culprit culprit;
	/* A host crash's address and the line's dereference there
	 * (ctl_host_access): cleared at each stop. */
	struct model_access access;
	/* Every device allocation and free the program made (the session's
	 * allocation watch; empty without it), and at a stop whether the
	 * bad address lies in freed memory. */
	struct model_allocs allocs;
	struct model_freed freed;
	/* What the debugger said while it opened a core (mi/core_story.c). */
	struct model_core core;

	/* Disassembly around the stop, cached per function. */
	struct dec_disasm disasm;
	char *disasm_func;

	struct model_ring output;   /* program's terminal bytes (raw) */
	struct model_ring console;  /* console/log streams, command echoes,
				     * errors (raw debugger text) */
	/* A run of one-line "warning: " console records held back, each
	 * distinct line once with its count ("(x8) warning: Cuda Driver
	 * error detected: ..."), written when the run ends: at other console
	 * text, a result or an exec record (cuda-gdb 13 repeats its driver
	 * warnings by the dozen at a PyTorch stop). */
	struct model_warns {
		char *line[8];      /* without the newline */
		unsigned count[8];
		size_t n;
	} warns;
	bool said_value;            /* console said "Value returned" since
				     * the last *running */
	char *error;                /* last error for the status line */
	unsigned busy;              /* commands in flight from the ctl */
};

/* Zeroes the model; rings of the given capacities (0: defaults of 4 MiB
 * output, 1 MiB console).  0 or MI_ENOMEM. */
int model_init(struct dbg_model *m, size_t output_cap, size_t console_cap);
void model_free(struct dbg_model *m); /* accepts a zeroed model */
unsigned model_take_changes(struct dbg_model *m);

/* Applies an async or stream record: *stopped, *running,
 * =breakpoint-created/-modified/-deleted, =thread-group-exited,
 * =thread-group-started, console/log streams (appended to the console
 * ring).  Returns the MODEL_CH_* bits this record set (also those
 * already pending). */
unsigned model_on_record(struct dbg_model *m, const struct mi_record *rec);
/* Appends program output / console text. */
void model_add_output(struct dbg_model *m, const char *buf, size_t len);
void model_add_console(struct dbg_model *m, const char *buf, size_t len);
/* One console (log: false) or log record while the model is starting:
 * a line of a core's story, kept in m->core. */
void model_core_line(struct dbg_model *m, const char *t, size_t n, bool log);
void model_core_free(struct model_core *c);
/* The lanes whose address lies far from the others': farther from the
 * lanes' median address than 1000 times the lanes' median distance from
 * it, and at least 64 KiB; a minority of at most a quarter of the lanes
 * (else the accesses are merely spread, as a row a lane is).  far[i]
 * (c->n of them, may be NULL) marks them; returns how many (0: no clear
 * culprit). */
size_t model_culprit_far(const struct model_culprit *c, bool *far);
/* The first of them, -1 when none. */
int model_culprit_lane(const struct model_culprit *c);
/* Forgets the culprit-lane search (each stop does). */
void model_culprit_clear(struct dbg_model *m);
/* The allocation watch's console line (ALLOC_WATCH_LINE and the rest,
 * t[0..n)): appended to m->allocs.  False when t is not such a line
 * (console text then). */
bool model_alloc_line(struct dbg_model *m, const char *t, size_t n);
/* Notes one of the watch's own dprintfs (its breakpoint number). */
void model_alloc_watch_bkpt(struct dbg_model *m, int number);
/* Forgets the freed-memory lookup (each stop does); model_free frees the
 * log too. */
void model_freed_clear(struct dbg_model *m);
void model_allocs_free(struct dbg_model *m);
/* The allocation API the watch puts a dprintf on: how many, and the i-th
 * name (NULL past the end). */
size_t alloc_watch_api_count(void);
const char *alloc_watch_api_name(size_t i);
/* The MI command that watches the i-th API (malloc'd; NULL past the end
 * or on ENOMEM).  x86-64 only: the arguments are read from the
 * registers of the System V calling convention at the function's entry
 * (alloc_watch_supported). */
char *alloc_watch_command(size_t i);
bool alloc_watch_supported(void);
/* Sets the error line (copied; NULL clears) and logs it to the console. */
void model_set_error(struct dbg_model *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void model_set_state(struct dbg_model *m, enum model_state s);
void model_set_gone(struct dbg_model *m, const char *reason);

/* Takes ownership of decoded results (the argument is zeroed). */
void model_take_frames(struct dbg_model *m, struct dec_stack *s);
void model_take_vars(struct dbg_model *m, struct dec_vars *v);
void model_take_table(struct dbg_model *m, enum model_table which,
		      struct dec_table *t);
/* The refresh of a table failed: empties it and keeps msg (copied). */
void model_set_table_error(struct dbg_model *m, enum model_table which,
			   const char *msg);
void model_set_focus(struct dbg_model *m, const struct dec_focus *f);
/* Replaces or adds the breakpoint in `one` (n == 1), or deletes by number. */
void model_put_bkpt(struct dbg_model *m, struct dec_bkpts *one);
void model_del_bkpt(struct dbg_model *m, int number);
/* Replaces the whole list from a -break-list answer.  0 or negative. */
int model_set_bkpt_list(struct dbg_model *m, const struct mi_node *results);
/* New register names (the arch changed); values reset. */
void model_take_regnames(struct dbg_model *m, struct dec_regnames *n,
			 const char *arch);
/* Register values; marks changed against the values of the previous
 * stop. */
void model_set_regvals(struct dbg_model *m, const struct dec_regvals *v);
int model_set_watch_value(struct dbg_model *m, size_t i, const char *value,
			  bool error);

/* Queries. */
const struct dec_bkpt *model_bkpt(const struct dbg_model *m, size_t i);
const struct dec_bkpt *model_bkpt_by_number(const struct dbg_model *m,
					    int number);
/* The breakpoint at file:line (matched by full path, else by base name),
 * or NULL. */
const struct dec_bkpt *model_bkpt_at(const struct dbg_model *m,
				     const char *file, int line);
/* The kernels-table row of the focused kernel (the "*" row, else the
 * one whose number is focus.kernel), or -1. */
long model_focus_kernel_row(const struct dbg_model *m);
/* The row of the threads table whose (coalesced) range holds block/thread
 * (grid and block sizes from the kernels table), or -1. */
long model_threads_find(const struct dbg_model *m, struct dec_dim3 block,
			struct dec_dim3 thread);
/* The selected frame, or NULL. */
const struct dec_frame *model_frame(const struct dbg_model *m);
/* The innermost frame with source (a device assert stops in
 * __assert_fail; the kernel with its line is frame 1), or NULL. */
const struct dec_frame *model_source_frame(const struct dbg_model *m);
/* The innermost host frame of the program's own code: its source file
 * is here to read and is neither a system header (/usr/include) nor the
 * CUDA toolkit's.  A libc built with line information names sources
 * that are not here ("./nptl/pthread_kill.c"), so an abort() from
 * assert() or a memcpy on a bad pointer gives the caller's frame.  NULL
 * when no frame is such. */
const struct dec_frame *model_user_frame(const struct dbg_model *m);
/* The last stop was a host fault signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGABRT) with no device focus, live or in a host coredump: a CPU
 * crash. */
bool model_host_fault_stop(const struct dbg_model *m);
/* ...of SIGSEGV or SIGBUS: its siginfo names the bad address. */
bool model_host_address_stop(const struct dbg_model *m);
/* A host coredump (no GPU one) that names the signal it ended with and
 * no device focus: a CPU crash, never a device stop. */
bool model_host_core_crash(const struct dbg_model *m);
/* The last stop was a device exception (CUDA exception or trap) and the
 * program has not moved since: continuing lets it run on and the error
 * is lost (cuda-gdb 13).  The UI warns before it continues. */
bool model_continue_loses_error(const struct dbg_model *m);
/* The selected frame is the outermost one (a kernel's own frame, or
 * main): cuda-gdb 13 and gdb refuse -exec-finish there. */
bool model_finish_refused(const struct dbg_model *m);
/* The program can be resumed (stopped, live, not a core). */
bool model_can_resume(const struct dbg_model *m);
/* A value of frame LEVEL that may be stale: at a device exception (an
 * assert, a hardware fault, a trap; live or in its coredump), only the
 * frame that faulted (0) has its registers as they were; an outer frame
 * (the kernel above __assert_fail, a __device__ helper, its caller)
 * shows registers the inner frames reused.  Only a kernel parameter
 * (@parameter: the constant bank) holds there.  cuda-gdb 13 read a
 * helper's partial = 4.48415509e-44, row = 32 where the truth was -1,
 * 19.  The one test every frontend applies before showing a value. */
bool model_var_untrusted(const struct dbg_model *m, int level,
			 const struct dec_var *v);
/* What the screen and DAP show instead of such a value. */
#define STALE_VALUE_TEXT "<may be stale at this stop: T replays to it>"
/* The stop reason in words for the status line, e.g. "Warp Assert in
 * nll_loss_forward_reduce_cuda_kernel_2d" or "Breakpoint 1 in saxpy2"
 * or "exited with code 3".  Writes into buf; returns buf. */
char *model_describe_stop(const struct dbg_model *m, char *buf, size_t cap);

/* ---- the controller ---- */

struct dbg_ctl;

struct dbg_ctl_config {
	const struct session_config *session;
	/* Observers of the raw stream: the session's own handlers
	 * (session.h), called before the model applies the record; the
	 * diagnosis pipeline's (diag_run_hooks) first, then the
	 * frontend's own (a replay to fault's record feed).  Any may be
	 * NULL. */
	struct session_handlers diag_hooks, hooks;
	size_t output_cap, console_cap; /* 0: defaults */
	unsigned want;                  /* MODEL_WANT_* at start */
	/* Batch mode: a stop's refresh fetches only the focus, the stack
	 * and the selected frame's variables (and what `want` names), not
	 * the kernels and threads tables, which only the screen shows. */
	bool lean;
};

/* Starts the session.  NULL with a one-line reason in err on failure
 * (*code, may be NULL, gets the code). */
struct dbg_ctl *ctl_new(const struct dbg_ctl_config *cfg, char *err,
			size_t cap, int *code);
void ctl_free(struct dbg_ctl *c); /* accepts NULL */

struct session *ctl_session(struct dbg_ctl *c);
const struct dbg_model *ctl_model(const struct dbg_ctl *c);
/* MODEL_CH_* since the last call; clears them. */
unsigned ctl_take_changes(struct dbg_ctl *c);
/* Commands the controller has in flight (the refresh included). */
bool ctl_busy(const struct dbg_ctl *c);
/* The stop's refresh has been answered (true also before any stop). */
bool ctl_refreshed(const struct dbg_ctl *c);

/* Runs the session loop until pred(ctx) (may be NULL), the debugger is
 * gone, or timeout_ms (-1: none).  As session_run_until(). */
int ctl_run_until(struct dbg_ctl *c, bool (*pred)(void *ctx), void *ctx,
		  int timeout_ms);

/* Which optional data to fetch at each stop (MODEL_WANT_*); wanting
 * something new while stopped fetches it now. */
void ctl_want(struct dbg_ctl *c, unsigned want);

/* Execution.  Each returns the token or a negative code (CTL_ESTATE with
 * model->error set when the state does not allow it: not stopped, a core
 * file, finish in the outermost kernel frame). */
int64_t ctl_run(struct dbg_ctl *c);       /* -exec-run (launch/replay) */
/* A launch session that is ready, its program not started or ended:
 * opens a coredump in the same debugger (session_open_core()).  Once the
 * debugger accepts it the model is what a CORE session shows: target and
 * backend SESSION_CORE, is_core, STOPPED, refreshed.  Refused, the state
 * is what it was and model->error says why. */
int64_t ctl_open_core(struct dbg_ctl *c, const char *core);
int64_t ctl_continue(struct dbg_ctl *c);
int64_t ctl_next(struct dbg_ctl *c);
int64_t ctl_step(struct dbg_ctl *c);
int64_t ctl_next_instruction(struct dbg_ctl *c);
int64_t ctl_step_instruction(struct dbg_ctl *c);
int64_t ctl_finish(struct dbg_ctl *c);
/* -exec-until [FILE:LINE]; file NULL: the next line. */
int64_t ctl_until(struct dbg_ctl *c, const char *file, int line);
/* Interrupts the running program; while it is not running but a command
 * is in flight, asks the debugger to drop that command instead (returns
 * 0; see session_interrupt_command()). */
int64_t ctl_interrupt(struct dbg_ctl *c);

/* Breakpoints.  Toggle deletes the breakpoint at file:line or inserts a
 * pending-capable one (-break-insert -f). */
int64_t ctl_break_toggle(struct dbg_ctl *c, const char *file, int line);
/* location: "file:line", "func", "*0xaddr"; cond may be NULL. */
int64_t ctl_break_insert(struct dbg_ctl *c, const char *location,
			 const char *cond);
int64_t ctl_break_enable(struct dbg_ctl *c, int number, bool enable);
int64_t ctl_break_delete(struct dbg_ctl *c, int number);
/* cond NULL or "": remove the condition. */
int64_t ctl_break_condition(struct dbg_ctl *c, int number, const char *cond);

/* Focus (CUDA) and frame selection; each refreshes what depends on it. */
int64_t ctl_focus_thread(struct dbg_ctl *c, struct dec_dim3 block,
			 struct dec_dim3 thread);
int64_t ctl_focus_lane(struct dbg_ctl *c, int lane);
int64_t ctl_select_frame(struct dbg_ctl *c, int level);
/* The host side of a device stop: the stack of gdb thread `thread_id`
 * (NULL: "1", the host thread that launched the kernel; cuda-gdb 13,
 * fixtures/filters.mi.log): -thread-select, -stack-list-frames, then the
 * CUDA focus (or the stopped gdb thread) is selected again.  fn gets the
 * stack, which it may take over (leaving *st zeroed), or st NULL and the
 * debugger's error.  The model is not changed. */
typedef void (*ctl_stack_fn)(void *ctx, struct dec_stack *st,
			     const char *err);
int64_t ctl_host_stack(struct dbg_ctl *c, const char *thread_id,
		       ctl_stack_fn fn, void *ctx);
/* Re-fetches the threads table for one block (paging) or, with an
 * invalid block, for the whole grid.  Never uncoalesced. */
int64_t ctl_threads_page(struct dbg_ctl *c, struct dec_dim3 block);
/* For a hang summary (diag/hang.c): the kernels table and the coalesced
 * threads table of the focused kernel (-cuda-info-threads kernel N), the
 * whole kernel at once.  CTL_ESTATE unless stopped in device code. */
int64_t ctl_hang_tables(struct dbg_ctl *c);
/* The threads of one block uncoalesced (one row per thread with its
 * device, SM, warp and lane), only when the user asks: `set cuda
 * coalescing off` around one -cuda-info-threads block (x,y,z).  The next
 * refresh brings the coalesced table back. */
int64_t ctl_threads_uncoalesced(struct dbg_ctl *c, struct dec_dim3 block);

/* One MI command sent as it is (no line breaks), for sequences the
 * controller has no call for (diag/pystack_run.c: calls into a Python
 * interpreter at a stop).  fn gets the result record of ^done (borrowed,
 * for the call only) and err NULL, or rec NULL and the error text.  The
 * model is not changed and nothing is refreshed. */
typedef void (*ctl_reply_fn)(void *ctx, const struct mi_record *rec,
			     const char *err);
int64_t ctl_raw(struct dbg_ctl *c, const char *cmd, ctl_reply_fn fn,
		void *ctx);
/* After commands that selected another gdb thread (-thread-select 1):
 * selects the CUDA focus (or the stopped gdb thread) and the selected
 * frame again, as ctl_host_stack() does when it is done.  Made for after
 * calls into the program: a CUDA focus that is gone since (cuda-gdb
 * resumed the GPU for the calls) is not reported as an error; the
 * refresh shows what is left.  Returns 0, or CTL_ESTATE when there is
 * nothing to go back to. */
int ctl_restore_focus(struct dbg_ctl *c);
/* A lazy session (session_config.lazy_host_symbols): reads the symbols of
 * SESSION_HOST_LIBS_LATE now, unless read since the last library loaded,
 * then refreshes the stop (symbols_read bumped).  Returns the token when
 * a command went out, 0 when there is nothing to read, or CTL_ESTATE when
 * not stopped. */
int64_t ctl_read_late_symbols(struct dbg_ctl *c);

/* Expressions. */
typedef void (*ctl_value_fn)(void *ctx, const char *expr, const char *value,
			     bool error);
/* -data-evaluate-expression; fn gets the value or the error text. */
int64_t ctl_evaluate(struct dbg_ctl *c, const char *expr, ctl_value_fn fn,
		     void *ctx);
int ctl_watch_add(struct dbg_ctl *c, const char *expr);
int ctl_watch_remove(struct dbg_ctl *c, size_t index);
/* At a warp-level address fault (an illegal, misaligned, out-of-range
 * or invalid-address-space access), finds the lane that made it: the
 * faulting instruction at the error PC is disassembled, its address
 * operand's registers are read in every active lane of the focused warp
 * (switching the lane focus, then back); results in model->culprit
 * (MODEL_CH_CULPRIT).
 * About 2 ms a lane in cuda-gdb 13's warp watch.  line_lvalue (may be
 * NULL): the faulting source line's one access ("out[key]", no side
 * effect: diag_culprit_lvalue), whose address is asked in every lane
 * first, when the focused lane knows its names (a -G build), sparing the
 * first disassembly's 0.37 s; the register search follows only when it
 * names no lane.  0, CTL_ESTATE when the stop is no such fault, or a
 * negative code. */
int ctl_culprit_search(struct dbg_ctl *c, const char *line_lvalue);
/* After a search that failed because the address register was
 * overwritten (culprit.addr_gone): the address of lvalue, the faulting
 * source line's access (out[key]), is evaluated in every active lane
 * instead ("(unsigned long long)&(out[key])"; locals are exact in a -G
 * kernel's faulting frame).  lvalue must have no side effect (the caller
 * checks: diag_culprit_lvalue).  0, CTL_ESTATE when not such a failed
 * search, CTL_EINVAL for text the debugger cannot take. */
int ctl_culprit_search_lvalue(struct dbg_ctl *c, const char *lvalue);
/* At a CPU crash by SIGSEGV or SIGBUS (a host stop): the signal's
 * address, and which of derefs[0..n) (the crashing line's dereferences,
 * in the order written; copied) holds it, each asked in the selected
 * frame for its address and size; then that one's pointer value and
 * subscript.  n may be 0 (the address alone).  Results in model->access
 * (MODEL_CH_ACCESS); a new stop drops what is left.  0 when asked,
 * CTL_ESTATE when not stopped at such a signal, or a negative code. */
int ctl_host_access(struct dbg_ctl *c, const struct model_deref *derefs,
		    size_t n);
/* Frees what model->access holds and resets it. */
void model_access_clear(struct dbg_model *m);
/* Whether any of addrs[0..n) (bad addresses of this stop: the lanes'
 * addresses of the faulting access, a host fault's si_addr) lies in
 * device memory the program freed, by the allocation watch's log: the
 * nearest freed pointer below, the allocation whose pointer it was (each
 * recent allocation's pointer is read where the API wrote it), no later
 * allocation over it, and the lines of both calls.  Else, whether it lies
 * in an allocation still live (in_live: device memory a host fault
 * touched), with its line.  With siginfo, the
 * host signal's si_addr is read first and added.  Results in
 * model->freed (MODEL_CH_FREED).  0 when asked, CTL_ESTATE when the log
 * is empty or nothing is stopped. */
int ctl_freed_lookup(struct dbg_ctl *c, const uint64_t *addrs, size_t n,
		     bool siginfo);
/* Evaluates expr in every lane of the focused warp (switching the lane
 * focus and back); results in model->lanes. */
int ctl_warp_watch(struct dbg_ctl *c, const char *expr);
/* Memory view: reads len bytes at the address expression at each stop. */
int ctl_memory_view(struct dbg_ctl *c, const char *addr_expr, size_t len);
/* -interpreter-exec console CMD; its output goes to the console ring;
 * afterwards what the panes show is refreshed.  Its answer is bounded
 * like every command of ours (the session's timeout). */
int64_t ctl_console(struct dbg_ctl *c, const char *command);
/* Moves the CUDA focus to the first resident thread of a kernel, device
 * or SM (what: "kernel", "device", "sm"; the console's `cuda kernel N`
 * form, which picks that thread itself), then refreshes as ctl_console.
 * CTL_EINVAL for another what or a negative n. */
int64_t ctl_cuda_switch(struct dbg_ctl *c, const char *what, long n);
/* The same for a command the user typed: no bound (they may wait for a
 * long command, or interrupt it). */
int64_t ctl_console_typed(struct dbg_ctl *c, const char *command);
typedef void (*ctl_complete_fn)(void *ctx, const struct dec_complete *done);
int64_t ctl_complete(struct dbg_ctl *c, const char *text, ctl_complete_fn fn,
		     void *ctx);
/* Disassembly around the selected frame's pc (cached per function):
 * 0 when the model holds it already (m->disasm, m->disasm_func), else
 * the token; fn (may be NULL) is called once the answer is in: err NULL
 * and the model holds it, or why there is none. */
typedef void (*ctl_disasm_fn)(void *ctx, const struct dbg_model *m,
			      const char *err);
int64_t ctl_disassemble(struct dbg_ctl *c, ctl_disasm_fn fn, void *ctx);
/* Re-fetches everything the panes show now. */
int ctl_refresh(struct dbg_ctl *c);

#endif
