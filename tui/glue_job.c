/* --job and --core-dir in the screen: the job's table goes to the
 * Processes pane, and its Enter replaces the session by one over another
 * process's coredump; every other pane then follows that process (the
 * same switch the memcheck pass's coredump uses).  See
 * docs/multiprocess.md. */
#include "cudbg/job.h"
#include "cudbg/options.h"
#include "tui/glue_int.h"
#include "tui/source.h"

#include <stdio.h>
#include <string.h>

/* The program word of the session over a process's core: the debugger
 * reads the executable's symbols from it.  One session at a time, so one
 * static vector (session_config points into it). */
static char *core_argv[2];

static void name_process(struct ui *ui, const struct job_proc *p)
{
	char *buf = ui->status.program;
	size_t cap = sizeof ui->status.program;
	if (p->rank)
		snprintf(buf, cap, "pid %ld rank %s (core)", p->pid, p->rank);
	else
		snprintf(buf, cap, "pid %ld (core)", p->pid);
}

void glue_job_attach(struct glue *g)
{
	struct ui *ui = g->ui;
	const struct job *j = g->o->job_table;
	ui->job = j;
	ui->job_current = -1;
	if (!j)
		return;
	ui->job_current = j->faulting;
	job_note_recording(ctl_session(g->ctl), j);
	const struct job_proc *f = job_faulting(j);
	if (f)
		name_process(ui, f);
	snprintf(g->program, sizeof g->program, "%s", ui->status.program);
	/* shown at once beside the source: which process this is */
	ui_pane_request(ui, PANE_REQ_PROCESSES);
	ui_changed(ui, UCH_LAYOUT);
}

int glue_open_process(struct ui *ui, size_t index)
{
	struct glue *g = ui->actions_ctx;
	const struct job *j = ui->job;
	if (!g || !j || index >= j->nprocs)
		return -1;
	const struct job_proc *p = &j->procs[index];
	char sb[64];
	if ((long)index == ui->job_current) {
		ui_message(ui, UC_MUTED, "the session already shows pid %ld",
			   p->pid);
		return 0;
	}
	if (!p->core) {
		ui_message(ui, UC_WARN, "pid %ld wrote no coredump (%s): "
			   "nothing to open", p->pid,
			   job_state_text(p, sb, sizeof sb));
		return -1;
	}
	struct session_config sc;
	char err[512];
	options_session_config(g->o, &sc);
	sc.backend = SESSION_CORE;
	sc.core = p->core;
	sc.replay = NULL;
	sc.record = NULL; /* the recording is the first process's */
	core_argv[0] = g->o->core_dir && g->o->argv ? g->o->argv[0] : p->exe;
	core_argv[1] = NULL;
	sc.argv = core_argv[0] ? core_argv : NULL;
	g->program[0] = '\0';
	if (glue_switch(g, &sc, false, err, sizeof err) < 0) {
		ui_message(ui, UC_ERROR, "cannot open the coredump of pid %ld: "
			   "%s", p->pid, err);
		return -1;
	}
	ui->job_current = (long)index;
	name_process(ui, p);
	snprintf(g->program, sizeof g->program, "%s", ui->status.program);
	ui_message(ui, UC_GOOD, "opening the coredump of pid %ld (%s)",
		   p->pid, path_base(p->core));
	return 0;
}
