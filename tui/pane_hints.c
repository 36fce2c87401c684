/* The diagnosis and its guided hints, in the screen: the same account the
 * batch report prints (diag/), rebuilt from the model whenever a stop, the
 * program's output or its end changes it.  Building it only reads the
 * model; it never talks to the debugger. */
#include "cudbg/diagrun.h"
#include "cudbg/hints.h"
#include "cudbg/model.h"
#include "cudbg/report.h"
#include "tui/keys.h"
#include "tui/ui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct hints_state {
	struct listview lv;
	struct diag_rules *rules;
	char rules_error[256];
	char *text;         /* the rendered report, lines split in place */
	char **lines;
	int *acts;          /* per line: what Enter does (line_action) */
	size_t nlines;
	bool stale;         /* the model changed since the last build */
	bool account;       /* there is something to diagnose */
};

/* Enter on a line: a hint step's screen action (0..DIAG_ACT_COUNT-1), a
 * sanitizer finding to replay to (ACT_FINDING + its number), or nothing. */
enum { ACT_NONE = -1, ACT_FINDING = 1000 };

/* The keys the screen shows for hint steps; the other actions read as
 * their names, and Enter on the line does them. */
static const char *const action_keys[DIAG_ACT_COUNT] = {
	[DIAG_ACT_MEMCHECK] = "M",
	[DIAG_ACT_REPLAY_TO_FAULT] = "T",
};

static int hints_init(struct pane *p, struct ui *ui)
{
	struct hints_state *s = calloc(1, sizeof(*s));
	char path[4096], self[4096];

	(void)ui;
	if (!s)
		return -1;
	/* The rules next to a build tree the binary runs from, as batch
	 * mode finds them (diag/diagrun.c). */
	const char *rules = diag_rules_default_path(diag_exe_dir(self, sizeof self),
						    path, sizeof path);
	if (diag_rules_load_file(rules, &s->rules, s->rules_error,
				 sizeof s->rules_error) < 0)
		s->rules = NULL;
	s->stale = true;
	p->state = s;
	return 0;
}

static void hints_clear(struct hints_state *s)
{
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
	diag_rules_free(s->rules);
	free(s);
	p->state = NULL;
}

/* What Enter does on a line of the report (diag/report.c's layout: a
 * step is "      - [LABEL] text", a finding "  N. Kind: ..." under
 * "Sanitizer findings"). */
static int line_action(const char *l, bool in_findings)
{
	const char *p = l;

	while (*p == ' ')
		p++;
	if (in_findings && p - l == 2 && *p >= '1' && *p <= '9') {
		long n = strtol(p, NULL, 10);
		return n > 0 && n < 100000 ? ACT_FINDING + (int)n : ACT_NONE;
	}
	if (strncmp(p, "- [", 3) != 0)
		return ACT_NONE;
	p += 3;
	const char *end = strchr(p, ']');
	if (!end)
		return ACT_NONE;
	for (int a = 0; a < DIAG_ACT_COUNT; a++) {
		const char *name = action_keys[a] ? action_keys[a]
						  : diag_action_name((enum diag_action)a);
		if (strlen(name) == (size_t)(end - p) && strncmp(p, name, (size_t)(end - p)) == 0)
			return a;
	}
	return ACT_NONE;
}

static void split_lines(struct hints_state *s)
{
	size_t n = 1;
	bool findings = false;
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
			if (strncmp(line, "Sanitizer findings", 18) == 0)
				findings = true;
			else if (line[0] != ' ')
				findings = false;
			s->acts[s->nlines] = line_action(line, findings);
			s->lines[s->nlines++] = line;
		}
		line = nl ? nl + 1 : NULL;
	}
}

/* Feeds the model (stop, stacks, locals, lanes, the program's output and
 * its end) and what the glue adds to a fresh collector and renders the report with its hints. */
static void hints_build(struct hints_state *s, struct ui *ui,
			const struct dbg_model *m)
{
	hints_clear(s);
	s->stale = false;
	s->account = false;
	if (!m || !s->rules)
		return;
	struct diag *d = diag_new();
	if (!d)
		return;
	diag_feed_model_run(d, m);
	/* Findings and the memcheck pass's output, from the glue. */
	if (ui->actions && ui->actions->diag_feed)
		ui->actions->diag_feed(ui, d);
	const struct diag_fault *f = diag_analyze(d);
	s->account = m->state == MODEL_STOPPED || m->state == MODEL_EXITED ||
		     f->flags[DIAG_F_SANITIZER] || f->flags[DIAG_F_MEMCHECK_RAN] ||
		     f->flags[DIAG_F_SANITIZER_MISSING];
	struct diag_hints h = { 0 };
	diag_hints_match(s->rules, f, &h);
	char why[256];
	struct diag_report_in in = {
		.fault = f, .hints = &h, .mode = m->is_core ? "core" : "live",
		.stop_reason = model_describe_stop(m, why, sizeof why),
		.memcheck_seconds = -1, .action_labels = action_keys,
	};
	s->text = diag_report_text(&in);
	if (s->text)
		split_lines(s);
	diag_hints_clear(&h);
	diag_free(d);
}

