/* The sanitizer tools besides memcheck: racecheck, initcheck, synccheck.
 * Their records are classified by <kind> and by the sentence in <text>
 * (see include/cudbg/sanitizer.h), and a race's two accesses are read
 * from its sentence when no elements name them.
 *
 * The sentences are those of the compute-sanitizer manual's text output.
 * Real XML from the H200 (tests/fixtures/gpu/explore/,
 * tests/fixtures/gpu/run1/): racecheck writes <kind>Analysis</kind>,
 * <text>Race condition</text> and the two accesses as <source> and
 * <destination> elements (diag/sanitizer.c reads them); initcheck writes
 * <kind>Initcheck</kind> with the sentence.  tests/data/santools/ holds
 * hand-made inputs in other shapes: the reading stays tolerant of both. */
#include "cudbg/sanitizer.h"
#include "diag/internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool has(const char *s, const char *w)
{
	return s && diag_ci_strstr(s, w) != NULL;
}

static enum diag_san_kind tool_kind(const struct diag_san_record *r)
{
	const char *k = r->kind_text, *t = r->text;
	/* a failing call or a leak stays what memcheck called it */
	if (r->kind == DIAG_SAN_API || r->kind == DIAG_SAN_LEAK)
		return r->kind;
	/* racecheck's real XML says <kind>Analysis</kind> and <text>Race
	 * condition</text> (tests/fixtures/gpu/explore/README.md) */
	if (has(k, "race") || has(k, "hazard") || has(t, "race reported") ||
	    has(t, "race condition") || has(t, "hazard detected"))
		return DIAG_SAN_RACE;
	if (has(k, "uninit") || has(k, "initcheck") ||
	    has(t, "uninitialized"))
		return DIAG_SAN_UNINIT;
	if (has(k, "sync") || has(k, "barrier") || has(t, "barrier error") ||
	    has(t, "divergent thread"))
		return DIAG_SAN_SYNC;
	return r->kind;
}

/* "Write access at 0x1fe0 in /src/race.cu:9:reduce(int*)" (up to end):
 * direction, pc, path, line, func. */
struct access {
	char dir[16];
	uint64_t pc;
	bool has_pc;
	char *path, *func;
	unsigned line;
};

static const char *skip_sp(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	return p;
}

/* PATH:LINE:FUNC: the first ":digits:" splits it (paths seldom hold
 * that). */
static void split_loc(const char *p, const char *end, struct access *a)
{
	for (const char *c = p; c < end; c++) {
		if (*c != ':' || c + 1 >= end || !isdigit((unsigned char)c[1]))
			continue;
		const char *d = c + 1;
		unsigned long line = 0;
		while (d < end && isdigit((unsigned char)*d) && line < 100000000)
			line = line * 10 + (unsigned long)(*d++ - '0');
		if (d < end && *d != ':')
			continue;
		a->path = diag_strndup(p, (size_t)(c - p));
		a->line = (unsigned)line;
		if (d < end)
			a->func = diag_strndup(d + 1, (size_t)(end - d - 1));
		return;
	}
}

static void parse_access(const char *p, const char *end, struct access *a)
{
	memset(a, 0, sizeof *a);
	p = skip_sp(p, end);
	size_t w = 0;
	while (p + w < end && isalpha((unsigned char)p[w]) && w + 1 < sizeof a->dir)
		w++;
	for (size_t i = 0; i < w; i++)
		a->dir[i] = (char)tolower((unsigned char)p[i]);
	const char *at = strstr(p, " access at ");
	if (!at || at >= end)
		return;
	const char *q = at + 11;
	char *e = NULL;
	unsigned long long pc = strtoull(q, &e, 16);
	if (e && e > q && e <= end) {
		a->pc = pc;
		a->has_pc = true;
		q = e;
	}
	const char *in = strstr(q, " in ");
	if (in && in < end)
		split_loc(in + 4, end, a);
}

static void access_free(struct access *a)
{
	free(a->path);
	free(a->func);
}

/* Bounded search inside [p, end). */
static const char *find(const char *p, const char *end, const char *w)
{
	size_t n = strlen(w);
	for (; p + n <= end; p++)
		if (memcmp(p, w, n) == 0)
			return p;
	return NULL;
}

