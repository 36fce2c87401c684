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
#include "tui/backend.h"
#include "tui/keys.h"
#include "tui/sanitize.h"
#include "tui/ui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define COLS 200
#define ROWS 60
#define ITER 400

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *fixtures(void)
{
	const char *f = getenv("CUDBG_FIXTURES");
	return f && *f ? f : "../shared/fixtures";
}

/* The longest `<` line starting with prefix in a gzipped transcript. */
static char *find_line(const char *path, const char *prefix, size_t *out)
{
	char cmd[4096], *line = NULL, *best = NULL;
	size_t cap = 0, best_len = 0;
	ssize_t n;
	FILE *f;

	snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
	if (!(f = popen(cmd, "r")))
		return NULL;
	while ((n = getline(&line, &cap, f)) > 0) {
		char *lt = strstr(line, " < ");
		if (!lt || lt - line > 16 || strncmp(lt + 3, prefix, strlen(prefix)) != 0)
			continue;
		size_t len = (size_t)(line + n - (lt + 3));
		while (len && (lt[3 + len - 1] == '\n' || lt[3 + len - 1] == '\r'))
			len--;
		if (len > best_len) {
			free(best);
			best = malloc(len + 1);
			memcpy(best, lt + 3, len);
			best[len] = '\0';
			best_len = len;
		}
	}
	free(line);
	pclose(f);
	*out = best_len;
	return best;
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
	t0 = now();
	for (int i = 0; i < ITER; i++) {
		ui_key(ui, i % 200 == 199 ? TK_HOME : TK_PGDN, NULL);
		ui_draw(ui);
		be->flush(be, &ui->grid);
	}
	return (now() - t0) / ITER;
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
	line = find_line(path, "^done,CoalescedInfoCudaThreadsTable", &len);
	if (!line || !out || !in) {
		fprintf(stderr, "bench_tui: cannot read %s\n", path);
		return 1;
	}
	model_init(&m, 0, 0);
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
	fclose(out);
	fclose(in);
	return 0;
}
