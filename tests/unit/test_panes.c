/* The state panes drawn from a model built of MI records (no debugger):
 * the GPU map's block states, its coarse mode for huge grids, and the
 * helpers the panes share. */
#include "cudbg/model.h"
#include "tests/harness.h"
#include "tests/unit/fixture.h"
#include "tui/dbgpane.h"
#include "tui/keys.h"
#include "tui/sanitize.h"
#include "tui/ui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_rec(void *ctx, const struct mi_record *rec)
{
	model_on_record(ctx, rec);
}

static void take(void *ctx, const struct mi_record *rec)
{
	struct dbg_model *m = ctx;
	struct dec_table t = { 0 };
	const char *name = rec->results->name;
	enum model_table which = strstr(name, "Kernels") ? MODEL_T_KERNELS
				 : strstr(name, "Blocks") ? MODEL_T_BLOCKS
				 : strstr(name, "Warps") ? MODEL_T_WARPS
				 : strstr(name, "Lanes") ? MODEL_T_LANES
							  : MODEL_T_THREADS;
	CHECK(dec_table_decode(rec->results, &t) == 0);
	model_take_table(m, which, &t);
}

static void feed(struct dbg_model *m, const char *line, mi_record_fn fn)
{
	CHECK(mi_parse_line(line, strlen(line), fn, m) >= 0);
}

static void kernels(struct dbg_model *m, const char *grid)
{
	char line[1024];
	snprintf(line, sizeof line,
		 "^done,InfoCudaKernelsTable={nr_rows=\"1\",nr_cols=\"10\",hdr=[],body=["
		 "InfoCudaKernelsRow={current=\"*\",kernel=\"0\",parent=\"-\",device=\"0\","
		 "grid=\"3\",status=\"Active\",sms_mask=\"0x1\",gridDim=\"%s\","
		 "blockDim=\"(256,1,1)\",invocation=\"k()\"}]}", grid);
	feed(m, line, take);
}

static void stop(struct dbg_model *m, const char *how, const char *block)
{
	char line[1024];
	snprintf(line, sizeof line,
		 "*stopped,%s,CudaFocus={device=\"0\",sm=\"128\",warp=\"0\",lane=\"0\","
		 "kernel=\"0\",grid=\"3\",blockIdx=\"%s\",threadIdx=\"(0,0,0)\"},"
		 "frame={addr=\"0x10\",func=\"k\",file=\"k.cu\",fullname=\"/k.cu\",line=\"8\","
		 "arch=\"m68k\"},thread-id=\"1\"", how, block);
	feed(m, line, on_rec);
}

/* A UI over model m showing the map zoomed at cols x rows; returns the
 * screen text (caller frees). */
static char *map_screen(struct dbg_model *m, int cols, int rows)
{
	struct ui ui;
	char *d;

	memset(&ui, 0, sizeof ui);
	CHECK(ui_init(&ui) == 0);
	ui.model = m;
	ui_resize(&ui, cols, rows);
	ui_focus(&ui, ui_pane(&ui, "gpumap"));
	ui_key(&ui, 'z', NULL);
	ui_changed(&ui, UCH_ALL);
	ui_draw(&ui);
	d = grid_dump(&ui.grid);
	ui_free(&ui);
	return d;
}

static void model_stopped(struct dbg_model *m)
{
	model_init(m, 0, 0);
	m->cuda = true;
}

