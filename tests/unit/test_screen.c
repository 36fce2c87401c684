/* Headless screen tests of the framework against plain data: a fake
 * debugger side that answers through a pipe (so waits are on real poll
 * events), scripts of keys in, screens out. */
#include "tests/harness.h"
#include "tests/unit/screen_util.h"
#include "tui/backend.h"
#include "tui/loop.h"
#include "tui/sanitize.h"
#include "tui/script.h"

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The fake debugger: actions write a byte to a pipe; when the loop sees
 * it readable, the fake "stops" one line further on. */
struct fake {
	struct ui *ui;
	int pipe[2];
	char pending;       /* the action in flight */
	struct ui_bp bps[8];
	char examples[4096];
	const char *dirs[2];
};

static struct fake F;

static void fake_send(char what)
{
	F.pending = what;
	F.ui->busy = true;
	snprintf(F.ui->busy_what, sizeof F.ui->busy_what, "%c", what);
	clock_gettime(CLOCK_MONOTONIC, &F.ui->busy_since);
	CHECK(write(F.pipe[1], &what, 1) == 1);
}

static int fake_act(struct ui *ui, enum ui_action a, const char *arg)
{
	(void)ui;
	switch (a) {
	case UA_NEXT: case UA_STEP: fake_send('n'); break;
	case UA_CONTINUE: fake_send('c'); break;
	case UA_UNTIL: fake_send(arg ? 'U' : 'n'); break;
	default: ui_message(ui, UC_WARN, "fake: action %d", a); break;
	}
	return 0;
}

static const struct ui_actions fake_actions = {
	.act = fake_act,
};

static int fake_fds(void *ctx, struct pollfd *pfd, int max)
{
	(void)ctx;
	if (max < 1)
		return 0;
	pfd[0] = (struct pollfd){ F.pipe[0], POLLIN, 0 };
	return 1;
}

static void fake_ready(void *ctx, struct pollfd *pfd, int n)
{
	char c;
	(void)ctx;
	if (n < 1 || !(pfd[0].revents & POLLIN) || read(F.pipe[0], &c, 1) != 1)
		return;
	F.ui->busy = false;
	F.ui->where.line += c == 'U' ? 3 : 1;
	F.ui->status.state = UST_STOPPED;
	snprintf(F.ui->status.reason, sizeof F.ui->status.reason, "end of step in saxpy2");
	F.ui->stops++;
	ui_changed(F.ui, UCH_STOP);
}

/* A UI stopped at step_kernel.cu:8 in saxpy2, like the real fixture. */
static void fake_setup(struct ui *ui)
{
	const char *ex = getenv("CUDBG_EXAMPLES");
	memset(&F, 0, sizeof F);
	F.ui = ui;
	CHECK(pipe2(F.pipe, O_CLOEXEC | O_NONBLOCK) == 0);
	if (ex && *ex)
		snprintf(F.examples, sizeof F.examples, "%s", ex);
	else
		snprintf(F.examples, sizeof F.examples, "%s/../examples", test_fixtures_dir());
	F.dirs[0] = F.examples;
	ui->source_dirs = F.dirs;
	ui->actions = &fake_actions;
	ui->bps = F.bps;
	snprintf(ui->status.program, sizeof ui->status.program, "step_kernel");
	ui->status.state = UST_STOPPED;
	snprintf(ui->status.reason, sizeof ui->status.reason, "breakpoint 1 in saxpy2");
	snprintf(ui->status.focus, sizeof ui->status.focus,
		 "kernel 0 grid 3 block (0,0,0) thread (0,0,0) dev 0 sm 128 warp 0 lane 0");
	snprintf(ui->where.file, sizeof ui->where.file, "step_kernel.cu");
	snprintf(ui->where.fullname, sizeof ui->where.fullname, "/src/examples/step_kernel.cu");
	snprintf(ui->where.func, sizeof ui->where.func, "saxpy2");
	ui->where.line = 8;
	ui->where.pc = 0x7ffddb7a16a0;
	ui->where.has_pc = true;
	ui_changed(ui, UCH_STOP);
}

/* Runs a script on a fresh UI of cols x rows; returns the loop status. */
static int run(const char *text, int cols, int rows, void (*setup)(struct ui *))
{
	struct ui ui;
	struct backend be;
	struct loop L;
	char err[256];
	int st;

	setenv("CUDBG_HISTORY", "", 1);
	setenv("CUDBG_TEST_WAIT", "10", 1);
	CHECK(sanitize_init_locale() == 0);
	memset(&ui, 0, sizeof ui);
	CHECK(ui_init(&ui) == 0);
	headless_backend(&be, cols, rows);
	CHECK(be.start(&be, err, sizeof err) == 0);
	ui.mono = be.mono;
	memset(&L, 0, sizeof L);
	L.ui = &ui;
	L.be = &be;
	L.script = script_load(screen_write_script(text), err, sizeof err);
	CHECK_MSG(L.script != NULL, "%s", err);
	if (setup) {
		setup(&ui);
		L.src = (struct loop_source){ .fds = fake_fds, .ready = fake_ready };
	}
	CHECK(loop_signals_init() == 0);
	st = loop_run(&L);
	script_free(L.script);
	be.stop(&be);
	ui_free(&ui);
	return st;
}

