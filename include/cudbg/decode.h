/* Typed decoders: GDB/MI result trees (include/cudbg/mi.h) into plain C
 * structs.
 *
 * Every decoder takes the chain of results of one record (`rec->results`;
 * for a focus switch or a stop the same chain) and fills a caller-provided
 * struct.  Parser records die after their callback, so decoded structs own
 * copies of everything they point to.
 *
 * Ownership: each top-level struct below (dec_stop, dec_stack, dec_vars,
 * dec_bkpts, dec_disasm, dec_regnames, dec_regvals, dec_memory,
 * dec_complete, dec_threads, dec_table) has an `arena` member that owns
 * every string and array reachable from it.  Zero-initialise it before
 * decoding; release it with the matching *_free(), which accepts NULL and
 * zeroed structs and leaves the struct zeroed.  A struct may be moved
 * (copied by value) as long as only one copy is freed.  Nested structs
 * (dec_frame, dec_var, dec_bkpt, table rows) borrow from their owner.
 *
 * Decoding is lenient about optional fields (absent strings are NULL,
 * absent numbers -1 or 0 as documented, absent flags false) because gdb and
 * cuda-gdb versions differ in what they print.  A decoder fails only when
 * the record lacks the field that names what it decodes.
 *
 * Error convention of mi/: 0 or positive on success, negative DEC_E* or
 * MI_E* on failure; nothing here prints or exits.
 */
#ifndef CUDBG_DECODE_H
#define CUDBG_DECODE_H

#include "cudbg/mi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	DEC_EMISSING = -20, /* the record lacks the field being decoded */
	DEC_ESHAPE = -21,   /* the field exists but has the wrong shape */
};

/* ---- arena: owns the strings and arrays of one decoded object ---- */

struct dec_arena;

struct dec_arena *dec_arena_new(void);          /* NULL when out of memory */
void dec_arena_free(struct dec_arena *a);       /* accepts NULL */
/* Zeroed, 16-byte aligned memory that lives as long as the arena. */
void *dec_arena_alloc(struct dec_arena *a, size_t size);
/* Copies s[0..len) and adds a NUL.  NULL when out of memory. */
char *dec_arena_strndup(struct dec_arena *a, const char *s, size_t len);
/* Bytes held by the arena (for memory accounting in the model). */
size_t dec_arena_size(const struct dec_arena *a);
/* The arena takes ownership of a malloc'd block (freed with it). */
int dec_arena_adopt(struct dec_arena *a, void *block, size_t size);

/* ---- small value helpers ---- */

/* A CUDA (x,y,z) triple as cuda-gdb prints it: "(3,0,0)". */
struct dec_dim3 {
	uint32_t x, y, z;
	bool valid; /* false when absent or not of that form ("invalid") */
};

/* Parses "(x,y,z)"; returns false (and an invalid dim3) otherwise. */
bool dec_dim3_parse(const char *s, struct dec_dim3 *out);
bool dec_dim3_eq(struct dec_dim3 a, struct dec_dim3 b);
/* Row-major linear index of d inside dims (x fastest), as cuda-gdb orders
 * coalesced ranges; UINT64_MAX when either is invalid or d lies outside. */
uint64_t dec_dim3_linear(struct dec_dim3 d, struct dec_dim3 dims);
/* Unsigned number in decimal, 0x hex or (leading 0) octal; false when `s`
 * is NULL, empty, or not entirely a number. */
bool dec_u64_parse(const char *s, uint64_t *out);
/* As dec_u64_parse for a non-negative int; `def` when not a number. */
int dec_int_or(const char *s, int def);

/* The bare name of a (demangled) function or kernel signature: return
 * type, scope, template arguments and parameters removed, so
 * "void at::native::(anonymous namespace)::k<float>(float*, long)" gives
 * "k"; gcc's " [with T = float]" and a member's " const" go too; a
 * lambda's or functor's body is named with its class
 * ("{lambda(int)#1}::operator()"), nvcc's device lambda whole.  A name
 * it cannot take apart is kept whole; NULL is "".  Writes at most cap
 * bytes, NUL ended (cap 0: nothing), and returns the whole name's
 * length.  The one such function (the diagnosis, the screen, batch). */