TEST(map_block_states)
{
	struct dbg_model m;
	char *d;

	sanitize_init_locale();
	model_stopped(&m);
	stop(&m, "reason=\"breakpoint-hit\",disp=\"keep\",bkptno=\"1\"", "(3,0,0)");
	CHECK_INT(m.state, MODEL_STOPPED);
	kernels(&m, "(16,1,1)");
	feed(&m, "^done,CoalescedInfoCudaBlocksTable={nr_rows=\"2\",nr_cols=\"6\",hdr=[],body=["
		 "CoalescedInfoCudaBlocksRow={current=\" \",kernel=\"0\",from=\"(0,0,0)\",to=\"(5,0,0)\","
		 "count=\"6\",state=\"running\"},CoalescedInfoCudaBlocksRow={current=\" \",kernel=\"0\","
		 "from=\"(8,0,0)\",to=\"(11,0,0)\",count=\"4\",state=\"running\"}]}", take);
	/* the user moved the focus after the breakpoint stop */
	m.focus.block = (struct dec_dim3){ 9, 0, 0, true };
	d = map_screen(&m, 100, 20);
	CHECK_MSG(strstr(d, "■■■●■■··■◆■■····\n") != NULL, "%s", d);
	CHECK(strstr(d, "16 blocks, 10 resident") != NULL);
	CHECK_MSG(strstr(d, "block (9,0,0) running, in focus") != NULL, "%s", d);
	CHECK(strstr(d, "blocks: ") == NULL); /* no error line */
	free(d);

	/* A fault in block 10; a blocks table the debugger refused. */
	stop(&m, "reason=\"signal-received\",signal-name=\"CUDA_EXCEPTION_14\","
		 "signal-meaning=\"Warp Illegal Address\"", "(10,0,0)");
	model_set_table_error(&m, MODEL_T_BLOCKS, "not in this recording");
	d = map_screen(&m, 100, 20);
	CHECK_MSG(strstr(d, "··········◆·····\n") != NULL, "%s", d);
	CHECK(strstr(d, "blocks: not in this recording") != NULL);
	free(d);
	m.focus.block = (struct dec_dim3){ 0, 0, 0, true };
	d = map_screen(&m, 100, 20);
	CHECK_MSG(strstr(d, "◆·········✖·····\n") != NULL, "%s", d);
	free(d);
	model_free(&m);
}

TEST(map_of_a_huge_grid_is_coarse)
{
	struct dbg_model m;
	char *d;

	sanitize_init_locale();
	model_stopped(&m);
	stop(&m, "reason=\"signal-received\",signal-name=\"CUDA_EXCEPTION_12\","
		 "signal-meaning=\"Warp Assert\"", "(70000,0,0)");
	kernels(&m, "(100000,1,1)");
	feed(&m, "^done,CoalescedInfoCudaBlocksTable={nr_rows=\"1\",nr_cols=\"6\",hdr=[],body=["
		 "CoalescedInfoCudaBlocksRow={current=\" \",kernel=\"0\",from=\"(0,0,0)\","
		 "to=\"(49999,0,0)\",count=\"50000\",state=\"running\"}]}", take);
	m.focus.block = (struct dec_dim3){ 10, 0, 0, true };
	d = map_screen(&m, 80, 24);
	CHECK_MSG(strstr(d, "one cell = ") != NULL, "%s", d);
	CHECK(strstr(d, "✖") != NULL && strstr(d, "◆") != NULL);
	CHECK(strstr(d, "100000 blocks, 50000 resident") != NULL);
	free(d);
	model_free(&m);
}

TEST(without_a_debugger_the_panes_say_so)
{
	struct ui ui;
	char *d;
	const char *names[] = { "threads", "gpumap", "kernels", "locals", "stack", "watch",
				"warpwatch", "breakpoints", "registers", "memory" };

	sanitize_init_locale();
	memset(&ui, 0, sizeof ui);
	CHECK(ui_init(&ui) == 0);
	ui_resize(&ui, 80, 24);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		struct pane *p = ui_pane(&ui, names[i]);
		CHECK_MSG(p != NULL, "no pane %s", names[i]);
		ui_focus(&ui, p);
		/* keys reach the pane without a debugger and do no harm */
		ui_key(&ui, TK_ENTER, NULL);
		ui.prompt.open = false;
		ui_key(&ui, TK_DOWN, NULL);
		ui_draw(&ui);
		d = grid_dump(&ui.grid);
		CHECK_MSG(strstr(d, "no debugger is connected") != NULL, "%s: %s", names[i], d);
		free(d);
	}
	ui_free(&ui);
}

