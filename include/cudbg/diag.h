/* Fault diagnosis: one account of what went wrong, built from every source
 * a session has (the debugger's stop and stacks, the program's terminal,
 * compute-sanitizer reports, GPU coredumps, the program's exit).
 *
 * Code: diag/collect.c, diag/exceptions.c, diag/util.c.  Layer rules: no
 * curses, never exits or prints; functions return 0/positive or a negative
 * DIAG_E* code.
 *
 * Shape: a collector `struct diag` is fed the session's events as they
 * happen (diag_on_record for the text of the debugger's records,
 * diag_on_program_output for the program's pty bytes, diag_add_sanitizer
 * for a parsed report, ...) and what the debugger said, decoded once into
 * the model (diag_feed_model, include/cudbg/diagrun.h), and
 * diag_analyze() turns what it saw into a `struct diag_fault`.  The
 * collector owns every string in the fault; the fault stays valid until
 * the next call that feeds or frees the collector.
 *
 * Values for hint evidence (n_classes, an index, ...) come from the caller:
 * diag_wanted() lists the expressions the chosen hints need, the caller
 * evaluates them with -data-evaluate-expression (synchronously through
 * diag_evaluate() or asynchronously) and hands the answers back with
 * diag_set_value().
 */
#ifndef CUDBG_DIAG_H
#define CUDBG_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mi_record;
struct diag_san;
struct diag_asserts;
struct diag_assert_entry;
struct diag_san_record;
struct diag_rules;
struct diag_hang;

enum {
	DIAG_OK = 0,
	DIAG_ENOMEM = -1,    /* allocation failed */
	DIAG_ESYNTAX = -2,   /* malformed input (XML, rules file) */
	DIAG_EIO = -3,       /* a file could not be read or written */
	DIAG_ELIMIT = -4,    /* input beyond a documented bound */
	DIAG_EEXEC = -5,     /* a program could not be started */
	DIAG_ESTATE = -6,    /* call out of order */
	DIAG_ENOTFOUND = -7, /* no such file, program or entry */
};
const char *diag_strerror(int code);

struct diag_dim3 {
	uint32_t x, y, z;
};

/* Facts about a session that hint rules test (`when` / `unless` in
 * data/hints.rules).  Most are derived by diag_analyze(); the
 * environment ones are set by the caller with diag_set_flag() (the session
 * knows when cuda-gdb was not found), some are also recognised in the text
 * the debugger or the program wrote.  X(ENUM, "rule-name", "meaning"). */
