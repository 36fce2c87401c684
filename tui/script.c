/* Test scripts: keys and commands in, screen dumps out. */
#include "tui/script.h"
#include "tui/keys.h"
#include "tui/loop.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum wait_kind { W_NONE, W_STOP, W_IDLE, W_STATE, W_TEXT };

struct script {
	char **lines;
	size_t n, pc;          /* lines, next line to run */
	enum wait_kind wait;
	char wait_arg[256];
	struct timespec deadline;
	unsigned long stop_mark; /* ui->stops when the last wait ended */
	unsigned long diag_mark; /* ui->diag_runs at :mark-diagnoses */
	double wait_s;
	bool mask_hex;         /* dumps show 0x… for addresses */
	char masks[8][64];     /* :mask PREFIX: digits after it become N */
	int nmasks;
	char error[1024];
};

struct script *script_load(const char *path, char *err, size_t cap)
{
	FILE *f = fopen(path, "r");
	struct script *s;
	char *line = NULL;
	size_t lcap = 0;
	ssize_t len;
	const char *w = getenv("CUDBG_TEST_WAIT");

	if (!f) {
		snprintf(err, cap, "cannot read the test script %s: %s", path, strerror(errno));
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		fclose(f);
		snprintf(err, cap, "out of memory");
		return NULL;
	}
	while ((len = getline(&line, &lcap, f)) >= 0) {
		char **nl = realloc(s->lines, (s->n + 1) * sizeof(*nl));
		if (!nl)
			break;
		s->lines = nl;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		s->lines[s->n++] = strdup(line);
	}
	free(line);
	fclose(f);
	s->wait_s = w && atof(w) > 0 ? atof(w) : 30.0;
	return s;
}

void script_free(struct script *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->lines[i]);
	free(s->lines);
	free(s);
}

const char *script_error(const struct script *s)
{
	return s->error;
}

static double until_deadline(const struct script *s)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(s->deadline.tv_sec - now.tv_sec) +
	       (double)(s->deadline.tv_nsec - now.tv_nsec) / 1e9;
}

