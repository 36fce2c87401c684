/* The diagnosis and its guided hints, in the screen.  Two views of the
 * account the diagnosis pipeline holds (include/cudbg/diagrun.h, the glue's run,
 * through ui->actions->diagnosis), brought up to date whenever a stop,
 * the program's output or its end changes it:
 *
 *  - the diagnosis (default): what happened in one line, where (kernel,
 *    thread, the line, the user's Python line), then each hint's title
 *    and its next steps, wrapped to the pane's width; every step with a
 *    screen action, a debugger command or a place is a selectable row
 *    that Enter does; the hints' explanations and evidence follow;
 *  - the full report (R): the text --batch prints, as it prints it.
 *
 * The pane renders what the pipeline holds: it loads no rules and feeds
 * no collector; it never talks to the debugger.  Which stops bring the
 * pane forward is decided in hints_stop_view(). */
#include "cudbg/assertline.h"
#include "cudbg/diagrun.h"
#include "cudbg/hang.h"
#include "cudbg/hints.h"
#include "cudbg/model.h"
#include "cudbg/report.h"
#include "cudbg/sanitizer.h"
#include "tui/dbgpane.h"
#include "tui/keys.h"
#include "tui/source.h"
#include "tui/ui.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* What Enter does on a row: a hint step's screen action
 * (0..DIAG_ACT_COUNT-1), one of these, or a sanitizer finding to replay
 * to (ACT_FINDING + its number). */
enum {
	ACT_NONE = -1,
	ACT_GDB = 900,  /* the row's text is a debugger command */
	ACT_RUN,        /* a shell command: shown, not run */
	ACT_PLACE,      /* the row names a file:line: open it in Source */
	ACT_REPORT,     /* switch to the full report */
	ACT_TOGGLE,     /* open or close the group of hrow.key */
	ACT_FINDING = 1000,
};

/* One logical row of the diagnosis before wrapping. */
struct hrow {
	char *text;      /* what is drawn (untrusted parts sanitised at draw) */
	char *arg;       /* ACT_GDB: the command; ACT_PLACE: the file */
	int line;        /* ACT_PLACE: the line */
	int act;
	int key;         /* ACT_TOGGLE: group_key() of its group */
	int indent;      /* columns before the text, and its wrapped lines */
	struct style st;
};

/* One screen line of a wrapped row. */
struct dline {
	int row;
	size_t off, len;
};

struct hints_state {
	struct listview lv;
	char rules_error[256]; /* why the pipeline has no hints, or "" */
	bool report;        /* the full report instead of the diagnosis */
	/* the diagnosis */
	struct hrow *rows;
	size_t nrows, caprows;
	struct dline *dl;
	size_t ndl;
	int wrap_w;         /* the width dl was wrapped for; -1: wrap again */
	bool wrap_short;    /* and whether the pane was short */
	/* the full report: rendered text, lines split in place */
	char *text;
	char **lines;
	int *acts;          /* per line: what Enter does */
	size_t nlines;
	bool stale;         /* the model changed since the last build */
	bool rows_stale;    /* a view action (a group opened or closed):
			     * the rows again from the same account, the
			     * analysis not run again (issue 30 item 3) */
	bool account;       /* there is something to diagnose */
	/* the stop view policy: the last stop and state it acted on */
	unsigned long seen_stops;
	int seen_state;
	bool shown_by_stop; /* brought forward by a stop, not by the user */
	/* The groups of findings and assertions the user opened (Enter on
	 * a group row), by group_key(): kept across rebuilds, which come at
	 * every model change.  keep_key: the row the cursor stays on after
	 * a toggle rebuilt the rows. */
	int *open;
	size_t nopen;
	bool keep;
	int keep_key;
	long keep_top;
	struct pane_search search;
};

/* The keys the screen shows for hint steps (ui_diag_action_keys); the
 * other actions read as their names, and Enter on the row does them. */
static const char *action_label(enum diag_action a)
{
	return ui_diag_action_keys[a] ? ui_diag_action_keys[a] : diag_action_name(a);
}

static int hints_init(struct pane *p, struct ui *ui)
{
	struct hints_state *s = calloc(1, sizeof(*s));

	(void)ui;
	if (!s)
		return -1;
	s->stale = true;
	s->wrap_w = -1;
	s->seen_state = -1;
	p->state = s;
	return 0;
}

static void rows_clear(struct hints_state *s)
{
	for (size_t i = 0; i < s->nrows; i++) {
		free(s->rows[i].text);
		free(s->rows[i].arg);
	}
	free(s->rows);
	free(s->dl);
	s->rows = NULL;
	s->dl = NULL;
	s->nrows = s->caprows = s->ndl = 0;
	s->wrap_w = -1;
}

static void hints_clear(struct hints_state *s)
{
	rows_clear(s);
	free(s->text);
	free(s->lines);
	free(s->acts);
	s->text = NULL;
	s->lines = NULL;
	s->acts = NULL;
	s->nlines = 0;
}

static void hints_free(struct pane *p)
{
	struct hints_state *s = p->state;

	hints_clear(s);
	free(s->open);
	free(s);
	p->state = NULL;
}

/* ---- the diagnosis rows ---- */

/* Appends a row; returns it (NULL when out of memory: the row is lost,
 * the rest still shows). */