#define DIAG_FLAGS(X)                                                         \
	X(DEVICE_STOP, "device-stop", "the debugger stopped in device code on a fault") \
	X(DEVICE_EXCEPTION, "device-exception", "the stop is a CUDA_EXCEPTION_N (or a driver coredump names one)") \
	X(DEVICE_ASSERT, "device-assert", "a device assert() fired (stop or text)") \
	X(DEVICE_TRAP, "device-trap", "device code executed __trap()")        \
	X(WARP_LEVEL, "warp-level", "the exception is reported per warp")     \
	X(LANE_UNKNOWN, "lane-unknown", "the focused lane may not be the faulting thread") \
	X(CULPRIT_LANE, "culprit-lane", "the faulting lane was found from every lane's address of the faulting access") \
	X(FREED_MEMORY, "freed-memory", "the bad address lies in device memory the program allocated and freed (the allocation watch)") \
	X(DEVICE_MEMORY_ON_HOST, "device-memory-on-host", "host code crashed on an address inside a live device allocation (the allocation watch)") \
	X(HOST_ASSERT, "host-assert", "a CPU crash came from the program's own assert(): __assert_fail is on the host stack above the program's frame") \
	X(HOST_UNCAUGHT, "host-uncaught-exception", "a CPU crash came from a C++ exception nobody caught: std::terminate is on the host stack") \
	X(HOST_ABORT, "host-abort", "a CPU crash came from abort() the program called itself (an error check that gives up), no assert() and no uncaught exception") \
	X(HOST_STACK_SMASH, "host-stack-smash", "a CPU crash came from the stack protector: the program's function returned with its canary overwritten (__stack_chk_fail), a local array written past its end") \
	X(HOST_FORTIFY, "host-fortify", "a CPU crash came from a _FORTIFY_SOURCE check the program called (__memcpy_chk ...): a copy longer than its destination") \
	X(HOST_RECURSION, "host-recursion", "a CPU crash in a runaway recursion: the crashing function fills the listed stack from its frame, thousands of frames deep (the stack ran out)") \
	X(HOST_BAD_ACCESS, "host-bad-access", "a CPU crash by SIGSEGV whose address (the signal's si_addr) is one of the crashing line's own dereferences: which one, and the pointer it went through, are known") \
	X(HOST_NULL_ACCESS, "host-null-access", "a CPU crash by SIGSEGV through a null pointer: the line's dereference at the crash's address goes through a pointer that is NULL, or no dereference matched and the address lies in the first page") \
	X(HOST_HEAP_CORRUPT, "host-heap-corrupt", "a CPU crash came inside the allocator the program called (free, malloc, operator delete): a heap it found corrupt (a double free, a write past a block)") \
	X(CHILD_DIED, "child-died", "a process the program started died of a fatal signal or SIGKILL (its own report, or its parent's wait's, even when that parent said nothing)") \
	X(CHILD_KILLED, "child-killed", "every process the program started that died was killed by SIGKILL (the OOM killer, a kill -9), none by a fault") \
	X(CHILDREN_UNHEARD, "children-unheard", "the program started other processes and the kernel's process events were not heard: a death the death reporter cannot see (a static parent, the raw wait) goes unnamed") \
	X(ERROR_PC_DIFFERS, "error-pc-differs", "the faulting PC is not the stop PC") \
	X(COREDUMP, "coredump", "the account comes from a GPU coredump")      \
	X(SANITIZER_CORE, "sanitizer-core", "the GPU coredump is one compute-sanitizer wrote") \
	X(CORE_NO_KERNEL, "core-no-kernel", "the GPU coredump holds no CUDA kernel: it ended first") \
	X(ASSERT_OUTPUT, "assert-output", "assertion lines on the program's terminal") \
	X(SANITIZER, "sanitizer", "a compute-sanitizer report was read")      \
	X(SANITIZER_CLEAN, "sanitizer-clean", "the sanitizer report has no errors") \
	X(SANITIZER_PRECISE, "sanitizer-precise", "the report has an invalid access") \
	X(SANITIZER_IMPRECISE, "sanitizer-imprecise", "the report has a warp exception") \
	X(SANITIZER_API, "sanitizer-api", "the report has a failing CUDA call") \
	X(SANITIZER_LEAK, "sanitizer-leak", "the report lists leaked allocations") \
	X(SANITIZER_RACE, "sanitizer-race", "racecheck found a shared-memory hazard") \
	X(SANITIZER_UNINIT, "sanitizer-uninit", "initcheck found an uninitialised global read") \
	X(SANITIZER_SYNC, "sanitizer-sync", "synccheck found a barrier misused") \
	X(SANITIZER_OTHER, "sanitizer-other", "the report has an error of another kind (a stack overflow)") \
	X(OOB_AFTER, "oob-after", "the bad access lies after an allocation")  \
	X(OOB_BEFORE, "oob-before", "the bad access lies before an allocation") \
	X(NULL_ADDRESS, "null-address", "the bad address is within 64 KiB of zero") \
	X(KERNEL_KNOWN, "kernel-known", "the faulting kernel's name is known") \
	X(POINTER_NULL, "pointer-null", "a pointer of the faulting frame is null at an illegal address") \
	X(HOST_ADDRESS, "host-address", "the bad address or a pointer of the faulting frame looks like a host address") \
	X(ADDRESS_WILD, "address-wild", "the bad address is far from its nearest allocation") \
	X(INDEX_OVERFLOW, "index-overflow", "a 32-bit index of the faulting frame is negative at an illegal address") \
	X(INDEX_WRAP, "index-wrap", "the bad address lies 2^32 elements before a place inside its nearest allocation: a 32-bit index wrapped") \
	X(WARP_SYNC_CALL, "warp-sync-call", "the device stop is inside a warp-synchronous intrinsic (__syncwarp, __shfl_sync, ...)") \
	X(PYTHON, "python", "the program is a Python script")                 \
	X(PYTORCH, "pytorch", "the fault is in PyTorch code")                 \
	X(EXITED, "exited", "the program ended")                              \
	X(EXITED_NORMALLY, "exited-normally", "the program ended with status 0") \
	X(EXIT_FAILED, "exit-failed", "the program ended with a failure status or signal") \
	X(CUDA_OOM, "cuda-oom", "the program said the GPU ran out of memory (out of memory beside CUDA or GPU, cudaErrorMemoryAllocation, CUDA_ERROR_OUT_OF_MEMORY, a library's ALLOC_FAILED)") \
	X(EXIT_SIGKILL, "exit-sigkill", "the program was killed by SIGKILL, which no program can catch and no debugger can stop at (the OOM killer, a kill -9, a scheduler)") \
	X(CONTINUED_PAST_FAULT, "continued-past-fault", "the program was resumed after a device fault") \
	X(CUDA_ERROR_OUTPUT, "cuda-error-output", "a CUDA error message on the program's terminal") \
	X(PYTHON_HOST_ERROR, "python-host-error", "the program ended with a Python exception that is no CUDA error, and printed none") \
	X(PYTHON_NOT_STARTED, "python-not-started", "a Python interpreter ran none of the script or module it was given and said why in one line (no module of that name, a file it cannot open), and no CUDA library was seen loaded") \
	X(NO_DEVICE_STOP, "no-device-stop", "a live run ended without a device stop") \
	X(NO_CUDA_SEEN, "no-cuda-seen", "the libraries the debugger reported so far include no CUDA library (libcuda, libcudart) and no device stop came: nothing of the program has run on a GPU yet") \
	X(NO_CUDA_LIBRARY, "no-cuda-library", "a live run ended having loaded no CUDA library (libcuda, libcudart) and started no other process: it made no CUDA call") \
	X(FORKED, "forked", "the process the debugger followed started another process (the debugger let go of its fork): that process ran unseen") \
	X(LAUNCH_BLOCKING, "launch-blocking", "CUDA_LAUNCH_BLOCKING=1 was set") \
	X(CACHING_ALLOCATOR, "caching-allocator", "PyTorch's caching allocator was on") \
	X(MEMCHECK_RAN, "memcheck-ran", "the memcheck pass ran")              \
	X(SANITIZER_FAILED, "sanitizer-failed", "the sanitizer pass gave no usable report (cut short, unreadable, or it could not start)") \
	X(PLAIN_RUN_FAILED, "plain-run-failed", "the program fails when run without the debugger") \
	X(DEBUGGER_MISSING, "debugger-missing", "cuda-gdb was not found")     \
	X(SANITIZER_MISSING, "sanitizer-missing", "compute-sanitizer was not found") \
	X(CUDADEBUGGER_MISSING, "cudadebugger-missing", "libcudadebugger.so.1 could not be loaded") \
	X(MINIMAL_DEBUGGER, "minimal-debugger", "the cuda-gdb-minimal fallback is in use") \
	X(NO_GPU, "no-gpu", "no GPU is visible to the program")               \
	X(VISIBLE_DEVICES_SET, "visible-devices-set", "CUDA_VISIBLE_DEVICES is set") \
	X(NO_KERNEL_IMAGE, "no-kernel-image", "no kernel image for this GPU")  \
	X(DRIVER_TOO_OLD, "driver-too-old", "the driver is older than the toolkit") \
	X(HANG, "hang", "the program was interrupted while still running (--timeout, C-c)") \
	X(SPIN_WAIT, "spin-wait", "interrupted threads sit in a loop reading memory") \
	X(BARRIER_DIVERGENT, "barrier-divergent", "a block is partly at a barrier, partly elsewhere or exited") \
	X(ALL_WAITING, "all-waiting", "every interrupted thread waits (spin or barrier) on others") \
	X(SPIN_HOLDS_BARRIER, "spin-holds-barrier", "the threads at a barrier wait for spinning threads that reach it after their loop")

