/* The configuration file (include/cudbg/config.h, docs/config.md).
 *
 * One setting a line, words separated by blanks:
 *   memcheck auto|always|never
 *   directory PATH            (the rest of the line; ~/ is $HOME)
 *   bind KEY ACTION
 *   color ROLE FG [BG]        (colour is accepted too)
 *   sanitizer-flags FLAGS...  (the rest of the line, split at blanks)
 * A line whose first non-blank is '#' is a comment.  There are no
 * trailing comments, so a directory may hold '#'.
 *
 * The text is untrusted as far as the terminal goes: words echoed in an
 * error message are escaped.  Only pure code here (no curses), so the
 * fuzz target links it alone with tui/keys.c. */
#include "cudbg/config.h"
#include "cudbg/memcheck.h"
#include "tui/cells.h"
#include "tui/keys.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_LEN 4096
#define FILE_MAX_LEN (1 << 20)
#define MAX_WORDS 8

static const char *const role_names[UC__COUNT] = {
	[UC_STATUS] = "status",        [UC_STATUS_ALERT] = "status-alert",
	[UC_TITLE] = "title",          [UC_TITLE_FOCUS] = "title-focus",
	[UC_TAB_ACTIVE] = "tab-active", [UC_LINENO] = "lineno",
	[UC_CURRENT] = "current",      [UC_FAULT] = "fault",
	[UC_BREAK] = "break",          [UC_CURSOR] = "cursor",
	[UC_KEYWORD] = "keyword",      [UC_TYPE] = "type",
	[UC_STRING] = "string",        [UC_COMMENT] = "comment",
	[UC_NUMBER] = "number",        [UC_PREPROC] = "preproc",
	[UC_MATCH] = "match",          [UC_ERROR] = "error",
	[UC_WARN] = "warn",            [UC_GOOD] = "good",
	[UC_MUTED] = "muted",          [UC_ACCENT] = "accent",
	[UC_HINT] = "hint",            [UC_OVERLAY] = "overlay",
};

/* The eight ANSI colours in curses' numbering, and the terminal's own. */
static const char *const colour_names[] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

/* The action names are those of tui/keys.def. */
const char *config_action_name(size_t i)
{
	for (size_t r = 0; r < key_nrows; r++)
		if (key_rows[r].name && i-- == 0)
			return key_rows[r].name;
	return NULL;
}

int config_action_key(const char *name)
{
	for (size_t r = 0; r < key_nrows; r++)
		if (key_rows[r].name && strcmp(key_rows[r].name, name) == 0)
			return key_rows[r].key;
	return TK_NONE;
}

/* "continue next step ...": every action name, for an error message. */
static const char *action_list(char *buf, size_t cap)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; config_action_name(i) && n < cap; i++) {
		int w = snprintf(buf + n, cap - n, "%s%s", i ? " " : "",
				 config_action_name(i));
		if (w < 0)
			break;
		n += (size_t)w;
	}
	return buf;
}

const char *config_role_name(int role)
{
	return role > 0 && role < UC__COUNT ? role_names[role] : NULL;
}

/* ---- parsing ----------------------------------------------------------- */

struct parse {
	struct cudbg_config *c;
	const char *name;
	size_t lineno;
	char *err;
	size_t cap;
};

/* A word for a message: printable ASCII as is, other bytes as \xNN, cut
 * at 40 bytes. */
static const char *shown(const char *s, char *buf, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; s[i] && o + 5 < cap; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (i == 40) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (ch >= 0x20 && ch < 0x7f)
			buf[o++] = (char)ch;
		else
			o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", ch);
	}
	buf[o] = '\0';
	return buf;
}