size_t dec_func_short(const char *func, char *buf, size_t cap);
/* dec_func_short into buf (cap > 0), for use in an expression: buf. */
char *dec_func_basename(const char *func, char *buf, size_t cap);

/* True when `path` lies under a CUDA toolkit's include directory: a
 * component "include" after "cuda", "cuda-N.N", "targets" or "nvidia"
 * (/usr/local/cuda/bin/../targets/x86_64-linux/include/..., the pip
 * wheels' site-packages/nvidia/.../include/...).  Frames there are the
 * toolkit's inline wrappers (atomicAdd in device_atomic_functions.hpp),
 * never the line the user wrote. */
bool dec_path_in_cuda_toolkit(const char *path);

/* True for a frame of the toolkit's own code rather than the user's: a
 * function in a toolkit header, or a `device` frame without source whose
 * name starts with "__" (the intrinsic __iAtomicAdd under atomicAdd,
 * cuda-gdb 13; host frames like glibc's __pthread_kill_implementation are
 * not the toolkit's).  `func` and `file` may be NULL. */
bool dec_frame_is_toolkit(const char *func, const char *file, bool device);

/* True for a device frame: cuda-gdb 13 labels them arch="m68k" (sic). */
struct dec_frame;
bool dec_frame_is_device(const struct dec_frame *f);

/* ---- CUDA focus (CudaFocus={...}) ---- */

/* Fields are decoded by name, not position: on a cluster launch cuda-gdb
 * 13 puts clusterIdx and clusterDim between grid and blockIdx. */
struct dec_focus {
	bool valid;      /* a CudaFocus tuple was present */
	int device;      /* -1 when absent or "invalid" */
	int sm;          /* -1 */
	int warp;        /* -1 */
	int lane;        /* -1 */
	int kernel;      /* -1 */
	int64_t grid;    /* -1 */
	struct dec_dim3 cluster_idx; /* valid only on cluster launches */
	struct dec_dim3 cluster_dim;
	struct dec_dim3 block;
	struct dec_dim3 thread;
};

/* Decodes the CudaFocus tuple in `results` (a *stopped record, the answer
 * of -cuda-focus-query or -cuda-focus-switch).  DEC_EMISSING when there is
 * none (then out->valid is false). */
int dec_focus_decode(const struct mi_node *results, struct dec_focus *out);

/* ---- frames and variables ---- */

struct dec_var {
	const char *name;  /* never NULL for a decoded variable */
	const char *type;  /* NULL unless asked for (--simple-values) */
	const char *value; /* NULL for aggregates under --simple-values */
	bool is_arg;       /* arg="1" in -stack-list-variables */
};

struct dec_frame {
	int level;            /* -1 when absent (frames of *stopped) */
	uint64_t addr;
	bool has_addr;
	const char *func;     /* NULL when absent; "??" when gdb knows none */
	const char *file;     /* NULL when the frame has no source */
	const char *fullname; /* NULL when absent */
	int line;             /* 0 when absent */
	const char *from;     /* shared object, for frames without source */
	const char *arch;     /* "m68k" on cuda-gdb device frames (sic) */
	struct dec_var *args; /* args=[...] when present */
	size_t nargs;
};

/* One frame={...} tuple's children; strings go to arena `a`. */
int dec_frame_decode(struct dec_arena *a, const struct mi_node *tuple,
		     struct dec_frame *out);

struct dec_stack {
	struct dec_arena *arena;
	struct dec_frame *frames; /* innermost first */
	size_t n;
};

/* -stack-list-frames: stack=[frame={...},...]. */
int dec_stack_decode(const struct mi_node *results, struct dec_stack *out);
/* A single frame={...} result (answers of -cuda-focus-switch,
 * -thread-select, -stack-info-frame) as a stack of one. */
