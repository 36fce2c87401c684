/* Device assertion lines from a program's terminal, parsed and aggregated.
 *
 * Code: diag/assertline.c.  No curses, no printing.
 *
 * Two forms are recognised (both end in "Assertion `EXPR` failed."):
 *   PyTorch:  FILE:LINE: KERNEL: block: [x,y,z], thread: [x,y,z] Assertion `EXPR` failed.
 *   CUDA C:   FILE:LINE: void kernel(int *, int): block: [..], thread: [..] Assertion `EXPR` failed.
 * A failing launch prints one line per failing thread, thousands at times;
 * the aggregator keeps one entry per (file, line, kernel, expression) with
 * a count, per-axis block and thread ranges and the first few exact
 * coordinates.  Bytes may arrive in any chunking; CR before LF is dropped.
 */
#ifndef CUDBG_ASSERTLINE_H
#define CUDBG_ASSERTLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudbg/diag.h"

/* One parsed line.  The spans point into the caller's buffer. */
struct diag_assert_line {
	const char *file;
	size_t file_len;
	unsigned line;
	const char *kernel; /* the whole KERNEL part (a signature in CUDA C) */
	size_t kernel_len;
	const char *expr;
	size_t expr_len;
	struct diag_dim3 block, thread;
};

/* Parses one line (no newline needed).  Returns 1 when it is an assertion
 * line, 0 when it is not; never reads past len. */
int diag_assert_parse(const char *s, size_t len, struct diag_assert_line *out);

enum { DIAG_ASSERT_EXAMPLES = 4 }; /* exact coordinates kept per entry */
enum { DIAG_ASSERT_MAX_ENTRIES = 256 }; /* distinct entries kept */
enum { DIAG_ASSERT_MAX_LINE = 64 * 1024 }; /* longer lines are skipped */

struct diag_assert_entry {
	char *file;
	unsigned line;
	char *kernel;       /* as printed */
	char *kernel_short; /* unqualified name */
	char *expr;
	bool full_signature; /* the CUDA C form (KERNEL has a parameter list) */
	uint64_t count;
	struct diag_dim3 block_min, block_max, thread_min, thread_max;
	struct diag_dim3 first_block[DIAG_ASSERT_EXAMPLES];
	struct diag_dim3 first_thread[DIAG_ASSERT_EXAMPLES];
	unsigned n_examples;
};

struct diag_asserts;

struct diag_asserts *diag_asserts_new(void); /* NULL when out of memory */
void diag_asserts_free(struct diag_asserts *a); /* accepts NULL */

/* Feeds terminal bytes.  Returns DIAG_OK or DIAG_ENOMEM. */
int diag_asserts_feed(struct diag_asserts *a, const char *buf, size_t len);
/* Parses a trailing line without newline (at the program's end). */
int diag_asserts_finish(struct diag_asserts *a);
/* Adds one parsed line directly (used by the feeder and by tests). */
int diag_asserts_add(struct diag_asserts *a, const struct diag_assert_line *l);

size_t diag_asserts_count(const struct diag_asserts *a);
const struct diag_assert_entry *diag_asserts_get(const struct diag_asserts *a,
						 size_t i);
/* The entries as an array of pointers (stable until the next feed). */
const struct diag_assert_entry *const *
diag_asserts_all(const struct diag_asserts *a);
uint64_t diag_asserts_total(const struct diag_asserts *a); /* lines seen */
uint64_t diag_asserts_dropped(const struct diag_asserts *a); /* beyond the
							      * entry bound */

/* Calls fn for every complete non-assertion line too (the collector scans
 * them for CUDA error messages).  `line` is not NUL ended. */
typedef void (*diag_line_fn)(void *ctx, const char *line, size_t len);
void diag_asserts_set_line_hook(struct diag_asserts *a, diag_line_fn fn,
				void *ctx);

#endif
