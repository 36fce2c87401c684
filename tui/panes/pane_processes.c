/* The Processes pane (--job, --core-dir): every process of the job with
 * its pid, parent, rank, state and coredump; '!' marks the process that
 * faulted first, '▶' the one the session shows; the last row gives the
 * selected process's own Python line when it printed its stack.  Enter opens the selected
 * process's coredump: the session switches and every other pane follows
 * it.  Hidden when the session is not part of a job.  See
 * docs/multiprocess.md. */
#include "cudbg/job.h"
#include "tui/dbgpane.h"
#include "tui/keys.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct processes_state {
	struct listview lv;
	size_t hscroll;
	bool placed;  /* the cursor was put on the session's process */
};
_Static_assert(offsetof(struct processes_state, lv) == 0,
	       "dpane_state_new: lv first");

static int processes_init(struct pane *p, struct ui *ui)
{
	p->hidden = ui->job == NULL;
	return dpane_state_new(p, sizeof(struct processes_state));
}

static void header(const struct canvas *c, size_t hscroll)
{
	static const char head[] = "   PID     RANK  STATE           CORE "
		"COMMAND (PARENT)";
	canvas_text_skip(c, 0, 0, head, sizeof head - 1, hscroll,
			 STYLE(UC_MUTED, CA_BOLD));
}

/* "4 processes, 1 faulted" after the tabs. */
static void processes_title(struct pane *p, struct ui *ui, char *buf, size_t cap)
{
	(void)p;
	const struct job *j = ui->job;
	size_t faulted = 0;
	if (!j) {
		buf[0] = '\0';
		return;
	}
	for (size_t i = 0; i < j->nprocs; i++)
		faulted += j->procs[i].faulted;
	snprintf(buf, cap, "%zu process%s, %zu faulted", j->nprocs,
		 j->nprocs == 1 ? "" : "es", faulted);
}

/* The state in at most 15 columns (the report has the long form). */
static const char *short_state(const struct job_proc *p, char *buf, size_t cap)
{
	const char *abbrev;
	switch (p->state) {
	case JOB_RUNNING:
		return "running";
	case JOB_EXITED:
		snprintf(buf, cap, "exited %d", p->status);
		return buf;
	case JOB_SIGNALLED:
		abbrev = sigabbrev_np(p->status);
		snprintf(buf, cap, "%sSIG%s", p->killed_by_us ? "stopped " : "",
			 abbrev ? abbrev : "?");
		return buf;
	case JOB_ENDED:
		return "ended";
	case JOB_UNKNOWN:
		break;
	}
	return "?";
}

static void row(const struct ui *ui, struct processes_state *s,
		const struct canvas *c, int y, size_t i)
{
	const struct job *j = ui->job;
	const struct job_proc *p = &j->procs[i];
	bool cur = (long)i == ui->job_current, bad = (int)i == j->faulting;
	struct style st = STYLE(bad ? UC_FAULT : cur ? UC_CURRENT : UC_DEFAULT,
				cur ? CA_BOLD : 0);
	char sb[64], line[256], parent[32] = "";
	if (p->ppid)
		snprintf(parent, sizeof parent, " (%ld)", p->ppid);
	snprintf(line, sizeof line, "%s%s %-7ld %-5s %-15s %s ",
		 cur ? "▶" : " ", bad ? "!" : " ", p->pid,
		 p->rank ? p->rank : "-", short_state(p, sb, sizeof sb),
		 p->core ? "core" : "    ");
	int x = canvas_text_skip(c, 0, y, line, strlen(line), s->hscroll, st);
	/* the command line is the program's text: canvas_text sanitises */
	const char *cmd = p->cmdline ? p->cmdline : "(command line unknown)";
	size_t used = strlen(line) - 2; /* ▶ is 3 bytes, 1 column */
	size_t skip = s->hscroll > used ? s->hscroll - used : 0;
	x = canvas_text_skip(c, x, y, cmd, strlen(cmd), skip,
			     p->cmdline ? st : STYLE(UC_MUTED, 0));
	canvas_text(c, x, y, parent, strlen(parent), STYLE(UC_MUTED, 0));
}

/* "python: FILE:LINE in FUNC" of the selected process; false when it has
 * none. */
