/* The collector's state, shared by diag/collect.c (feeding) and
 * diag/analyze.c (building the fault).  Internal to diag/. */
#ifndef CUDBG_DIAG_STATE_H
#define CUDBG_DIAG_STATE_H

#include "cudbg/diag.h"
#include "diag/internal.h"
#include "cudbg/pystack.h"

/* A device fault stop as the debugger reported it (live *stopped, or the
 * stream text and focus query of a coredump). */
struct stop_info {
	bool have;
	bool from_core;
	char *reason;
	char *signal_name, *signal_meaning;
	char *exception_name, *message;
	char *exc_function, *exc_file; /* hardware fault fields */
	unsigned exc_line;
	uint64_t error_pc;
	bool has_error_pc;
	struct diag_focus focus;
	struct diag_frame frame; /* the stop's frame */
	bool has_frame;
	bool assert_text;        /* "Assertion failed." in a core's story */
	bool core_exception;     /* a driver coredump named the exception */
};

struct named_value {
	char *name, *value;
	char *type;              /* as the debugger wrote it, or NULL */
	int frame;               /* -1 unknown */
};

struct diag {
	struct diag_asserts *asserts;
	struct diag_san **sans;
	bool *sans_lent;         /* [i]: sans[i] is the caller's (not freed) */
	size_t n_sans;
	char **argv;             /* copies, NULL ended */
	char **envp;             /* copies, NULL ended; NULL = environ */
	char **src_dirs;
	size_t n_src_dirs;

	struct stop_info stop;   /* the first device fault */
	bool device_stop_seen;
	bool running_after_fault;
	bool continued_past;
	bool exited, exit_signalled, exit_live;
	int exit_code;
	char *exit_signal;
	bool host_signal;        /* stopped on a host signal (SIGSEGV ...) */
	char *host_signal_name, *host_signal_meaning;

	struct diag_frame *frames;      /* device stack at the fault */
	size_t n_frames;
	struct diag_frame *host_frames; /* host stack */
	size_t n_host_frames;
	bool lanes_seen;
	int lanes_with_exc;             /* rows naming an exception */
	bool focus_lane_has_exc;

	struct diag_focus query_focus;  /* last -cuda-focus-query answer */
	char *table_kernel;             /* the current kernel, kernels table */
	char *core_path;
	bool in_core;                   /* target cudacore seen */
	bool core_exc_pending;          /* "CUDA Exception: " seen, name next */

	struct named_value *vals;
	size_t n_vals, cap_vals;

	char **lines;                   /* notable output lines, bounded */
	size_t n_lines;
	char *error_line;               /* first CUDA error line */
	/* The live Python stack (diag/pystack_run.c), why it could not be
	 * had, and the bad value read from the operator's tensors. */
	struct diag_pystack pystack;
	bool have_pystack;
	char *pystack_why;
	char *bad_value;
	bool set_flags[DIAG_F_COUNT];   /* from diag_set_flag / text */

	struct diag_hang *hang;         /* diag/hang.c, NULL when none */

	struct diag_fault fault;
	char **scratch;                 /* strings owned by `fault` */
	size_t n_scratch, cap_scratch;
	const struct diag_assert_entry **assert_ptrs;
	const struct diag_san_record **finding_ptrs;
	size_t n_finding_ptrs;
};

enum { DIAG_MAX_LINES = 200, DIAG_MAX_VALUES = 256, DIAG_MAX_FRAMES = 256 };

/* analyze.c */
void diag_fault_reset(struct diag *d);
/* groups.c: fills f->groups from f->findings (freed by the next call or
 * diag_fault_reset). */
void diag_group_findings(struct diag_fault *f);
/* analyze.c: s becomes owned by the fault (freed at the next analysis);
 * returns s. */
char *diag_keep(struct diag *d, char *s);
/* provenance.c: fills f->prov and its facts (after the flags). */
void diag_provenance(struct diag *d, struct diag_fault *f);
/* collect.c: the type of a value put before. */
void diag_value_type(struct diag *d, const char *name, const char *type);
/* collect.c */
void diag_frames_free(struct diag_frame *f, size_t n);
void diag_frames_offer(struct diag *d, struct diag_frame *v, size_t n);
void diag_lanes_offer(struct diag *d, int with_exc, bool focus_has_exc);
int diag_value_put(struct diag *d, const char *name, const char *value,
		   int frame);
void diag_focus_clear(struct diag_focus *f);
const char *diag_env_get(const struct diag *d, const char *name);
/* hang.c: {hang.X} placeholders (p/n is X); false when unknown */
struct diag_hang;
bool diag_hang_placeholder(const struct diag_hang *h, const char *p, size_t n,
			   struct dbuf *b);
/* python.c */
void diag_python_find(struct diag *d, const struct diag_san_record *r,
		      struct diag_python *out);
char *diag_read_source_line(const struct diag *d, const char *path,
			    unsigned line);
/* *outer (may be NULL; set only when it differs): the outermost
 * operator, the one the user called. */
char *diag_aten_op(const struct diag_san_record *r,
		   const struct diag_frame *host, size_t n_host, char **outer);
bool diag_host_at_launch(const struct diag_frame *host, size_t n_host,
			 const char *kernel_short);
char *diag_stub_kernel(const char *stub);
void diag_python_live(struct diag *d, struct diag_python *out);

#endif