enum diag_flag {
#define DIAG_FLAG_ENUM(e, name, text) DIAG_F_##e,
	DIAG_FLAGS(DIAG_FLAG_ENUM)
#undef DIAG_FLAG_ENUM
	DIAG_F_COUNT
};

const char *diag_flag_name(enum diag_flag f);  /* "device-stop" */
const char *diag_flag_text(enum diag_flag f);  /* one-line meaning */
int diag_flag_lookup(const char *name);        /* enum value or -1 */

/* The program's last output lines the report keeps. */
enum { DIAG_TAIL_LINES = 12, DIAG_TAIL_WIDTH = 300 };

enum diag_fault_kind {
	DIAG_FAULT_NONE,         /* nothing went wrong that we saw */
	DIAG_FAULT_EXCEPTION,    /* a hardware exception (CUDA_EXCEPTION_N) */
	DIAG_FAULT_ASSERT,       /* a device assert() */
	DIAG_FAULT_TRAP,         /* a device __trap() */
	DIAG_FAULT_MEMCHECK,     /* found only by compute-sanitizer */
	DIAG_FAULT_CUDA_ERROR,   /* a CUDA error reported on the host, no stop */
	DIAG_FAULT_HOST_SIGNAL,  /* the host process died of a signal */
	DIAG_FAULT_EXIT,         /* the program failed, nothing more known */
	DIAG_FAULT_ENVIRONMENT,  /* the tools or the GPU are not usable */
	DIAG_FAULT_HANG,         /* still running when interrupted (hang.h) */
};
const char *diag_fault_kind_name(enum diag_fault_kind k); /* "exception", ... */

