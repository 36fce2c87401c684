/* Test helpers over the shared cuda-gdb transcripts: pick a recorded MI
 * line by the command it answered and its prefix, parse it, hand the
 * record to a function.  Header-only (static inline) so any test binary
 * can include it. */
#ifndef CUDBG_TEST_FIXTURE_H
#define CUDBG_TEST_FIXTURE_H

#include "cudbg/mi.h"
#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits "   0.621 < TEXT" into tag and text; false for other lines. */
static inline bool fx_split(char *line, char *tag, char **text)
{
	char *p = line;
	while (*p == ' ')
		p++;
	while ((*p >= '0' && *p <= '9') || *p == '.')
		p++;
	if (p == line || p[0] != ' ' || !p[1] || (p[2] != ' ' && p[2]))
		return false;
	*tag = p[1];
	*text = p[2] ? p + 3 : p + 2;
	return true;
}

/* The `<` line of fixture `name` that is the nth (from 0) whose text
 * starts with rec_prefix and that follows a command starting with
 * cmd_prefix (NULL: any).  Fails the test when there is none.  Caller
 * frees. */
static inline char *fx_line(const char *name, const char *cmd_prefix,
			    const char *rec_prefix, int nth)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", test_fixtures_dir(), name);
	char *buf = test_read_file(path, NULL);
	char *cmd = NULL, *save = NULL, *found = NULL;
	for (char *l = strtok_r(buf, "\n", &save); l && !found;
	     l = strtok_r(NULL, "\n", &save)) {
		char tag, *text;
		if (!fx_split(l, &tag, &text))
			continue;
		if (tag == '>')
			cmd = text;
		if (tag != '<' || strncmp(text, rec_prefix, strlen(rec_prefix)))
			continue;
		if (cmd_prefix && (!cmd || strncmp(cmd, cmd_prefix,
						   strlen(cmd_prefix))))
			continue;
		if (nth-- == 0)
			found = strdup(text);
	}
	free(buf);
	if (!found)
		test_fail(__FILE__, __LINE__, "%s: no line %s after %s", name,
			  rec_prefix, cmd_prefix ? cmd_prefix : "(any)");
	return found;
}

typedef void (*fx_record_fn)(const struct mi_record *rec, void *out);

struct fx_call {
	fx_record_fn fn;
	void *out;
	int records;
};

static inline void fx_on_record(void *ctx, const struct mi_record *rec)
{
	struct fx_call *c = ctx;
	if (rec->kind == MI_REC_ERROR)
		test_fail(__FILE__, __LINE__, "line does not parse (%d at %zu)",
			  rec->error, rec->error_at);
	c->records++;
	c->fn(rec, c->out);
}

/* Parses MI text `line` and calls fn(record, out) once. */
static inline void fx_with_record(const char *line, fx_record_fn fn, void *out)
{
	struct fx_call c = { fn, out, 0 };
	CHECK_INT(mi_parse_line(line, strlen(line), fx_on_record, &c), MI_OK);
	CHECK_INT(c.records, 1);
}

/* Calls fn(record, out) for every record of every `<` line of the
 * fixture; lines that do not parse fail the test. */
static inline void fx_each(const char *name, fx_record_fn fn, void *out)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", test_fixtures_dir(), name);
	char *buf = test_read_file(path, NULL);
	char *save = NULL;
	struct fx_call c = { fn, out, 0 };
	for (char *l = strtok_r(buf, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char tag, *text;
		if (fx_split(l, &tag, &text) && tag == '<')
			CHECK_INT(mi_parse_line(text, strlen(text),
						fx_on_record, &c), MI_OK);
	}
	free(buf);
}

/* fx_line + fx_with_record. */
static inline void fx_decode(const char *name, const char *cmd_prefix,
			     const char *rec_prefix, int nth, fx_record_fn fn,
			     void *out)
{
	char *line = fx_line(name, cmd_prefix, rec_prefix, nth);
	fx_with_record(line, fn, out);
	free(line);
}

#endif
