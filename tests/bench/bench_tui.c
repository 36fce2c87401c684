/* Screen speed.
 *
 *   redraw_big_grid: one redraw (panes into the cell grid, then curses
 *     writing the changes to /dev/null) with the big_grid threads table
 *     (42,023 rows) in the model, scrolling a page per redraw; the
 *     reference is the same redraw of an empty screen in the same run.
 *   key_latency_p99: keypress to screen while the 10.5 MB threads line is
 *     parsed and decoded: see key_latency() below.
 *
 * Prints: measure=NAME value=X unit=U ref=Y ratio=R */
#include "cudbg/decode.h"
#include "cudbg/mi.h"
#include "cudbg/model.h"
#include "cudbg/session.h"
#include "tui/backend.h"
#include "tui/glue.h"
#include "tui/keys.h"
#include "tui/loop.h"
#include "tui/sanitize.h"
#include "tui/ui.h"

#include "cudbg/options.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include "tests/bench/util.h"

#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define COLS 200
#define ROWS 60
#define ITER 400

static const char *fixtures(void)
{
	const char *f = getenv("CUDBG_FIXTURES");
	return f && *f ? f : "tests/shared/fixtures";
}

static void take_table(void *ctx, const struct mi_record *rec)
{
	struct dbg_model *m = ctx;
	struct dec_table t;

	memset(&t, 0, sizeof t);
	if (dec_table_decode(rec->results, &t) == 0)
		model_take_table(m, MODEL_T_THREADS, &t);
}

/* The pane that would show the threads: the side area's, else the source. */
static void focus_side(struct ui *ui)
{
	for (int a = AREA_SIDE_TOP; a <= AREA_SIDE_BOTTOM; a++)
		if (ui->area_pane[a] >= 0) {
			ui_focus(ui, &ui->panes[ui->area_pane[a]]);
			return;
		}
}

/* Mean seconds per redraw over ITER redraws, a page scrolled each. */
static double redraw_cost(struct ui *ui, struct backend *be)
{
	double t0;

	for (int i = 0; i < 20; i++) { /* warm up */
		ui_key(ui, TK_PGDN, NULL);
		ui_draw(ui);
		be->flush(be, &ui->grid);
	}
	t0 = bench_now();
	for (int i = 0; i < ITER; i++) {
		ui_key(ui, i % 200 == 199 ? TK_HOME : TK_PGDN, NULL);
		ui_draw(ui);
		be->flush(be, &ui->grid);
	}
	return (bench_now() - t0) / ITER;
}

static int setup(struct ui *ui, struct backend *be, FILE *out, FILE *in)
{
	char err[256];

	memset(ui, 0, sizeof(*ui));
	if (ui_init(ui) < 0)
		return -1;
	term_backend_on(be, out, in);
	if (be->start(be, err, sizeof err) < 0) {
		fprintf(stderr, "bench_tui: %s\n", err);
		return -1;
	}
	ui_resize(ui, COLS, ROWS);
	return 0;
}

/* ---- keypress to screen while a 10 MB record is parsed ----
 *
 * The real path: the controller over a replay of big_grid (a fake
 * debugger process answering through pipes), the session's reads and the
 * parser in the UI's loop.  A thread types a key every millisecond into a
 * pipe that stands for the keyboard; the latency of a key is the time from
 * its write to the end of the screen flush after the loop read it.  The
 * measured phase re-fetches the whole 42,023-row threads table (one 10.5
 * MB line) again and again; the reference phase types into the same idle
 * screen. */

#define MAXK 20000

struct keyboard {
	int rfd, wfd;
	double sent[MAXK];
	int nsent;             /* written (by the typist) */
	int nread;             /* read (by the loop) */
	int first_unflushed;   /* read but not yet on screen */
	volatile int stop;
	double lat[MAXK];
	int nlat;
	struct backend *inner; /* draws for real (curses to /dev/null) */
};

static struct keyboard kb;