TEST(dim3_helpers)
{
	struct dec_dim3 d;
	const char *s;
	char buf[64];

	s = "(3,0,0) (17,0,0)";
	CHECK(dpane_parse_dim3(&s, &d) && d.x == 3 && d.y == 0 && d.z == 0);
	CHECK(dpane_parse_dim3(&s, &d) && d.x == 17);
	s = " 132";
	CHECK(dpane_parse_dim3(&s, &d) && d.x == 132 && d.y == 0 && d.z == 0 && d.valid);
	s = "4, 5,6";
	CHECK(dpane_parse_dim3(&s, &d) && d.x == 4 && d.y == 5 && d.z == 6);
	s = "(3,0";
	CHECK(!dpane_parse_dim3(&s, &d));
	s = "x";
	CHECK(!dpane_parse_dim3(&s, &d));
	s = "99999999999";
	CHECK(!dpane_parse_dim3(&s, &d));
	CHECK_STR(dpane_dim3_range(buf, sizeof buf, (struct dec_dim3){ 64, 0, 0, true },
				   (struct dec_dim3){ 95, 0, 0, true }), "(64..95,0,0)");
	CHECK_STR(dpane_dim3_range(buf, sizeof buf, (struct dec_dim3){ 1, 0, 0, true },
				   (struct dec_dim3){ 1, 0, 0, true }), "(1,0,0)");
	CHECK_STR(dpane_dim3_range(buf, sizeof buf, (struct dec_dim3){ 0, 1, 0, true },
				   (struct dec_dim3){ 0, 2, 0, true }), "(0,1,0)..(0,2,0)");
	/* cuda-gdb's order: x fastest */
	CHECK(dpane_dim3_cmp((struct dec_dim3){ 5, 0, 0, true }, (struct dec_dim3){ 0, 1, 0, true }) < 0);
	CHECK(dpane_bt_cmp((struct dec_dim3){ 1, 0, 0, true }, (struct dec_dim3){ 900, 0, 0, true },
			   (struct dec_dim3){ 2, 0, 0, true }, (struct dec_dim3){ 0, 0, 0, true }) < 0);
	CHECK_INT(dpane_popcount(0xffffffffffffffffull), 64);
	/* each pane declares the data it needs (pane_ops.wants) */
	CHECK_INT(pane_registers_ops.wants, MODEL_WANT_REGS);
	CHECK_INT(pane_gpumap_ops.wants,
		  MODEL_WANT_BLOCKS | MODEL_WANT_SMS | MODEL_WANT_WARPS);
	CHECK_INT(pane_source_ops.wants, 0);
}

static void regnames(const struct mi_record *rec, void *out)
{
	struct dbg_model *m = out;
	struct dec_regnames n = { 0 };
	CHECK(dec_regnames_decode(rec->results, &n) == 0);
	model_take_regnames(m, &n, "m68k");
}

static void regvals_rec(const struct mi_record *rec, void *out)
{
	CHECK(dec_regvals_decode(rec->results, out) == 0);
}

/* Values for R0..R3 (numbers 2..5), P0, UR0 by name, as
 * -data-list-register-values would answer. */
static void regvals(struct dbg_model *m, const char *r1)
{
	char line[1024];
	int p0 = -1, ur0 = -1;
	for (size_t i = 0; i < m->nregs; i++) {
		if (!strcmp(m->regs[i].name, "P0"))
			p0 = (int)i;
		if (!strcmp(m->regs[i].name, "UR0"))
			ur0 = (int)i;
	}
	CHECK(p0 > 0 && ur0 > 0);
	snprintf(line, sizeof line,
		 "^done,register-values=[{number=\"2\",value=\"0x0\"},{number=\"3\",value=\"%s\"},"
		 "{number=\"4\",value=\"0x20\"},{number=\"5\",value=\"0x7\"},"
		 "{number=\"%d\",value=\"0x1\"},{number=\"%d\",value=\"0x4\"}]", r1, p0, ur0);
	struct dec_regvals v = { 0 };
	fx_with_record(line, regvals_rec, &v);
	model_set_regvals(m, &v);
	dec_regvals_free(&v);
}

static char *regs_screen(struct dbg_model *m)
{
	struct ui ui;
	char *d;

	memset(&ui, 0, sizeof ui);
	CHECK(ui_init(&ui) == 0);
	ui.model = m;
	ui_resize(&ui, 100, 24);
	ui_focus(&ui, ui_pane(&ui, "registers"));
	ui_key(&ui, 'z', NULL);
	ui_changed(&ui, UCH_ALL);
	ui_draw(&ui);
	d = grid_dump(&ui.grid);
	ui_free(&ui);
	return d;
}

