/* The one data-directory lookup (hints.rules, the demo recordings).
 *
 * Why relative to the binary first: `make install PREFIX=X` after a plain
 * `make` must give a binary that finds its data under X whatever prefix the
 * objects were compiled with, so an installed bin/cudbg-tui looks in
 * ../share/cudbg-tui before the compiled-in DATADIR.  The compiled-in path
 * is the last resort, for layouts where the data is not beside bin/. */
#include <cudbg/hints.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CUDBG_DATADIR
#define CUDBG_DATADIR "/usr/local/share/cudbg-tui"
#endif

const char *diag_datadir_compiled(void)
{
	return CUDBG_DATADIR;
}

const char *diag_datadir_env(void)
{
	const char *env = getenv("CUDBG_DATADIR");
	return env && *env ? env : NULL;
}

const char *diag_exe_dir(char *buf, size_t cap)
{
	if (cap < 2)
		return NULL;
	ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return buf;
}

/* Does DIR/WANT exist as a regular file? */
static int dir_has(const char *dir, const char *want)
{
	char path[4096];
	struct stat st;
	if (snprintf(path, sizeof path, "%s/%s", dir, want) >= (int)sizeof path)
		return 0;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Copies DIR into buf when it holds WANT; buf on success, else NULL. */
static const char *try_dir(const char *dir, const char *want, char *buf,
			   size_t cap)
{
	if (!dir_has(dir, want) || snprintf(buf, cap, "%s", dir) >= (int)cap)
		return NULL;
	return buf;
}

const char *diag_data_dir(const char *exe_dir, const char *want, char *buf,
			  size_t cap)
{
	char self[4096], dir[4096];
	const char *env = diag_datadir_env();
	if (env)
		return try_dir(env, want, buf, cap);
	if (!exe_dir)
		exe_dir = diag_exe_dir(self, sizeof self);
	if (exe_dir) {
		/* a build tree: build/cudbg-tui beside data/; an installed
		 * tree: PREFIX/bin beside PREFIX/share/cudbg-tui (a path too
		 * long for dir is no place to look) */
		static const char *const rel[] = { "../data",
						   "../share/cudbg-tui" };
		for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
			int n = snprintf(dir, sizeof dir, "%s/%s", exe_dir, rel[i]);
			if (n > 0 && (size_t)n < sizeof dir &&
			    try_dir(dir, want, buf, cap))
				return buf;
		}
	}
	return try_dir(CUDBG_DATADIR, want, buf, cap);
}

const char *diag_death_reporter(char *buf, size_t cap)
{
	char exe[PATH_MAX];
	if (!diag_exe_dir(exe, sizeof exe))
		return NULL;
	int n = snprintf(buf, cap, "%s/libcudbg-death.so", exe);
	if (n > 0 && (size_t)n < cap && access(buf, R_OK) == 0)
		return buf;
	n = snprintf(buf, cap, "%s/../lib/cudbg-tui/libcudbg-death.so", exe);
	if (n > 0 && (size_t)n < cap && access(buf, R_OK) == 0)
		return buf;
	return NULL;
}