/* CUDA focus of the faulting thread.  -1 means unknown. */
struct diag_focus {
	bool valid;
	int device, sm, warp, lane, kernel;
	long long grid;
	bool has_cluster;
	struct diag_dim3 block, thread, cluster, cluster_dim;
};

struct diag_frame {
	int level;
	char *func;      /* as the debugger gave it (may be a demangled signature) */
	char *file;      /* NULL when the frame has no line info */
	char *fullname;
	unsigned line;
	char *from;      /* shared object, for frames without line info */
	uint64_t addr;
	bool device;     /* a device frame (cuda-gdb marks them arch="m68k") */
};

/* Where the fault happened in source, and which source said so. */
enum diag_loc_source {
	DIAG_LOC_NONE,
	DIAG_LOC_EXCEPTION, /* exception_name/filename/line fields of *stopped */
	DIAG_LOC_FRAME,     /* the first device frame with a file */
	DIAG_LOC_SANITIZER, /* a sanitizer record's <where> */
	DIAG_LOC_ASSERTION, /* the assertion text on the terminal */
};
struct diag_loc {
	enum diag_loc_source source;
	char *file;      /* as given (may be a basename) */
	char *fullname;  /* absolute path when known */
	unsigned line;   /* 0 = unknown */
	char *func;
	char *text;      /* the source line, when read (a host crash) */
};

struct diag_pyframe {
	char *func; /* "<module>", "test_case" */
	char *file;
	unsigned line;
	char *source; /* the line's text (trimmed) when the file was readable */
};

/* The address a CPU crash (SIGSEGV, SIGBUS) names and what the
 * crashing line did there (mi/ctl_access.c reads it: the signal's
 * si_addr, then every dereference of the line, diag_line_derefs, by
 * address and size; diag/model_feed.c hands it over).  Strings owned by
 * the collector once set. */
struct diag_host_access {
	uint64_t address;   /* si_addr */
	char *expr;         /* the line's dereference whose bytes hold
			     * address ("n->next->val"), or NULL */
	char *base;         /* the pointer it went through ("n->next") */
	uint64_t base_value;
	bool has_base;
	char *index;        /* its subscript's text ("i * 1000"), or NULL */
	long long index_value;
	bool has_index;
	bool line_checked;  /* the crashing frame's line had dereferences,
			     * each asked (false: a library's frame, no
			     * source, another frame selected) */
};

/* The user's Python code that launched the faulting kernel, from the
 * sanitizer host stack's Python frames. */
struct diag_python {
	bool found;
	struct diag_pyframe launch; /* outermost frame outside the Python
				     * installation: the script line run */
	struct diag_pyframe call;   /* innermost such frame: the line that
				     * called into the library */
};

/* One evaluated expression (from the caller or captured from locals). */
struct diag_value {
	char *expr;
	char *value;
};