int dec_frame_result_decode(const struct mi_node *results,
			    struct dec_stack *out);
void dec_stack_free(struct dec_stack *s);

struct dec_vars {
	struct dec_arena *arena;
	struct dec_var *v;
	size_t n;
};

/* -stack-list-variables (variables=), -stack-list-locals (locals=),
 * -stack-list-arguments for one frame (args=).  Items may be tuples
 * {name,value,type,arg} or bare names (--no-values). */
int dec_vars_decode(const struct mi_node *results, struct dec_vars *out);
/* -stack-list-arguments: stack-args=[frame={level,args=[...]},...]; takes
 * the arguments of the frame at `level`. */
int dec_stack_args_decode(const struct mi_node *results, int level,
			  struct dec_vars *out);
void dec_vars_free(struct dec_vars *v);

/* -data-evaluate-expression: the value="..." string, borrowed from the
 * record (copy it before the callback returns); NULL when absent. */
const char *dec_value(const struct mi_node *results);
/* ^error,msg="...": the message, borrowed; NULL when absent. */
const char *dec_error_msg(const struct mi_node *results);

/* ---- *stopped ---- */

#define DEC_REASONS(X)                                                     \
	X(NONE, "")                                                        \
	X(BREAKPOINT_HIT, "breakpoint-hit")                                \
	X(WATCHPOINT_TRIGGER, "watchpoint-trigger")                        \
	X(READ_WATCHPOINT_TRIGGER, "read-watchpoint-trigger")              \
	X(ACCESS_WATCHPOINT_TRIGGER, "access-watchpoint-trigger")          \
	X(WATCHPOINT_SCOPE, "watchpoint-scope")                            \
	X(FUNCTION_FINISHED, "function-finished")                          \
	X(LOCATION_REACHED, "location-reached")                            \
	X(END_STEPPING_RANGE, "end-stepping-range")                        \
	X(SIGNAL_RECEIVED, "signal-received")                              \
	X(EXITED_SIGNALLED, "exited-signalled")                            \
	X(EXITED, "exited")                                                \
	X(EXITED_NORMALLY, "exited-normally")                              \
	X(SOLIB_EVENT, "solib-event")                                      \
	X(FORK, "fork")                                                    \
	X(VFORK, "vfork")                                                  \
	X(SYSCALL_ENTRY, "syscall-entry")                                  \
	X(SYSCALL_RETURN, "syscall-return")                                \
	X(EXEC, "exec")                                                    \
	X(NO_HISTORY, "no-history")                                        \
	X(OTHER, "?")

enum dec_reason {
#define DEC_REASON_ENUM(id, text) DEC_REASON_##id,
	DEC_REASONS(DEC_REASON_ENUM)
#undef DEC_REASON_ENUM
};

/* The MI spelling of a reason ("" for NONE, "?" for OTHER). */
const char *dec_reason_name(enum dec_reason r);

struct dec_stop {
	struct dec_arena *arena;
	enum dec_reason reason;  /* NONE when the record has no reason */
	const char *reason_text; /* verbatim; NULL when absent */
	const char *signal_name; /* "CUDA_EXCEPTION_12", "SIGSEGV", "0" */
	const char *signal_meaning; /* "Warp Assert" */
	struct dec_focus focus;  /* focus.valid: a device stop */
	/* Fault fields cuda-gdb 13 adds in front of hardware exceptions. */
	const char *exception_name; /* "Warp Illegal Address" */
	uint64_t error_pc;          /* pc= (the faulting PC) */
	bool has_error_pc;
	const char *function;       /* "apply(Params, float*)" */
	const char *filename;       /* "null_write.cu" */
	int line;                   /* 0 when absent */
	const char *message;        /* stack overflow details */
	bool has_frame;
	struct dec_frame frame;
	int bkptno;                 /* -1 when absent */
	int locno;                  /* -1 when absent */
	bool has_exit_code;
	int exit_code;              /* reason "exited" (0 for exited-normally) */
	const char *thread_id;      /* NULL when absent */
	const char *stopped_threads;
	const char *disp;           /* breakpoint disposition */
	const char *return_value;   /* function-finished */
	const char *gdb_result_var; /* function-finished */
};

