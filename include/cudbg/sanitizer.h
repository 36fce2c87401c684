/* compute-sanitizer XML reports (--xml --save FILE), read with expat.
 *
 * Code: diag/sanitizer.c.  No curses, no printing.
 *
 * A report is a <ComputeSanitizerOutput> of <record>s.  Kinds seen with
 * compute-sanitizer 2025.3: Precise (an invalid access with the exact
 * thread, block, address, size, direction, func/path/line/pc), Imprecise
 * (a warp exception such as "Warp assert"), Api (a failing CUDA call).
 * Host stacks end with the Python frames (function, file, line; no pc or
 * module) for Python programs.
 *
 * The reader is stream fed (diag_san_feed in any chunks, then
 * diag_san_finish) and bounded: records, frames per stack, text per element
 * and nesting depth have limits; beyond them the report is cut and says
 * so.  Malformed XML gives an error with line and column, never a crash.
 * DTDs and entity declarations are refused (no entity expansion attacks).
 */
#ifndef CUDBG_SANITIZER_H
#define CUDBG_SANITIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudbg/diag.h"

enum diag_san_kind {
	DIAG_SAN_PRECISE,
	DIAG_SAN_IMPRECISE,
	DIAG_SAN_API,
	DIAG_SAN_LEAK,   /* kind names an allocation leak */
	DIAG_SAN_OTHER,  /* any other <kind>; kind_text has it */
	/* The other tools (--sanitizer-tool, diag/santools.c): */
	DIAG_SAN_RACE,   /* racecheck: a shared-memory hazard */
	DIAG_SAN_UNINIT, /* initcheck: an uninitialised global read */
	DIAG_SAN_SYNC,   /* synccheck: a barrier misused */
};

enum {
	DIAG_SAN_MAX_RECORDS = 10000,
	DIAG_SAN_MAX_FRAMES = 512,   /* per stack */
	DIAG_SAN_MAX_TEXT = 64 * 1024, /* per element */
	DIAG_SAN_MAX_DEPTH = 64,
};

struct diag_san_frame {
	char *func;   /* may be NULL (a pc in a stripped library) */
	char *path;
	unsigned line;
	uint64_t pc;
	bool has_pc;
	char *module;
	bool python;  /* a Python frame: a path ending in .py, no module */
};

struct diag_san_record {
	enum diag_san_kind kind;
	char *kind_text;
	char *level;            /* "Error" */
	bool has_who;
	struct diag_dim3 thread, block;

	char *text;             /* <what><text>, the human sentence */
	char *space;            /* "__global__" */
	unsigned size;          /* access size in bytes, 0 unknown */
	char *direction;        /* "read", "write" */
	char *error;            /* "out of bounds", "cudaErrorAssert" */
	char *exception;        /* Imprecise: "Warp assert" */
	char *api;              /* Api: "cudaDeviceSynchronize" */
	char *message;          /* Api: "device-side assert triggered" */
	long result;            /* Api: the error number */
	uint64_t address;
	bool has_address;

	char *func;             /* <where> */
	char *path;
	unsigned line;
	uint64_t pc;
	bool has_pc;

	/* From the text output (diag_san_add_text), when it names the
	 * nearest allocation of a bad access. */
	bool has_alloc;
	uint64_t alloc_address, alloc_size;
	long long distance;     /* bytes after (>0) or before (<0) it */

	/* racecheck (diag/santools.c): the hazard type ("RAW", "WAR",
	 * "WAW"), how many hazards the report counts (0: not said), and the
	 * other access of the pair (the first is direction/func/path/line). */
	char *hazard;
	unsigned long hazards;
	char *direction2;
	char *func2, *path2;
	unsigned line2;
	uint64_t pc2;
	bool has_pc2;

	char *save_location;    /* "kernel launch time", "error" */
	struct diag_san_frame *host;
	size_t n_host;
	struct diag_san_frame *device;
	size_t n_device;
};

/* A signed 32-bit index that passed INT_MAX wraps to a negative value,
 * so the access lands before its buffer; 2^32 elements further on, the
 * address is inside it.  True when r's bad access (precise, global, with
 * its nearest allocation from the text) is such a wrap for elements of
 * r's access size or of one byte (a byte offset computed in int): w gets
 * the wrapped index (INT_MIN..-1), the index it should have been, and
 * the element size.  Pure arithmetic on what the sanitizer printed
 * (diag/provenance.c). */
struct diag_san_wrap {
	long long index, true_index;
	unsigned elem;
};
bool diag_san_index_wrap(const struct diag_san_record *r,
			 struct diag_san_wrap *w);

struct diag_san;

struct diag_san *diag_san_new(void); /* NULL when out of memory */
void diag_san_free(struct diag_san *s); /* accepts NULL */

/* Feeds XML bytes.  Returns DIAG_OK, or DIAG_ESYNTAX (see diag_san_error)
 * after which further feeding is ignored. */
int diag_san_feed(struct diag_san *s, const char *buf, size_t len);
/* Ends the document; an unfinished document is an error. */
int diag_san_finish(struct diag_san *s);
/* Reads a whole file.  On failure returns a negative code and writes a
 * one-line message naming the file into err. */
int diag_san_load_file(const char *path, struct diag_san **out, char *err,
		       size_t errcap);

/* "line 12, column 3: mismatched tag", or "" when fine. */
const char *diag_san_error(const struct diag_san *s);
bool diag_san_truncated(const struct diag_san *s); /* a bound was hit */

size_t diag_san_count(const struct diag_san *s);
const struct diag_san_record *diag_san_get(const struct diag_san *s, size_t i);
/* Records that describe errors (everything but leaks summaries). */
size_t diag_san_errors(const struct diag_san *s);

/* Scans compute-sanitizer's text output for the allocation sentences
 * ("Access to 0x... is out of bounds", "and is N bytes after the nearest
 * allocation at 0x... of size M bytes") and attaches them to the matching
 * Precise record by address.  Returns how many records it completed. */
int diag_san_add_text(struct diag_san *s, const char *text, size_t len);

const char *diag_san_kind_name(enum diag_san_kind k); /* "Precise" */

/* The findings of compute-sanitizer's text output (diag/santext.c): for
 * a memcheck pass stopped before the sanitizer wrote its XML (it writes
 * it when it exits, after its coredump).  Precise, Imprecise, Api and
 * stack overflow findings, with their thread, block, address, access,
 * source line and frames, and the nearest allocation (diag_san_add_text).
 * Function names are cut as the XML cuts them; file names are the text's
 * base names.  Returns NULL only when out of memory. */
struct diag_san *diag_san_from_text(const char *text, size_t len);

/* ---- the other tools (diag/santools.c) ----
 *
 * racecheck, initcheck and synccheck write the same <record>s with other
 * kinds and sentences (compute-sanitizer manual: racecheck "Race reported
 * between Write access at PC in FILE:LINE:FUNC and Read access at ...
 * [N hazards]" in analysis mode, "Potential RAW hazard detected at
 * __shared__ ADDR in block (x,y,z)" in hazard mode; initcheck
 * "Uninitialized __global__ memory read of size N bytes"; synccheck
 * "Barrier error detected. Divergent thread(s) in block" / "Invalid
 * arguments").  The reader classifies each record at its end by its
 * <kind> and its <text>, and reads the race's two accesses and hazard
 * type from the sentence when the elements do not give them. */
void diag_san_classify(struct diag_san_record *r);

/* --sanitizer-tool: "memcheck", "racecheck", "initcheck", "synccheck";
 * returns the name (static) or NULL when s is none of them. */
const char *diag_san_tool_parse(const char *s);

#endif