/* Sanitizer findings of one kind at one place (kind, sentence, file,
 * line, function, access size, direction, space): compute-sanitizer
 * lists a warp-wide error thread by thread, one record each.  Ranges are
 * per axis; the allocation part is set when every record of the group
 * that has one names the same allocation (diag/groups.c). */
struct diag_finding_group {
	size_t first;            /* index in diag_fault.findings */
	size_t count;
	bool has_who;
	struct diag_dim3 thread_min, thread_max, block_min, block_max;
	bool has_address;
	uint64_t address_min, address_max;
	bool has_alloc;
	uint64_t alloc_address, alloc_size;
	long long distance_min, distance_max;
};
/* Whether finding i (an index in f->findings) is one of group g's: the
 * members need not be next to each other (the screen lists a group's
 * findings when it is opened). */
struct diag_fault;
bool diag_finding_in_group(const struct diag_fault *f,
			   const struct diag_finding_group *g, size_t i);

/* Where the bad address of an illegal access comes from (diag/
 * provenance.c): the sanitizer's address and nearest allocation, and
 * the faulting frame's pointer and integer values already fetched. */
enum diag_ptr_class {
	DIAG_PTR_UNKNOWN,
	DIAG_PTR_NULL,       /* within 64 KiB of zero */
	DIAG_PTR_NEAR_ALLOC, /* just past or before an allocation */
	DIAG_PTR_WILD,       /* far from every allocation */
	DIAG_PTR_HOST,       /* looks like a host (CPU) address */
};

struct diag_provenance {
	enum diag_ptr_class cls;
	bool has_address;
	uint64_t address;        /* the bad address, or the bad pointer */
	const char *var;         /* the frame's pointer it is about, or NULL */
	const char *var_value;
	bool has_offset;
	long long offset;        /* address - var's value */
	/* A negative 32-bit integer of the frame at an illegal address. */
	const char *index_var, *index_value, *index_type;
	const char *line_text;   /* the faulting source line, when read */
	/* The sanitizer's address alone shows a wrapped 32-bit index
	 * (diag_san_index_wrap): its value as an int, the index it should
	 * have been, the element size, and the line's subscript (or NULL). */
	bool wrap;
	long long wrap_index, wrap_true;
	unsigned wrap_elem;
	const char *wrap_expr;
};

struct diag_fault {
	enum diag_fault_kind kind;
	bool flags[DIAG_F_COUNT];

	/* The stop, as the debugger reported it. */
	char *signal_name;      /* "CUDA_EXCEPTION_14", "SIGTRAP" */
	char *signal_meaning;   /* "Warp Illegal Address" */
	int exception_code;     /* N of CUDA_EXCEPTION_N, or -1 */
	char *exception_name;   /* from the record (exception_name or meaning) */
	char *exception_message;/* the record's message field, if any */
	const char *explanation;/* extra text from the built-in table, or NULL */
	const char *scope;      /* "lane", "warp", "device", "cluster" or NULL */
	struct diag_focus focus;
	uint64_t stop_pc, error_pc;
	bool has_stop_pc, has_error_pc;