TEST(help_overlay)
{
	CHECK_INT(run("?\n:dump unit_screen-help.txt\n<PgDn>\n:dump unit_screen-help2.txt\n<Esc>\n:dump after.txt\n", 100, 30, fake_setup), 0);
	screen_check("unit_screen-help.txt");
	screen_check("unit_screen-help2.txt");
	/* Every global key is listed somewhere in the help. */
	char path[256];
	snprintf(path, sizeof path, "%s/unit_screen-help.txt", screen_tmpdir());
	char *h1 = screen_slurp(path);
	CHECK(h1 != NULL);
	CHECK(strstr(h1, "continue") && strstr(h1, "F5") && strstr(h1, "F10") && strstr(h1, "F11") &&
	      strstr(h1, "F9"));
	free(h1);
}

TEST(resize_sequence)
{
	CHECK_INT(run(":resize 120 40\n:dump unit_screen-r120x40.txt\n:resize 80 24\n:dump unit_screen-r80x24.txt\n"
		      ":resize 40 10\n:dump unit_screen-r40x10.txt\n:resize 30 8\n:dump unit_screen-r30x8.txt\n"
		      ":resize 100 30\n:dump unit_screen-r100x30.txt\n", 100, 30, fake_setup), 0);
	screen_check("unit_screen-r120x40.txt");
	screen_check("unit_screen-r80x24.txt");
	screen_check("unit_screen-r40x10.txt");
	screen_check("unit_screen-r30x8.txt");
	screen_check("unit_screen-r100x30.txt");
}

TEST(step_with_fake_debugger)
{
	CHECK_INT(run(":dump unit_screen-step8.txt\nn\n:wait-stop\n:dump unit_screen-step9.txt\n<F10>\n:wait-stop\n"
		      ":dump unit_screen-step10.txt\n", 120, 30, fake_setup), 0);
	screen_check("unit_screen-step8.txt");
	screen_check("unit_screen-step9.txt");
	screen_check("unit_screen-step10.txt");
}

TEST(breakpoint_search_until)
{
	CHECK_INT(run("/square<Enter>\n:dump unit_screen-search.txt\nn\n:dump unit_screen-search2.txt\n<Esc>\n"
		      "<Down>b\n:dump unit_screen-bp.txt\nu\n:wait-stop\n:dump unit_screen-until.txt\n", 120, 30, fake_setup), 0);
	screen_check("unit_screen-search.txt");
	screen_check("unit_screen-search2.txt");
	screen_check("unit_screen-bp.txt");
	screen_check("unit_screen-until.txt");
}

TEST(quit_asks_while_alive)
{
	CHECK_INT(run("q\n:dump unit_screen-quit_ask.txt\nn\n:dump unit_screen-quit_no.txt\nq\ny\n:dump never.txt\n",
		      100, 30, fake_setup), 0);
	screen_check("unit_screen-quit_ask.txt");
	screen_check("unit_screen-quit_no.txt");
	char p[256];
	snprintf(p, sizeof p, "%s/never.txt", screen_tmpdir());
	CHECK(access(p, F_OK) != 0); /* y quit before the dump */
}

static void fault_setup(struct ui *ui)
{
	fake_setup(ui);
	ui->status.fault = true;
	snprintf(ui->status.reason, sizeof ui->status.reason,
		 "Warp Assert in nll_loss_forward_reduce_cuda_kernel_2d");
	ui->where.file[0] = ui->where.fullname[0] = '\0';
	ui->where.line = 0;
	snprintf(ui->where.func, sizeof ui->where.func, "%s",
		 "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d"
		 "<float, float, long>(float*, float*, float const*, long const*, float const*, "
		 "bool, long, long, long, long)");
	snprintf(ui->where.assert_loc, sizeof ui->where.assert_loc,
		 "/pytorch/aten/src/ATen/native/cuda/Loss.cu:245");
	snprintf(ui->where.assert_expr, sizeof ui->where.assert_expr, "t >= 0 && t < n_classes");
	ui_changed(ui, UCH_STOP);
}

TEST(fault_without_source_and_continue_warns)
{
	CHECK_INT(run(":dump unit_screen-nosource.txt\nc\n:dump unit_screen-continue_warn.txt\nn\n:dump unit_screen-continue_no.txt\n",
		      100, 30, fault_setup), 0);
	screen_check("unit_screen-nosource.txt");
	screen_check("unit_screen-continue_warn.txt");
	screen_check("unit_screen-continue_no.txt");
}

/* The console's transcript as the controller writes it (the command's
 * echo, then the debugger's answer, with escapes in it). */
