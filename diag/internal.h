/* Helpers shared inside diag/ only (not a public header). */
#ifndef CUDBG_DIAG_INTERNAL_H
#define CUDBG_DIAG_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudbg/base.h" /* struct dbuf, text_escape, json_escape */
#include "cudbg/diag.h"

char *diag_strdup(const char *s);               /* NULL in, NULL out */
char *diag_strndup(const char *s, size_t n);
/* Replaces *dst with a copy of s; returns false when out of memory. */
bool diag_strset(char **dst, const char *s);
/* argv joined by single spaces (malloc'd; NULL when out of memory). */
char *diag_join_argv(char *const argv[]);

/* Case-insensitive glob: '*' any run, '?' one byte, "\*" a literal. */
bool diag_glob_match(const char *pat, const char *s);
/* Case-insensitive substring search. */
const char *diag_ci_strstr(const char *hay, const char *needle);

/* Strict unsigned parsers: the whole string must be a number. */
bool diag_parse_u64(const char *s, uint64_t *out);   /* decimal or 0x hex */
bool diag_parse_uint(const char *s, unsigned *out);

/* "(0..63,0,0)": a range per axis, one number where lo == hi. */
bool diag_put_range(struct dbuf *b, struct diag_dim3 lo, struct diag_dim3 hi);

/* Reads a small file whole (at most max bytes); NULL on failure. */
char *diag_read_small_file(const char *path, size_t max, size_t *len);
/* "SIGSEGV" for signal 11 in buf; false (buf "SIG?") for a number with
 * no name. */
bool diag_signal_name(int sig, char *buf, size_t cap);

/* One file the death reporter wrote (preload/death.c): death.PID at a
 * fatal signal, exit.PID at exit(), "PID CODE PPID" and the command
 * line. */
struct diag_end_file {
	bool death;     /* death.PID: code is the signal; else the status */
	/* reaped.PID / reapexit.PID: the death or exit as its parent's wait
	 * saw it (SIGKILL, _exit(), a child that could not write its own);
	 * ppid is that parent */
	bool reaped;
	long pid, ppid;
	int code;
	char cmd[512];
};
/* A host frame's source is a library's, nobody's line to fix: a
 * build-relative path (a libc with line information), a system header,
 * the CUDA toolkit (diag/analyze.c). */
bool diag_frame_library_source(const struct diag_frame *fr);

/* Reads dir/name when name is such a file: 0 with out filled, -1 when
 * it is not one or does not read right. */
int diag_end_file_read(const char *dir, const char *name,
		       struct diag_end_file *out);

/* Removes dir and what is in it (include/cudbg/diagrun.h says more). */
void diag_remove_dir(const char *dir, int depth);

/* One frame line of a Python traceback ('  File "F", line N, in FUNC')
 * or of faulthandler's dump (the same without the comma): pointers into
 * the line (diag/pytrace.c). */
struct diag_py_file_ref {
	const char *file, *func;
	size_t file_len, func_len;
	int line;
};
bool diag_py_file_line(const char *l, size_t n, struct diag_py_file_ref *out);
/* A file of the Python library or site-packages (not the user's own):
 * "<frozen ...>", .../site-packages/, .../dist-packages/, .../lib/python. */
bool diag_py_library_file(const char *f);

/* Records and frames appended by hand to a report that is not being
 * parsed (diag/sanitizer.c, for diag/santext.c): zeroed, owned by the
 * report; NULL when out of memory or past the report's bounds.
 * diag_san_frame_done marks a Python frame as the XML reader does. */
struct diag_san;
struct diag_san_record;
struct diag_san_frame;
struct diag_san_record *diag_san_push(struct diag_san *s);
struct diag_san_frame *diag_san_push_frame(struct diag_san_record *r,
					   bool host);
void diag_san_frame_done(struct diag_san_frame *f);
/* "by thread (x,y,z) in block (x,y,z)" at p, read within [p, end) (the
 * XML's text and the sanitizer's text output say it alike). */
bool diag_san_scan_who(const char *p, const char *end, struct diag_dim3 *t,
		       struct diag_dim3 *b);

/* What a sanitizer finding says about its kernel (diag/sankernel.c).
 * An assert's or a trap's helper (__assertfail, __trap) is no kernel;
 * nor is a lambda's call operator, which an assertion line names
 * ("operator()", "lambda [](float)->auto::operator()(float)->auto"). */
bool diag_is_helper_frame(const char *func);
bool diag_lambda_call_operator(const char *func);
/* The outermost device frame of the user's code (borrowed), or NULL. */
const char *diag_san_device_kernel(const struct diag_san_record *r);
/* The kernel of a launch templated on a device lambda, from the user's
 * host frame of nvcc's wrapper: malloc'd, or NULL. */
char *diag_san_lambda_kernel(const struct diag_san_record *r);
/* Whether the finding read from compute-sanitizer's text (with that
 * text, for its assertion lines) names its kernel as surely as the XML
 * would: the XML has the launch stub, the text hides it. */
bool diag_san_text_names_kernel(const struct diag_san_record *r,
				const char *text, size_t len,
				const char *program);
/* diag/memcheck.c: the first finding of a pass's findings that is an
 * error in device code (precise, imprecise or another kind; a failing
 * CUDA call is none), borrowed, or NULL. */
const struct diag_san_record *diag_san_first_error(const struct diag_san *s);
/* diag/kmangle.c: the Itanium mangled name of a kernel's signature as an
 * assertion line prints it ("void k(const int *, int)" gives _Z1kPKii)
 * into out; its length, or 0 when the signature is not one it mangles
 * (a namespace, a template, a type that is no builtin). */
size_t diag_kernel_mangle(const char *sig, char *out, size_t cap);
/* Whether the ELF file PROGRAM declares a __global__ kernel of that
 * mangled name: nvcc's launch stub (__device_stub_ + MANGLED, as a
 * symbol name), or the name as its kernel registration's string, in a
 * .rodata section (a release build keeps no stub symbol). */
bool diag_program_has_stub(const char *program, const char *mangled);

#endif
