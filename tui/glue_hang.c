/* The screen's hangs: --timeout interrupts a run still going after
 * SECONDS, as C-c does; once the interrupt's stop is shown, the stopped
 * kernel's coalesced threads are fetched (ctl_hang_tables) and the hang
 * summary (diag/hang.c) joins every update of the screen's diagnosis
 * pipeline (glue_diag_update()), with the same hints as batch mode.  A
 * resumed program drops it. */
#include "tui/glue.h"
#include "tui/glue_int.h"

#include "cudbg/base.h"
#include "cudbg/diag.h"
#include "cudbg/diagrun.h"
#include "cudbg/hang.h"
#include "cudbg/options.h"
#include "opts/hang.h"

#include "cudbg/session.h"

#include <stdlib.h>
#include <string.h>

static void hang_drop(struct glue *g)
{
	if (g->hang.summary) {
		diag_hang_free(g->hang.summary);
		free(g->hang.summary);
		g->hang.summary = NULL;
	}
}

/* A replay has no clock: a recording that interrupted a running program
 * gives the time it ran (batch/hang.h); -1 otherwise. */
static double recorded_seconds(struct glue *g)
{
	if (!g->hang.scanned) {
		g->hang.scanned = true;
		g->hang.recorded = -1;
		if (g->o && g->o->backend == SESSION_REPLAY)
			g->hang.recorded = diag_run_replay_hang_seconds(g->dr);
	}
	return g->hang.recorded;
}

/* When a running program counts as hung: --timeout, or in a replay the
 * recorded interrupt.  Milliseconds after the run began, -1: never. */
static int deadline_ms(struct glue *g)
{
	double rec = recorded_seconds(g);
	if (rec >= 0)
		return hang_replay_wait_ms(rec, g->o->replay_realtime);
	int secs = g->o ? g->o->timeout_s : 0;
	return secs > 0 ? secs * 1000 : -1;
}

int glue_hang_interrupt(struct glue *g)
{
	int64_t r = ctl_interrupt(g->ctl);
	if (r > 0 && g->hang.run_began > 0) {
		double rec = recorded_seconds(g);
		g->hang.interrupting = true;
		g->hang.seconds = rec >= 0 ? rec : proc_now_s() - g->hang.run_began;
	}
	return ui_refused(g->ui, r);
}

/* The summary, built once from the model right after the tables came
 * (the Threads pane pages its table by block afterwards). */
static void hang_build(struct glue *g, const struct dbg_model *m)
{
	struct diag *d = diag_new();
	if (!d)
		return;
	for (size_t i = 0; g->dirs && g->dirs[i]; i++)
		diag_add_source_dir(d, g->dirs[i]);
	hang_drop(g);
	/* "(recorded)" as batch says it: the seconds are the recording's */
	if (diag_hang_from_model(d, m, g->hang.seconds, recorded_seconds(g) >= 0, 0) == 0)
		g->hang.summary = diag_hang_take(d);
	diag_free(d);
	if (!g->hang.summary)
		return;
	char head[512];
	diag_hang_headline(g->hang.summary, head, sizeof head);
	ui_message(g->ui, UC_ACCENT, "%s: see the Hints pane", head);
	ui_changed(g->ui, UCH_DIAG);
}

static void timeout_check(struct glue *g, const struct dbg_model *m)
{
	int ms = deadline_ms(g);
	if (ms < 0 || g->hang.interrupting || g->hang.run_began <= 0 ||
	    m->state != MODEL_RUNNING)
		return;
	/* a replay of a hang: once the run is answered the recording has
	 * sent what it holds before the interrupt; no timer (issue 32) */
	bool replayed = recorded_seconds(g) >= 0 && !g->o->replay_realtime &&
			!ctl_busy(g->ctl);
	if (!replayed && (proc_now_s() - g->hang.run_began) * 1000 < ms)
		return;
	if (recorded_seconds(g) >= 0)
		ui_message(g->ui, UC_ACCENT, "the recording interrupted the "
			   "program here: interrupting it");
	else
		ui_message(g->ui, UC_ACCENT, "still running after %d s: "
			   "interrupting it (--timeout)", ms / 1000);
	glue_hang_interrupt(g);
}

void glue_hang_step(struct glue *g)
{
	const struct dbg_model *m = ctl_model(g->ctl);
	if (m->state == MODEL_RUNNING) {
		if (g->hang.run_began <= 0) {
			g->hang.run_began = proc_now_s();
			hang_drop(g); /* resumed: the old summary is history */
		}
		timeout_check(g, m);
		return;
	}
	g->hang.run_began = 0;
	if (!g->hang.interrupting || m->state != MODEL_STOPPED) {
		if (m->state != MODEL_STOPPED)
			g->hang.interrupting = g->hang.tables_asked = false;
		return;
	}
	if (ctl_busy(g->ctl) || !ctl_refreshed(g->ctl))
		return;
	if (!g->hang.tables_asked) {
		g->hang.tables_asked = true;
		if (ctl_hang_tables(g->ctl) > 0)
			return; /* built when they have come */
	}
	g->hang.interrupting = g->hang.tables_asked = false;
	hang_build(g, m);
}

int glue_hang_timeout_ms(struct glue *g)
{
	int ms = deadline_ms(g);
	if (ms < 0 || g->hang.run_began <= 0 || g->hang.interrupting)
		return -1;
	double left = g->hang.run_began + ms / 1000.0 - proc_now_s();
	return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

void glue_hang_feed(struct glue *g, struct diag *d)
{
	if (g->hang.summary)
		diag_hang_set(d, g->hang.summary);
	else
		diag_hang_clear(d); /* resumed: the old summary is history */
}

void glue_hang_free(struct glue *g)
{
	hang_drop(g);
}
