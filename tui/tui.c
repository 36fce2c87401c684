/* tui_main: the interactive screen over a debugger session. */
#include "cudbg/tui.h"
#include "cudbg/model.h"
#include "cudbg/options.h"
#include "tui/backend.h"
#include "tui/glue.h"
#include "tui/loop.h"
#include "tui/sanitize.h"
#include "tui/script.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int screen_run(struct ui *ui, struct glue *g, struct backend *be,
		      struct script *script)
{
	struct loop L;
	char err[512];
	int st;

	memset(&L, 0, sizeof L);
	L.ui = ui;
	L.be = be;
	L.src = glue_source(g);
	L.script = script;
	if (be->start(be, err, sizeof err) < 0) {
		fprintf(stderr, "cudbg-tui: %s\n", err);
		return 2;
	}
	ui->mono = be->mono;
	glue_sync(g);
	st = loop_run(&L);
	be->stop(be);
	if (L.error[0] && !script)
		fprintf(stderr, "cudbg-tui: %s\n", L.error);
	return st;
}

/* One line that stays on the terminal once the screen is gone, when the
 * session ended for a reason other than the user's q: the debugger's end
 * (its reason says what to do) or a signal. */
static void say_why(const struct ui *ui, int st)
{
	static const struct { int sig; const char *name; } names[] = {
		{ SIGTERM, "SIGTERM" }, { SIGHUP, "SIGHUP" }, { SIGINT, "SIGINT" },
	};
	const struct dbg_model *m = ui->model;

	if (st > 128 && st < 128 + NSIG) {
		const char *name = "a signal";
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
			if (names[i].sig == st - 128)
				name = names[i].name;
		fprintf(stderr, "cudbg-tui: ended by %s; the debugger and the "
			"program were stopped\n", name);
		return;
	}
	if (m && m->state == MODEL_GONE && m->gone_reason) {
		char *clean = sanitize_dup(m->gone_reason, strlen(m->gone_reason));
		fprintf(stderr, "cudbg-tui: %s\n", clean ? clean : "the debugger is gone");
		free(clean);
	}
}

int tui_main(const struct cudbg_options *o)
{
	const char *script_path = getenv("CUDBG_TEST_SCRIPT");
	struct script *script = NULL;
	struct backend be;
	struct ui ui;
	struct glue *g;
	char err[512];
	int st, cols, rows;

	sanitize_init_locale();
	if (script_path && *script_path) {
		script = script_load(script_path, err, sizeof err);
		if (!script) {
			fprintf(stderr, "cudbg-tui: %s\n", err);
			return 2;
		}
		test_size(&cols, &rows);
		headless_backend(&be, cols, rows);
	} else {
		term_backend(&be);
	}
	memset(&ui, 0, sizeof ui);
	if (ui_init(&ui) < 0 || loop_signals_init() < 0) {
		fprintf(stderr, "cudbg-tui: out of memory starting the screen\n");
		ui_free(&ui);
		script_free(script);
		return 2;
	}
	g = glue_new(&ui, o, err, sizeof err);
	if (!g) {
		fprintf(stderr, "cudbg-tui: %s\n", err);
		ui_free(&ui);
		script_free(script);
		return 2;
	}
	atexit(term_emergency_restore);
	st = screen_run(&ui, g, &be, script);
	bool gone = ui.model && ui.model->state == MODEL_GONE;
	if (gone)
		say_why(&ui, st);
	glue_free(g);
	if (!gone)
		say_why(&ui, st);
	ui_free(&ui);
	script_free(script);
	if (st > 128 && st < 128 + NSIG) {
		/* Leave as the signal asked, with the terminal restored and
		 * the debugger gone. */
		signal(st - 128, SIG_DFL);
		raise(st - 128);
	}
	return st;
}
