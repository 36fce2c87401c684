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
	size_t nlines;
	bool stale;         /* the model changed since the last build */
};

static int hints_init(struct pane *p, struct ui *ui)
{
	struct hints_state *s = calloc(1, sizeof(*s));
	char path[4096], self[4096];
	const char *exe_dir = NULL;

	(void)ui;
	if (!s)
		return -1;
	/* The rules next to a build tree the binary runs from, as batch
	 * mode finds them (diag/diagrun.c). */
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			exe_dir = self;
		}
	}
	const char *rules = diag_rules_default_path(exe_dir, path, sizeof path);
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
	s->text = NULL;
	s->lines = NULL;
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

static void split_lines(struct hints_state *s)
{
	size_t n = 1;
	for (const char *c = s->text; *c; c++)
		n += *c == '\n';
	s->lines = calloc(n, sizeof *s->lines);
	if (!s->lines)
		return;
	for (char *line = s->text; line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (*line || nl)
			s->lines[s->nlines++] = line;
		line = nl ? nl + 1 : NULL;
	}
}

/* Feeds the model (stop, stacks, locals, lanes, the program's output and
 * its end) to a fresh collector and renders the report with its hints. */
static void hints_build(struct hints_state *s, const struct dbg_model *m)
{
	hints_clear(s);
	s->stale = false;
	if (!m || !s->rules)
		return;
	struct diag *d = diag_new();
	if (!d)
		return;
	diag_feed_model(d, m);
	char buf[65536];
	size_t n = model_ring_copy(&m->output, buf, sizeof buf);
	if (n)
		diag_on_program_output(d, buf, n);
	if (m->state == MODEL_EXITED)
		diag_on_exit(d, m->exit_signal != NULL,
			     m->exit_signal ? 0 : m->exit_code);
	const struct diag_fault *f = diag_analyze(d);
	struct diag_hints h = { 0 };
	diag_hints_match(s->rules, f, &h);
	char why[256];
	struct diag_report_in in = {
		.fault = f, .hints = &h, .mode = m->is_core ? "core" : "live",
		.stop_reason = model_describe_stop(m, why, sizeof why),
		.memcheck_seconds = -1,
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
	if (!m || (m->state != MODEL_STOPPED && m->state != MODEL_EXITED)) {
		canvas_str(c, 1, 0, "The diagnosis comes when the program stops "
			   "or ends.", STYLE(UC_MUTED, 0));
		return;
	}
	if (s->stale)
		hints_build(s, m);
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

static int hints_key(struct pane *p, struct ui *ui, int key)
{
	(void)ui;
	return listview_key(&((struct hints_state *)p->state)->lv, key);
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
