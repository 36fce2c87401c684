/* Batch mode: run the session to its first stop or the program's end and
 * print what stopped it (text, or JSON with --json), then the diagnosis.
 *
 * Code: batch/batch.c, batch/batch_out.c.  Declared first by
 * the options and entry point so main.c can call it.
 *
 * One code path: batch_collect() fills a struct batch_report from the
 * model after the run; batch_print_text() and batch_print_json() print
 * it.  The diagnosis extends the report struct and the
 * printers rather than printing on its own.
 */
#ifndef CUDBG_BATCH_H
#define CUDBG_BATCH_H

#include "cudbg/diag.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct cudbg_options;
struct dbg_model;

/* Returns the process exit code: 0 no fault found, 1 a fault was found,
 * 2 usage or environment error (a one-line message already printed). */
int batch_main(const struct cudbg_options *o);

/* A frame as the report shows it.  Strings are malloc'd (NULL when
 * unknown). */
struct batch_frame {
	bool valid;
	int level;
	char *func;      /* as the debugger gave it */
	char *file;
	char *fullname;
	int line;        /* 0 when unknown */
	uint64_t addr;
};

/* What stopped the program.  Every string is malloc'd and owned by the
 * report (batch_report_free); untrusted text is escaped only when
 * printed. */
struct batch_report {
	const char *mode;      /* "live", "attach", "remote", "core", "replay",
				* "sanitizer-report"; NULL: nothing named */
	char *program;         /* argv[0] or the transcript, may be NULL */
	const char *state;     /* model_state_name() */
	bool stopped;          /* the program stopped (not exited) */
	char *summary;         /* "Warp Assert in nll_loss_forward_..." */
	char *reason;          /* MI reason, "" when the stop had none */
	char *signal_name, *signal_meaning;
	bool device;           /* stopped in device code (CudaFocus) */
	bool device_exception; /* a CUDA exception or trap */
	struct diag_focus focus; /* the debugger's focus (focus.valid) */
	char *exception_name;  /* fault fields of *stopped */
	bool has_error_pc;
	uint64_t error_pc;
	char *fault_function, *fault_file;
	int fault_line;
	char *message;
	int bkptno;            /* -1 */
	struct batch_frame frame;   /* frame 0 of the stop */
	/* The kernel's own frame when frame 0 is __assert_fail or __trap
	 * (frame 1 for a device assert), else a copy of frame. */
	struct batch_frame kernel_frame;
	char *kernel;          /* device stops: the kernel's base name */
	bool exited;
	bool exit_signalled;
	int exit_code;
	char *exit_signal;
	char *error;           /* environment error text, NULL when none */
	/* --timeout ran out and the program was interrupted: the headline
	 * "Hang: kernel K still running after N s" (include/cudbg/hang.h),
	 * printed first; NULL when the program stopped or ended by itself. */
	char *hang;
	bool fault;            /* see batch_exit_code */
	/* The diagnosis (include/cudbg/diagrun.h), already
	 * escaped: text appended by batch_print_text, a JSON object printed
	 * as the "diagnosis" member by batch_print_json; NULL when none. */
	char *diagnosis;
	int diagnosis_exit;    /* its exit code when diagnosis is set */
	/* A job of many processes (--job, --core-dir; diag/job_report.c),
	 * already escaped: text printed before the stop, a JSON object
	 * printed as the "job" member; NULL when none. */
	char *job;
};

/* Fills r from the model (zeroes r first).  0 or -1 when out of memory. */
int batch_collect(const struct dbg_model *m, struct batch_report *r);
void batch_report_free(struct batch_report *r);
/* 0 no fault, 1 fault (a device exception, a signal stop, killed by a
 * signal, a non-zero exit, a hang, or one the diagnosis found), 2 when r->error
 * is set or the diagnosis found an environment error. */
int batch_exit_code(const struct batch_report *r);
/* Printers: untrusted text is escaped (no control bytes, bidi overrides
 * or invalid UTF-8 reach the output); JSON is always valid. */
void batch_print_text(FILE *out, const struct batch_report *r);
void batch_print_json(FILE *out, const struct batch_report *r);

#endif
