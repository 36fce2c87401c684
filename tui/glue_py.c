/* The live Python stack in the screen: at each settled live stop of a
 * Python program the glue calls into its interpreter once
 * (diag_pystack_take, include/cudbg/pystack.h) and hands the stack to the
 * panes (ui->pystack: the Stack pane lists its frames, the Source pane
 * shows the user's line when the stopped frame has no source) and to the
 * diagnosis the Hints pane builds.
 *
 * The take is synchronous: it runs the session's loop for its few
 * commands (about 50 ms for a PyTorch program on the H200), each bounded
 * (5 s, then interrupted), while keys wait.  It runs at the top of a
 * loop pass, never inside a session callback. */
#include "cudbg/memcheck.h"
#include "cudbg/options.h"
#include "cudbg/pystack.h"
#include "tui/glue_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool python_program(const struct glue *g)
{
	const struct cudbg_options *o = g->o;
	if (!o || o->no_pystack)
		return false;
	/* a replay does not know its program: it asks as the recording did */
	if (o->backend == SESSION_REPLAY)
		return true;
	return o->backend != SESSION_CORE && diag_argv_is_python(o->argv);
}

static void py_clear(struct glue *g)
{
	diag_pystack_result_free(&g->py);
	memset(&g->py, 0, sizeof g->py);
	g->ui->pystack = NULL;
	g->ui->py_bad = NULL;
	g->ui->py_pick = 0;
}

void glue_py_step(struct glue *g)
{
	const struct dbg_model *m = ctl_model(g->ctl);
	struct session *s = ctl_session(g->ctl);
	if (m->state != MODEL_STOPPED) {
		if (g->py_stop) {
			py_clear(g);
			g->py_stop = 0;
		}
		return;
	}
	if (g->py_stop == m->stop_count || m->is_core || g->rf ||
	    !session_alive(s) || ctl_busy(g->ctl) || !ctl_refreshed(g->ctl))
		return;
	if (!python_program(g)) {
		/* (--no-python-stack: the operator's symbols all the same) */
		g->py_stop = m->stop_count;
		ctl_read_late_symbols(g->ctl);
		return;
	}
	py_clear(g);
	g->py_stop = m->stop_count;
	char what[600];
	snprintf(what, sizeof what, "%s %s", g->ui->where.assert_expr,
		 g->ui->where.func);
	bool device = m->focus.valid;
	diag_pystack_take(g->ctl, 5000, what, &g->py);
	/* A stop the calls themselves caused (an interrupted call) is not a
	 * new one to ask about: that would never end. */
	g->py_stop = ctl_model(g->ctl)->stop_count;
	if (g->py.have) {
		g->ui->pystack = &g->py.ps;
		g->ui->py_bad = g->py.bad[0] ? g->py.bad : NULL;
		/* cuda-gdb resumes the GPU for an inferior call and cannot
		 * lock it: the asserting kernel is gone afterwards (H200,
		 * tests/fixtures/gpu/explore/README.md).  Say so, or the empty
		 * thread tables would look like a bug. */
		const char *gone = device ? " (the call into Python ended the "
			"kernel's threads: T replays to the fault)" : "";
		if (g->ui->py_bad)
			ui_message(g->ui, UC_FAULT, "the bad value: %s%s",
				   g->ui->py_bad, gone);
		else if (device)
			ui_message(g->ui, UC_MUTED, "Python stack taken%s", gone);
	} else if (g->py.why[0] && g->o->backend != SESSION_REPLAY) {
		/* (a replay of a recording made before, or of a C program,
		 * answers "not in this recording": nothing to say) */
		ui_message(g->ui, UC_MUTED, "no Python stack: %s", g->py.why);
	}
	/* The Python line is on the screen now; torch's CUDA library, which
	 * the operator's host stack needs, is read after it (8 s on the
	 * H200): its refresh brings the operator. */
	ctl_read_late_symbols(g->ctl);
	ui_changed(g->ui, UCH_FRAME | UCH_SOURCE);
}

void glue_py_feed(struct glue *g, struct diag *d)
{
	const struct dbg_model *m = ctl_model(g->ctl);
	if (g->py_stop && g->py_stop == m->stop_count)
		diag_pystack_result_give(d, &g->py);
}

void glue_py_free(struct glue *g)
{
	diag_pystack_result_free(&g->py);
	memset(&g->py, 0, sizeof g->py);
}