int script_timeout_ms(const struct script *s)
{
	double left;

	if (s->wait == W_NONE)
		return -1;
	left = until_deadline(s);
	return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

static enum script_status fail(struct script *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static enum script_status fail(struct script *s, const char *fmt, ...)
{
	int n = snprintf(s->error, sizeof s->error, "test script line %zu: ", s->pc);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->error + n, sizeof s->error - (size_t)n, fmt, ap);
	va_end(ap);
	return SCRIPT_FAIL;
}

static bool loop_idle(struct loop *L)
{
	return !L->ui->busy && (!L->src.idle || L->src.idle(L->src.ctx));
}

static void redraw(struct loop *L)
{
	if (L->ui->dirty || L->ui->busy) {
		ui_draw(L->ui);
		L->be->flush(L->be, &L->ui->grid);
	}
}

static bool screen_has(struct loop *L, const char *text)
{
	char *d;
	bool found;

	redraw(L);
	d = grid_dump(&L->ui->grid);
	found = d && strstr(d, text);
	free(d);
	return found;
}

static const char *const state_names[] = {
	[UST_NONE] = "none",       [UST_STARTING] = "starting",
	[UST_RUNNING] = "running", [UST_STOPPED] = "stopped",
	[UST_EXITED] = "exited",   [UST_GONE] = "gone",
};

static bool wait_done(struct script *s, struct loop *L)
{
	switch (s->wait) {
	case W_NONE: return true;
	case W_STOP: return L->ui->stops > s->stop_mark && loop_idle(L);
	case W_IDLE: return loop_idle(L);
	case W_STATE: return strcmp(state_names[L->ui->status.state], s->wait_arg) == 0;
	case W_TEXT: return screen_has(L, s->wait_arg);
	}
	return true;
}

static void start_wait(struct script *s, enum wait_kind k, const char *arg)
{
	s->wait = k;
	snprintf(s->wait_arg, sizeof s->wait_arg, "%s", arg ? arg : "");
	clock_gettime(CLOCK_MONOTONIC, &s->deadline);
	s->deadline.tv_sec += (time_t)s->wait_s;
	s->deadline.tv_nsec += (long)((s->wait_s - (double)(time_t)s->wait_s) * 1e9);
	if (s->deadline.tv_nsec >= 1000000000L) {
		s->deadline.tv_sec++;
		s->deadline.tv_nsec -= 1000000000L;
	}
}

/* Replaces every 0x with 4 or more hex digits by "0x…" (addresses differ
 * between builds and runs). */
static void mask_hex(char *d)
{
	char *w = d;

	for (char *r = d; *r;) {
		size_t n = 0;
		if (r[0] == '0' && r[1] == 'x')
			while (strchr("0123456789abcdefABCDEF", r[2 + n]) && r[2 + n])
				n++;
		if (n >= 4) {
			memcpy(w, "0x\xe2\x80\xa6", 5);
			w += 5;
			r += 2 + n;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/* Squeezes runs of blanks in the line holding p to one, so a masked
 * number of any length leaves the line the same. */
static void squeeze_line(char *d, char *p)
{
	char *start = p, *end, *w;

	while (start > d && start[-1] != '\n')
		start--;
	end = strchr(p, '\n');
	if (!end)
		end = p + strlen(p);
	w = start;
	for (char *r = start; r < end; r++)
		if (!(*r == ' ' && r > start && r[-1] == ' '))
			*w++ = *r;
	memmove(w, end, strlen(end) + 1);
}

/* Digits right after each prefix become one "N" (pids, times); the
 * line's blanks are squeezed so the width of the number does not show. */
static void mask_prefixes(const struct script *s, char *d)
{
	for (int i = 0; i < s->nmasks; i++) {
		size_t pl = strlen(s->masks[i]);
		for (char *p = strstr(d, s->masks[i]); p; p = strstr(p, s->masks[i])) {
			char *digits = p + pl, *end = digits;
			while (*end >= '0' && *end <= '9')
				end++;
			if (end > digits) {
				*digits = 'N';
				memmove(digits + 1, end, strlen(end) + 1);
				squeeze_line(d, digits);
			}
			p = digits;
		}
	}
}

static enum script_status do_dump(struct script *s, struct loop *L, const char *file)
{
	const char *dir = getenv("CUDBG_TEST_DUMP_DIR");
	char path[4096];
	char *d;
	FILE *f;

	if (file[0] != '/' && dir && *dir)
		snprintf(path, sizeof path, "%s/%s", dir, file);
	else
		snprintf(path, sizeof path, "%s", file);
	ui_draw(L->ui);
	L->be->flush(L->be, &L->ui->grid);
	d = grid_dump(&L->ui->grid);
	if (d && s->mask_hex)
		mask_hex(d);
	if (d)
		mask_prefixes(s, d);
	f = fopen(path, "w");
	if (!d || !f) {
		free(d);
		if (f)
			fclose(f);
		return fail(s, "cannot write the dump %s", path);
	}
	fputs(d, f);
	free(d);
	if (fclose(f) != 0)
		return fail(s, "cannot write the dump %s", path);
	return SCRIPT_RUN;
}

static enum script_status type_keys(struct script *s, struct loop *L,
				    const char *p, bool literal)
{
	while (*p && !L->ui->quit) {
		const char *at = p;
		int k = literal ? (unsigned char)*p++ : tk_parse(&p);
		if (k == TK_NONE)
			return fail(s, "unknown key name at \"%s\"", at);
		ui_key(L->ui, k, NULL);
	}
	return SCRIPT_RUN;
}

static enum script_status command(struct script *s, struct loop *L, const char *cmd)
{
	const char *arg = strchr(cmd, ' ');
	size_t n = arg ? (size_t)(arg - cmd) : strlen(cmd);

	arg = arg ? arg + 1 : "";
#define IS(name) (n == sizeof(name) - 1 && strncmp(cmd, name, n) == 0)
	if (IS("type"))
		return type_keys(s, L, arg, true);
	if (IS("wait-stop"))
		return start_wait(s, W_STOP, NULL), SCRIPT_WAIT;
	if (IS("wait-idle"))
		return start_wait(s, W_IDLE, NULL), SCRIPT_WAIT;
	if (IS("wait-state"))
		return start_wait(s, W_STATE, arg), SCRIPT_WAIT;
	if (IS("wait-text"))
		return start_wait(s, W_TEXT, arg), SCRIPT_WAIT;
	if (IS("dump"))
		return do_dump(s, L, arg);
	if (IS("mask-hex")) {
		s->mask_hex = true;
		return SCRIPT_RUN;
	}
	if (IS("mask")) {
		if (!*arg || s->nmasks == 8)
			return fail(s, "bad :mask \"%s\" (want PREFIX; at most 8)", arg);
		snprintf(s->masks[s->nmasks++], sizeof s->masks[0], "%s", arg);
		return SCRIPT_RUN;
	}
	if (IS("mark-diagnoses")) {
		s->diag_mark = L->ui->diag_runs;
		return SCRIPT_RUN;
	}
	if (IS("assert-diagnoses")) { /* N analyses since :mark-diagnoses */
		char *end;
		unsigned long want = strtoul(arg, &end, 10);
		if (end == arg || *end)
			return fail(s, "bad :assert-diagnoses \"%s\" (want N)", arg);
		if (L->ui->diag_runs - s->diag_mark != want)
			return fail(s, "%lu analyses since :mark-diagnoses, not %lu",
				    L->ui->diag_runs - s->diag_mark, want);
		return SCRIPT_RUN;
	}
	if (IS("assert-text")) {
		if (!screen_has(L, arg))
			return fail(s, "the screen does not show \"%s\"", arg);
		return SCRIPT_RUN;
	}
	if (IS("assert-no-text")) {
		if (screen_has(L, arg))
			return fail(s, "the screen still shows \"%s\"", arg);
		return SCRIPT_RUN;
	}
	if (IS("focus")) { /* a pane by name, whatever the key path to it */
		struct pane *p = ui_pane(L->ui, arg);
		if (!p)
			return fail(s, "no pane named \"%s\"", arg);
		ui_focus(L->ui, p);
		return SCRIPT_RUN;
	}
	if (IS("quit")) {
		L->ui->quit = true;
		return SCRIPT_DONE;
	}
	if (IS("resize")) {
		int c, r;
		if (sscanf(arg, "%d %d", &c, &r) != 2 || c < 1 || r < 1 || c > 1000 || r > 1000)
			return fail(s, "bad :resize \"%s\" (want COLS ROWS)", arg);
		L->be->cols = c;
		L->be->rows = r;
		ui_resize(L->ui, c, r);
		return SCRIPT_RUN;
	}
	if (IS("click")) {
		struct ui_mouse m = { 0, 0, 1 };
		if (sscanf(arg, "%d %d", &m.x, &m.y) != 2)
			return fail(s, "bad :click \"%s\" (want X Y)", arg);
		ui_key(L->ui, TK_MOUSE, &m);
		return SCRIPT_RUN;
	}
#undef IS
	return fail(s, "unknown command \"%s\"", cmd);
}

enum script_status script_run(struct script *s, struct loop *L)
{
	if (s->wait != W_NONE) {
		if (!wait_done(s, L)) {
			if (until_deadline(s) <= 0)
				return fail(s, "timed out waiting (%s)", s->lines[s->pc - 1]);
			return SCRIPT_WAIT;
		}
		s->wait = W_NONE;
		s->stop_mark = L->ui->stops;
	}
	while (s->pc < s->n) {
		const char *line = s->lines[s->pc++];
		enum script_status r;
		if (!line || !line[0] || line[0] == '#')
			continue;
		r = line[0] == ':' ? command(s, L, line + 1) : type_keys(s, L, line, false);
		if (r == SCRIPT_WAIT && wait_done(s, L)) {
			s->wait = W_NONE;
			s->stop_mark = L->ui->stops;
			continue;
		}
		if (r != SCRIPT_RUN)
			return r;
		if (L->ui->quit)
			return SCRIPT_DONE;
	}
	return SCRIPT_DONE;
}