static void console_setup(struct ui *ui)
{
	static const char echo[] = "(gdb) print x\n";
	static const char answer[] = "$1 = \x1b[31m42\x1b[0m \x1b]0;pwned\x07\n";
	fake_setup(ui);
	ui_console_text(ui, echo, sizeof echo - 1, 0);
	ui_console_text(ui, answer, sizeof answer - 1, 'c');
}

/* Typed with no debugger connected: the line is kept in the transcript
 * and the screen says why nothing ran (the framework tests have no
 * controller: panes call it themselves, tui/dbgpane.h). */
TEST(console_and_output_are_sanitised)
{
	CHECK_INT(run(":type :print x\n<Enter>\n:dump unit_screen-console.txt\n<Esc>\n:dump unit_screen-console_left.txt\n",
		      100, 30, console_setup), 0);
	screen_check("unit_screen-console.txt");
	screen_check("unit_screen-console_left.txt");
}

static void output_setup(struct ui *ui)
{
	static const char out[] = "plain line\r\n\x1b[31mred?\x1b[0m \x1b]0;pwned\x07\r\n"
				  "bidi \xe2\x80\xae" "evil\r\nbad \xff\xfe utf8\r\nprogress 10%\r100%\r\n";
	fake_setup(ui);
	ui_output(ui, out, sizeof out - 1);
}

TEST(program_output_pane)
{
	CHECK_INT(run(":dump unit_screen-output.txt\n", 100, 30, output_setup), 0);
	screen_check("unit_screen-output.txt");
	char p[256];
	snprintf(p, sizeof p, "%s/unit_screen-output.txt", screen_tmpdir());
	char *d = screen_slurp(p);
	/* the colours go, the title sequence shows as what it was */
	CHECK(strchr(d, 0x1b) == NULL);
	CHECK(strstr(d, "red? ␛]0;pwned␇") != NULL);
	free(d);
}

TEST(mouse_selects_pane_and_row)
{
	/* Click the output pane, then a source row, at 120x30. */
	CHECK_INT(run(":click 100 25\n:dump unit_screen-click_output.txt\n:click 10 6\n:dump unit_screen-click_source.txt\n",
		      120, 30, fake_setup), 0);
	screen_check("unit_screen-click_output.txt");
	screen_check("unit_screen-click_source.txt");
}

TEST(bad_script_fails_cleanly)
{
	CHECK_INT(run("<Nope>\n", 80, 24, NULL), 1);
	CHECK_INT(run(":frobnicate\n", 80, 24, NULL), 1);
	setenv("CUDBG_TEST_WAIT", "0.2", 1);
}

TEST(spinner_while_busy)
{
	struct ui ui;
	char *d, *nl;

	CHECK(sanitize_init_locale() == 0);
	setenv("CUDBG_HISTORY", "", 1);
	memset(&ui, 0, sizeof ui);
	CHECK(ui_init(&ui) == 0);
	ui_resize(&ui, 100, 30);
	ui.busy = true;
	snprintf(ui.busy_what, sizeof ui.busy_what, "-cuda-info-threads");
	clock_gettime(CLOCK_MONOTONIC, &ui.busy_since);
	ui.busy_since.tv_sec -= 13; /* a PyTorch start takes 13 s */
	ui_draw(&ui);
	d = grid_dump(&ui.grid);
	nl = strchr(d, '\n');
	*nl = '\0';
	/* A braille spinner frame, the elapsed time and the command. */
	CHECK_MSG(strstr(d, " 13.") && strstr(d, "s -cuda-info-threads") && strstr(d, "\xe2\xa0"),
		  "status line: %s", d);
	free(d);
	ui.busy = false;
	ui_draw(&ui);
	d = grid_dump(&ui.grid);
	CHECK(!strstr(d, "-cuda-info-threads"));
	free(d);
	ui_free(&ui);
}

/* The status line's words for slow commands a user cannot read as MI;
 * any other command is shown as it is. */
TEST(busy_words_for_slow_commands)
{
	CHECK_STR(ui_busy_words("-interpreter-exec console \"sharedlibrary libtorch_cuda\""),
		  "reading torch's symbols, for the operator");
	CHECK_STR(ui_busy_words("-interpreter-exec console \"sharedlibrary libtorch_cpu\\\\|libtorch_python\""),
		  "reading torch's symbols, for the operator");
	CHECK_STR(ui_busy_words("-interpreter-exec console \"add-symbol-file /c/libtorch_cuda.so-1-2.3.lean -o 0x7f0\""),
		  "reading torch's symbols (a lean copy), for the operator");
	CHECK_STR(ui_busy_words("-interpreter-exec console \"sharedlibrary libpython\\\\|libc10\""),
		  "reading host libraries' symbols");
	CHECK_STR(ui_busy_words("-data-evaluate-expression \"(int)PyRun_SimpleString(\\\"def f\\\")\""),
		  "taking the Python stack");
	CHECK_STR(ui_busy_words("-stack-list-frames"), "-stack-list-frames");
	CHECK_STR(ui_busy_words(NULL), "");
}