static void *typist(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&kb.stop, __ATOMIC_ACQUIRE)) {
		int i = __atomic_load_n(&kb.nsent, __ATOMIC_RELAXED);
		struct timespec d = { 0, 1000000 };
		if (i >= MAXK)
			break;
		kb.sent[i] = bench_now();
		__atomic_store_n(&kb.nsent, i + 1, __ATOMIC_RELEASE);
		if (write(kb.wfd, "j", 1) != 1)
			break;
		nanosleep(&d, NULL);
	}
	return NULL;
}

static int kb_key_fd(struct backend *b)
{
	(void)b;
	return kb.rfd;
}

static int kb_read_key(struct backend *b, struct ui_mouse *m)
{
	char c;

	(void)b;
	(void)m;
	if (read(kb.rfd, &c, 1) != 1)
		return TK_NONE;
	/* Down and up in turn: every key moves the cursor and so reaches the
	 * screen (a key at the end of the file would not). */
	return kb.nread++ % 2 ? TK_UP : TK_DOWN;
}

static void kb_flush(struct backend *b, const struct grid *g)
{
	double t;

	kb.inner->flush(kb.inner, g);
	t = bench_now();
	(void)b;
	for (; kb.first_unflushed < kb.nread && kb.nlat < MAXK; kb.first_unflushed++)
		kb.lat[kb.nlat++] = t - kb.sent[kb.first_unflushed];
}