static struct hrow *row_add(struct hints_state *s, int indent, struct style st,
			    int act, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static struct hrow *row_add(struct hints_state *s, int indent, struct style st,
			    int act, const char *fmt, ...)
{
	if (s->nrows == s->caprows) {
		size_t cap = s->caprows ? s->caprows * 2 : 32;
		struct hrow *v = realloc(s->rows, cap * sizeof *v);
		if (!v)
			return NULL;
		s->rows = v;
		s->caprows = cap;
	}
	va_list ap;
	char buf[4096];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	struct hrow *r = &s->rows[s->nrows];
	*r = (struct hrow){ .text = strdup(buf), .act = act, .indent = indent, .st = st };
	if (!r->text)
		return NULL;
	s->nrows++;
	return r;
}

/* A blank row between parts; left out in a short pane, where every row
 * counts (rewrap). */
static void row_blank(struct hints_state *s)
{
	row_add(s, 0, STYLE(UC_DEFAULT, 0), ACT_NONE, "%s", "");
}

enum { SHORT_PANE = 14 };

/* The first sentence of a longer explanation ("A device assert() failed.
 * cuda-gdb names ..." -> "A device assert() failed"). */
static void first_sentence(const char *s, char *buf, size_t cap)
{
	const char *end = s;

	while (*end && !(*end == '.' && (end[1] == ' ' || end[1] == '\0')))
		end++;
	snprintf(buf, cap, "%.*s", (int)(end - s), s);
}

/* What happened, in one line: the account's headline (diag/report.c,
 * as DAP's stop says it), and for an exception the first sentence of
 * what it means. */
static void add_headline(struct hints_state *s, const struct diag_fault *f,
			 const char *stop_reason)
{
	struct style bad = STYLE(UC_ERROR, CA_BOLD), good = STYLE(UC_GOOD, CA_BOLD);

	if (f->kind == DIAG_FAULT_NONE && !f->exited && !f->hang) {
		row_add(s, 1, good, ACT_NONE, "No fault seen%s%s",
			stop_reason ? ": " : "", stop_reason ? stop_reason : "");
		return;
	}
	char head[512], meaning[512] = "";
	enum diag_headline_kind k;
	diag_fault_headline(f, head, sizeof head, &k);
	bool clean = k == DIAG_HEAD_EXITED && !f->exit_code;
	if (k == DIAG_HEAD_EXCEPTION && f->explanation)
		first_sentence(f->explanation, meaning, sizeof meaning);
	row_add(s, 1, clean ? good : bad, ACT_NONE, "%s%s%s", head,
		meaning[0] ? ": " : "", meaning);
}

/* Where: the kernel, the thread, the line, the user's Python line. */
static void add_where(struct hints_state *s, const struct diag_fault *f)
{
	const struct diag_focus *c = &f->focus;
	struct style label = STYLE(UC_MUTED, 0), st = STYLE(UC_DEFAULT, 0);
	struct hrow *r;

	if (f->kernel_short)
		row_add(s, 1, st, ACT_NONE, "kernel  %s", f->kernel_short);
	/* The PyTorch operator that launched it, as the batch report's
	 * "operator" field gives it; or where the host had gone on to. */
	if (f->op && f->op_outer)
		row_add(s, 1, st, ACT_NONE, "op      %s (in %s)", f->op, f->op_outer);
	else if (f->op)
		row_add(s, 1, st, ACT_NONE, "op      %s", f->op);
	else if (f->host_op_later)
		row_add(s, 1, label, ACT_NONE, "host    already in %s when the GPU stopped",
			f->host_op_later);
	if (c->valid)
		row_add(s, 1, st, DIAG_ACT_FAULT_THREAD,
			"thread  block (%u,%u,%u) thread (%u,%u,%u)",
			c->block.x, c->block.y, c->block.z, c->thread.x, c->thread.y,
			c->thread.z);
	if (f->where.file && f->where.line > 0) {
		static const char *const from[] = {
			[DIAG_LOC_EXCEPTION] = "", [DIAG_LOC_FRAME] = "",
			[DIAG_LOC_SANITIZER] = " (memcheck)",
			[DIAG_LOC_ASSERTION] = " (from the assertion)",
		};
		const char *src = (unsigned)f->where.source <= DIAG_LOC_ASSERTION
					  ? from[f->where.source] : "";
		r = row_add(s, 1, st, ACT_PLACE, "line    %s:%u%s", path_base(f->where.file),
			    f->where.line, src ? src : "");
		if (r) {
			r->arg = strdup(f->where.fullname ? f->where.fullname : f->where.file);
			r->line = (int)f->where.line;
		}
	}
	/* The user's own line, when the kernel came from Python. */
	const struct diag_pyframe *py = f->python.found ? &f->python.call : NULL;
	if (py && py->file) {
		r = row_add(s, 1, STYLE(UC_ACCENT, CA_BOLD), ACT_PLACE, "python  %s:%u%s%s",
			    path_base(py->file), py->line, py->source ? "  " : "",
			    py->source ? py->source : "");
		if (r) {
			r->arg = strdup(py->file);
			r->line = (int)py->line;
		}
	}
	if (f->host_access) {
		char acc[640];
		diag_report_access_text(f->host_access, acc, sizeof acc);
		row_add(s, 1, st, ACT_NONE, "access  %s", acc);
	}
	if (f->error_line)
		row_add(s, 1, label, ACT_NONE, "error   %s", f->error_line);
	if (f->py_exception)
		row_add(s, 1, label, ACT_NONE, "raised  %s", f->py_exception);
}

/* A hang: where every live block of the kernel is, one row per place
 * (Enter opens it), then the blocks that finished or never started; on
 * the host, where its thread was (diag_hang_lines, as --batch prints). */
static void add_hang(struct hints_state *s, const struct diag_fault *f)
{
	const struct diag_hang *h = f->hang;
	const struct diag_pyframe *user = diag_hang_user_line(f);
	char *lines = h ? diag_hang_lines(h, user) : NULL;
	if (!lines)
		return;
	row_blank(s);
	row_add(s, 1, STYLE(UC_TITLE, CA_BOLD), ACT_NONE, "%s",
		h->device ? "Where the blocks are" : "Where the program was");
	size_t i = 0;
	for (char *p = lines, *nl; *p && i < 40; p = nl + 1, i++) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		const struct diag_hang_group *g = i < h->n_groups ? &h->groups[i] : NULL;
		const char *file = g ? g->file : h->device || i ? NULL
				 : user ? user->file : h->host_file;
		unsigned line = g ? g->line : user ? user->line : h->host_line;
		struct hrow *r = row_add(s, 3, STYLE(UC_DEFAULT, 0),
					 file && line ? ACT_PLACE : ACT_NONE, "%s", p);
		if (r && file && line) {
			r->arg = strdup(file);
			r->line = (int)line;
		}
	}
	free(lines);
}