	char *kernel;           /* full name or signature */
	char *kernel_short;     /* unqualified name, no templates or params */
	const char *sync_call;  /* the warp-synchronous intrinsic the device
				 * stop is in ("__syncwarp"), or NULL */
	struct diag_loc where;
	/* At a CPU crash, the frame that called where's, when it is the
	 * program's own too (a double free's second free is the caller's
	 * line, not the wrapper's that called free); file NULL when none. */
	struct diag_loc caller;
	/* At a CPU crash in a runaway recursion (host-recursion): the
	 * function, borrowed, and the stack's whole depth; 0 when none. */
	const char *recursion_func;
	int recursion_depth;
	/* At a CPU crash by SIGSEGV or SIGBUS: its address and the crashing
	 * line's dereference there (diag_set_host_access); NULL when not
	 * read. */
	const struct diag_host_access *host_access;
	struct diag_frame *frames; /* device stack, innermost first */
	size_t n_frames;
	struct diag_frame *host_frames; /* the launching host stack */
	size_t n_host_frames;
	char *op;               /* ATen operator for PyTorch kernels, or NULL:
				 * the innermost dispatcher operator
				 * (at::_ops::NAME) at the launch */
	char *op_outer;         /* the outermost one when it differs (the
				 * operator the user called: op gather_out,
				 * op_outer embedding), or NULL */
	/* Set when the only host stack (cuda-gdb's, at the stop) is not at
	 * this kernel's launch: launches are asynchronous and the host had
	 * moved on; this names the operator it was in then.  op is NULL. */
	char *host_op_later;
	struct diag_python python;
	/* The user's own line on the host stack at a device stop (a C or
	 * C++ program; Python has `python`): the innermost host frame with
	 * a source line, and the library function it called (the frame
	 * inside it: "cublasSgemm_v2", "cudaGraphLaunch"); at_launch when
	 * that stack is still the kernel's launch (diag_host_at_launch; with
	 * launch blocking it is), else it is only where the host was when
	 * the device stopped.  Borrowed; func NULL when none. */
	struct diag_host_line {
		const char *func, *file, *api;
		unsigned line;
		bool at_launch;
	} host_line;
	/* The exception line of the last Python traceback the program
	 * printed, when it is no CUDA error (a host failure): "RuntimeError:
	 * expected mat1 and mat2 to have the same dtype, ...".  Borrowed. */
	const char *py_exception;
	/* The interpreter's word that it ran none of the script, after its
	 * path: "No module named pytest", "can't open file 'x.py': [Errno
	 * 2] No such file or directory".  Borrowed; NULL when none or when
	 * a traceback was printed after it. */
	const char *py_start_error;
	/* The live run's last output lines, oldest first (each cut at
	 * DIAG_TAIL_WIDTH bytes, untrusted), and how many lines it printed
	 * in all.  Borrowed. */
	const char *const *output_tail;
	size_t n_output_tail;
	unsigned long long output_total;
	/* The live Python stack at the stop, taken by calling into the
	 * interpreter (include/cudbg/pystack.h): NULL when none was taken;
	 * pystack_why says why not when it was tried; bad_value is the
	 * offending element of an index assert ("labels[23] = 5, ..."), or
	 * why it could not be read. */
	const struct diag_pystack *pystack;
	const char *pystack_why;
	const char *bad_value;
	/* Why the sanitizer pass gave no report ("cut short by --timeout
	 * after 3.0 s", "its report could not be read: ..."), or NULL.
	 * Borrowed. */
	const char *pass_failed;
	/* The culprit-lane search at a warp-level address fault (the
	 * faulting instruction's address in every lane's registers): found
	 * when a few lanes' addresses lie far from the others'
	 * (model_culprit_far).  focus then names the culprit.  Strings
	 * borrowed. */
	struct diag_culprit {
		bool searched;        /* the search came to an end */
		bool found;
		int lanes, bad;       /* active lanes with an address; far ones */
		int lane;             /* the (first) culprit */
		struct diag_dim3 thread;
		int focus_lane;       /* where cuda-gdb had put the focus */
		uint64_t addr;        /* its address */
		uint64_t good_lo, good_hi; /* the other lanes' addresses */
		const char *inst;     /* the faulting instruction */
		const char *why;      /* no search result: why */
		const char *lvalue;   /* the addresses were those of this
				       * access of the faulting line, asked
				       * in every lane (the address register
				       * was overwritten), or NULL */
		const char *var;      /* the kernel pointer parameter below addr */
		unsigned long long offset; /* addr - var's value */
	} culprit;

	/* The bad address lies in device memory the program freed: the
	 * allocation watch's log and the pointers read back at the stop
	 * (mi/alloc_watch.c).  Strings borrowed; a site's file is NULL
	 * when its caller has no line info. */
	struct diag_freed {
		bool found;
		/* not found: the address lies in an allocation not freed
		 * (alloc names it, free is empty) */
		bool in_live;
		uint64_t addr, base, size;
		struct diag_freed_site {
			const char *api;   /* "cudaMalloc", "cudaFree" */
			const char *func, *file;
			unsigned line;
		} alloc, free;
	} freed;

	/* Processes the program started that died of a fatal signal, as
	 * each reported it (preload/death.c).  Borrowed. */
	const struct diag_child_death {
		long pid;
		int sig;
		const char *cmd;
	} *child_deaths;
	size_t n_child_deaths;
	/* Why the kernel's process events were not heard in a run whose
	 * program started other processes ("they need CAP_NET_ADMIN
	 * (root)"), or NULL.  Borrowed. */
	const char *child_events_off;