static void set_if_empty(char **dst, const char *v)
{
	if (!*dst && v && *v)
		*dst = diag_strdup(v);
}

/* "Race reported between A and B [N hazards]" */
static void race_sentence(struct diag_san_record *r)
{
	const char *t = r->text;
	const char *b = t ? diag_ci_strstr(t, "between ") : NULL;
	if (!b)
		return;
	const char *end = t + strlen(t);
	const char *p = b + 8;
	const char *brk = find(p, end, " [");
	const char *stop = brk ? brk : end;
	const char *and = find(p, stop, " and ");
	struct access a1, a2;
	parse_access(p, and ? and : stop, &a1);
	if (and)
		parse_access(and + 5, stop, &a2);
	else
		memset(&a2, 0, sizeof a2);
	if (brk) {
		unsigned long n = strtoul(brk + 2, NULL, 10);
		if (n && !r->hazards)
			r->hazards = n;
	}
	set_if_empty(&r->direction, a1.dir);
	set_if_empty(&r->path, a1.path);
	set_if_empty(&r->func, a1.func);
	if (!r->line)
		r->line = a1.line;
	if (!r->has_pc && a1.has_pc) {
		r->pc = a1.pc;
		r->has_pc = true;
	}
	set_if_empty(&r->direction2, a2.dir);
	set_if_empty(&r->path2, a2.path);
	set_if_empty(&r->func2, a2.func);
	if (!r->line2)
		r->line2 = a2.line;
	if (!r->has_pc2 && a2.has_pc) {
		r->pc2 = a2.pc;
		r->has_pc2 = true;
	}
	access_free(&a1);
	access_free(&a2);
}

/* RAW/WAR/WAW from an element, the hazard-mode sentence ("Potential RAW
 * hazard detected"), or two writes (WAW: the only order-free pair). */
static void race_type(struct diag_san_record *r)
{
	static const char *const types[] = { "RAW", "WAR", "WAW" };
	if (r->hazard) {
		for (char *c = r->hazard; *c; c++)
			*c = (char)toupper((unsigned char)*c);
		return;
	}
	for (size_t i = 0; i < 3; i++) {
		char pat[16];
		snprintf(pat, sizeof pat, "%s hazard", types[i]);
		if (r->text && strstr(r->text, pat)) {
			r->hazard = diag_strdup(types[i]);
			return;
		}
	}
	if (!r->direction || !r->direction2)
		return;
	bool w1 = strcasecmp(r->direction, "write") == 0;
	bool w2 = strcasecmp(r->direction2, "write") == 0;
	if (w1 && w2)
		r->hazard = diag_strdup("WAW");
	else if (w1 != w2)
		/* a read and a write race: which came first (RAW or WAR)
		 * depends on how the warps ran, and the report does not say */
		r->hazard = diag_strdup("RAW/WAR");
}

/* "Uninitialized __global__ memory read of size 4 bytes" */
static void uninit_sentence(struct diag_san_record *r)
{
	const char *t = r->text;
	if (!t)
		return;
	if (!r->space && strstr(t, "__global__"))
		r->space = diag_strdup("__global__");
	if (!r->direction)
		r->direction = diag_strdup(has(t, " write") ? "write" : "read");
	const char *sz = diag_ci_strstr(t, "of size ");
	if (sz && !r->size) {
		unsigned long n = strtoul(sz + 8, NULL, 10);
		if (n < 1u << 20)
			r->size = (unsigned)n;
	}
}

void diag_san_classify(struct diag_san_record *r)
{
	if (!r)
		return;
	r->kind = tool_kind(r);
	if (r->kind == DIAG_SAN_RACE) {
		race_sentence(r);
		race_type(r);
		/* racecheck checks shared memory only (its manual) */
		set_if_empty(&r->space, "__shared__");
	} else if (r->kind == DIAG_SAN_UNINIT) {
		uninit_sentence(r);
	}
}

const char *diag_san_tool_parse(const char *s)
{
	static const char *const tools[] = {
		"memcheck", "racecheck", "initcheck", "synccheck", NULL,
	};
	for (size_t i = 0; s && tools[i]; i++)
		if (strcmp(s, tools[i]) == 0)
			return tools[i];
	return NULL;
}
