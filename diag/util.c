/* Small helpers for diag/: strings, globs, number parsing, small files.
 * The growable buffer and the escapers are base's (include/cudbg/base.h). */
#include "diag/internal.h"
#include "cudbg/diag.h"
#include "cudbg/report.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include <limits.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* ---- strings ----------------------------------------------------------- */

char *diag_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

char *diag_strndup(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *diag_join_argv(char *const argv[])
{
	struct dbuf b = {0};
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			dbuf_putc(&b, ' ');
		dbuf_puts(&b, argv[i]);
	}
	return dbuf_take(&b);
}

bool diag_strset(char **dst, const char *s)
{
	char *c = NULL;
	if (s && !(c = strdup(s)))
		return false;
	free(*dst);
	*dst = c;
	return true;
}

bool diag_glob_match(const char *p, const char *s)
{
	/* Iterative with one backtrack point: linear enough for rule
	 * patterns, and no recursion on hostile input. */
	const char *star = NULL, *resume = NULL;
	while (*s) {
		if (*p == '\\' && p[1]) {
			if (tolower((unsigned char)p[1]) ==
			    tolower((unsigned char)*s)) {
				p += 2;
				s++;
				continue;
			}
		} else if (*p == '*') {
			star = ++p;
			resume = s;
			continue;
		} else if (*p == '?' ||
			   (*p && tolower((unsigned char)*p) ==
					  tolower((unsigned char)*s))) {
			p++;
			s++;
			continue;
		}
		if (!star)
			return false;
		p = star;
		s = ++resume;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

const char *diag_ci_strstr(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	if (n == 0)
		return hay;
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return hay;
	return NULL;
}

bool diag_parse_u64(const char *s, uint64_t *out)
{
	if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

bool diag_parse_uint(const char *s, unsigned *out)
{
	uint64_t v;
	if (!diag_parse_u64(s, &v) || v > 0xffffffffu)
		return false;
	*out = (unsigned)v;
	return true;
}

char *diag_read_small_file(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct dbuf b = {0};
	char chunk[8192];
	size_t n;
	dbuf_put(&b, "", 0);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (b.len + n > max) {
			b.oom = true;
			break;
		}
		dbuf_put(&b, chunk, n);
	}
	bool err = ferror(f);
	fclose(f);
	if (err)
		b.oom = true;
	if (len)
		*len = b.len;
	return dbuf_take(&b);
}

/* ---- public small helpers ---------------------------------------------- */

const char *diag_strerror(int code)
{
	switch (code) {
	case DIAG_OK: return "ok";
	case DIAG_ENOMEM: return "out of memory";
	case DIAG_ESYNTAX: return "malformed input";
	case DIAG_EIO: return "input/output error";
	case DIAG_ELIMIT: return "input too large";
	case DIAG_EEXEC: return "could not start the program";
	case DIAG_ESTATE: return "called out of order";
	case DIAG_ENOTFOUND: return "not found";
	}
	return "unknown error";
}

int diag_parse_dim3(const char *s, struct diag_dim3 *out)
{
	unsigned long v[3];
	const char *p = s;
	while (*p == ' ')
		p++;
	char open = *p, close = open == '(' ? ')' : open == '[' ? ']' : 0;
	if (!close)
		return DIAG_ESYNTAX;
	p++;
	for (int i = 0; i < 3; i++) {
		while (*p == ' ')
			p++;
		if (!isdigit((unsigned char)*p))
			return DIAG_ESYNTAX;
		char *end;
		errno = 0;
		v[i] = strtoul(p, &end, 10);
		if (errno || v[i] > 0xffffffffUL)
			return DIAG_ESYNTAX;
		p = end;
		while (*p == ' ')
			p++;
		if (*p != (i < 2 ? ',' : close))
			return DIAG_ESYNTAX;
		p++;
	}
	out->x = (uint32_t)v[0];
	out->y = (uint32_t)v[1];
	out->z = (uint32_t)v[2];
	return DIAG_OK;
}

void diag_remove_dir(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d))) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			char p[PATH_MAX + 256];
			snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
			struct stat sb;
			if (depth > 0 && lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
				diag_remove_dir(p, depth - 1);
			else
				unlink(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

int diag_end_file_read(const char *dir, const char *name,
		       struct diag_end_file *out)
{
	bool reaped_exit = strncmp(name, "reapexit.", 9) == 0;
	bool reaped = reaped_exit || strncmp(name, "reaped.", 7) == 0;
	bool death = !reaped_exit &&
		     (reaped || strncmp(name, "death.", 6) == 0);
	if (!death && !reaped_exit && strncmp(name, "exit.", 5) != 0)
		return -1;
	char *end;
	long pid = strtol(strchr(name, '.') + 1, &end, 10);
	if (pid <= 0 || *end)
		return -1;
	char path[PATH_MAX];
	int n = snprintf(path, sizeof path, "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof path)
		return -1;
	size_t len;
	char *text = diag_read_small_file(path, 4096, &len);
	long fpid, ppid;
	int code, at = 0;
	bool ok = text && sscanf(text, "%ld %d %ld%n", &fpid, &code, &ppid,
				 &at) == 3 && fpid == pid &&
		  (death ? code > 0 && code < 65 : code >= 0 && code < 256);
	if (ok) {
		char *cmd = text + at + (text[at] == '\n');
		cmd[strcspn(cmd, "\n")] = '\0';
		*out = (struct diag_end_file){ .death = death, .reaped = reaped,
					       .pid = pid, .code = code,
					       .ppid = ppid };
		snprintf(out->cmd, sizeof out->cmd, "%s", cmd);
	}
	free(text);
	return ok ? 0 : -1;
}

bool diag_signal_name(int sig, char *buf, size_t cap)
{
	const char *a = sigabbrev_np(sig);
	snprintf(buf, cap, "SIG%s", a ? a : "?");
	return a != NULL;
}