static bool footer(const struct ui *ui, const struct processes_state *s,
		   const struct canvas *c, int y)
{
	const struct job *j = ui->job;
	long i = s->lv.cursor >= 0 ? s->lv.cursor : ui->job_current;
	if (i < 0 || (size_t)i >= j->nprocs)
		return false;
	const struct job_proc *p = &j->procs[i];
	if (!p->npy || p->py_user < 0 || (size_t)p->py_user >= p->npy)
		return false;
	const struct job_pyframe *f = &p->py[p->py_user];
	char line[64];
	int x = canvas_str(c, 0, y, "python: ", STYLE(UC_ACCENT, CA_BOLD));
	x = canvas_text(c, x, y, f->file, strlen(f->file), STYLE(UC_DEFAULT, 0));
	snprintf(line, sizeof line, ":%d in ", f->line);
	x = canvas_str(c, x, y, line, STYLE(UC_DEFAULT, 0));
	canvas_text(c, x, y, f->func, strlen(f->func), STYLE(UC_DEFAULT, 0));
	return true;
}

static void processes_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct processes_state *s = p->state;
	const struct job *j = ui->job;
	if (!j) {
		dpane_note(c, 0, "not a job: start with --job PROG or "
			   "--core-dir DIR to see every process");
		return;
	}
	if (!s->placed && ui->job_current >= 0) {
		s->lv.count = (long)j->nprocs;
		listview_select(&s->lv, ui->job_current);
		s->placed = true;
	}
	header(c, s->hscroll);
	/* the last row: the selected process's own Python line, when it
	 * printed its stack at its death */
	int foot = c->r.h > 3 && footer(ui, s, c, c->r.h - 1) ? 1 : 0;
	struct canvas body = canvas_sub(c, 0, 1, c->r.w,
					c->r.h > 1 + foot ? c->r.h - 1 - foot : 0);
	s->lv.count = (long)j->nprocs;
	listview_fit(&s->lv, body.r.h);
	for (int y = 0; y < s->lv.height; y++) {
		size_t i = (size_t)(s->lv.top + y);
		if (i >= j->nprocs)
			break;
		row(ui, s, &body, y, i);
		if ((long)i == s->lv.cursor)
			dpane_cursor(ui, p, &body, y);
	}
}

static int processes_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	p->hidden = ui->job == NULL;
	return (what & (UCH_STATE | UCH_STOP | UCH_LAYOUT)) ? PR_REDRAW
							     : PR_HANDLED;
}

static int processes_open(struct pane *p, struct ui *ui, int key)
{
	struct processes_state *s = p->state;

	(void)key;
	if (!ui->job || s->lv.cursor < 0)
		return PR_HANDLED;
	if (!ui->actions || !ui->actions->open_process) {
		ui_message(ui, UC_WARN, "no debugger behind the screen");
		return PR_REDRAW;
	}
	ui->actions->open_process(ui, (size_t)s->lv.cursor);
	return PR_REDRAW;
}

static int processes_sideways(struct pane *p, struct ui *ui, int key)
{
	(void)ui;
	return listview_hscroll(&((struct processes_state *)p->state)->hscroll, key);
}

static int processes_key(struct pane *p, struct ui *ui, int key)
{
	(void)ui;
	return listview_key(&((struct processes_state *)p->state)->lv, key);
}

static const struct pane_key processes_keys[] = {
	{ TK_ENTER, TK_NONE, processes_open, NULL,
	  "open the selected process's coredump (the panes follow)" },
	{ TK_LEFT, TK_RIGHT, processes_sideways, NULL, "scroll long command lines" },
	PANE_KEYS_END,
};

/* A job's session: shown at once beside the source (which process this
 * is), without taking the focus. */
static int processes_request(struct pane *p, struct ui *ui, enum pane_request r)
{
	if (r != PANE_REQ_PROCESSES)
		return PR_IGNORED;
	p->hidden = false;
	ui->area_pane[p->ops->home] = (int)(p - ui->panes);
	return PR_REDRAW;
}

const struct pane_ops pane_processes_ops = {
	.name = "processes",
	.title = "Processes",
	/* beside locals and stack: a CPU job under gdb has no GPU area */
	.home = AREA_SIDE_BOTTOM,
	.init = processes_init,
	.draw = processes_draw,
	.key = processes_key,
	.click = dpane_click_table, /* rows under the heading */
	.on_change = processes_on_change,
	.title_info = processes_title,
	.request = processes_request,
	.free = dpane_state_free,
	.keys = processes_keys,
};