static void add_step(struct hints_state *s, const struct diag_hint_step *st)
{
	struct hrow *r;

	switch (st->kind) {
	case DIAG_STEP_KEY:
		row_add(s, 3, STYLE(UC_ACCENT, 0), (int)st->action, "▸ [%s] %s",
			action_label(st->action), st->text);
		break;
	case DIAG_STEP_GDB:
		r = row_add(s, 3, STYLE(UC_ACCENT, 0), ACT_GDB, "▸ (gdb) %s", st->text);
		if (r)
			r->arg = strdup(st->text);
		break;
	case DIAG_STEP_RUN:
		r = row_add(s, 3, STYLE(UC_DEFAULT, 0), ACT_RUN, "$ %s", st->text);
		if (r)
			r->arg = strdup(st->text);
		break;
	case DIAG_STEP_TEXT:
		row_add(s, 3, STYLE(UC_DEFAULT, 0), ACT_NONE, "• %s", st->text);
		break;
	}
}

static int step_pass(enum diag_step_kind k)
{
	return k == DIAG_STEP_KEY || k == DIAG_STEP_GDB ? 0 : k == DIAG_STEP_RUN ? 1 : 2;
}

/* The hints' titles and next steps first (what to do), their
 * explanations after (why). */
static void add_hints(struct hints_state *s, const struct diag_hints *h)
{
	for (size_t i = 0; i < h->n; i++) {
		const struct diag_hint *hi = &h->v[i];
		row_add(s, 1, STYLE(UC_TITLE, CA_BOLD), ACT_NONE, "%zu. %s", i + 1, hi->title);
		/* What the screen can do first (short, selectable), then
		 * commands and advice, each in the rule's order. */
		for (int pass = 0; pass < 3; pass++)
			for (size_t j = 0; j < hi->n_steps; j++)
				if (step_pass(hi->steps[j].kind) == pass)
					add_step(s, &hi->steps[j]);
	}
	if (h->n == 0)
		row_add(s, 1, STYLE(UC_MUTED, 0), ACT_NONE,
			"No hint matches this stop (M runs the memcheck pass).");
	row_blank(s);
	for (size_t i = 0; i < h->n; i++) {
		const struct diag_hint *hi = &h->v[i];
		row_add(s, 1, STYLE(UC_TITLE, CA_BOLD), ACT_NONE, "Why %zu: %s  (%s)", i + 1,
			hi->title, hi->id);
		if (hi->what)
			row_add(s, 3, STYLE(UC_DEFAULT, 0), ACT_NONE, "%s", hi->what);
		if (hi->why)
			row_add(s, 3, STYLE(UC_MUTED, 0), ACT_NONE, "%s", hi->why);
		for (size_t j = 0; j < hi->n_evidence; j++)
			row_add(s, 5, STYLE(UC_DEFAULT, 0), ACT_NONE, "- %s", hi->evidence[j]);
	}
}

/* ---- findings and assertions, grouped as the report groups them ---- */

/* A finding group by its first record's index; an assertion entry i by
 * -(i + 1). */
static int group_key_finding(const struct diag_finding_group *g)
{
	return (int)g->first;
}

static int group_key_assert(size_t i)
{
	return -(int)i - 1;
}

static bool group_open(const struct hints_state *s, int key)
{
	for (size_t i = 0; i < s->nopen; i++)
		if (s->open[i] == key)
			return true;
	return false;
}

static void group_toggle(struct hints_state *s, int key)
{
	for (size_t i = 0; i < s->nopen; i++)
		if (s->open[i] == key) {
			s->open[i] = s->open[--s->nopen];
			return;
		}
	int *v = realloc(s->open, (s->nopen + 1) * sizeof *v);
	if (!v)
		return;
	s->open = v;
	v[s->nopen++] = key;
}

/* "(0..62,0,0)", as the report writes a range (diag/hints.c). */
static const char *fmt_range(char *buf, size_t cap, struct diag_dim3 lo,
			     struct diag_dim3 hi)
{
	unsigned l[3] = { lo.x, lo.y, lo.z }, h[3] = { hi.x, hi.y, hi.z };
	size_t n = 0;
	buf[0] = '\0';
	for (int a = 0; a < 3 && n < cap; a++) {
		int k = l[a] == h[a]
			? snprintf(buf + n, cap - n, "%s%u", a ? "," : "(", l[a])
			: snprintf(buf + n, cap - n, "%s%u..%u", a ? "," : "(",
				   l[a], h[a]);
		n += k > 0 ? (size_t)k : 0;
	}
	if (n + 1 < cap)
		snprintf(buf + n, cap - n, ")");
	return buf;
}

static const char *fmt_dim(char *buf, size_t cap, struct diag_dim3 d)
{
	return fmt_range(buf, cap, d, d);
}

static void finding_at(char *at, size_t cap, const struct diag_san_record *r)
{
	at[0] = '\0';
	if (r->path && r->line)
		snprintf(at, cap, " at %s:%u", path_base(r->path), r->line);
}

/* One finding: Enter replays to it. */
static void add_finding(struct hints_state *s, const struct diag_fault *f, size_t i)
{
	const struct diag_san_record *r = f->findings[i];
	char at[600];
	finding_at(at, sizeof at, r);
	row_add(s, 3, STYLE(UC_DEFAULT, 0), ACT_FINDING + (int)i + 1, "%zu. %s%s%s%s",
		i + 1, r->kind_text ? r->kind_text : "", r->kind_text ? ": " : "",
		r->text ? r->text : "?", at);
}

/* A finding inside an opened group: only what tells it from the others. */
static void add_member(struct hints_state *s, const struct diag_fault *f, size_t i)
{
	const struct diag_san_record *r = f->findings[i];
	char th[48], bl[48], addr[40] = "";
	if (r->has_address)
		snprintf(addr, sizeof addr, "%saddress 0x%llx", r->has_who ? ", " : "",
			 (unsigned long long)r->address);
	if (r->has_who)
		row_add(s, 7, STYLE(UC_DEFAULT, 0), ACT_FINDING + (int)i + 1,
			"%zu. thread %s block %s%s", i + 1, fmt_dim(th, sizeof th, r->thread),
			fmt_dim(bl, sizeof bl, r->block), addr);
	else
		row_add(s, 7, STYLE(UC_DEFAULT, 0), ACT_FINDING + (int)i + 1,
			"%zu. %s", i + 1, r->has_address ? addr : "(no thread named)");
}