/* Decodes the results of a *stopped record. */
int dec_stop_decode(const struct mi_node *results, struct dec_stop *out);
void dec_stop_free(struct dec_stop *s);

/* A stop on the GPU: the record carries a CudaFocus (a device __trap()
 * stops with signal-name SIGTRAP and a CudaFocus, so the signal name alone
 * does not tell). */
bool dec_stop_is_device(const struct dec_stop *s);
/* A device stop by any signal, an interrupt's SIGINT included: only the
 * stopped frame's registers are sure (outer frames' may be reused). */
bool dec_stop_is_device_signal(const struct dec_stop *s);
/* A device stop by a signal that is no interrupt: a CUDA exception or a
 * trap.  Continuing past it lets the program run on and the error is
 * lost (cuda-gdb 13). */
bool dec_stop_is_device_exception(const struct dec_stop *s);
/* The program is gone: exited, exited-normally or exited-signalled. */
bool dec_stop_is_exit(const struct dec_stop *s);

/* ---- threads (-thread-info) ---- */

struct dec_thread {
	const char *id;
	const char *target_id;
	const char *name;
	const char *state;  /* "stopped" / "running" */
	int core;           /* -1 when absent */
	bool current;       /* the current-thread-id */
	bool has_frame;
	struct dec_frame frame;
};

struct dec_threads {
	struct dec_arena *arena;
	struct dec_thread *v;
	size_t n;
	const char *current_id; /* NULL when absent */
};

int dec_threads_decode(const struct mi_node *results, struct dec_threads *out);
void dec_threads_free(struct dec_threads *t);

/* ---- breakpoints ---- */

struct dec_bkpt_loc {
	const char *number;    /* "1.2" */
	bool enabled;
	bool pending;          /* addr="<PENDING>" */
	uint64_t addr;         /* 0 when pending */
	const char *func, *file, *fullname; /* NULL when absent */
	int line;              /* 0 when absent */
	const char *pending_text;
};

/* The session's allocation watch (mi/alloc_watch.c): each of its
 * dprintfs prints one line of this prefix, and its script starts so. */
#define ALLOC_WATCH_LINE "cudbg-alloc "
#define ALLOC_WATCH_SCRIPT "printf \"" ALLOC_WATCH_LINE

struct dec_bkpt {
	int number;            /* -1 when not a plain number */
	const char *number_text;
	const char *type;      /* "breakpoint", "hw watchpoint", ... */
	const char *disp;      /* "keep", "del" */
	bool enabled;
	const char *addr_text; /* "0x...", "<PENDING>", "<MULTIPLE>" */
	uint64_t addr;         /* 0 unless a single resolved address */
	bool multiple;         /* addr="<MULTIPLE>": see locs */
	bool pending;          /* pending as a whole, or every location is */
	const char *func, *file, *fullname;
	int line;              /* 0 when absent */
	const char *pending_text; /* pending="..." */
	int times;             /* hit count */
	const char *original_location;
	const char *orig_file; /* original-location of the form FILE:LINE */
	int orig_line;         /* 0 when it is not of that form */
	const char *cond;      /* NULL when unconditional */
	int ignore;            /* ignore count, 0 when absent */
	const char *what;      /* watchpoints: the expression */
	bool internal;         /* the session's own allocation watch
				* (mi/alloc_watch.c), not the user's */
	struct dec_bkpt_loc *locs; /* MI3 locations=[...]; n = 0 when single */
	size_t nlocs;
};

struct dec_bkpts {
	struct dec_arena *arena;
	struct dec_bkpt *v;
	size_t n;
};

/* One bkpt={...}: ^done of -break-insert, =breakpoint-created,
 * =breakpoint-modified.  Out holds exactly one breakpoint. */
