/* The diagnosis report of batch mode: text for people, JSON for tools
 * (schema in docs/report-schema.md).
 *
 * Code: diag/report.c.  The report is rendered into a
 * malloc'd string; the caller writes it.  Untrusted text (from the
 * debugger, the program, the sanitizer) is escaped: no control characters,
 * bidirectional overrides or invalid UTF-8 reach the output.
 */
#ifndef CUDBG_REPORT_H
#define CUDBG_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "cudbg/diag.h"
#include "cudbg/hints.h"

/* Exit codes of batch mode. */
enum {
	DIAG_EXIT_NO_FAULT = 0,
	DIAG_EXIT_FAULT = 1,
	DIAG_EXIT_USAGE = 2, /* usage or environment error */
};

/* What a line of the text report leads to, for a screen that shows the
 * report (the Hints pane's full view): a key step's action, or a finding
 * (its number, 1-based).  diag_report_text fills in->tags when set, so
 * no reader parses the rendered text back. */
enum diag_line_kind { DIAG_LINE_ACTION, DIAG_LINE_FINDING };
struct diag_line_tag {
	size_t line;          /* 0-based, counted by '\n' */
	enum diag_line_kind kind;
	int value;            /* enum diag_action, or the finding's number */
};
struct diag_report_tags {
	struct diag_line_tag *v; /* owned: diag_report_tags_free */
	size_t n, cap;
	size_t counted, lines; /* the renderer's running line count */
};
void diag_report_tags_free(struct diag_report_tags *t);

struct diag_report_in {
	const struct diag_fault *fault;
	const struct diag_hints *hints; /* may be NULL */
	const char *mode;       /* "live", "core", "replay", "sanitizer-report" */
	const char *stop_reason;/* the stop's reason in words, may be NULL */
	const char *memcheck_text; /* the pass's text output, may be NULL */
	size_t memcheck_text_len;
	double memcheck_seconds;/* <0 when it did not run */
	const char *memcheck_stopped; /* why the pass stopped the sanitizer
				       * before its coredump was done, or
				       * NULL (diag_memcheck_early) */
	const char *error;      /* an environment/usage error, may be NULL */
	/* Text shows a hint's screen action as [LABEL]: the screen passes
	 * its keys here, indexed by enum diag_action (include/cudbg/hints.h);
	 * NULL, or a NULL entry: the action's name. */
	const char *const *action_labels;
	/* Filled with the text's line tags when not NULL (cleared first). */
	struct diag_report_tags *tags;
};

/* Renders the report.  Returns a malloc'd NUL-ended string or NULL when
 * out of memory. */
char *diag_report_text(const struct diag_report_in *in);
/* A CPU crash's address and the line's dereference there, as the
 * report's `access` field says it ("n->next->val at 0x0: n->next is
 * NULL"; "j->data[i * 1000] at 0x7f.. (j->data = 0x7f.., i * 1000 =
 * 12000)"; "address 0x10"), into line (cap bytes, NUL-ended).  The
 * Hints pane shows the same line.  Unescaped: the caller escapes. */
void diag_report_access_text(const struct diag_host_access *a, char *line,
			     size_t cap);
char *diag_report_json(const struct diag_report_in *in);
/* The report's "hints" member (an array of each hint's id, priority,
 * title, what, why, evidence and steps) into w: the same JSON for
 * --json and for DAP's exceptionInfo (dap/diagnose.c). */
struct jw;
struct diag_hints;
void diag_report_json_hints(struct jw *w, const struct diag_hints *h);
/* A CUDA focus as the JSON object under `key` (null when not valid):
 * the diagnosis's faulting thread and the batch report's debugger
 * focus share it (docs/report-schema.md). */
struct diag_focus;
void diag_report_json_focus(struct jw *w, const char *key,
			    const struct diag_focus *c);

/* What went wrong, in a few words, for a fault or an exit: the hang's
 * headline, the sanitizer finding ("memcheck: Invalid __global__ write
 * of size 4 bytes"), the exception or signal, how the program ended, else
 * the fault's class.  The Hints pane's headline and DAP's stop
 * description both start with it.  Returns buf; *which (may be NULL)
 * says which of those it is. */
enum diag_headline_kind {
	DIAG_HEAD_HANG, DIAG_HEAD_FINDING, DIAG_HEAD_EXCEPTION,
	DIAG_HEAD_KILLED, DIAG_HEAD_EXITED, DIAG_HEAD_CLASS,
};
struct diag_fault;
const char *diag_fault_headline(const struct diag_fault *f, char *buf,
				size_t cap, enum diag_headline_kind *which);

/* 0 no fault, 1 fault, 2 environment error (in->error set, or the fault
 * kind is DIAG_FAULT_ENVIRONMENT). */
int diag_report_exit_code(const struct diag_report_in *in);

#endif