__attribute__((format(printf, 2, 3)))
static int bad(struct parse *p, const char *fmt, ...)
{
	char name[128];
	int n = snprintf(p->err, p->cap, "%s:%zu: ",
			 shown(p->name, name, sizeof name), p->lineno);
	va_list ap;
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < p->cap)
		vsnprintf(p->err + n, p->cap - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static bool blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* Splits line (modified in place) into at most MAX_WORDS words; returns
 * the count, or MAX_WORDS + 1 when there are more. */
static int split(char *line, char **w)
{
	int n = 0;
	char *s = line;
	for (;;) {
		while (blank(*s))
			s++;
		if (!*s)
			return n;
		if (n == MAX_WORDS)
			return MAX_WORDS + 1;
		w[n++] = s;
		while (*s && !blank(*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
}

static int set_memcheck(struct parse *p, char **w, int n)
{
	char b[64];
	if (n != 2)
		return bad(p, "memcheck takes one word: auto, always or never");
	if (strcmp(w[1], "auto") == 0)
		p->c->memcheck = CUDBG_MEMCHECK_AUTO;
	else if (strcmp(w[1], "always") == 0)
		p->c->memcheck = CUDBG_MEMCHECK_ALWAYS;
	else if (strcmp(w[1], "never") == 0)
		p->c->memcheck = CUDBG_MEMCHECK_NEVER;
	else
		return bad(p, "memcheck takes auto, always or never, not '%s'",
			   shown(w[1], b, sizeof b));
	p->c->memcheck_set = true;
	return 0;
}

/* "~" and "~/..." mean $HOME. */
static char *expand_home(const char *path)
{
	const char *home = getenv("HOME");
	char *out;
	if (path[0] != '~' || (path[1] && path[1] != '/') || !home || !*home)
		return strdup(path);
	size_t hl = strlen(home), pl = strlen(path + 1);
	out = malloc(hl + pl + 1);
	if (!out)
		return NULL;
	memcpy(out, home, hl);
	memcpy(out + hl, path + 1, pl + 1);
	return out;
}

static int add_directory(struct parse *p, char *rest)
{
	size_t len = strlen(rest);
	while (len && blank(rest[len - 1]))
		rest[--len] = '\0';
	if (!len)
		return bad(p, "directory needs a path");
	char **d = realloc(p->c->dirs, (p->c->ndirs + 1) * sizeof *d);
	if (!d)
		return bad(p, "out of memory");
	p->c->dirs = d;
	if (!(d[p->c->ndirs] = expand_home(rest)))
		return bad(p, "out of memory");
	p->c->ndirs++;
	return 0;
}

/* A key in config notation: one printable ASCII character, or a key name
 * with or without angle brackets (F6, <F6>, C-x, PgDn, Space). */
static int parse_key(const char *w)
{
	char buf[40];
	const char *s = buf;
	size_t len = strlen(w);
	if (len == 1)
		return (unsigned char)w[0] > 0x20 && (unsigned char)w[0] < 0x7f
			       ? (unsigned char)w[0] : TK_NONE;
	if (len + 3 > sizeof buf)
		return TK_NONE;
	if (w[0] == '<')
		memcpy(buf, w, len + 1);
	else
		snprintf(buf, sizeof buf, "<%s>", w);
	int k = tk_parse(&s);
	/* tk_parse reads one byte of a name it does not know */
	if (k == TK_NONE || *s || k == TK_RESIZE || k == TK_MOUSE || k == 0)
		return TK_NONE;
	return k;
}

static int add_bind(struct parse *p, char **w, int n)
{
	char b[64];
	if (n != 3)
		return bad(p, "bind takes a key and an action, e.g. 'bind F6 "
			   "continue'");
	int key = parse_key(w[1]);
	if (key == TK_NONE)
		return bad(p, "unknown key '%s': give one character, or a "
			   "name such as F6, C-x, PgDn, Space, Enter",
			   shown(w[1], b, sizeof b));
	int does = config_action_key(w[2]);
	char list[512];
	if (does == TK_NONE)
		return bad(p, "unknown action '%s'; actions: %s",
			   shown(w[2], b, sizeof b), action_list(list, sizeof list));
	struct config_bind *v = realloc(p->c->binds,
					(p->c->nbinds + 1) * sizeof *v);
	if (!v)
		return bad(p, "out of memory");
	p->c->binds = v;
	v[p->c->nbinds++] = (struct config_bind){ key, does };
	return 0;
}

static int push_bind(struct parse *p, int key, int does)
{
	struct config_bind *v = realloc(p->c->binds, (p->c->nbinds + 1) * sizeof *v);
	if (!v)
		return bad(p, "out of memory");
	p->c->binds = v;
	v[p->c->nbinds++] = (struct config_bind){ key, does };
	return 0;
}

/* `keys cgdb`: the function keys of cgdb (the CGDB column of
 * tui/keys.def: F5 run, F6 continue, F7 finish, F8 next, F10 step)
 * instead of the default IDE ones (F5 continue, F9 break, F10 next, F11
 * step, S-F11 finish); they go in as binds at that line, in key order, so
 * later bind lines win.  `keys ide` adds none. */
static int set_keys(struct parse *p, char **w, int n)
{
	if (n != 2 || (strcmp(w[1], "cgdb") && strcmp(w[1], "ide")))
		return bad(p, "keys takes cgdb or ide");
	if (strcmp(w[1], "ide") == 0)
		return 0;
	for (int f = 1; f <= 24; f++)
		for (size_t r = 0; r < key_nrows; r++)
			if (key_rows[r].cgdb == TK_F(f) &&
			    push_bind(p, TK_F(f), key_rows[r].key) < 0)
				return -1;
	return 0;
}

/* A colour: a name, "default", or a number 0..255. */
static int parse_colour(const char *w, short *out)
{
	if (strcmp(w, "default") == 0) {
		*out = -1;
		return 0;
	}
	for (size_t i = 0; i < sizeof colour_names / sizeof *colour_names;
	     i++) {
		if (strcmp(w, colour_names[i]) == 0) {
			*out = (short)i;
			return 0;
		}
	}
	char *end;
	errno = 0;
	long v = strtol(w, &end, 10);
	if (w[0] < '0' || w[0] > '9' || *end || errno || v > 255)
		return -1;
	*out = (short)v;
	return 0;
}

static int add_colour(struct parse *p, char **w, int n)
{
	char b[64];
	int role = -1;
	short fg, bg = -1;
	if (n != 3 && n != 4)
		return bad(p, "color takes a role, a foreground and an "
			   "optional background, e.g. 'color fault white red'");
	for (int i = 1; i < UC__COUNT; i++)
		if (role_names[i] && strcmp(role_names[i], w[1]) == 0)
			role = i;
	if (role < 0)
		return bad(p, "unknown colour role '%s' (see docs/config.md "
			   "for the list)", shown(w[1], b, sizeof b));
	if (parse_colour(w[2], &fg) || (n == 4 && parse_colour(w[3], &bg)))
		return bad(p, "a colour is black, red, green, yellow, blue, "
			   "magenta, cyan, white, default or 0-255, not '%s'",
			   shown(parse_colour(w[2], &fg) ? w[2] : w[3], b,
				 sizeof b));
	struct config_colour *v = realloc(p->c->colours,
					  (p->c->ncolours + 1) * sizeof *v);
	if (!v)
		return bad(p, "out of memory");
	p->c->colours = v;
	v[p->c->ncolours++] = (struct config_colour){ role, fg, bg };
	return 0;
}

static int parse_line(struct parse *p, char *line)
{
	char *w[MAX_WORDS];
	char b[64];
	while (blank(*line))
		line++;
	if (!*line || *line == '#')
		return 0;
	/* directory keeps the rest of the line whole (paths hold blanks) */
	if (strncmp(line, "directory", 9) == 0 &&
	    (blank(line[9]) || !line[9])) {
		char *rest = line + 9;
		while (blank(*rest))
			rest++;
		return add_directory(p, rest);
	}
	/* sanitizer-flags takes the rest of the line: more words than
	 * MAX_WORDS, split and checked as --sanitizer-flags is */
	if (strncmp(line, "sanitizer-flags", 15) == 0 &&
	    (blank(line[15]) || !line[15])) {
		char why[512];
		if (diag_san_flags_add(&p->c->san_flags, &p->c->nsan_flags,
				       line + 15, why, sizeof why) < 0)
			return bad(p, "%s", why);
		return 0;
	}
	int n = split(line, w);
	if (n > MAX_WORDS)
		return bad(p, "too many words");
	if (strcmp(w[0], "memcheck") == 0)
		return set_memcheck(p, w, n);
	if (strcmp(w[0], "bind") == 0)
		return add_bind(p, w, n);
	if (strcmp(w[0], "keys") == 0)
		return set_keys(p, w, n);
	if (strcmp(w[0], "gdbinit") == 0) {
		if (n != 2 || (strcmp(w[1], "yes") && strcmp(w[1], "no")))
			return bad(p, "gdbinit takes yes or no");
		p->c->gdbinit = strcmp(w[1], "yes") == 0;
		return 0;
	}
	if (strcmp(w[0], "color") == 0 || strcmp(w[0], "colour") == 0)
		return add_colour(p, w, n);
	return bad(p, "unknown setting '%s' (memcheck, directory, bind, "
		   "keys, gdbinit, color, sanitizer-flags)",
		   shown(w[0], b, sizeof b));
}

int config_parse(struct cudbg_config *c, const char *name, const char *text,
		 size_t len, char *err, size_t cap)
{
	struct parse p = { c, name ? name : "config", 0, err, cap };
	char *line = malloc(LINE_MAX_LEN + 1);
	if (!line)
		return bad(&p, "out of memory");
	size_t at = 0;
	int rc = 0;
	while (at < len && rc == 0) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t raw = nl ? (size_t)(nl - (text + at)) : len - at;
		size_t n = raw;
		p.lineno++;
		if (n && text[at + n - 1] == '\r')
			n--;
		if (n > LINE_MAX_LEN)
			rc = bad(&p, "line longer than %d bytes", LINE_MAX_LEN);
		else if (memchr(text + at, '\0', n))
			rc = bad(&p, "a NUL byte; is this a text file?");
		else {
			memcpy(line, text + at, n);
			line[n] = '\0';
			rc = parse_line(&p, line);
		}
		at += raw + (nl ? 1 : 0);
	}
	free(line);
	return rc;
}

/* ---- files --------------------------------------------------------------- */

const char *config_default_path(char *buf, size_t cap)
{
	const char *env = getenv("CUDBG_CONFIG");
	if (env) {
		if (!*env)
			return NULL;
		snprintf(buf, cap, "%s", env);
		return buf;
	}
	const char *xdg = getenv("XDG_CONFIG_HOME");
	/* The XDG spec: a relative $XDG_CONFIG_HOME is invalid; ignore it. */
	if (xdg && xdg[0] == '/') {
		snprintf(buf, cap, "%s/cudbg-tui/config", xdg);
		return buf;
	}
	const char *home = getenv("HOME");
	if (!home || !*home)
		return NULL;
	snprintf(buf, cap, "%s/.config/cudbg-tui/config", home);
	return buf;
}

/* Reads at most FILE_MAX_LEN bytes; -1 with errno (EFBIG when longer). */
static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0) {
			if (ferror(f)) {
				free(buf);
				return NULL;
			}
			*len = n;
			return buf;
		}
		if (n == cap) {
			if (cap >= FILE_MAX_LEN) {
				free(buf);
				errno = EFBIG;
				return NULL;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				free(buf);
			buf = nb;
			cap *= 2;
		}
	}
	errno = ENOMEM;
	return NULL;
}

int config_load(struct cudbg_config *c, const char *path, char *err,
		size_t cap)
{
	char b[128];
	memset(c, 0, sizeof *c);
	if (!path)
		return 0;
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		snprintf(err, cap, "%s: cannot read the config file: %s",
			 shown(path, b, sizeof b), strerror(errno));
		return -1;
	}
	size_t len = 0;
	char *text = read_all(f, &len);
	int e = errno;
	fclose(f);
	if (!text) {
		snprintf(err, cap, "%s: cannot read the config file: %s",
			 shown(path, b, sizeof b),
			 e == EFBIG ? "larger than 1 MB" : strerror(e));
		return -1;
	}
	c->path = strdup(path);
	int rc = c->path ? config_parse(c, path, text, len, err, cap) : -1;
	if (!c->path)
		snprintf(err, cap, "out of memory");
	free(text);
	return rc;
}