int dec_bkpt_decode(const struct mi_node *results, struct dec_bkpts *out);
/* -break-list: BreakpointTable={...,body=[bkpt={...},...]}. */
int dec_bkpt_list_decode(const struct mi_node *results, struct dec_bkpts *out);
/* =breakpoint-deleted,id="N": the number, or a negative code. */
int dec_bkpt_deleted(const struct mi_node *results);
void dec_bkpts_free(struct dec_bkpts *b);
/* The file:line a breakpoint sits on: its own, else its first enabled
 * resolved location, else its FILE:LINE original location, else any
 * location.  Returns false when it has none.  Borrowed strings; `fullname`
 * may be NULL. */
bool dec_bkpt_where(const struct dec_bkpt *b, const char **file,
		    const char **fullname, int *line);

/* ---- disassembly (-data-disassemble, modes 0..5) ---- */

struct dec_insn {
	uint64_t addr;
	const char *func;     /* func-name; NULL when absent */
	long offset;          /* -1 when absent */
	const char *opcodes;  /* NULL unless the mode asked for opcodes */
	const char *inst;
	/* Source modes (1, 3, 4, 5): the line the instruction belongs to. */
	const char *file, *fullname;
	int line;             /* 0 without source */
};

struct dec_disasm {
	struct dec_arena *arena;
	struct dec_insn *v; /* in address order as gdb printed them */
	size_t n;
};

int dec_disasm_decode(const struct mi_node *results, struct dec_disasm *out);
void dec_disasm_free(struct dec_disasm *d);

/* The memory operand of one SASS instruction as cuda-gdb 13 prints it
 * (no blank after commas): "LD.E R4,desc[UR4][R4.64]" (generic, a 64-bit
 * address in R4:R5), "STG.E desc[UR6][R2.64+0x10],R5", "LDL R20[R1+0x4]",
 * "STS [R3],R0" (32-bit: shared and local windows).  The address is the
 * base register (and the next one when wide) plus the offset; a uniform
 * register group (desc[UR4], a memory descriptor) is no address. */
struct dec_sass_mem {
	char op[16];   /* the mnemonic's first part: "LD", "STG", "ATOMG" */
	int reg;       /* base register number: R<reg> */
	bool wide;     /* .64: R<reg> low, R<reg+1> high */
	long long offset;
	/* A load's destination registers R<dest>..R<dest+ndest-1> (ndest 0:
	 * none, a store).  When they cover the address registers the fault
	 * left the loaded value there, not the address (run 25: -G's
	 * "LD.E R4,desc[UR4][R4.64]" read R4 = 0 in every lane). */
	int dest, ndest;
};
/* 0 with out filled; -1 when the instruction has no register-based
 * memory operand (an ALU op, RZ, a constant bank c[0x0][...]). */
int dec_sass_mem_operand(const char *inst, struct dec_sass_mem *out);

/* ---- registers ---- */

struct dec_regnames {
	struct dec_arena *arena;
	const char **names; /* indexed by register number; "" for gaps */
	size_t n;
};

int dec_regnames_decode(const struct mi_node *results,
			struct dec_regnames *out);
void dec_regnames_free(struct dec_regnames *r);

struct dec_regval {
	int number;
	const char *value;
};

struct dec_regvals {
	struct dec_arena *arena;
	struct dec_regval *v;
	size_t n;
};

/* -data-list-register-values FMT: register-values=[{number,value},...]. */
int dec_regvals_decode(const struct mi_node *results, struct dec_regvals *out);
void dec_regvals_free(struct dec_regvals *r);

/* ---- memory (-data-read-memory-bytes) ---- */

struct dec_mem_block {
	uint64_t begin, offset, end;
	unsigned char *bytes; /* decoded from the hex contents */
	size_t len;
};

struct dec_memory {
	struct dec_arena *arena;
	struct dec_mem_block *v;
	size_t n;
};

int dec_memory_decode(const struct mi_node *results, struct dec_memory *out);
void dec_memory_free(struct dec_memory *m);

/* ---- -complete ---- */