enum { MAX_GROUP_ROWS = 50, MAX_MEMBER_ROWS = 256 };

/* A group of findings: one row with its count and ranges (Enter opens
 * it: one row per finding, each replayable), as --batch reports it. */
static void add_group(struct hints_state *s, const struct diag_fault *f,
		      const struct diag_finding_group *g)
{
	const struct diag_san_record *r = f->findings[g->first];
	bool open = group_open(s, group_key_finding(g));
	char at[600], who[200] = "", a[48], b[48];
	finding_at(at, sizeof at, r);
	if (g->has_who)
		snprintf(who, sizeof who, ": threads %s, blocks %s",
			 fmt_range(a, sizeof a, g->thread_min, g->thread_max),
			 fmt_range(b, sizeof b, g->block_min, g->block_max));
	struct hrow *row = row_add(s, 3, STYLE(UC_DEFAULT, 0), ACT_TOGGLE,
				   "%s %zu. %s%s%s%s; %zu findings%s", open ? "[-]" : "[+]",
				   g->first + 1, r->kind_text ? r->kind_text : "",
				   r->kind_text ? ": " : "", r->text ? r->text : "?", at,
				   g->count, who);
	if (row)
		row->key = group_key_finding(g);
	if (g->has_address && g->has_alloc) {
		long long lo = g->distance_min, hi = g->distance_max;
		bool after = lo > 0, before = hi < 0;
		row_add(s, 7, STYLE(UC_MUTED, 0), ACT_NONE,
			"addresses 0x%llx..0x%llx, %lld..%lld bytes %s an allocation of "
			"%llu bytes at 0x%llx", (unsigned long long)g->address_min,
			(unsigned long long)g->address_max,
			after ? lo : before ? -hi : lo, after ? hi : before ? -lo : hi,
			after ? "after" : before ? "before" : "around",
			(unsigned long long)g->alloc_size,
			(unsigned long long)g->alloc_address);
	} else if (g->has_address) {
		row_add(s, 7, STYLE(UC_MUTED, 0), ACT_NONE, "addresses 0x%llx..0x%llx",
			(unsigned long long)g->address_min,
			(unsigned long long)g->address_max);
	}
	if (!open)
		return;
	size_t shown = 0;
	for (size_t i = g->first; i < f->n_findings; i++) {
		if (!diag_finding_in_group(f, g, i))
			continue;
		if (shown++ == MAX_MEMBER_ROWS) {
			row_add(s, 7, STYLE(UC_MUTED, 0), ACT_NONE,
				"(the first %d of %zu shown; R: the full report)",
				MAX_MEMBER_ROWS, g->count);
			break;
		}
		add_member(s, f, i);
	}
}

static void add_findings(struct hints_state *s, const struct diag_fault *f)
{
	if (!f->n_findings)
		return;
	bool grouped = f->n_groups && f->n_groups < f->n_findings;
	if (!grouped) {
		row_add(s, 1, STYLE(UC_TITLE, CA_BOLD), ACT_NONE,
			"Sanitizer findings (Enter: replay to one)");
		for (size_t i = 0; i < f->n_findings && i < MAX_GROUP_ROWS; i++)
			add_finding(s, f, i);
		row_blank(s);
		return;
	}
	row_add(s, 1, STYLE(UC_TITLE, CA_BOLD), ACT_NONE,
		"Sanitizer findings (%zu, in %zu groups; Enter: open a group, "
		"replay to a finding)", f->n_findings, f->n_groups);
	for (size_t i = 0; i < f->n_groups && i < MAX_GROUP_ROWS; i++) {
		const struct diag_finding_group *g = &f->groups[i];
		if (g->count == 1)
			add_finding(s, f, g->first);
		else
			add_group(s, f, g);
	}
	row_blank(s);
}

/* The device assertions the program printed, one row per place with its
 * count and ranges (Enter opens it: the threads whose lines were kept,
 * each a focus switch in the debugger). */
static void add_assert(struct hints_state *s, const struct diag_assert_entry *e,
		       size_t i)
{
	bool open = group_open(s, group_key_assert(i));
	char b[48], t[48];
	struct hrow *row = row_add(s, 3, STYLE(UC_DEFAULT, 0), ACT_TOGGLE,
				   "%s %s:%u %s: `%s` x%llu; blocks %s, threads %s",
				   open ? "[-]" : "[+]", path_base(e->file), e->line,
				   e->kernel_short ? e->kernel_short : "?", e->expr,
				   (unsigned long long)e->count,
				   fmt_range(b, sizeof b, e->block_min, e->block_max),
				   fmt_range(t, sizeof t, e->thread_min, e->thread_max));
	if (row)
		row->key = group_key_assert(i);
	if (!open)
		return;
	for (unsigned k = 0; k < e->n_examples && k < DIAG_ASSERT_EXAMPLES; k++) {
		char cmd[160];
		snprintf(cmd, sizeof cmd, "cuda block %s thread %s",
			 fmt_dim(b, sizeof b, e->first_block[k]),
			 fmt_dim(t, sizeof t, e->first_thread[k]));
		row = row_add(s, 7, STYLE(UC_ACCENT, 0), ACT_GDB, "▸ (gdb) %s", cmd);
		if (row)
			row->arg = strdup(cmd);
	}
	if (e->count > e->n_examples)
		row_add(s, 7, STYLE(UC_MUTED, 0), ACT_NONE,
			"(the first %u of %llu lines kept)", e->n_examples,
			(unsigned long long)e->count);
}

static void add_asserts(struct hints_state *s, const struct diag_fault *f)
{
	if (!f->n_asserts)
		return;
	row_add(s, 1, STYLE(UC_TITLE, CA_BOLD), ACT_NONE,
		"Assertions (%llu lines at %zu place%s; Enter: open one)",
		(unsigned long long)f->assert_total, f->n_asserts,
		f->n_asserts == 1 ? "" : "s");
	for (size_t i = 0; i < f->n_asserts && i < MAX_GROUP_ROWS; i++)
		add_assert(s, f->asserts[i], i);
	row_blank(s);
}

