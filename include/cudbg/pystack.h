/* The Python stack of a stopped Python program, taken live by calling
 * into its interpreter (cuda-gdb 13 has no py-bt), and the bad value of
 * a PyTorch index assert read from the operator's tensors.
 *
 * How (diag/pystack_run.c): at the stop, on the host thread (a device
 * stop selects gdb thread 1 first; with `cuda launch_blocking on` it is
 * still inside the faulting kernel's launch), gdb evaluates
 *   (int)Py_IsInitialized()           no symbol: no Python here, stop
 *   (long)PyMem_RawMalloc(CAP)        a private buffer in the program
 *   (int)PyGILState_Ensure()          the saved GIL state S
 *   (int)PyRun_SimpleString(SCRIPT)   the script below, bounded in time
 *   (void)PyGILState_Release(S)
 * then reads the buffer with -data-read-memory-bytes and frees it.  The
 * script writes its text into the buffer (never to the program's
 * terminal): a 4-byte little-endian length, then lines
 *   F <tab> FILE <tab> LINE <tab> FUNC <tab> SOURCE
 *                                  a frame, innermost first; SOURCE the
 *                                  line's text (linecache, the innermost
 *                                  24 frames; may be empty)
 *   T <tab> FRAME <tab> NAME <tab> DTYPE <tab> DEVICE <tab> SHAPE <tab>
 *     STRIDES <tab> DATA_PTR <tab> ELEMENT_SIZE  a tensor local (SHAPE,
 *     STRIDES: comma separated; FRAME: index into the F lines)
 *   I <tab> FRAME <tab> NAME <tab> VALUE          an int local
 *   E <tab> TEXT                                  the script failed
 * Tensors and ints are those of the frames from the innermost down to the
 * first frame of the user's own code (the operator's arguments and the
 * user's names for them).  Nothing of a tensor but its metadata is
 * touched: after a device assert any CUDA call would fail.  The text
 * comes back through the debugger, so a recording (--record) holds it and
 * a replay gives the same report.
 *
 * Code: diag/pystack.c, diag/pystack_run.c.  Nothing
 * here prints.  Strings in the structures are owned by them; free with
 * diag_pystack_free().
 */
#ifndef CUDBG_PYSTACK_H
#define CUDBG_PYSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { DIAG_PY_MAX_FRAMES = 256, DIAG_PY_MAX_TENSORS = 64,
       DIAG_PY_MAX_INTS = 64, DIAG_PY_MAX_DIMS = 8,
       DIAG_PY_BUF_CAP = 65536 };

struct diag_pyf {
	char *file, *func;
	char *source;      /* the line's text as the program read it, or NULL */
	unsigned line;
	bool library;      /* site-packages, the standard library, <frozen> */
};

struct diag_pytensor {
	int frame;         /* index into frames */
	char *name, *dtype, *device;
	int ndim;
	long long shape[DIAG_PY_MAX_DIMS], stride[DIAG_PY_MAX_DIMS];
	uint64_t ptr;
	int elsize;
};

struct diag_pyint {
	int frame;
	char *name;
	long long value;
};

struct diag_pystack {
	struct diag_pyf *frames;   /* innermost first */
	size_t n_frames;
	struct diag_pytensor *tensors;
	size_t n_tensors;
	struct diag_pyint *ints;
	size_t n_ints;
	char *error;               /* the script's own failure (E line) */
	bool from_memory;          /* read from the process's memory
				    * (include/cudbg/pymem.h), not by a
				    * call: frames only */
};

void diag_pystack_free(struct diag_pystack *ps); /* accepts NULL */

/* Whether a path belongs to the Python installation (its packages, its
 * standard library, frozen or generated code) rather than the user. */
bool diag_py_library_path(const char *path);

/* Parses the script's text (untrusted: any bytes; bounded).  Returns 0
 * and fills out (free with diag_pystack_free), or a negative code
 * (DIAG_ESYNTAX: no frame line at all, DIAG_ENOMEM). */
int diag_pystack_parse(const char *text, size_t len, struct diag_pystack *out);

