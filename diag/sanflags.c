/* Extra compute-sanitizer flags for the pass (--sanitizer-flags and the
 * config file's `sanitizer-flags` line; include/cudbg/memcheck.h).
 *
 * The text is split at blanks and nothing else: there is no shell, so
 * quotes, backslashes, $VARS and globs would reach compute-sanitizer as
 * literal bytes.  A quote is refused rather than passed on, since a user
 * who types one expects a shell to take it away.  The flags the pass
 * sets itself are refused too: compute-sanitizer takes each option once,
 * and these decide where the report, the coredump and the text go. */
#include "cudbg/base.h"
#include "cudbg/memcheck.h"
#include "cudbg/diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The options the pass owns, and why each cannot be given again. */
static const struct {
	const char *name;
	const char *why;
} owned[] = {
	{ "--tool", "the pass sets it; choose the tool with --sanitizer-tool" },
	{ "--xml", "the pass reads its own XML report" },
	{ "--save", "the pass saves the report in its private directory" },
	{ "--generate-coredump", "the pass asks memcheck for the coredump "
	  "it opens" },
	{ "--coredump-name", "the pass names the coredump it opens" },
	{ "--log-file", "the pass reads the sanitizer's text output" },
	{ "--read", "the pass runs the program; open a saved report with "
	  "--sanitizer-report" },
};

/* "--name" or "--name=value" */
static bool is_option(const char *word, const char *name)
{
	size_t n = strlen(name);
	return strncmp(word, name, n) == 0 && (!word[n] || word[n] == '=');
}

const char *diag_san_flag_conflict(const char *word)
{
	for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++)
		if (is_option(word, owned[i].name))
			return owned[i].why;
	return NULL;
}

bool diag_san_flags_have(char *const *flags, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (is_option(flags[i], name))
			return true;
	return false;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A word for a message: at most 40 bytes, printable ASCII, the rest as
 * '?' (the text may be anything the user's config file holds). */
static const char *shown(const char *w, size_t len, char *buf, size_t cap)
{
	if (cap < 4) {
		buf[0] = '\0';
		return buf;
	}
	text_ascii_copy(buf, cap - 3, w, len > 40 ? 40 : len);
	if (len > 40)
		strcat(buf, "...");
	return buf;
}

static int check_word(const char *w, size_t len, bool first, char *err,
		      size_t cap)
{
	char b[64];
	if (memchr(w, '\'', len) || memchr(w, '"', len) || memchr(w, '\\', len)) {
		snprintf(err, cap, "sanitizer flags are split at blanks, "
			 "without a shell: '%s' holds a quote or backslash "
			 "(give each word as it should arrive)",
			 shown(w, len, b, sizeof b));
		return DIAG_ESYNTAX;
	}
	if (first && w[0] != '-') {
		snprintf(err, cap, "sanitizer flags must start with an option "
			 "(-...), not '%s' (compute-sanitizer would run it as "
			 "the program)", shown(w, len, b, sizeof b));
		return DIAG_ESYNTAX;
	}
	char word[256];
	snprintf(word, sizeof word, "%.*s", (int)(len < 255 ? len : 255), w);
	const char *why = diag_san_flag_conflict(word);
	if (why) {
		snprintf(err, cap, "sanitizer flag '%s' conflicts with the "
			 "memcheck pass: %s", shown(w, len, b, sizeof b), why);
		return DIAG_ESYNTAX;
	}
	return DIAG_OK;
}

static int push(char ***arr, size_t *n, const char *w, size_t len)
{
	char **a = realloc(*arr, (*n + 2) * sizeof *a);
	if (!a)
		return DIAG_ENOMEM;
	*arr = a;
	if (!(a[*n] = strndup(w, len)))
		return DIAG_ENOMEM;
	a[++*n] = NULL;
	return DIAG_OK;
}

int diag_san_flags_add(char ***flags, size_t *n, const char *text,
		       char *err, size_t cap)
{
	const char *p = text;
	bool first = true;
	size_t added = 0;
	while (*p) {
		while (blank(*p))
			p++;
		if (!*p)
			break;
		const char *w = p;
		while (*p && !blank(*p))
			p++;
		size_t len = (size_t)(p - w);
		int rc = check_word(w, len, first, err, cap);
		if (rc == DIAG_OK && (rc = push(flags, n, w, len)) < 0)
			snprintf(err, cap, "out of memory");
		if (rc < 0)
			return rc;
		first = false;
		added++;
	}
	if (!added) {
		snprintf(err, cap, "sanitizer flags are empty");
		return DIAG_ESYNTAX;
	}
	return DIAG_OK;
}

void diag_san_flags_free(char **flags, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(flags[i]);
	free(flags);
}
