/* tui_main: the interactive screen over a debugger session; with --demo,
 * the demo menu first and back to it after each demo. */
#include "cudbg/tui.h"
#include "cudbg/base.h"
#include "cudbg/config.h"
#include "cudbg/model.h"
#include "cudbg/options.h"
#include "tui/backend.h"
#include "tui/demo.h"
#include "tui/glue.h"
#include "tui/loop.h"
#include "tui/sanitize.h"
#include "tui/script.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One run of the screen: the backend is started once (before the first
 * loop) and stopped once; the test script runs across the demo menu and
 * the debugger screens in turn. */
struct screen {
	struct backend be;
	struct script *script;
	bool started;
	char err[1024]; /* printed once the terminal is restored */
};

/* CUDBG_TEST_SIZE=COLSxROWS for the headless test screen (default
 * 80x24). */
static void test_size(int *cols, int *rows)
{
	const char *s = getenv("CUDBG_TEST_SIZE");

	*cols = 80;
	*rows = 24;
	if (s && sscanf(s, "%dx%d", cols, rows) == 2 && *cols > 0 && *rows > 0 &&
	    *cols <= 1000 && *rows <= 1000)
		return;
	*cols = 80;
	*rows = 24;
}

static int screen_start(struct screen *S, const struct cudbg_options *o)
{
	if (S->started)
		return 0;
	/* Colours from the config file take effect when curses starts. */
	for (size_t i = 0; o->config && i < o->config->ncolours; i++) {
		const struct config_colour *c = &o->config->colours[i];
		term_colour_set(c->role, c->fg, c->bg);
	}
	if (S->be.start(&S->be, S->err, sizeof S->err) < 0)
		return -1;
	S->started = true;
	atexit(term_emergency_restore);
	return 0;
}

static int screen_loop(struct screen *S, struct ui *ui, struct loop_source src)
{
	struct loop L;
	int st;

	memset(&L, 0, sizeof L);
	L.ui = ui;
	L.be = &S->be;
	L.src = src;
	L.script = S->script;
	ui->mono = S->be.mono;
	st = loop_run(&L);
	if (L.error[0] && !S->script)
		snprintf(S->err, sizeof S->err, "%s", L.error);
	return st;
}

static int screen_ui(struct screen *S, struct ui *ui,
		     const struct cudbg_options *o)
{
	memset(ui, 0, sizeof *ui);
	if (ui_init(ui) < 0) {
		ui_free(ui);
		snprintf(S->err, sizeof S->err, "out of memory starting the screen");
		return -1;
	}
	if (o->config) {
		ui->binds = o->config->binds;
		ui->nbinds = o->config->nbinds;
	}
	return 0;
}

/* When the debugger went away (its reason says what to do), that line
 * stays on the terminal once the screen is gone; a signal says its own. */
static void say_gone(struct screen *S, const struct ui *ui, int st)
{
	const struct dbg_model *m = ui->model;

	if (S->err[0] || (st > 128 && st < 128 + NSIG) || !m ||
	    m->state != MODEL_GONE || !m->gone_reason)
		return;
	char *clean = sanitize_dup(m->gone_reason, strlen(m->gone_reason));
	snprintf(S->err, sizeof S->err, "%s", clean ? clean : "the debugger is gone");
	free(clean);
}

/* The signal that ended the screen, in one line. */
static void say_signal(int sig)
{
	const char *abbrev = sigabbrev_np(sig); /* "TERM", "RTMIN+3" */

	if (abbrev)
		fprintf(stderr, "cudbg-tui: ended by SIG%s; the debugger and "
			"the program were stopped\n", abbrev);
	else
		fprintf(stderr, "cudbg-tui: ended by signal %d; the debugger "
			"and the program were stopped\n", sig);
}