static void build_rows(struct hints_state *s, const struct diag_fault *f,
		       const struct diag_hints *h, const char *stop_reason)
{
	add_headline(s, f, stop_reason);
	add_where(s, f);
	add_hang(s, f);
	row_blank(s);
	add_hints(s, h);
	row_blank(s);
	add_findings(s, f);
	add_asserts(s, f);
	row_add(s, 1, STYLE(UC_MUTED, 0), ACT_REPORT,
		"▸ [R] the full report, as --batch prints it");
}

/* ---- the full report ---- */

/* What Enter does on a line of the report (diag/report.c's layout: a
 * step is "      - [LABEL] text", a finding "  N. Kind: ..." under
 * "Sanitizer findings"). */
/* The text's lines, each with what it leads to: the report's own line
 * tags (diag_report_text), never a reading of the text. */
static void split_lines(struct hints_state *s, const struct diag_run_view *v)
{
	size_t n = 1;
	for (const char *c = s->text; *c; c++)
		n += *c == '\n';
	s->lines = calloc(n, sizeof *s->lines);
	s->acts = calloc(n, sizeof *s->acts);
	if (!s->lines || !s->acts) {
		free(s->lines);
		free(s->acts);
		s->lines = NULL;
		s->acts = NULL;
		return;
	}
	for (char *line = s->text; line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (*line || nl) {
			s->acts[s->nlines] = ACT_NONE;
			s->lines[s->nlines++] = line;
		}
		line = nl ? nl + 1 : NULL;
	}
	for (size_t i = 0; i < v->n_report_tags; i++) {
		const struct diag_line_tag *t = &v->report_tags[i];
		if (t->line >= s->nlines)
			continue;
		s->acts[t->line] = t->kind == DIAG_LINE_FINDING
					   ? ACT_FINDING + t->value : t->value;
	}
}

/* The pipeline's account, brought up to date (update) or as it stands; NULL
 * without a glue (framework tests). */
static const struct diag_run_view *pipeline(struct ui *ui, bool update)
{
	if (!ui->actions || !ui->actions->diagnosis)
		return NULL;
	return ui->actions->diagnosis(ui, update);
}

/* Renders both views of the pipeline's account, updated first when the
 * model changed (update), else as it stands. */
static void hints_build(struct hints_state *s, struct ui *ui, bool update)
{
	const struct diag_run_view *v = pipeline(ui, update);

	hints_clear(s);
	s->stale = false;
	s->rows_stale = false;
	s->account = false;
	snprintf(s->rules_error, sizeof s->rules_error, "%s",
		 v && v->no_rules ? v->no_rules : "");
	if (!v || !v->fault || !ui->model)
		return;
	s->account = v->account;
	build_rows(s, v->fault, v->hints, v->stop_reason);
	s->text = v->report ? strdup(v->report) : NULL;
	if (s->text)
		split_lines(s, v);
}

/* ---- wrapping and drawing ---- */

/* Bytes of s that fit in w columns, broken at a space when one is in
 * the line (columns counted per UTF-8 character). */
static size_t wrap_len(const char *s, size_t len, int w, size_t *skip)
{
	size_t i = 0, brk = 0;
	int col = 0;

	*skip = 0;
	while (i < len) {
		if (col == w)
			break;
		if (s[i] == ' ')
			brk = i;
		i++;
		while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
			i++;
		col++;
	}
	if (i >= len)
		return len;
	if (s[i] == ' ') {
		*skip = 1;
		return i;
	}
	if (brk > 0) {
		*skip = 1;
		return brk;
	}
	return i;
}

/* Columns of a row's leading mark ("▸ ", "• ", "- ", "$ "), where its
 * wrapped lines start. */
static int mark_width(const char *t)
{
	if (strncmp(t, "▸ ", strlen("▸ ")) == 0 || strncmp(t, "• ", strlen("• ")) == 0 ||
	    strncmp(t, "- ", 2) == 0 || strncmp(t, "$ ", 2) == 0)
		return 2;
	if (strncmp(t, "[+] ", 4) == 0 || strncmp(t, "[-] ", 4) == 0)
		return 4; /* a group's row */
	size_t n = strspn(t, "0123456789");
	if (n > 0 && n < 4 && t[n] == '.' && t[n + 1] == ' ')
		return (int)n + 2; /* "12. " */
	return 0;
}

static void rewrap(struct hints_state *s, int width, int height)
{
	size_t cap = s->nrows * 2 + 8, n = 0;
	struct dline *dl = malloc(cap * sizeof *dl);

	free(s->dl);
	s->dl = dl;
	s->ndl = 0;
	s->wrap_w = width;
	if (!dl)
		return;
	for (size_t i = 0; i < s->nrows; i++) {
		const char *t = s->rows[i].text;
		size_t len = strlen(t), off = 0;
		if (!t[0] && height < SHORT_PANE)
			continue;
		int w = width - s->rows[i].indent - 1;
		if (w < 8)
			w = 8;
		int mark = mark_width(t);
		do {
			/* wrapped lines start after the row's mark */
			int lw = off > 0 && w - mark >= 8 ? w - mark : w;
			size_t skip, l = wrap_len(t + off, len - off, lw, &skip);
			if (n == cap) {
				struct dline *v = realloc(dl, cap * 2 * sizeof *v);
				if (!v)
					break;
				s->dl = dl = v;
				cap *= 2;
			}
			dl[n++] = (struct dline){ (int)i, off, l };
			off += l + skip;
		} while (off < len);
	}
	s->ndl = n;
}

static long row_count(const struct hints_state *s)
{
	return s->report ? (long)s->nlines : (long)s->ndl;
}

static int act_at(const struct hints_state *s, long i)
{
	if (i < 0 || i >= row_count(s))
		return ACT_NONE;
	if (s->report)
		return s->acts ? s->acts[i] : ACT_NONE;
	return s->rows[s->dl[i].row].act;
}

/* The cursor starts on the first thing to do when it is on the first
 * page (the headline stays in view). */