/* The C expression gdb evaluates to run the script, writing into the
 * buffer at addr of cap bytes: (int)PyRun_SimpleString("...").  malloc'd
 * (NULL: out of memory).  The same addr gives the same text (replays
 * compare commands). */
char *diag_pystack_call_expr(uint64_t addr, size_t cap);
/* The script itself, as the interpreter runs it (lines ended by '\n'):
 * what the program's buffer holds where it is run from there.
 * malloc'd, NULL when out of memory. */
char *diag_pystack_script(uint64_t addr, size_t cap);

/* The innermost frame of the user's own code (not the installation's),
 * or -1. */
int diag_pystack_user_frame(const struct diag_pystack *ps);

/* The kinds of bad value a fault's tensors are read for. */
enum diag_pybad_kind {
	DIAG_PYBAD_NONE,
	DIAG_PYBAD_CLASS,     /* a class label >= the classes or < 0 */
	DIAG_PYBAD_INDEX,     /* an embedding / index_select / gather id */
	DIAG_PYBAD_PROB,      /* multinomial: NaN, inf or < 0 */
	DIAG_PYBAD_RANGE01,   /* BCE: input outside [0, 1] */
};

/* ---- taking it (diag/pystack_run.c) ---- */

struct diag;
struct dbg_ctl;

/* At a live stop of a Python program: takes the stack as above on the
 * host thread (thread 1 at a device stop; the CUDA focus is selected
 * again afterwards) and hands it to d (diag_set_pystack); when the
 * assertion (may be NULL) is a PyTorch index, class, probability or
 * range assert, reads the operator's tensor and hands d the bad value
 * (diag_set_bad_value).  Each call is bounded by timeout_ms (<= 0: 5 s)
 * and interrupted past it.  Never on a coredump (d is told why).
 * final_stop: the session ends after this stop (see final_stop below).
 * Returns 1 when the stack was had, 0 when not (d knows why). */
int diag_pystack_fetch(struct diag *d, struct dbg_ctl *c, int timeout_ms,
		       const char *assertion, enum diag_pybad_kind kind,
		       bool final_stop);

/* The same without a diagnosis (the screen keeps it per stop): out gets
 * the stack (have), the bad value's sentence (bad, "" when none) and why
 * the stack could not be had (why).  Free with
 * diag_pystack_result_free(); diag_pystack_result_give() hands a copy
 * to a diagnosis. */
struct diag_pystack_result {
	/* in: return without waiting for the refresh that selecting the
	 * CUDA focus again starts (the screen: it comes in while the user
	 * already reads the Python line; the host stack it lists after the
	 * calls took 3.6 s on the H200, run 10); the bad value is then read
	 * by diag_pystack_read_value once the refresh is in, so the commands
	 * go out in the same order.  The other fields are out. */
	bool no_wait;
	/* in: read memory only, never call (a program not known to be
	 * Python: a shell launcher, make, an env wrapper; its process may
	 * turn out to be Python after exec).  No _PyRuntime: nothing to say,
	 * why stays empty. */
	bool memory_only;
	/* in: the kind of bad value to read (the matching rule's `value`,
	 * diag_hints_value); NONE: none */
	enum diag_pybad_kind kind;
	/* in: the session ends after this stop (batch): the buffer the
	 * script wrote into is left to the program's end, one call into it
	 * fewer (each costs cuda-gdb about 35 ms) */
	bool final_stop;
	bool value_pending; /* no_wait: the bad value is still to be read */
	bool device;        /* asked at a device stop */
	struct diag_pystack ps;
	bool have;
	bool interpreter;   /* the interpreter is running (_PyRuntime's flag
			     * or Py_IsInitialized()): a Python program */
	char why[256];
	char bad[400];
};
int diag_pystack_take(struct dbg_ctl *c, int timeout_ms, const char *assertion,
		      struct diag_pystack_result *out);
/* After a no_wait take, once the controller is idle: reads the bad value
 * into out->bad.  1 when one was found, else 0 (nothing pending, or
 * nothing to say). */
int diag_pystack_read_value(struct dbg_ctl *c, int timeout_ms,
			    const char *assertion,
			    struct diag_pystack_result *out);