static void kb_size(struct backend *b, int *cols, int *rows)
{
	(void)b;
	*cols = COLS;
	*rows = ROWS;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double p99(double *v, int n)
{
	if (n == 0)
		return 0;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return v[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1];
}

/* Runs the loop while typing; `work` (may be NULL) is called whenever the
 * controller is idle, until it returns false.  Returns the p99 latency. */
static double type_while(struct loop *L, struct glue *g, struct dbg_ctl *c,
			 bool (*work)(struct dbg_ctl *), double min_s, int *samples)
{
	pthread_t th;
	double t0 = bench_now();

	kb.nlat = 0;
	kb.stop = 0;
	kb.first_unflushed = kb.nread;
	kb.nsent = kb.nread;
	if (pthread_create(&th, NULL, typist, NULL) != 0)
		return -1;
	for (;;) {
		bool idle = !ctl_busy(c);
		if (idle && (!work || !work(c)) && bench_now() - t0 >= min_s)
			break;
		loop_step(L, 5);
		glue_sync(g);
	}
	__atomic_store_n(&kb.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	/* The keys still in the pipe reach the screen too. */
	while (kb.nread < kb.nsent)
		loop_step(L, 5);
	*samples = kb.nlat;
	return p99(kb.lat, kb.nlat);
}

static int refetches;

static bool refetch_threads(struct dbg_ctl *c)
{
	struct dec_dim3 whole = { 0, 0, 0, false };

	if (refetches == 0)
		return false;
	refetches--;
	return ctl_threads_page(c, whole) > 0;
}

static bool stopped_and_idle(void *ctx)
{
	struct dbg_ctl *c = ctx;
	return ctl_model(c)->state == MODEL_STOPPED && !ctl_busy(c) && ctl_refreshed(c);
}

static int key_latency(FILE *out, FILE *in)
{
	char path[4096], err[512], examples[4096];
	const char *dirs[] = { examples, NULL };
	struct cudbg_options o;
	struct ui ui;
	struct backend inner, be;
	struct loop L;
	struct glue *g;
	int pfd[2], n_ref = 0, n_busy = 0;
	double ref, busy;

	snprintf(path, sizeof path, "%s/big_grid.mi.log.gz", fixtures());
	memset(&o, 0, sizeof o);
	o.backend = SESSION_REPLAY;
	o.replay = path;
	o.no_run = true; /* it runs the replay itself, below */
	/* The source pane shows big_grid.cu, so every key moves its cursor
	 * and reaches the screen. */
	snprintf(examples, sizeof examples, "%s/../examples", fixtures());
	o.dirs = dirs;
	o.ndirs = 1;
	memset(&ui, 0, sizeof ui);
	if (ui_init(&ui) < 0 || pipe2(pfd, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	g = glue_new(&ui, &o, err, sizeof err);
	if (!g) {
		fprintf(stderr, "bench_tui: %s\n", err);
		return -1;
	}
	term_backend_on(&inner, out, in);
	if (inner.start(&inner, err, sizeof err) < 0)
		return -1;
	kb = (struct keyboard){ .rfd = pfd[0], .wfd = pfd[1], .inner = &inner };
	be = inner;
	be.key_fd = kb_key_fd;
	be.read_key = kb_read_key;
	be.flush = kb_flush;
	be.size = kb_size;
	memset(&L, 0, sizeof L);
	L.ui = &ui;
	L.be = &be;
	L.src = glue_source(g);
	ui_resize(&ui, COLS, ROWS);

	/* To the fault stop, with its refresh answered. */
	struct dbg_ctl *c = ui.ctl;
	ctl_run_until(c, NULL, NULL, 200);
	ctl_run(c);
	if (ctl_run_until(c, stopped_and_idle, c, 30000) != 1) {
		fprintf(stderr, "bench_tui: the big_grid replay did not stop\n");
		return -1;
	}
	glue_sync(g);
	/* A fault stop focuses the diagnosis: the keys go to Source, as
	 * they did when this measure was set. */
	ui_focus(&ui, ui_pane(&ui, "source"));
	ref = type_while(&L, g, c, NULL, 0.5, &n_ref);
	refetches = 8;
	busy = type_while(&L, g, c, refetch_threads, 0, &n_busy);
	printf("measure=key_latency_p99 value=%.2f unit=ms ref=%.2f ratio=%.2f"
	       " samples=%d ref_samples=%d\n",
	       busy * 1e3, ref * 1e3, ref > 0 ? busy / ref : 0, n_busy, n_ref);
	inner.stop(&inner);
	glue_free(g);
	ui_free(&ui);
	close(pfd[0]);
	close(pfd[1]);
	return 0;
}

int main(void)
{
	char path[4096];
	size_t len = 0;
	char *line;
	struct dbg_model m;
	struct ui ui;
	struct backend be;
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	double empty, loaded;

	setenv("CUDBG_HISTORY", "", 1);
	if (!getenv("TERM") || !*getenv("TERM"))
		setenv("TERM", "xterm-256color", 1);
	sanitize_init_locale();
	snprintf(path, sizeof path, "%s/big_grid.mi.log.gz", fixtures());
	line = bench_find_line(path, "^done,CoalescedInfoCudaThreadsTable", &len);
	if (!line || !out || !in) {
		fprintf(stderr, "bench_tui: cannot read %s\n", path);
		return 1;
	}
	model_init(&m, 0, 0);
	/* Stopped on the device with the asserting thread in focus, as at
	 * big_grid's stop, so the threads pane draws the table. */
	m.state = MODEL_STOPPED;
	m.cuda = true;
	m.focus = (struct dec_focus){ .valid = true, .device = 0, .sm = 90, .warp = 2,
				      .lane = 13, .kernel = 0, .grid = 1,
				      .block = { 132, 0, 0, true }, .thread = { 77, 0, 0, true } };
	mi_parse_line(line, len, take_table, &m);
	free(line);
	if (m.tables[MODEL_T_THREADS].nr_rows < 40000) {
		fprintf(stderr, "bench_tui: the threads table did not load\n");
		return 1;
	}

	/* The reference: the same screen with nothing loaded. */
	if (setup(&ui, &be, out, in) < 0)
		return 1;
	focus_side(&ui);
	empty = redraw_cost(&ui, &be);
	be.stop(&be);
	ui_free(&ui);

	if (setup(&ui, &be, out, in) < 0)
		return 1;
	ui.model = &m;
	ui.status.state = UST_STOPPED;
	ui_changed(&ui, UCH_ALL);
	focus_side(&ui);
	loaded = redraw_cost(&ui, &be);
	be.stop(&be);
	ui_free(&ui);

	printf("measure=redraw_big_grid value=%.3f unit=ms ref=%.3f ratio=%.2f\n",
	       loaded * 1e3, empty * 1e3, loaded / empty);
	model_free(&m);
	if (key_latency(out, in) < 0)
		return 1;
	fclose(out);
	fclose(in);
	return 0;
}