	/* Assertion lines (aggregated), sanitizer findings (all records). */
	const struct diag_assert_entry *const *asserts;
	size_t n_asserts;
	uint64_t assert_total;  /* lines seen, before aggregation */
	const struct diag_san_record *const *findings;
	size_t n_findings;
	const struct diag_san_record *finding; /* the one the fault is about */
	struct diag_finding_group *groups; /* the findings grouped, in order */
	size_t n_groups;
	struct diag_provenance prov;

	char *core_path;        /* a GPU coredump this came from / was written */
	bool exited;
	int exit_code;          /* when exited and not signalled */
	char *exit_signal;      /* "SIGKILL" when killed */
	char *error_line;       /* first CUDA error line from the program */
	char *program;          /* argv[0] of the debugged program */
	const char *script;     /* a Python program's .py argument, or NULL */
	char *command;          /* its whole command line, words joined by
				 * spaces (those with blanks or quotes in
				 * single quotes); owned by the diag */

	struct diag_value *values;
	size_t n_values;
	char **notes;           /* warnings for the user, in order */
	size_t n_notes;
	/* A hang's summary (kind DIAG_FAULT_HANG; see hang.h), or NULL. */
	const struct diag_hang *hang;
	/* Lines from the program and the debugger worth a rule's `output`
	 * pattern (errors, warnings; bounded). */
	char *const *output_lines;
	size_t n_output_lines;
};

struct diag *diag_new(void);   /* NULL when out of memory */
void diag_free(struct diag *d); /* accepts NULL */

/* The debugged program's command line (argv[0] first) and the environment
 * it runs with (NULL: this process's environ).  Copied. */
int diag_set_program(struct diag *d, char *const argv[], char *const envp[]);
/* Directories to look in for source files named by a path that does not
 * exist here (fixtures rewrite paths to /src/examples/...).  Copied. */
int diag_add_source_dir(struct diag *d, const char *dir);

/* A record from the debugger: its text (console, log and target streams,
 * an error's message) is scanned for CUDA error lines and notable
 * environment lines.  The stop, the exit and the results are the model's
 * (diag_feed_model); nothing here decodes them. */
void diag_on_record(struct diag *d, const struct mi_record *rec);
/* Bytes the program wrote to its terminal, in any chunking. */
void diag_on_program_output(struct diag *d, const char *buf, size_t len);
/* The text of a sanitizer pass (its report and the program's output in
 * that second run): read as program output for asserts and rules, but
 * not the live run's last lines (output_tail). */
void diag_on_pass_output(struct diag *d, const char *buf, size_t len);
/* Bytes the debugger wrote to its stderr. */
void diag_on_debugger_stderr(struct diag *d, const char *buf, size_t len);
/* The program ended outside a debugger run (memcheck pass, plain run). */
void diag_on_exit(struct diag *d, bool signalled, int code_or_signal);
/* Hands a parsed sanitizer report to the collector, which frees it
 * (also when it fails). */
int diag_add_sanitizer(struct diag *d, struct diag_san *report);
/* Lends a report: the caller keeps it and must keep it alive and
 * unchanged until diag_free(d) or diag_unlend_sanitizer().  For a report
 * parsed once and analysed again and again (the screen's Hints pane). */
int diag_lend_sanitizer(struct diag *d, const struct diag_san *report);
/* Takes a lent report back (the screen's next pass replaces it): the
 * account no longer reads it; the next analysis goes without it. */
void diag_unlend_sanitizer(struct diag *d, const struct diag_san *report);
/* A process of the program's that died of a fatal signal (its own report
 * of it, preload/death.c): pid, signal number, command line (copied).
 * Once per pid.  DIAG_OK or DIAG_ENOMEM. */
int diag_add_child_death(struct diag *d, long pid, int sig, const char *cmd);
/* Why the kernel's process events could not be heard this run (procev.h's
 * reason, copied; NULL: heard, or not asked).  The children-unheard fact
 * needs it and a program that started another process.  DIAG_OK or
 * DIAG_ENOMEM. */