static void cursor_to_first_action(struct hints_state *s)
{
	long page = s->lv.height > 0 ? s->lv.height : 1;

	for (long i = 0; i < row_count(s) && i < page; i++)
		if (act_at(s, i) != ACT_NONE && act_at(s, i) != DIAG_ACT_FAULT_THREAD &&
		    act_at(s, i) != ACT_PLACE) {
			s->lv.cursor = i;
			return;
		}
	s->lv.cursor = 0;
}

static void draw_diagnosis(struct hints_state *s, struct pane *p, struct ui *ui,
			   const struct canvas *c)
{
	bool focused = ui_focus_pane(ui) == p;

	if (s->wrap_w != c->r.w || s->wrap_short != (c->r.h < SHORT_PANE)) {
		long row = s->ndl && s->lv.cursor >= 0 && (size_t)s->lv.cursor < s->ndl
				   ? s->dl[s->lv.cursor].row : -1;
		bool fresh = s->wrap_w < 0;
		rewrap(s, c->r.w, c->r.h);
		s->wrap_short = c->r.h < SHORT_PANE;
		if (fresh && s->keep) {
			/* a group opened or closed: the cursor stays on it */
			s->keep = false;
			s->lv.height = c->r.h;
			s->lv.count = (long)s->ndl;
			s->lv.top = s->keep_top;
			for (size_t i = 0; i < s->ndl; i++)
				if (s->rows[s->dl[i].row].act == ACT_TOGGLE &&
				    s->rows[s->dl[i].row].key == s->keep_key) {
					s->lv.cursor = (long)i;
					break;
				}
		} else if (fresh) {
			s->lv.top = 0;
			s->lv.height = c->r.h;
			s->lv.count = (long)s->ndl;
			cursor_to_first_action(s);
		} else {
			for (size_t i = 0; row >= 0 && i < s->ndl; i++)
				if (s->dl[i].row == row) {
					s->lv.cursor = (long)i;
					break;
				}
		}
	}
	s->lv.count = (long)s->ndl;
	listview_fit(&s->lv, c->r.h);
	/* A selected row is highlighted on all its wrapped lines. */
	int cur_row = focused && s->lv.cursor >= 0 && (size_t)s->lv.cursor < s->ndl
			      ? s->dl[s->lv.cursor].row : -1;
	for (int y = 0; y < c->r.h && s->lv.top + y < (long)s->ndl; y++) {
		const struct dline *d = &s->dl[s->lv.top + y];
		const struct hrow *r = &s->rows[d->row];
		int x = r->indent;
		if (d->off > 0) /* a wrapped line lines up after the mark */
			x += mark_width(r->text);
		canvas_text(c, x, y, r->text + d->off, d->len, r->st);
		if (d->row == cur_row && r->act != ACT_NONE)
			canvas_set_style(c, 0, y, c->r.w, STYLE(UC_CURSOR, 0));
	}
}

static void draw_report(struct hints_state *s, struct pane *p, struct ui *ui,
			const struct canvas *c)
{
	s->lv.count = (long)s->nlines;
	listview_fit(&s->lv, c->r.h);
	for (int y = 0; y < c->r.h && s->lv.top + y < s->lv.count; y++) {
		const char *l = s->lines[s->lv.top + y];
		struct style style = l[0] == '[' ? STYLE(UC_TITLE, 0) : STYLE(UC_DEFAULT, 0);
		canvas_text(c, 0, y, l, strlen(l), style);
		if (s->lv.top + y == s->lv.cursor && ui_focus_pane(ui) == p)
			canvas_set_style(c, 0, y, c->r.w, STYLE(UC_CURSOR, 0));
	}
}

/* The account again when the model changed, the rows again after a view
 * action (from the account as it stands): before the draw, never in it. */
static void hints_prepare(struct pane *p, struct ui *ui)
{
	struct hints_state *s = p->state;

	if (s->stale || s->rows_stale)
		hints_build(s, ui, s->stale);
}

static void hints_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct hints_state *s = p->state;
	const struct dbg_model *m = ui->model;

	if (s->rules_error[0]) {
		canvas_str(c, 1, 0, "no hints: ", STYLE(UC_ERROR, 0));
		canvas_text(c, 11, 0, s->rules_error, strlen(s->rules_error),
			    STYLE(UC_ERROR, 0));
		return;
	}
	int y0 = 0;
	if (ui->pass[0]) {
		canvas_str(c, 0, 0, ui->pass, STYLE(UC_ACCENT, CA_BOLD));
		y0 = 1;
	}
	if (!m || !s->account) {
		canvas_str(c, 1, y0, "The diagnosis comes when the program stops "
			   "or ends (M runs the memcheck pass).", STYLE(UC_MUTED, 0));
		return;
	}
	struct canvas body = canvas_sub(c, 0, y0, c->r.w, c->r.h - y0);
	if (s->report)
		draw_report(s, p, ui, &body);
	else
		draw_diagnosis(s, p, ui, &body);
}

/* ---- keys ---- */

static void focus_pane(struct ui *ui, const char *name)
{
	struct pane *p = ui_pane(ui, name);

	if (p)
		ui_focus(ui, p);
}

/* Switches to the full report, at the findings list. */
static void show_findings(struct hints_state *s, struct ui *ui)
{
	for (size_t i = 0; i < s->nlines; i++)
		if (strncmp(s->lines[i], "Sanitizer findings", 18) == 0) {
			s->report = true;
			s->lv.cursor = (long)i;
			s->lv.top = (long)i;
			return;
		}
	ui_message(ui, UC_WARN, "no sanitizer findings: M runs the memcheck pass");
}