TEST(device_registers_grouped_and_changed)
{
	struct dbg_model m;
	char *d;

	sanitize_init_locale();
	model_stopped(&m);
	stop(&m, "reason=\"breakpoint-hit\",disp=\"keep\",bkptno=\"1\"", "(0,0,0)");
	fx_decode("seed_py.mi.log", "-data-list-register-names", "^done", 0, regnames, &m);
	CHECK(m.nregs > 500);
	regvals(&m, "0x10");
	d = regs_screen(&m);
	CHECK_MSG(strstr(d, "device (SASS), 0 changed") && strstr(d, "General (R)") &&
		  strstr(d, "Predicates (P)") && strstr(d, "Uniform (UR)"), "%s", d);
	CHECK(strstr(d, "R1 ") && strstr(d, "0x10"));
	free(d);
	/* the next stop: R1 changed */
	stop(&m, "reason=\"end-stepping-range\"", "(0,0,0)");
	regvals(&m, "0x11");
	d = regs_screen(&m);
	CHECK_MSG(strstr(d, "device (SASS), 1 changed") && strstr(d, "0x11"), "%s", d);
	free(d);
	model_free(&m);
}

TEST(threads_uncoalesced_rows)
{
	struct dbg_model m;
	struct ui ui;
	char *d;

	sanitize_init_locale();
	model_stopped(&m);
	stop(&m, "reason=\"breakpoint-hit\",disp=\"keep\",bkptno=\"1\"", "(0,0,0)");
	m.focus.thread = (struct dec_dim3){ 1, 0, 0, true };
	m.threads_block = (struct dec_dim3){ 0, 0, 0, true };
	feed(&m, "^done,UncoalescedInfoCudaThreadsTable={nr_rows=\"3\",nr_cols=\"11\",hdr=[],body=["
		 "UncoalescedInfoCudaThreadsRow={current=\" \",kernel=\"0\",blockIdx=\"(0,0,0)\","
		 "threadIdx=\"(0,0,0)\",virtual_pc=\"0x00007ffddb7a2900\",device=\"0\",sm=\"128\","
		 "warp=\"0\",lane=\"0\",filename=\"/src/examples/big_grid.cu\",line=\"17\"},"
		 "UncoalescedInfoCudaThreadsRow={current=\"*\",kernel=\"0\",blockIdx=\"(0,0,0)\","
		 "threadIdx=\"(1,0,0)\",virtual_pc=\"0x00007ffddb7a2900\",device=\"0\",sm=\"128\","
		 "warp=\"0\",lane=\"1\",filename=\"/src/examples/big_grid.cu\",line=\"17\"},"
		 "UncoalescedInfoCudaThreadsRow={current=\" \",kernel=\"0\",blockIdx=\"(0,0,0)\","
		 "threadIdx=\"(2,0,0)\",virtual_pc=\"0x00007ffddb7a2910\",device=\"0\",sm=\"128\","
		 "warp=\"0\",lane=\"2\",filename=\"/src/examples/big_grid.cu\",line=\"18\"}]}", take);
	memset(&ui, 0, sizeof ui);
	CHECK(ui_init(&ui) == 0);
	ui.model = &m;
	ui_resize(&ui, 100, 24);
	ui_focus(&ui, ui_pane(&ui, "threads"));
	ui_key(&ui, 'z', NULL);
	ui_changed(&ui, UCH_ALL);
	ui_draw(&ui);
	d = grid_dump(&ui.grid);
	CHECK_MSG(strstr(d, "block (0,0,0) uncoalesced, 3 threads, row 2") != NULL, "%s", d);
	CHECK_MSG(strstr(d, "Runs on") != NULL, "%s", d);
	CHECK_MSG(strstr(d, "▶ (0,0,0) (1,0,0) sm128 w0 l1 big_grid.cu:17") != NULL, "%s", d);
	CHECK(strstr(d, "  (0,0,0) (2,0,0) sm128 w0 l2 big_grid.cu:18") != NULL);
	free(d);
	ui_free(&ui);
	model_free(&m);
}

