/* The Python stack in the screen: at each settled stop of a Python
 * program (live, or a coredump's, read from its memory) the glue takes
 * it once (diag_pystack_take, include/cudbg/pystack.h) and hands the stack to the
 * panes (ui->pystack: the Stack pane lists its frames, the Source pane
 * shows the user's line when the stopped frame has no source) and to the
 * diagnosis the Hints pane builds.
 *
 * The take is synchronous: it runs the session's loop for its few
 * commands (about 50 ms for a PyTorch program on the H200), each bounded
 * (5 s, then interrupted), while keys wait.  It runs at the top of a
 * loop pass, never inside a session callback. */
#include "cudbg/base.h"
#include "cudbg/diagrun.h"
#include "cudbg/memcheck.h"
#include "cudbg/options.h"
#include "cudbg/pystack.h"
#include "tui/glue_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Once per session: the command line does not change, and the check
 * searches PATH and reads the program's first line (it ran at every
 * stop: 3 file system calls a step, issue 32 item 5). */
static bool python_program(struct glue *g)
{
	const struct cudbg_options *o = g->o;
	if (!o || o->no_pystack)
		return false;
	/* a replay does not know its program: it asks as the recording did */
	if (o->backend == SESSION_REPLAY)
		return true;
	/* (a coredump's stack is read from its memory, diag/pymem.c) */
	if (!g->py_checked) {
		g->py_checked = true;
		g->py_argv = diag_argv_is_python(o->argv);
	}
	return g->py_argv;
}


/* A program not started as Python (a launcher script, make, env) may be
 * Python after exec: at a fault (a signal, a device exception) and in a
 * coredump its memory is read for a Python runtime (one command when
 * there is none); not at a breakpoint or a step, where it would cost a
 * command per stop. */
static bool memory_probe_due(const struct glue *g, const struct dbg_model *m)
{
	if (!g->o || g->o->no_pystack)
		return false;
	return m->is_core || (m->has_stop && m->stop.signal_name);
}

static void py_clear(struct glue *g)
{
	diag_pystack_result_free(&g->py);
	memset(&g->py, 0, sizeof g->py);
	g->ui->pystack = NULL;
	g->ui->py_bad = NULL;
	g->ui->py_pick = 0;
}

/* What the bad value's read goes by: the assertion and the function. */
static const char *py_what(const struct glue *g, char *buf, size_t cap)
{
	text_fit(buf, cap, "%s %s", g->ui->where.assert_expr, g->ui->where.func);
	return buf;
}

/* Which bad value to read: the matching rule's (diag_run_value_kind),
 * with the account made from this stop first. */
static enum diag_pybad_kind py_kind(struct glue *g)
{
	glue_diag_update(g);
	return diag_run_value_kind(g->dr);
}

/* What the screen says once the stack (and maybe the bad value) is in. */
static void py_say(struct glue *g)
{
	/* cuda-gdb resumes the GPU for an inferior call and cannot lock it:
	 * the asserting kernel is gone afterwards (H200,
	 * tests/fixtures/gpu/explore/README.md).  Say so, or the empty
	 * thread tables would look like a bug. */
	const char *gone = g->py.device && !g->py.ps.from_memory
		? " (the call into Python ended the kernel's threads: T "
		  "replays to the fault)" : "";
	g->ui->py_bad = g->py.bad[0] ? g->py.bad : NULL;
	if (g->ui->py_bad)
		ui_message(g->ui, UC_FAULT, "the bad value: %s%s", g->ui->py_bad,
			   gone);
	else if (g->py.device && !g->py.value_pending)
		ui_message(g->ui, UC_MUTED, "Python stack taken%s", gone);
}

/* After the stack: the bad value once the refresh that selecting the
 * CUDA focus again started is in (diag_pystack_read_value), then torch's
 * CUDA library, which the operator's host stack needs (8 s on the H200;
 * its refresh brings the operator).  The commands go out in the order a
 * batch run sends them, so recordings of either replay in both. */
static void py_after(struct glue *g)
{
	if (g->py.value_pending) {
		char what[600];
		diag_pystack_read_value(g->ctl, 5000, py_what(g, what, sizeof what),
					&g->py);
		py_say(g);
		ui_changed(g->ui, UCH_FRAME);
	}
	ctl_read_late_symbols(g->ctl);
	g->py_after_done = true;
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
	if (g->rf || !session_alive(s) || ctl_busy(g->ctl) ||
	    !ctl_refreshed(g->ctl))
		return;
	if (g->py_stop == glue_stop_key(m)) {
		if (!g->py_after_done)
			py_after(g);
		return;
	}
	g->py_after_done = false;
	bool probe = !python_program(g);
	if (probe && !memory_probe_due(g, m)) {
		/* (--no-python-stack: the operator's symbols all the same) */
		g->py_stop = glue_stop_key(m);
		py_after(g);
		return;
	}
	py_clear(g);
	g->py_stop = glue_stop_key(m);
	char what[600];
	g->py.no_wait = true;
	g->py.memory_only = probe;
	g->py.kind = py_kind(g);
	diag_pystack_take(g->ctl, 5000, py_what(g, what, sizeof what), &g->py);
	/* A stop the calls themselves caused (an interrupted call) is not a
	 * new one to ask about: that would never end. */
	g->py_stop = glue_stop_key(ctl_model(g->ctl));
	if (g->py.have) {
		/* the Python line is on the screen from here */
		g->ui->pystack = &g->py.ps;
		py_say(g);
	} else if (g->py.why[0] && g->o->backend != SESSION_REPLAY) {
		/* (a replay of a recording made before, or of a C program,
		 * answers "not in this recording": nothing to say) */
		ui_message(g->ui, UC_MUTED, "no Python stack: %s", g->py.why);
	}
	if (!g->py.value_pending)
		py_after(g);
	ui_changed(g->ui, UCH_FRAME | UCH_SOURCE);
}

void glue_py_feed(struct glue *g, struct diag *d)
{
	const struct dbg_model *m = ctl_model(g->ctl);
	if (g->py_stop && g->py_stop == glue_stop_key(m))
		diag_pystack_result_give(d, &g->py);
}

void glue_py_free(struct glue *g)
{
	diag_pystack_result_free(&g->py);
	memset(&g->py, 0, sizeof g->py);
}
