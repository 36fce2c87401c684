/* The parsed rules file, shared by diag/rules.c (loading and validation)
 * and diag/hints.c (matching and rendering).  Internal to diag/. */
#ifndef CUDBG_DIAG_RULES_H
#define CUDBG_DIAG_RULES_H

#include "cudbg/hints.h"

struct patterns {
	char **v; /* globs, any may match */
	size_t n;
};

struct rule_step {
	enum diag_step_kind kind;
	enum diag_action action;
	char *text; /* template */
};

/* Match keys, in the order docs/hints.md lists them. */
enum match_key {
	MK_EXCEPTION, MK_ASSERT, MK_KERNEL, MK_SANITIZER, MK_OUTPUT, MK_OP,
	MK_FILE, MK_COUNT
};

struct rule {
	char *id;
	unsigned line;          /* where [id] stands */
	int priority;
	char *title, *what, *why;
	bool when[DIAG_F_COUNT], unless[DIAG_F_COUNT];
	struct patterns match[MK_COUNT];
	char **evidence;
	size_t n_evidence;
	struct rule_step *steps;
	size_t n_steps;
	/* instead-of: this rule is dropped when one of these matched (a
	 * rule for a whole class gives way to the rules for its members) */
	char **instead_of;
	size_t n_instead_of;
	unsigned instead_line;  /* where the key stands (load errors) */
	/* value: the kind of bad value the fault's tensors are read for
	 * (diag_pybad_kind_named: "index", "class", "prob", "range01"), or
	 * NULL */
	char *value;
};

struct diag_rules {
	struct rule *v;
	size_t n;
	char **evals;  /* every {eval:} alternative, once (for wanted) */
	size_t n_evals;
};

extern const char *const diag_match_key_names[MK_COUNT];

/* Checks a template: balanced braces, known placeholders, valid eval
 * expressions.  Returns NULL or a static message. */
const char *diag_template_check(const char *t);

#endif