/* A UI over m, 100x24, with pane `name` in focus and zoomed, told of a
 * new stop and drawn once. */
static struct pane *table_ui(struct ui *ui, struct dbg_model *m, const char *name)
{
	struct pane *p;

	memset(ui, 0, sizeof *ui);
	CHECK(ui_init(ui) == 0);
	ui->model = m;
	ui_resize(ui, 100, 24);
	p = ui_pane(ui, name);
	CHECK_MSG(p != NULL, "no pane %s", name);
	ui_focus(ui, p);
	ui_key(ui, 'z', NULL);
	ui_changed(ui, UCH_ALL);
	ui_draw(ui);
	return p;
}

/* The cursor row of a list pane (its state starts with the listview). */
static long cursor_of(const struct pane *p)
{
	return ((const struct listview *)p->state)->cursor;
}

static char *redraw(struct ui *ui)
{
	ui_draw(ui);
	return grid_dump(&ui->grid);
}

/* Pane `name` over m shows text. */
static void table_shows(struct dbg_model *m, const char *name, const char *text)
{
	struct ui ui;
	char *d;

	table_ui(&ui, m, name);
	d = grid_dump(&ui.grid);
	CHECK_MSG(strstr(d, text), "%s: no <%s> in\n%s", name, text, d);
	free(d);
	ui_free(&ui);
}

/* On pane `name` over m the cursor starts on row `start` (the focus) and
 * `key` puts `msg` on the hint line. */
static void key_says(struct dbg_model *m, const char *name, long start, int key,
		     const char *msg)
{
	struct ui ui;
	struct pane *p = table_ui(&ui, m, name);

	CHECK_INT(cursor_of(p), start);
	ui_key(&ui, key, NULL);
	CHECK_STR(ui.message, msg);
	ui_free(&ui);
}

/* Stopped at a breakpoint with the focus in block (9,0,0), lane 0. */
static void gpu_stopped(struct dbg_model *m)
{
	sanitize_init_locale();
	model_stopped(m);
	stop(m, "reason=\"breakpoint-hit\",disp=\"keep\",bkptno=\"1\"", "(9,0,0)");
}

/* The table panes (kernels here, blocks, warps, lanes below): the cursor
 * starts on the focus at a stop, a click below the heading selects, Enter
 * acts on the cursor's row, Left/Right scroll the invocation. */
TEST(table_pane_cursor_click_enter_and_scroll)
{
	struct dbg_model m;
	struct ui ui;
	struct pane *p;
	char *d;

	gpu_stopped(&m);
	feed(&m, "^done,InfoCudaKernelsTable={nr_rows=\"2\",nr_cols=\"10\",hdr=[],body=["
		 "InfoCudaKernelsRow={current=\" \",kernel=\"5\",parent=\"-\",device=\"0\","
		 "grid=\"7\",status=\"Active\",sms_mask=\"0x1\",gridDim=\"(2,1,1)\","
		 "blockDim=\"(32,1,1)\",invocation=\"launch_the_big_kernel(float*, int)\"},"
		 "InfoCudaKernelsRow={current=\"*\",kernel=\"0\",parent=\"-\",device=\"0\","
		 "grid=\"3\",status=\"Active\",sms_mask=\"0x1\",gridDim=\"(16,1,1)\","
		 "blockDim=\"(256,1,1)\",invocation=\"k()\"}]}", take);
	p = table_ui(&ui, &m, "kernels");
	CHECK_INT(cursor_of(p), 1);
	CHECK_INT(p->ops->click(p, &ui, 0, 1), PR_REDRAW);
	CHECK_INT(cursor_of(p), 0);
	CHECK_INT(p->ops->click(p, &ui, 0, 0), PR_IGNORED); /* the heading */
	CHECK_INT(cursor_of(p), 0);
	ui_key(&ui, TK_DOWN, NULL);
	CHECK_INT(cursor_of(p), 1);
	ui_key(&ui, TK_ENTER, NULL);
	CHECK_STR(ui.message, "kernel 0 has the focus already");
	d = redraw(&ui);
	CHECK_MSG(strstr(d, "  K Dev Grid GridDim") && strstr(d, "launch_the_big_kernel(float*"),
		  "%s", d);
	free(d);
	ui_key(&ui, TK_RIGHT, NULL);
	d = redraw(&ui);
	CHECK_MSG(strstr(d, " he_big_kernel(float*") && !strstr(d, "launch_the"), "%s", d);
	free(d);
	ui_key(&ui, TK_LEFT, NULL);
	ui_key(&ui, TK_LEFT, NULL);
	d = redraw(&ui);
	CHECK_MSG(strstr(d, "launch_the_big_kernel(float*"), "%s", d);
	free(d);
	ui_free(&ui);
	model_free(&m);
}

