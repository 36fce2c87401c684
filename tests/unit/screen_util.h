/* Helpers for headless screen tests: run a script against a UI and
 * compare the dumps with tests/screens/NAME (unit_X-K.txt for
 * tests/unit/test_X.c: tests/sh/screens.sh checks the names).  Set
 * CUDBG_UPDATE_SCREENS=1 to rewrite the expected files (then review the
 * diff before committing). */
#ifndef CUDBG_TEST_SCREEN_UTIL_H
#define CUDBG_TEST_SCREEN_UTIL_H

#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A private directory for dumps; the harness runs each test in a child. */
static inline const char *screen_tmpdir(void)
{
	static char dir[64];
	if (!dir[0]) {
		/* Inside the harness's scratch directory, removed after the
		 * test whatever its end. */
		const char *t = getenv("CUDBG_TEST_TMP");
		snprintf(dir, sizeof dir, "%s/screen-XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(dir))
			test_fail(__FILE__, __LINE__, "mkdtemp failed");
		setenv("CUDBG_TEST_DUMP_DIR", dir, 1);
	}
	return dir;
}

static inline char *screen_write_script(const char *text)
{
	static char path[128];
	snprintf(path, sizeof path, "%s/script", screen_tmpdir());
	FILE *f = fopen(path, "w");
	if (!f)
		test_fail(__FILE__, __LINE__, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
	return path;
}

static inline char *screen_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Compares dump NAME with the expected screen; fails naming the first
 * differing line. */
static inline void screen_check(const char *name)
{
	char got_path[256], want_path[4096];
	snprintf(got_path, sizeof got_path, "%s/%s", screen_tmpdir(), name);
	snprintf(want_path, sizeof want_path, "%s/tests/screens/%s", test_root_dir(), name);
	char *got = screen_slurp(got_path);
	if (!got)
		test_fail(__FILE__, __LINE__, "no dump %s was written", name);
	const char *upd = getenv("CUDBG_UPDATE_SCREENS");
	if (upd && *upd == '1') {
		FILE *f = fopen(want_path, "w");
		if (!f)
			test_fail(__FILE__, __LINE__, "cannot write %s", want_path);
		fputs(got, f);
		fclose(f);
	}
	char *want = screen_slurp(want_path);
	if (!want)
		test_fail(__FILE__, __LINE__, "no expected screen %s (run with CUDBG_UPDATE_SCREENS=1 and review)", want_path);
	if (strcmp(got, want) != 0) {
		const char *g = got, *w = want;
		int line = 1;
		while (*g && *g == *w) {
			if (*g == '\n')
				line++;
			g++, w++;
		}
		const char *ge = strchr(g, '\n'), *we = strchr(w, '\n');
		test_fail(__FILE__, __LINE__, "screen %s differs at line %d:\n got: %.*s\nwant: %.*s", name, line,
			  ge ? (int)(ge - g) : (int)strlen(g), g, we ? (int)(we - w) : (int)strlen(w), w);
	}
	free(got);
	free(want);
}

#endif