/* The debugger screen over the session the options describe. */
static int screen_session(struct screen *S, const struct cudbg_options *o,
			  const char *greeting)
{
	struct ui ui;
	struct glue *g;
	int st;

	if (screen_ui(S, &ui, o) < 0)
		return 2;
	g = glue_new(&ui, o, S->err, sizeof S->err);
	if (!g || screen_start(S, o) < 0) {
		glue_free(g);
		ui_free(&ui);
		return 2;
	}
	if (o->demo && o->demo_name)
		snprintf(ui.status.program, sizeof ui.status.program,
			 "demo %s", o->demo_name);
	if (greeting)
		ui_message(&ui, UC_ACCENT, "%s", greeting);
	glue_sync(g);
	st = screen_loop(S, &ui, glue_source(g));
	say_gone(S, &ui, st);
	glue_free(g);
	ui_free(&ui);
	return st;
}

/* The demo menu; *pick is the entry chosen, or -1. */
static int demo_menu(struct screen *S, const struct cudbg_options *o,
		     int *pick)
{
	struct ui ui;
	struct loop_source none;
	int st;

	if (screen_ui(S, &ui, o) < 0)
		return 2;
	if (screen_start(S, o) < 0) {
		ui_free(&ui);
		return 2;
	}
	memset(&none, 0, sizeof none);
	demo_menu_open(&ui, pick);
	st = screen_loop(S, &ui, none);
	ui_free(&ui);
	return st;
}

/* --demo: the menu, the demo chosen, back to the menu when it quits;
 * --demo NAME: that demo alone. */
static int demo_screens(struct screen *S, const struct cudbg_options *o)
{
	char dir[4096];
	const struct demo_entry *e = NULL;
	int pick = 0, st;

	if (!demo_data_dir(NULL, dir, sizeof dir, S->err, sizeof S->err))
		return 2;
	if (o->demo_name && !(e = demo_find(o->demo_name))) {
		int n = snprintf(S->err, sizeof S->err,
				 "no demo named '%.64s'; the demos are",
				 o->demo_name);
		for (size_t i = 0; i < demo_count() && n > 0 &&
				   (size_t)n < sizeof S->err; i++)
			n += snprintf(S->err + n, sizeof S->err - (size_t)n,
				      "%s %s", i ? "," : "", demo_get(i)->name);
		return 2;
	}
	for (;;) {
		struct demo_run r;
		if (!e) {
			st = demo_menu(S, o, &pick);
			if (st || pick < 0)
				return st;
			e = demo_get((size_t)pick);
		}
		if (demo_run_init(&r, o, dir, e, S->err, sizeof S->err) < 0)
			return 2;
		st = screen_session(S, &r.o, e->greeting);
		demo_run_free(&r);
		if (st || o->demo_name)
			return st;
		e = NULL;
	}
}

int tui_main(const struct cudbg_options *o)
{
	const char *script_path = getenv("CUDBG_TEST_SCRIPT");
	struct screen S;
	int st, cols, rows;

	memset(&S, 0, sizeof S);
	sanitize_init_locale();
	if (script_path && *script_path) {
		S.script = script_load(script_path, S.err, sizeof S.err);
		if (!S.script) {
			text_write_line(stderr, "cudbg-tui: ", S.err);
			return 2;
		}
		test_size(&cols, &rows);
		headless_backend(&S.be, cols, rows);
	} else {
		term_backend(&S.be);
	}
	if (loop_signals_init() < 0) {
		fprintf(stderr, "cudbg-tui: cannot install the signal handlers\n");
		script_free(S.script);
		return 2;
	}
	st = o->demo ? demo_screens(&S, o) : screen_session(&S, o, NULL);
	if (S.started)
		S.be.stop(&S.be);
	if (S.err[0])
		text_write_line(stderr, "cudbg-tui: ", S.err);
	script_free(S.script);
	if (st > 128 && st < 128 + NSIG) {
		/* Leave as the signal asked, with the terminal restored and
		 * the debugger gone. */
		say_signal(st - 128);
		signal(st - 128, SIG_DFL);
		raise(st - 128);
	}
	return st;
}
