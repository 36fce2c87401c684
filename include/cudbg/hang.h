/* Hangs: where a program that did not end by itself was when it was
 * interrupted (--timeout, or C-c on the screen), and why it may be stuck.
 *
 * Code: diag/hang.c.  Layer: diag/ (no curses, never
 * prints or exits).
 *
 * Shape: after the interrupt's stop has been refreshed, the caller fetches
 * the coalesced threads table of the stopped kernel (ctl_threads_kernel:
 * never uncoalesced, see ../shared/docs/cuda-gdb-facts.md "Tables") and
 * the kernels table, then calls diag_hang_from_model().  The collector
 * then owns a `struct diag_hang`: the live threads summarised per source
 * line with counts and block ranges, and the facts the hints test
 * (`hang`, `spin-wait`, `barrier-divergent`, `all-waiting`).  The account
 * (diag_analyze) is then of kind DIAG_FAULT_HANG and fault->hang points
 * at the summary.
 */
#ifndef CUDBG_HANG_H
#define CUDBG_HANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudbg/diag.h"

struct dbg_model;

/* What the threads at one line wait on, judged from the line's text. */
enum diag_hang_wait {
	DIAG_HANG_RUNNING,  /* nothing known: plain code */
	DIAG_HANG_SPIN,     /* a loop that reads memory (a flag) */
	DIAG_HANG_BARRIER,  /* __syncthreads() and its kin */
};

/* The live threads of the kernel at one source line (or one PC when the
 * kernel has no line info).  Strings are owned by the summary. */
struct diag_hang_group {
	char *file;              /* NULL when the kernel has no line info */
	unsigned line;
	uint64_t pc;             /* of the first row */
	long threads;
	long blocks;             /* distinct blocks with threads here */
	struct diag_dim3 block_lo, block_hi; /* per-axis range */
	char *source;            /* the line's text (trimmed), or NULL */
	enum diag_hang_wait wait;
	/* line is a barrier's and some of the threads stopped on the line
	 * after it (a warp waiting at a barrier reports the line past it) */
	bool past_barrier;
};

struct diag_hang {
	double seconds;          /* how long it ran before the interrupt */
	bool recorded;           /* seconds come from a recording */
	int signal;              /* the signal that had the run interrupted
				  * (batch mode's first SIGINT or SIGTERM),
				  * 0 for --timeout or the screen's C-c */
	bool device;             /* stopped in a kernel */
	char *kernel;            /* its short name, NULL on the host */
	struct diag_hang_group *groups; /* most threads first */
	size_t n_groups;
	long threads_live;
	long blocks_live;
	long blocks_total;       /* grid size; -1 unknown */
	long block_size;         /* threads per block; -1 unknown */
	/* A block whose threads are partly at a barrier and partly
	 * elsewhere or exited (the first one found). */
	bool barrier_divergent;
	struct diag_dim3 barrier_block;
	long barrier_threads;    /* its threads at the barrier */
	bool spin;               /* threads at a spin-wait */
	bool spin_holds_barrier; /* every barrier comes after a spin loop:
				  * its threads wait for the spinners */
	bool all_waiting;        /* every live thread at a spin or barrier,
				  * across more than one place or block:
				  * they wait on each other */
	/* Host stops (no kernel): where the program's thread was. */
	char *host_file;
	unsigned host_line;
	char *host_func;
	char *host_source;
	char *host_inner;        /* the innermost frame's function (the
				  * interrupt's own: clock_nanosleep, the
				  * interpreter's eval loop), or NULL */
};

/* Builds the summary from the model's stop, its kernels table and its
 * threads table (rows of the focused kernel only) and hands it to the
 * collector, replacing an earlier one.  `seconds` is the time the run
 * had when it was interrupted; `recorded` says it was read from a
 * recording; `signal` is diag_hang's.  0 or DIAG_ENOMEM / DIAG_ESTATE
 * (the model is not stopped). */
int diag_hang_from_model(struct diag *d, const struct dbg_model *m,
			 double seconds, bool recorded, int signal);
/* Hands the collector a copy of a summary built elsewhere (the screen
 * builds one when its interrupt lands and feeds each update of the Hints
 * pane with it; a later one replaces it).  0 or DIAG_ENOMEM / DIAG_ESTATE. */
int diag_hang_set(struct diag *d, const struct diag_hang *h);
/* Forgets the hang (the program was resumed). */
void diag_hang_clear(struct diag *d);
/* Takes the collector's summary over (NULL when none): the caller frees
 * it with diag_hang_free() and free(). */
struct diag_hang *diag_hang_take(struct diag *d);
/* The summary the collector holds, or NULL. */
const struct diag_hang *diag_hang_of(const struct diag *d);

/* Frees what the summary owns and zeroes it (accepts a zeroed one). */
void diag_hang_free(struct diag_hang *h);

/* The headline, "Hang: kernel spin_wait still running after 5 s" or
 * "Hang: the program was still running after 5 s", into out (NUL
 * ended, untrusted names escaped by the caller's printer).  Returns the
 * length. */
size_t diag_hang_headline(const struct diag_hang *h, char *out, size_t cap);
/* One line per group, "block (3,0,0): 64 threads at hang.cu:6 (spin-wait)",
 * then "7 blocks finished or not started", each ended by '\n'; malloc'd,
 * NULL when out of memory.  Unescaped: the caller escapes.  `user`: the
 * user's own line where a host stop's thread was in code with no source
 * here (diag_hang_user_line), said as the place; NULL for none. */
char *diag_hang_lines(const struct diag_hang *h, const struct diag_pyframe *user);
/* The user's own line of a host hang whose thread stopped in code with no
 * source here (libc, the interpreter): a Python script's innermost line
 * (the fault's python.call), or NULL.  Borrowed from f. */
const struct diag_pyframe *diag_hang_user_line(const struct diag_fault *f);

/* Is this source line a spin-wait (a loop reading memory) / a barrier?
 * Exposed for the tests. */
bool diag_hang_line_spins(const char *text);
bool diag_hang_line_barrier(const char *text);

#endif