/* Enter on a hint step does what it names. */
static void do_action(struct hints_state *s, struct ui *ui, int a)
{
	switch ((enum diag_action)a) {
	case DIAG_ACT_MEMCHECK: ui_memcheck(ui); break;
	case DIAG_ACT_REPLAY_TO_FAULT: ui_to_fault(ui, NULL); break;
	case DIAG_ACT_FAULT_THREAD: ui_act(ui, UA_FAULT_THREAD, NULL); break;
	case DIAG_ACT_THREADS: focus_pane(ui, "threads"); break;
	case DIAG_ACT_LANES: focus_pane(ui, "lanes"); break;
	case DIAG_ACT_SOURCE: focus_pane(ui, "source"); break;
	case DIAG_ACT_SASS: focus_pane(ui, "sass"); break;
	case DIAG_ACT_LOCALS: focus_pane(ui, "locals"); break;
	case DIAG_ACT_BACKTRACE: focus_pane(ui, "stack"); break;
	case DIAG_ACT_HOST_STACK:
		focus_pane(ui, "stack");
		ui_message(ui, UC_MUTED, "h shows the host stack that launched the kernel");
		break;
	case DIAG_ACT_FINDINGS: show_findings(s, ui); break;
	case DIAG_ACT_MEMORY: focus_pane(ui, "memory"); break;
	case DIAG_ACT_CONSOLE: ui_console_enter(ui); break;
	case DIAG_ACT_OUTPUT: focus_pane(ui, "output"); break;
	case DIAG_ACT_COUNT: break;
	}
}

/* A debugger command from a hint goes to the console as if typed, when
 * it is one plain line (its placeholders came from the session). */
static void run_gdb(struct ui *ui, const char *cmd)
{
	for (const char *c = cmd; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			ui_message(ui, UC_WARN, "not sent: the command has control characters");
			return;
		}
	if (dpane_console(ui, cmd) == 1) {
		ui_message(ui, UC_WARN, "no debugger is connected");
		return;
	}
	focus_pane(ui, "console");
}

static void do_row(struct hints_state *s, struct ui *ui, long i)
{
	int a = act_at(s, i);
	const struct hrow *r = s->report || i < 0 ? NULL : &s->rows[s->dl[i].row];

	if (a >= ACT_FINDING) {
		char n[16];
		snprintf(n, sizeof n, "%d", a - ACT_FINDING);
		ui_to_fault(ui, n);
	} else if (a == ACT_GDB && r && r->arg) {
		run_gdb(ui, r->arg);
	} else if (a == ACT_RUN && r) {
		ui_message(ui, UC_MUTED, "run it in a shell: %s", r->arg ? r->arg : "");
	} else if (a == ACT_PLACE && r && r->arg) {
		pane_source_open(ui, r->arg, r->line);
	} else if (a == ACT_TOGGLE && r) {
		/* the rows again, from the account as it stands */
		group_toggle(s, r->key);
		s->keep = true;
		s->keep_key = r->key;
		s->keep_top = s->lv.top;
		s->rows_stale = true;
	} else if (a == ACT_REPORT) {
		s->report = true;
		s->lv.cursor = s->lv.top = 0;
	} else if (a >= 0 && a < DIAG_ACT_COUNT) {
		do_action(s, ui, a);
	} else {
		ui_message(ui, UC_MUTED, "Enter acts on a row marked ▸ or [ ]");
	}
}

/* Up and Down go from one thing to do to the next when it is near; else
 * they scroll a line, so that the explanations can be read too. */
static int move_cursor(struct hints_state *s, int dir)
{
	long n = row_count(s), i = s->lv.cursor, near = s->lv.height > 2 ? s->lv.height / 2 : 1;
	const struct dline *dl = s->report ? NULL : s->dl;

	if (i < 0 || i >= n)
		return listview_key(&s->lv, dir > 0 ? TK_DOWN : TK_UP);
	for (long j = i + dir; j >= 0 && j < n && labs(j - i) <= near; j += dir) {
		int a = act_at(s, j);
		bool same = dl && dl[j].row == dl[i].row;
		if (a != ACT_NONE && !same) {
			/* On a wrapped row, land on its first line. */
			while (dl && j > 0 && dl[j - 1].row == dl[j].row)
				j--;
			listview_select(&s->lv, j);
			return PR_REDRAW;
		}
	}
	return listview_key(&s->lv, dir > 0 ? TK_DOWN : TK_UP);
}

/* The text of screen line i (either view) and its length. */
static const char *line_text(const struct hints_state *s, long i, size_t *len)
{
	if (s->report) {
		*len = strlen(s->lines[i]);
		return s->lines[i];
	}
	*len = s->dl[i].len;
	return s->rows[s->dl[i].row].text + s->dl[i].off;
}

static struct pane_search *hints_search(struct pane *p)
{
	return &((struct hints_state *)p->state)->search;
}

static long hints_rows(struct pane *p, struct ui *ui)
{
	(void)ui;
	return row_count(p->state);
}

static long hints_cursor(struct pane *p, struct ui *ui)
{
	(void)ui;
	return ((struct hints_state *)p->state)->lv.cursor;
}

static const char *hints_text(struct pane *p, struct ui *ui, long row, size_t *len,
			      struct textlog_line *tmp)
{
	(void)ui;
	(void)tmp;
	return line_text(p->state, row, len);
}

static void hints_select(struct pane *p, struct ui *ui, long row)
{
	(void)ui;
	listview_select(&((struct hints_state *)p->state)->lv, row);
}

static const struct pane_search_ops hints_search_ops = {
	hints_search, hints_rows, hints_cursor, hints_text, hints_select,
};

static int hints_enter(struct pane *p, struct ui *ui, int key)
{
	struct hints_state *s = p->state;

	(void)key;
	if (s->lv.cursor >= 0 && s->lv.cursor < row_count(s))
		do_row(s, ui, s->lv.cursor);
	return PR_REDRAW;
}

static int hints_report(struct pane *p, struct ui *ui, int key)
{
	struct hints_state *s = p->state;

	(void)ui;
	(void)key;
	s->report = !s->report;
	s->lv.cursor = s->lv.top = 0;
	if (!s->report)
		cursor_to_first_action(s);
	return PR_REDRAW;
}

static int hints_move(struct pane *p, struct ui *ui, int key)
{
	(void)ui;
	return move_cursor(p->state, key == TK_UP || key == 'k' ? -1 : 1);
}

/* PgUp PgDn Home End: the list's own. */
static int hints_key(struct pane *p, struct ui *ui, int key)
{
	struct hints_state *s = p->state;

	(void)ui;
	return listview_key(&s->lv, key);
}