void diag_pystack_result_free(struct diag_pystack_result *r);
void diag_pystack_result_give(struct diag *d,
			      const struct diag_pystack_result *r);
/* A deep copy; 0 or DIAG_ENOMEM (dst is then empty). */
int diag_pystack_copy(struct diag_pystack *dst, const struct diag_pystack *src);

/* ---- the bad value of an index assert ---- */


/* Which tensor to read and what is out of range, from the assertion
 * expression and the stack's tensors. */
struct diag_pybad_plan {
	enum diag_pybad_kind kind;
	const struct diag_pytensor *t; /* the tensor to read (borrowed) */
	const char *user_name;         /* the user's name for it, or NULL */
	long long bound;               /* CLASS/INDEX: valid is [lo, bound) */
	long long lo;                  /* -bound when negatives wrap (advanced
					* indexing), else 0 */
	const char *bound_what;        /* "classes", "rows" */
	bool has_ignore;               /* CLASS: labels equal to ignore are */
	long long ignore;              /* skipped (F.cross_entropy's
					* ignore_index, -100 by default) */
	uint64_t addr;                 /* what to read */
	size_t bytes;                  /* how many (bounded) */
	const char *why_not;           /* kind set but nothing to read: why
					* (may point into why_buf) */
	/* INDEX, from the call on the operator frame's source line
	 * (gather, scatter*, index_select, index_add_/copy_/fill_): */
	const char *op;                /* the call's name (static), or NULL */
	long long dim;                 /* the indexed dimension */
	const char *src_name;          /* the indexed tensor (borrowed) */
	/* INDEX, a tuple of index tensors on the line
	 * (x.index_put_((rows, cols), v)): the k-th indexes dimension
	 * alt[k].dim; each is read in turn (diag_pybad_plan_alt), t is the
	 * first's. */
	struct diag_pybad_alt {
		const struct diag_pytensor *t;
		const char *user_name;
		long long dim, bound;
	} alt[DIAG_PY_MAX_DIMS];
	int n_alt;
	char why_buf[200];
};

/* The kind a rule's `value` names ("index", "class", "prob",
 * "range01"; data/hints.rules), NONE for anything else or NULL. */
enum diag_pybad_kind diag_pybad_kind_named(const char *name);

/* The plan for a bad value of the given kind (the matching rule's, so a
 * new assert of a class is one line of the rules file); the assertion's
 * text (may be NULL) says more: the call it checks, whether negative
 * indices wrap.  kind NONE: nothing to read.  Returns the kind. */
enum diag_pybad_kind diag_pybad_plan(const struct diag_pystack *ps,
				     const char *assertion,
				     enum diag_pybad_kind kind,
				     struct diag_pybad_plan *plan);

/* The single-tensor plan of alternative k of a tuple index (out: what
 * to read and how to name it).  False past the last, or when that
 * tensor is not contiguous. */
bool diag_pybad_plan_alt(const struct diag_pybad_plan *plan, int k,
			 struct diag_pybad_plan *out);

/* Finds the first bad element in the tensor's bytes (mem, len: what was
 * read from plan->addr) and writes the sentence into out, e.g.
 * "labels[23] = 5, the model has 5 classes" or
 * "token id 1000 at ids[2, 17], the embedding has 1000 rows".
 * Returns 1 when one was found, 0 when every element read is in range
 * (out says so), negative on bad arguments. */
int diag_pybad_find(const struct diag_pybad_plan *plan,
		    const unsigned char *mem, size_t len, char *out, size_t cap);

/* gdb's print of an array ("{1, 2, 3 <repeats 15 times>, 4}", floats as
 * "1.5", "-inf", "nan(0x400000)"; a "..." of the print elements limit
 * ends it) as elsize-byte little-endian elements, for the tensor read when
 * -data-read-memory-bytes cannot read device memory: the bytes written
 * (at most cap), or -1 when the text is not such an array. */
long diag_gdb_array_bytes(const char *text, int elsize, bool is_float,
			  unsigned char *out, size_t cap);

#endif
