/* The access of a faulting source line whose address each lane used
 * (include/cudbg/diag.h, diag_culprit_lvalue): for the culprit-lane
 * search when the faulting load wrote over its own address register (a
 * -G build), the address of that access is evaluated in every lane
 * instead (mi/ctl_culprit.c).  The text goes to the debugger to
 * evaluate, so it must have no side effect: no assignment, increment,
 * call or comma; only names, numbers, member access, subscripts and
 * arithmetic.  A pure function over the line (unit test
 * diag/culprit_lvalue). */
#include "cudbg/diag.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

struct access {
	const char *start, *end; /* NAME[...] (with a.b / p->q before) */
};

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Where the name chain before the '[' at open starts: a.b, p->q, a[i].b */
static const char *chain_start(const char *line, const char *open)
{
	const char *s = open;
	for (;;) {
		const char *q = s;
		while (q > line && ident_char(q[-1]))
			q--;
		if (q == s)
			return NULL; /* no name right before */
		if (q > line && q[-1] == '.' )
			s = q - 1;
		else if (q - line >= 2 && q[-1] == '>' && q[-2] == '-')
			s = q - 2;
		else
			return isdigit((unsigned char)*q) ? NULL : q;
	}
}

/* The top-level accesses NAME[...] of the line (before any comment). */
static size_t accesses(const char *line, const char *stop, struct access *v,
		       size_t max)
{
	size_t n = 0;
	for (const char *p = line; p < stop && n < max; p++) {
		if (*p != '[')
			continue;
		const char *st = chain_start(line, p);
		int depth = 0;
		const char *q = p;
		for (; q < stop; q++) {
			if (*q == '[')
				depth++;
			else if (*q == ']' && --depth == 0)
				break;
		}
		if (!st || q >= stop)
			return n;
		/* a[i][j]: the whole */
		while (q + 1 < stop && q[1] == '[') {
			const char *r = q + 1;
			depth = 0;
			for (; r < stop; r++) {
				if (*r == '[')
					depth++;
				else if (*r == ']' && --depth == 0)
					break;
			}
			if (r >= stop)
				return n;
			q = r;
		}
		v[n++] = (struct access){ st, q + 1 };
		p = q;
	}
	return n;
}

/* Text the debugger may evaluate without changing anything. */
static bool side_effect_free(const char *s, const char *e)
{
	for (const char *p = s; p < e; p++) {
		char c = *p;
		if (c == '=' || c == ',' || c == '?' || c == ';' || c == '"' ||
		    c == '\'' || c == '\\' || c == '{' || c == '}')
			return false;
		if ((c == '+' || c == '-') && p + 1 < e && p[1] == c)
			return false;
		if (c == '(' && p > s) { /* a call: name( */
			const char *q = p;
			while (q > s && q[-1] == ' ')
				q--;
			if (q > s && ident_char(q[-1]))
				return false;
		}
		if (!isprint((unsigned char)c))
			return false;
	}
	return true;
}

/* The assignment's '=' (not ==, <=, >=, !=), or NULL. */
static const char *assignment(const char *line, const char *stop)
{
	for (const char *p = line; p < stop; p++) {
		if (*p != '=')
			continue;
		if (p + 1 < stop && p[1] == '=') {
			p++;
			continue;
		}
		if (p > line && strchr("=!<>", p[-1]) && !(p - line >= 2 &&
		    (p[-2] == '<' || p[-2] == '>') && p[-1] == p[-2]))
			continue;
		return p;
	}
	return NULL;
}

bool diag_culprit_lvalue(const char *line, bool store, char *out, size_t cap)
{
	if (!line || cap == 0)
		return false;
	const char *stop = strstr(line, "//");
	if (!stop)
		stop = line + strlen(line);
	struct access v[8];
	size_t n = accesses(line, stop, v, 8);
	if (!n)
		return false;
	const char *eq = assignment(line, stop);
	const struct access *pick = &v[0];
	/* a store writes the left side; a load reads the right side, or the
	 * left of a compound assignment (out[key] += 1) */
	for (size_t i = 0; eq && i < n; i++)
		if (store ? v[i].end <= eq : v[i].start > eq) {
			pick = &v[i];
			break;
		}
	size_t len = (size_t)(pick->end - pick->start);
	if (len + 1 > cap || len > 120 ||
	    !side_effect_free(pick->start, pick->end))
		return false;
	memcpy(out, pick->start, len);
	out[len] = '\0';
	return true;
}