static int hints_click(struct pane *p, struct ui *ui, int x, int y)
{
	struct hints_state *s = p->state;

	(void)x;
	(void)ui;
	return listview_click(&s->lv, y - (ui->pass[0] ? 1 : 0));
}

/* ---- which stops bring the diagnosis forward ---- */

enum stop_view { VIEW_KEEP, VIEW_DIAGNOSIS, VIEW_CODE };

/* What a user needs first at each kind of stop (docs/architecture-tui.md,
 * "What each stop shows first"): after a fault, a coredump or the
 * program's end, the account of what went wrong; at a breakpoint, a step
 * or an interrupt, the code. */
static enum stop_view hints_stop_view(const struct ui *ui)
{
	const struct dbg_model *m = ui->model;

	if (ui->status.state == UST_EXITED)
		return VIEW_DIAGNOSIS;
	if (ui->status.state != UST_STOPPED)
		return VIEW_KEEP;
	if (ui->status.core || ui->status.fault)
		return VIEW_DIAGNOSIS;
	/* an interrupt of a running kernel (--timeout, C-c): where every
	 * block is, the hang's account (it is no exception: going on loses
	 * nothing) */
	if (m && m->has_stop && dec_stop_is_device(&m->stop) &&
	    m->stop.signal_name && strcmp(m->stop.signal_name, "SIGINT") == 0)
		return VIEW_DIAGNOSIS;
	if (m && m->has_stop && m->stop.reason == DEC_REASON_SIGNAL_RECEIVED &&
	    m->stop.signal_name && strcmp(m->stop.signal_name, "SIGINT") != 0 &&
	    strcmp(m->stop.signal_name, "SIGTRAP") != 0 &&
	    strcmp(m->stop.signal_name, "0") != 0)
		return VIEW_DIAGNOSIS; /* a host fault (SIGSEGV, SIGABRT...) */
	return VIEW_CODE;
}

static void apply_stop_view(struct pane *p, struct ui *ui)
{
	struct hints_state *s = p->state;
	int state = (int)ui->status.state;

	if (ui->stops == s->seen_stops && state == s->seen_state)
		return;
	bool new_stop = ui->stops != s->seen_stops;
	s->seen_stops = ui->stops;
	s->seen_state = state;
	/* A coredump sends no *stopped (the stop count stays): its
	 * opening, the change to stopped, is its stop. */
	bool core_opened = state == UST_STOPPED && ui->status.core;
	if (!new_stop && state != UST_EXITED && !core_opened)
		return;
	enum area a = p->ops->home;
	bool shown = ui->area_pane[a] == (int)(p - ui->panes);
	enum stop_view view = hints_stop_view(ui);
	const struct diag_run_view *v = pipeline(ui, false);
	if (view == VIEW_DIAGNOSIS && v && v->no_rules)
		view = VIEW_KEEP; /* it would show only why the rules failed */
	switch (view) {
	case VIEW_DIAGNOSIS:
		s->report = false;
		s->wrap_w = -1; /* the cursor goes to the first thing to do */
		if (!shown || ui->lreq.focus != a)
			s->shown_by_stop = true;
		ui->lreq.diag_first = true;
		ui_focus(ui, p);
		break;
	case VIEW_CODE:
		/* Only a view the stops chose is put back; a pane the user
		 * picked stays. */
		if (shown && s->shown_by_stop) {
			struct pane *sass = ui_pane(ui, "sass");
			if (sass)
				ui->area_pane[a] = (int)(sass - ui->panes);
			if (ui->lreq.focus == a)
				ui->lreq.focus = AREA_SOURCE;
			s->shown_by_stop = false;
		}
		ui->lreq.diag_first = false;
		ui_resize(ui, ui->lreq.cols, ui->lreq.rows);
		break;
	case VIEW_KEEP:
		break;
	}
}

static int hints_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	struct hints_state *s = p->state;

	if (what & (UCH_STATE | UCH_STOP))
		apply_stop_view(p, ui);
	if (!(what & (UCH_STATE | UCH_STOP | UCH_FRAME | UCH_GPU | UCH_OUTPUT |
		      UCH_VARS | UCH_DIAG)))
		return PR_HANDLED;
	s->stale = true;
	return PR_REDRAW;
}

static int hints_request(struct pane *p, struct ui *ui, enum pane_request r)
{
	if (r != PANE_REQ_DIAGNOSIS)
		return PR_IGNORED;
	ui_focus(ui, p);
	return PR_REDRAW;
}

static void hints_title(struct pane *p, struct ui *ui, char *buf, size_t cap)
{
	struct hints_state *s = p->state;

	(void)ui;
	snprintf(buf, cap, "%s%s%s", s->report ? "full report (R: diagnosis)"
					       : "Enter does ▸  R full report",
		 s->search.on ? "  /" : "", s->search.on ? s->search.pat : "");
}

static const struct pane_key hints_keys[] = {
	{ TK_UP, TK_DOWN, hints_move, NULL,
	  "the next / previous thing to do (scrolls between them)" },
	{ 'k', 'j', hints_move, NULL, NULL },
	{ TK_NONE, TK_NONE, NULL, "PgUp PgDn",
	  "scroll the diagnosis and its hints" },
	{ TK_ENTER, TK_NONE, hints_enter, NULL,
	  "do the selected step ([T] replay to fault, [M] memcheck, "
	  "lanes, a debugger command, a file:line), replay to a finding, "
	  "or open and close a group of findings or assertions ([+] [-])" },
	{ 'R', TK_NONE, hints_report, NULL,
	  "the full report as --batch prints it, and back" },
	PANE_KEYS_END,
};

const struct pane_ops pane_hints_ops = {
	.name = "hints",
	.title = "Hints",
	.home = AREA_SASS,
	.init = hints_init,
	.prepare = hints_prepare,
	.draw = hints_draw,
	.key = hints_key,
	.click = hints_click,
	.on_change = hints_on_change,
	.title_info = hints_title,
	.request = hints_request,
	.free = hints_free,
	.keys = hints_keys,
	.search = &hints_search_ops,
};