/* The blocks pane: the note for no rows, the focus range, F without a
 * fault. */
TEST(table_pane_blocks)
{
	struct dbg_model m;

	gpu_stopped(&m);
	feed(&m, "^done,CoalescedInfoCudaBlocksTable={nr_rows=\"0\",nr_cols=\"6\",hdr=[],"
		 "body=[]}", take);
	table_shows(&m, "blocks", "no block of this kernel is on the GPU");
	feed(&m, "^done,CoalescedInfoCudaBlocksTable={nr_rows=\"2\",nr_cols=\"6\",hdr=[],body=["
		 "CoalescedInfoCudaBlocksRow={current=\" \",kernel=\"0\",from=\"(0,0,0)\",to=\"(5,0,0)\","
		 "count=\"6\",state=\"running\"},CoalescedInfoCudaBlocksRow={current=\"*\",kernel=\"0\","
		 "from=\"(8,0,0)\",to=\"(11,0,0)\",count=\"4\",state=\"running\"}]}", take);
	table_shows(&m, "blocks", "▶ 0 (8..11,0,0)");
	key_says(&m, "blocks", 1, 'F', "the last stop was not a device exception");
	model_free(&m);
}

/* The warps and lanes panes: a table not fetched yet, one refused,
 * Enter on a warp with no active thread and on the focused lane. */
TEST(table_pane_warps_and_lanes)
{
	struct dbg_model m;
	struct ui ui;
	struct pane *p;

	gpu_stopped(&m);
	table_shows(&m, "lanes", "not fetched yet");
	model_set_table_error(&m, MODEL_T_WARPS, "not in this recording");
	table_shows(&m, "warps", "no warps table: not in this recording");
	feed(&m, "^done,InfoCudaWarpsTable={nr_rows=\"2\",nr_cols=\"8\",hdr=[],body=["
		 "InfoCudaWarpsRow={current=\" \",warp=\"0\",active_lanes_mask=\"0x00000000\","
		 "divergent_lanes_mask=\"0x00000000\",active_physical_pc=\"0x10\",kernel=\"0\","
		 "blockIdx=\"(9,0,0)\",threadIdx=\"(0,0,0)\"},"
		 "InfoCudaWarpsRow={current=\" \",warp=\"1\",active_lanes_mask=\"0x00000003\","
		 "divergent_lanes_mask=\"0x00000000\",active_physical_pc=\"0x10\",kernel=\"0\","
		 "blockIdx=\"(9,0,0)\",threadIdx=\"(32,0,0)\"}]}", take);
	key_says(&m, "warps", 0, TK_ENTER, "warp 0 has no active thread");
	feed(&m, "^done,InfoCudaLanesTable={nr_rows=\"2\",nr_cols=\"6\",hdr=[],body=["
		 "InfoCudaLanesRow={current=\"*\",lane=\"0\",state=\"active\",physical_pc=\"0x10\","
		 "threadIdx=\"(0,0,0)\",exception=\"None\"},"
		 "InfoCudaLanesRow={current=\" \",lane=\"1\",state=\"active\",physical_pc=\"0x10\","
		 "threadIdx=\"(1,0,0)\",exception=\"None\"}]}", take);
	key_says(&m, "lanes", 0, TK_ENTER, "lane 0 has the focus already");
	p = table_ui(&ui, &m, "lanes");
	CHECK_INT(p->ops->click(p, &ui, 0, 2), PR_REDRAW);
	CHECK_INT(cursor_of(p), 1);
	ui_free(&ui);
	model_free(&m);
}