int diag_set_child_events_off(struct diag *d, const char *why);
/* A fact known to the caller (environment problems, memcheck ran ...). */
void diag_set_flag(struct diag *d, enum diag_flag f, bool on);
/* The live Python stack (taken over; diag_pystack_free()s it), or NULL
 * with why it could not be had. */
struct diag_pystack;
void diag_set_pystack(struct diag *d, struct diag_pystack *ps,
		      const char *why_not);
/* The bad value found in the operator's tensors (copied). */
void diag_set_bad_value(struct diag *d, const char *text);
/* A CPU crash's address and the line's dereference there (copied; its
 * strings may be NULL).  NULL forgets it. */
void diag_set_host_access(struct diag *d, const struct diag_host_access *a);
/* The sanitizer pass failed: why, in a few words (copied); sets the
 * sanitizer-failed fact.  NULL clears both. */
void diag_set_pass_failed(struct diag *d, const char *why);
/* A value for an expression listed by diag_wanted(). */
int diag_set_value(struct diag *d, const char *expr, const char *value);

/* Builds the account from everything fed so far.  Cheap enough to call at
 * every stop.  Returns NULL only when out of memory. */
const struct diag_fault *diag_analyze(struct diag *d);

/* The assertion aggregator the collector feeds (for panes that list it). */
const struct diag_asserts *diag_asserts_of(const struct diag *d);

/* Expressions that the hints chosen for the current fault read through
 * {eval:...} and that have no value yet.  Up to `max` pointers into the
 * rules; returns how many.  Re-analyses: a fault pointer obtained before
 * is stale afterwards. */
size_t diag_wanted(struct diag *d, const struct diag_rules *rules,
		   const char **exprs, size_t max);
/* The frame level to evaluate them in: the kernel's own frame (1 when
 * frame 0 is __assert_fail), or 0.  cuda-gdb 13 reads register-held
 * locals of an outer device frame from registers the callee reused
 * (stale values): evaluate only parameters there; batch mode evaluates
 * nothing above frame 0. */
int diag_eval_frame(struct diag *d);

/* A synchronous evaluator: writes the value of `expr` in frame `frame`
 * into out (NUL ended) and returns 0, or returns negative when the
 * debugger has no value. */
typedef int (*diag_eval_fn)(void *ctx, int frame, const char *expr,
			    char *out, size_t cap);
/* Calls fn for each wanted expression and stores the answers.  Returns the
 * number of values read. */
int diag_evaluate(struct diag *d, const struct diag_rules *rules,
		  diag_eval_fn fn, void *ctx);

/* Helpers shared with the panes. */

/* Parses "(x,y,z)" (spaces allowed); returns 0 or DIAG_ESYNTAX. */
int diag_parse_dim3(const char *s, struct diag_dim3 *out);
/* Text for a built-in exception name ("Warp Illegal Address"), or NULL. */
const char *diag_exception_explain(const char *name, const char **scope);

/* The access (NAME[...], with a.b or p->q before it) of a faulting
 * source line whose address each lane used, for the culprit search of a
 * -G build (ctl_culprit_search_lvalue): a store's left side, a load's
 * right side (or the left of a compound assignment).  Only text free of
 * side effects (no assignment, ++, call or comma).  Writes it into out
 * (cap) and returns true, else false.  diag/lvalue.c. */
bool diag_culprit_lvalue(const char *line, bool store, char *out, size_t cap);

/* Every dereference a source line makes, in the order written, for the
 * address of a host crash (diag/diagrun.c): each prefix of a name chain
 * that ends in `->NAME` or `[...]` (n->next, n->next->val; j->data[i])
 * and a unary `*` before a chain (*p), with the pointer it goes through
 * (n->next; j->data; p) and its subscript (i; "" for none).  Only text
 * free of side effects (as diag_culprit_lvalue), none through a call.
 * Writes up to max into out, NUL-ended; returns how many.
 * diag/lvalue.c. */
#define DIAG_DEREF_MAX 128
struct diag_deref {
	char expr[DIAG_DEREF_MAX];
	char base[DIAG_DEREF_MAX];
	char index[DIAG_DEREF_MAX];
};
size_t diag_line_derefs(const char *line, struct diag_deref *out, size_t max);

#endif