struct dec_complete {
	struct dec_arena *arena;
	const char *completion; /* NULL when gdb offers none */
	const char **matches;
	size_t n;
	bool max_reached;
};

int dec_complete_decode(const struct mi_node *results,
			struct dec_complete *out);
void dec_complete_free(struct dec_complete *c);

/* ---- tables: -cuda-info-* and friends ---- */

/* Each -cuda-info-* answer is NAME={nr_rows,nr_cols,hdr=[...],
 * body=[ROW={col=value,...},...]}.  One generic decoder copies it into a
 * row-major grid of cells addressed by column name; typed accessors below
 * read rows out of it. */
enum dec_table_kind {
	DEC_TABLE_UNKNOWN,
	DEC_TABLE_DEVICES,
	DEC_TABLE_SMS,
	DEC_TABLE_WARPS,
	DEC_TABLE_LANES,
	DEC_TABLE_KERNELS,
	DEC_TABLE_BLOCKS,        /* coalesced */
	DEC_TABLE_BLOCKS_UNCOAL, /* set cuda coalescing off */
	DEC_TABLE_THREADS,
	DEC_TABLE_THREADS_UNCOAL,
	DEC_TABLE_CONTEXTS,
	DEC_TABLE_LAUNCH_TRACE,
	DEC_TABLE_MANAGED,
	DEC_TABLE_BREAKPOINTS,   /* BreakpointTable, if read generically */
};

/* Column names the typed accessors know, resolved once per table. */
#define DEC_COLUMNS(X)                                                     \
	X(current) X(device) X(pci_bus) X(name) X(description) X(sm_type)  \
	X(num_sms) X(num_warps) X(num_lanes) X(num_regs)                   \
	X(active_sms_mask) X(sm) X(active_warps_mask) X(warp)              \
	X(active_lanes_mask) X(divergent_lanes_mask)                       \
	X(active_physical_pc) X(kernel) X(blockIdx) X(threadIdx) X(lane)   \
	X(state) X(physical_pc) X(exception) X(parent) X(grid) X(status)   \
	X(sms_mask) X(gridDim) X(blockDim) X(invocation) X(from) X(to)     \
	X(count) X(from_blockIdx) X(from_threadIdx) X(to_blockIdx)         \
	X(to_threadIdx) X(virtual_pc) X(filename) X(line) X(context)

enum dec_col {
#define DEC_COL_ENUM(n) DEC_COL_##n,
	DEC_COLUMNS(DEC_COL_ENUM)
#undef DEC_COL_ENUM
	DEC_COL_COUNT
};

struct dec_table {
	struct dec_arena *arena;
	enum dec_table_kind kind;
	const char *name;        /* "CoalescedInfoCudaThreadsTable" */
	size_t nr_cols;
	const char **col_names;  /* [nr_cols] */
	const char **col_hdrs;   /* [nr_cols], "" when absent */
	int *widths;             /* [nr_cols], 0 when absent */
	int *aligns;             /* [nr_cols] */
	size_t nr_rows;          /* rows actually in body */
	long declared_rows;      /* nr_rows="..." (-1 when absent) */
	const char **cells;      /* [nr_rows * nr_cols]; NULL when absent */
	int col[DEC_COL_COUNT];  /* index of each known column, -1 if none */
};

/* Decodes the first table-shaped result of `results` (a tuple with a
 * body list).  Columns come from hdr; a field in the first row that hdr
 * lacks becomes an extra column; later rows' unknown fields are dropped.
 * Linear in the size of the record. */
int dec_table_decode(const struct mi_node *results, struct dec_table *out);

/* Builds a table row by row, for answers streamed with
 * session_send_rows(): add each row as it arrives, then finish with the
 * final record's results (the header; its body is empty, or holds the
 * rows when the answer was small and came whole).  Cell strings are
 * interned: a big table repeats a few values (file names, PCs, block
 * coordinates) hundreds of thousands of times, so the table costs little
 * more than its pointers.  finish() frees the builder in every case. */