/* The file's sanitizer flags go before the command line's (a later
 * --sanitizer-flags reads as added to the file's).  Copies: the options
 * own theirs. */
static int prepend_san_flags(const struct cudbg_config *c,
			     struct cudbg_options *o)
{
	size_t n = c->nsan_flags + o->nsan_flags;
	char **f = calloc(n + 1, sizeof *f);
	if (!f)
		return -1;
	for (size_t i = 0; i < c->nsan_flags; i++)
		if (!(f[i] = strdup(c->san_flags[i]))) {
			diag_san_flags_free(f, i);
			return -1;
		}
	for (size_t i = 0; i < o->nsan_flags; i++)
		f[c->nsan_flags + i] = o->san_flags[i];
	free(o->san_flags);
	o->san_flags = f;
	o->nsan_flags = n;
	return 0;
}

int config_apply(const struct cudbg_config *c, struct cudbg_options *o)
{
	o->config = c;
	if (c->memcheck_set && !o->memcheck_given)
		o->memcheck = c->memcheck;
	o->gdbinit = c->gdbinit;
	if (c->nsan_flags && prepend_san_flags(c, o) < 0)
		return -1;
	if (!c->ndirs)
		return 0;
	const char **d = realloc(o->dirs, (o->ndirs + c->ndirs) * sizeof *d);
	if (!d)
		return -1;
	for (size_t i = 0; i < c->ndirs; i++)
		d[o->ndirs + i] = c->dirs[i];
	o->dirs = d;
	o->ndirs += c->ndirs;
	return 0;
}

void config_free(struct cudbg_config *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ndirs; i++)
		free(c->dirs[i]);
	free(c->dirs);
	free(c->binds);
	free(c->colours);
	diag_san_flags_free(c->san_flags, c->nsan_flags);
	free(c->path);
	memset(c, 0, sizeof *c);
}