/* ---- every dereference of a line (diag_line_derefs) --------------------- */

/* The end of the bracket group opening at p ('['), or NULL. */
static const char *bracket_end(const char *p, const char *stop)
{
	int depth = 0;
	for (; p < stop; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']' && --depth == 0)
			return p + 1;
	}
	return NULL;
}

static const char *skip_ident(const char *p, const char *stop)
{
	while (p < stop && ident_char(*p))
		p++;
	return p;
}

/* Whether a '*' at p is unary: nothing that ends an operand before it. */
static bool unary_star(const char *line, const char *p)
{
	const char *q = p;
	while (q > line && q[-1] == ' ')
		q--;
	return q == line || !(ident_char(q[-1]) || q[-1] == ')' || q[-1] == ']');
}

/* Copies s..e into out (DIAG_DEREF_MAX bytes); false when it does not fit. */
static bool copy_text(char *out, const char *s, const char *e)
{
	size_t len = (size_t)(e - s);
	if (len + 1 > DIAG_DEREF_MAX)
		return false;
	memcpy(out, s, len);
	out[len] = '\0';
	return true;
}

/* Adds the dereference s..e, through the pointer b..be, with the
 * subscript i..ie (i NULL: none), when each fits and the whole is free
 * of side effects. */
static size_t add_deref(struct diag_deref *out, size_t n, size_t max,
			const char *s, const char *e, const char *b,
			const char *be, const char *i, const char *ie)
{
	if (n >= max || !side_effect_free(s, e) || !copy_text(out[n].expr, s, e) ||
	    !copy_text(out[n].base, b, be) ||
	    !copy_text(out[n].index, i ? i : e, i ? ie : e))
		return n;
	return n + 1;
}

size_t diag_line_derefs(const char *line, struct diag_deref *out, size_t max)
{
	if (!line)
		return 0;
	const char *stop = strstr(line, "//");
	if (!stop)
		stop = line + strlen(line);
	size_t n = 0;
	for (const char *p = line; p < stop && n < max;) {
		const char *star = NULL; /* a unary '*' before the chain */
		if (*p == '*' && unary_star(line, p)) {
			const char *q = p + 1;
			while (q < stop && *q == ' ')
				q++;
			if (q < stop && (isalpha((unsigned char)*q) || *q == '_')) {
				star = p;
				p = q;
			}
		}
		/* a chain starts at a name not right after another one's end */
		if (!(isalpha((unsigned char)*p) || *p == '_') ||
		    (p > line && (ident_char(p[-1]) || p[-1] == '.' ||
				  (p[-1] == '>' && p - line >= 2 && p[-2] == '-')))) {
			p++;
			continue;
		}
		const char *start = p, *q = skip_ident(p, stop);
		if (q < stop && *q == '(') { /* a call: not evaluated */
			p = q;
			continue;
		}
		for (;;) {
			/* the step after q: its end r; a dereference goes
			 * through start..q, with the subscript inside [] */
			const char *r, *i = NULL, *ie = NULL;
			bool deref = true;
			if (q + 1 < stop && q[0] == '-' && q[1] == '>') {
				r = skip_ident(q + 2, stop);
				if (r == q + 2)
					break;
			} else if (q < stop && *q == '.') {
				r = skip_ident(q + 1, stop);
				deref = false;
				if (r == q + 1)
					break;
			} else if (q < stop && *q == '[') {
				r = bracket_end(q, stop);
				if (!r)
					break;
				i = q + 1;
				ie = r - 1;
			} else {
				break;
			}
			if (r < stop && *r == '(') /* a method-like call */
				break;
			if (deref)
				n = add_deref(out, n, max, start, r, start, q, i, ie);
			q = r;
		}
		/* *a->b is *(a->b): the star applies to the whole chain */
		if (star)
			n = add_deref(out, n, max, star, q, start, q, NULL, NULL);
		p = q;
	}
	return n;
}