struct dec_table_builder;
struct dec_table_builder *dec_table_builder_new(void); /* NULL: no memory */
int dec_table_builder_row(struct dec_table_builder *b,
			  const struct mi_node *row);
int dec_table_builder_finish(struct dec_table_builder *b,
			     const struct mi_node *results,
			     struct dec_table *out);
void dec_table_builder_free(struct dec_table_builder *b); /* accepts NULL */
void dec_table_free(struct dec_table *t);
enum dec_table_kind dec_table_kind_of(const char *name);
/* Column index by name, -1 when absent. */
int dec_table_col(const struct dec_table *t, const char *name);
/* Cell text, NULL when out of range or absent. */
const char *dec_table_cell(const struct dec_table *t, size_t row, int col);
const char *dec_table_get(const struct dec_table *t, size_t row,
			  const char *col_name);

/* Typed rows.  Strings are borrowed from the table; numbers absent from a
 * row are -1 (or 0 for masks and PCs); `current` is the "*" mark.  Each
 * accessor returns 0, or DEC_ESHAPE when the table is not of its kind or
 * `row` is out of range. */
struct dec_device_row {
	bool current;
	int device;
	const char *pci_bus, *name, *description, *sm_type;
	int num_sms, num_warps, num_lanes, num_regs;
	const char *active_sms_mask; /* wider than 64 bits: kept as text */
};
int dec_table_device(const struct dec_table *t, size_t row,
		     struct dec_device_row *out);

struct dec_sm_row {
	bool current;
	int sm;
	uint64_t active_warps_mask;
};
int dec_table_sm(const struct dec_table *t, size_t row, struct dec_sm_row *out);

struct dec_warp_row {
	bool current;
	int warp;
	uint32_t active_lanes_mask, divergent_lanes_mask;
	uint64_t active_pc;
	int kernel;
	struct dec_dim3 block;
	struct dec_dim3 thread; /* first active thread */
};
int dec_table_warp(const struct dec_table *t, size_t row,
		   struct dec_warp_row *out);

struct dec_lane_row {
	bool current;
	int lane;
	const char *state;     /* "active", "inactive", "divergent" */
	uint64_t pc;
	struct dec_dim3 thread;
	const char *exception; /* "Warp Assert", "None" */
};
int dec_table_lane(const struct dec_table *t, size_t row,
		   struct dec_lane_row *out);

struct dec_kernel_row {
	bool current;
	int kernel;
	const char *parent;    /* "-" for host launches */
	int device;
	int64_t grid;
	const char *status;    /* "Active" */
	const char *sms_mask;
	struct dec_dim3 grid_dim, block_dim;
	/* Kept as text: cuda-gdb 13 prints "nll_loss(,args=[{name=\"logp\",
	 * ...}])" here, which is not well-formed MI and must not be parsed. */
	const char *invocation;
};
int dec_table_kernel(const struct dec_table *t, size_t row,
		     struct dec_kernel_row *out);

/* Coalesced and uncoalesced blocks in one shape (uncoalesced: from == to,
 * count 1, device and sm known). */
struct dec_block_row {
	bool current;
	int kernel;
	struct dec_dim3 from, to;
	long count;
	const char *state;
	int device, sm; /* -1 on coalesced tables */
};
int dec_table_block(const struct dec_table *t, size_t row,
		    struct dec_block_row *out);

/* Coalesced and uncoalesced threads in one shape. */
struct dec_thread_row {
	bool current;
	int kernel;
	struct dec_dim3 from_block, from_thread, to_block, to_thread;
	long count;
	uint64_t pc;
	const char *filename; /* "" when the kernel has no line info */
	int line;             /* 0 then */
	int device, sm, warp, lane; /* -1 on coalesced tables */
};
int dec_table_thread(const struct dec_table *t, size_t row,
		     struct dec_thread_row *out);

struct dec_context_row {
	bool current;
	uint64_t context;
	int device;
	const char *state;
};
int dec_table_context(const struct dec_table *t, size_t row,
		      struct dec_context_row *out);

const char *dec_strerror(int code);

#endif