static void hints_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct hints_state *s = p->state;
	const struct dbg_model *m = ui->model;

	if (!s->rules) {
		canvas_str(c, 1, 0, "no hints: ", STYLE(UC_ERROR, 0));
		canvas_text(c, 11, 0, s->rules_error, strlen(s->rules_error),
			    STYLE(UC_ERROR, 0));
		return;
	}
	if (s->stale)
		hints_build(s, ui, m);
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
	c = &body;
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

static void focus_pane(struct ui *ui, const char *name, int key)
{
	struct pane *p = ui_pane(ui, name);

	if (!p)
		return;
	ui_focus(ui, p);
	if (key && p->ops->key)
		p->ops->key(p, ui, key);
}

/* Moves the cursor to the findings list. */
static void show_findings(struct hints_state *s, struct ui *ui)
{
	for (size_t i = 0; i < s->nlines; i++)
		if (strncmp(s->lines[i], "Sanitizer findings", 18) == 0) {
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
	case DIAG_ACT_FAULT_THREAD: focus_pane(ui, "threads", 'F'); break;
	case DIAG_ACT_THREADS: focus_pane(ui, "threads", 0); break;
	case DIAG_ACT_LANES: focus_pane(ui, "lanes", 0); break;
	case DIAG_ACT_SOURCE: focus_pane(ui, "source", 0); break;
	case DIAG_ACT_SASS: focus_pane(ui, "sass", 0); break;
	case DIAG_ACT_LOCALS: focus_pane(ui, "locals", 0); break;
	case DIAG_ACT_BACKTRACE: focus_pane(ui, "stack", 0); break;
	case DIAG_ACT_HOST_STACK:
		focus_pane(ui, "stack", 0);
		ui_message(ui, UC_MUTED, "h shows the host stack that launched the kernel");
		break;
	case DIAG_ACT_FINDINGS: show_findings(s, ui); break;
	case DIAG_ACT_MEMORY: focus_pane(ui, "memory", 0); break;
	case DIAG_ACT_CONSOLE: ui_console_enter(ui); break;
	case DIAG_ACT_OUTPUT: focus_pane(ui, "output", 0); break;
	case DIAG_ACT_COUNT: break;
	}
}

static int hints_key(struct pane *p, struct ui *ui, int key)
{
	struct hints_state *s = p->state;

	if (key != TK_ENTER && key != '\n')
		return listview_key(&s->lv, key);
	if (s->lv.cursor < 0 || (size_t)s->lv.cursor >= s->nlines || !s->acts)
		return PR_HANDLED;
	int a = s->acts[s->lv.cursor];
	if (a >= ACT_FINDING) {
		char n[16];
		snprintf(n, sizeof n, "%d", a - ACT_FINDING);
		ui_to_fault(ui, n);
	} else if (a >= 0) {
		do_action(s, ui, a);
	} else {
		ui_message(ui, UC_MUTED, "Enter acts on a finding or a step marked [ ]");
	}
	return PR_REDRAW;
}

static int hints_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	struct hints_state *s = p->state;

	(void)ui;
	if (!(what & (UCH_STATE | UCH_STOP | UCH_FRAME | UCH_GPU | UCH_OUTPUT |
		      UCH_VARS | UCH_DIAG)))
		return PR_HANDLED;
	s->stale = true;
	return PR_REDRAW;
}

static const struct key_help hints_help[] = {
	{ "Up Down PgUp PgDn", "scroll the diagnosis and its hints" },
	{ "Enter", "on a step marked [ ]: do it; on a finding: replay to it" },
	{ NULL, NULL },
};

const struct pane_ops pane_hints_ops = {
	.name = "hints",
	.title = "Hints",
	.home = AREA_SIDE_BOTTOM,
	.init = hints_init,
	.draw = hints_draw,
	.key = hints_key,
	.on_change = hints_on_change,
	.free = hints_free,
	.help = hints_help,
};
