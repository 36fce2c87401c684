/* Stepping keys typed ahead.  The controller refuses an -exec command
 * while the last one has not stopped (the model turns to running only
 * when ^running comes back, so a burst of `n` sent each one and gdb
 * refused most: 200 `n` completed 23-34 steps).  Here a stepping key
 * that arrives while a step is in flight waits in a queue; each stop,
 * once its refresh is done, sends the next.  The screen is drawn once a
 * step: the loop holds a redraw while a step is in flight (ui->hold_draw,
 * bounded in tui/loop.c), so panes do not flash "running" between
 * stops.  Each step sent from a key is echoed in the console as
 * "(gdb) next", as if typed there. */
#include "tui/glue.h"
#include "tui/glue_int.h"

#include <stdio.h>
#include <string.h>

static const char *exec_word(enum ui_action a)
{
	switch (a) {
	case UA_CONTINUE: return "continue";
	case UA_NEXT: return "next";
	case UA_STEP: return "step";
	case UA_FINISH: return "finish";
	default: return NULL;
	}
}

bool glue_steps_queues(enum ui_action a)
{
	return exec_word(a) != NULL;
}

/* A step sent from a key has not stopped yet, or its stop's refresh
 * (stack, locals, tables) is still under way. */
static bool in_flight(const struct glue *g)
{
	const struct dbg_model *m = ctl_model(g->ctl);

	if (!g->exec_sent)
		return false;
	if (m->stop_count != g->exec_stops || m->state == MODEL_EXITED ||
	    m->state == MODEL_GONE)
		return ctl_busy(g->ctl) || !ctl_refreshed(g->ctl);
	return m->state == MODEL_RUNNING || ctl_busy(g->ctl);
}

static void echo(struct glue *g, const char *word)
{
	ui_console_text(g->ui, "(gdb) ", 6, 'u');
	ui_console_text(g->ui, word, strlen(word), 'u');
	ui_console_text(g->ui, "\n", 1, 'u');
}

static int send(struct glue *g, enum ui_action a)
{
	const struct dbg_model *m = ctl_model(g->ctl);
	struct dbg_ctl *c = g->ctl;
	int64_t r;

	switch (a) {
	case UA_CONTINUE: r = ctl_continue(c); break;
	case UA_NEXT: r = ctl_next(c); break;
	case UA_STEP: r = ctl_step(c); break;
	case UA_FINISH: r = ctl_finish(c); break;
	default: return -1;
	}
	if (r < 0)
		return ui_refused(g->ui, r);
	echo(g, exec_word(a));
	g->exec_sent = true;
	g->exec_what = a;
	g->exec_stops = m->stop_count;
	g->exec_pc = m->has_stop && m->stop.has_frame && m->stop.frame.has_addr
			     ? m->stop.frame.addr : 0;
	g->ui->hold_draw = true;
	clock_gettime(CLOCK_MONOTONIC, &g->ui->hold_since);
	return 0;
}

int glue_steps_act(struct glue *g, enum ui_action a)
{
	/* Behind a continue that is running nothing queues: the program
	 * may run for long, and a step typed then is refused with its
	 * reason (interrupt first), as before. */
	bool running_on = g->exec_what == UA_CONTINUE &&
			  ctl_model(g->ctl)->state == MODEL_RUNNING;
	if ((!in_flight(g) || running_on) && g->nsteps == 0)
		return send(g, a);
	if (g->nsteps == GLUE_STEP_QUEUE) {
		ui_message(g->ui, UC_WARN, "%d steps are waiting already: this one is dropped",
			   GLUE_STEP_QUEUE);
		return -1;
	}
	g->steps[(g->step_head + g->nsteps) % GLUE_STEP_QUEUE] = (unsigned char)a;
	g->nsteps++;
	return 0;
}

void glue_steps_clear(struct glue *g)
{
	g->nsteps = 0;
	g->step_head = 0;
}

/* A recording answers a step it holds no more of with the last recorded
 * one: the program "stops" where it was.  Said, rather than nothing
 * happening. */
static void replayed_same_stop(struct glue *g, const struct dbg_model *m)
{
	if (m->backend != SESSION_REPLAY || m->state != MODEL_STOPPED ||
	    m->stop_count == g->exec_stops || !g->exec_pc || !m->stop.has_frame ||
	    !m->stop.frame.has_addr || m->stop.frame.addr != g->exec_pc)
		return;
	ui_message(g->ui, UC_WARN, "the recording holds no step further from here: "
		   "it answered with the same stop again (r starts over)");
}

void glue_steps_pump(struct glue *g)
{
	const struct dbg_model *m = ctl_model(g->ctl);

	if (in_flight(g))
		return;
	bool refused = g->exec_sent && m->state == MODEL_STOPPED &&
		       m->stop_count == g->exec_stops;
	if (g->exec_sent)
		replayed_same_stop(g, m);
	g->exec_sent = false;
	/* The debugger refused the last step (its error is on the hint
	 * line): the keys typed after it go too. */
	if (refused)
		glue_steps_clear(g);
	if (g->ui->hold_draw) {
		g->ui->hold_draw = false;
		g->ui->dirty = true;
	}
	if (g->nsteps == 0)
		return;
	if (m->state != MODEL_STOPPED) {
		ui_message(g->ui, UC_WARN, "%zu typed-ahead step%s dropped: the program %s",
			   g->nsteps, g->nsteps == 1 ? "" : "s",
			   m->state == MODEL_EXITED ? "ended" : "is not stopped");
		glue_steps_clear(g);
		return;
	}
	enum ui_action a = (enum ui_action)g->steps[g->step_head];
	g->step_head = (g->step_head + 1) % GLUE_STEP_QUEUE;
	g->nsteps--;
	/* A refused step (a finish in the outermost frame...) ends the
	 * run of keys: the rest were typed for a program that went on. */
	if (send(g, a) < 0)
		glue_steps_clear(g);
}
