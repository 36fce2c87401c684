/* The debugger model fed with the records of real cuda-gdb transcripts
 * (no session): states, stops, breakpoints, rings, changed marks. */
#include "cudbg/model.h"
#include "tests/harness.h"
#include "tests/unit/fixture.h"

#include <stdlib.h>
#include <string.h>

TEST(ring_keeps_newest_bytes)
{
	struct model_ring r = { .cap = 8 };
	char out[16];
	CHECK_INT(model_ring_append(&r, "abc", 3), 0);
	CHECK_INT(model_ring_copy(&r, out, sizeof out), 3);
	CHECK(memcmp(out, "abc", 3) == 0);
	model_ring_append(&r, "defghij", 7); /* wraps: keeps cdefghij */
	CHECK_INT(r.len, 8);
	CHECK_INT(model_ring_copy(&r, out, sizeof out), 8);
	CHECK(memcmp(out, "cdefghij", 8) == 0);
	CHECK_INT(model_ring_copy(&r, out, 3), 3);
	CHECK(memcmp(out, "hij", 3) == 0);
	model_ring_append(&r, "0123456789XY", 12); /* larger than cap */
	CHECK_INT(model_ring_copy(&r, out, sizeof out), 8);
	CHECK(memcmp(out, "456789XY", 8) == 0);
	CHECK_INT(r.total, 22);
	model_ring_clear(&r);
	CHECK_INT(model_ring_copy(&r, out, sizeof out), 0);
	free(r.buf);
}

TEST(ring_bounded_under_load)
{
	struct dbg_model m;
	model_init(&m, 4096, 1024);
	char chunk[1000];
	memset(chunk, 'x', sizeof chunk);
	for (int i = 0; i < 10000; i++)
		model_add_output(&m, chunk, sizeof chunk);
	CHECK_INT(m.output.len, 4096);
	CHECK(m.output.total == 10000ull * 1000);
	CHECK(model_take_changes(&m) & MODEL_CH_OUTPUT);
	CHECK_INT(model_take_changes(&m), 0);
	model_free(&m);
}

/* Feeds every record of a fixture to the model, as the controller would
 * (including the results it handles itself), and samples the model at
 * the nth stop. */
struct feed {
	struct dbg_model m;
	int want_stop;      /* sample at this stop (1-based), 0: none */
	char at_stop[256];  /* model_describe_stop there */
	bool loses_error;   /* model_continue_loses_error there */
	enum model_state state_at_stop;
	struct dec_focus focus_at_stop;
};

static void feed_record(const struct mi_record *rec, void *out)
{
	struct feed *f = out;
	struct dec_bkpts one;
	if (rec->kind == MI_REC_RESULT && strcmp(rec->klass, "done") == 0 &&
	    dec_bkpt_decode(rec->results, &one) == 0)
		model_put_bkpt(&f->m, &one); /* -break-insert answer */
	unsigned ch = model_on_record(&f->m, rec);
	if ((ch & MODEL_CH_STOP) && (int)f->m.stop_count == f->want_stop) {
		model_describe_stop(&f->m, f->at_stop, sizeof f->at_stop);
		f->loses_error = model_continue_loses_error(&f->m);
		f->state_at_stop = f->m.state;
		f->focus_at_stop = f->m.focus;
	}
}

static void feed(const char *fixture, int want_stop, struct feed *f)
{
	memset(f, 0, sizeof *f);
	model_init(&f->m, 0, 0);
	f->want_stop = want_stop;
	fx_each(fixture, feed_record, f);
}

TEST(seed_py_stop_then_exit)
{
	struct feed f;
	feed("seed_py.mi.log", 1, &f);
	CHECK_STR(f.at_stop, "Warp Assert in nll_loss_forward_reduce_cuda_kernel_2d");
	CHECK_INT(f.state_at_stop, MODEL_STOPPED);
	CHECK(f.loses_error);
	CHECK(f.focus_at_stop.valid);
	CHECK_INT(f.focus_at_stop.thread.x, 23);
	/* cuda-gdb let the program run on after -exec-continue */
	CHECK_INT(f.m.state, MODEL_EXITED);
	CHECK_INT(f.m.exit_code, 0);
	CHECK(f.m.had_device_exception);
	CHECK(!model_continue_loses_error(&f.m));
	CHECK(!model_can_resume(&f.m));
	char buf[64];
	CHECK_STR(model_describe_stop(&f.m, buf, sizeof buf), "exited normally");
	CHECK(!f.m.focus.valid);
	/* the console ring holds the stream records */
	char *con = malloc(f.m.console.len + 1);
	con[model_ring_copy(&f.m.console, con, f.m.console.len)] = '\0';
	CHECK(strstr(con, "received signal CUDA_EXCEPTION_12"));
	free(con);
	model_free(&f.m);
}

TEST(null_write_killed)
{
	struct feed f;
	feed("null_write.mi.log", 1, &f);
	CHECK_STR(f.at_stop, "Warp Illegal Address in apply");
	CHECK_INT(f.m.state, MODEL_EXITED);
	CHECK(f.m.exited_signalled);
	CHECK_STR(f.m.exit_signal, "SIGKILL");
	char buf[64];
	CHECK_STR(model_describe_stop(&f.m, buf, sizeof buf),
		  "killed by SIGKILL (Killed)");
	/* the last answer was ^error: it is the model's error line */
	CHECK_STR(f.m.error, "The program is not being run.");
	model_free(&f.m);
}

TEST(trap_and_recursion_and_attach_stops)
{
	struct feed f;
	feed("trap.mi.log", 1, &f);
	CHECK_STR(f.at_stop, "Trace/breakpoint trap");
	CHECK(f.loses_error);
	model_free(&f.m);
	feed("recursion.mi.log", 1, &f);
	CHECK_STR(f.at_stop, "Lane User Stack Overflow in depth");
	model_free(&f.m);
	feed("attach.mi.log", 1, &f);
	CHECK_STR(f.at_stop, "0 (Signal 0) in clock_nanosleep");
	CHECK(!f.loses_error);
	model_free(&f.m);
	feed("remote.mi.log", 1, &f);
	CHECK_STR(f.at_stop, "Stopped in ??");
	model_free(&f.m);
}

TEST(step_kernel_breakpoints_and_steps)
{
	struct feed f;
	feed("step_kernel.mi.log", 1, &f);
	CHECK_STR(f.at_stop, "Breakpoint 1 in saxpy2");
	CHECK(!f.loses_error);
	model_free(&f.m);
	feed("step_kernel.mi.log", 2, &f);
	CHECK_STR(f.at_stop, "Step in saxpy2");
	/* -break-delete by MI sends no notification: both remain known */
	CHECK_INT(f.m.nbkpts, 2);
	const struct dec_bkpt *b = model_bkpt_at(&f.m, "step_kernel.cu", 11);
	CHECK(b && b->number == 2);
	CHECK(model_bkpt_at(&f.m, "/elsewhere/step_kernel.cu", 11) == b);
	CHECK(model_bkpt_at(&f.m, "step_kernel.cu", 12) == NULL);
	CHECK(model_bkpt_at(&f.m, "other.cu", 11) == NULL);
	b = model_bkpt_by_number(&f.m, 1);
	CHECK(b && b->times == 1);
	CHECK(model_bkpt(&f.m, 0) == b);
	CHECK(model_bkpt(&f.m, 2) == NULL);
	model_del_bkpt(&f.m, 1);
	CHECK_INT(f.m.nbkpts, 1);
	CHECK(model_bkpt(&f.m, 0)->number == 2);
	model_del_bkpt(&f.m, 42);
	CHECK_INT(f.m.nbkpts, 1);
	model_free(&f.m);
}

static void do_stack(const struct mi_record *r, void *out)
{
	CHECK_INT(dec_stack_decode(r->results, out), 0);
}

TEST(source_frame_and_finish)
{
	struct feed f;
	feed("assert_label.mi.log", 1, &f);
	CHECK_STR(f.at_stop, "Warp Assert");
	struct dec_stack st;
	fx_decode("assert_label.mi.log", "-stack-list-frames", "^done", 0,
		  do_stack, &st);
	/* pretend we are still at the stop */
	f.m.state = MODEL_STOPPED;
	f.m.focus.valid = true;
	model_take_frames(&f.m, &st);
	CHECK(st.arena == NULL);
	CHECK_INT(f.m.selected_frame, 0);
	const struct dec_frame *src = model_source_frame(&f.m);
	CHECK(src && src->level == 1);
	CHECK_STR(src->file, "assert_label.cu");
	CHECK(!model_finish_refused(&f.m)); /* frame 0 can finish */
	f.m.selected_frame = 1;
	CHECK(model_finish_refused(&f.m));  /* the kernel's own frame */
	CHECK(model_frame(&f.m) == src);
	char buf[128];
	model_describe_stop(&f.m, buf, sizeof buf);
	CHECK_STR(buf, "exited normally");
	model_free(&f.m);
}

static void do_regnames(const struct mi_record *r, void *out)
{
	CHECK_INT(dec_regnames_decode(r->results, out), 0);
}

static void do_regvals(const struct mi_record *r, void *out)
{
	CHECK_INT(dec_regvals_decode(r->results, out), 0);
}

static void apply(const struct mi_record *r, void *out)
{
	model_on_record(out, r);
}

TEST(registers_and_watches_changed_since_last_stop)
{
	struct dbg_model m;
	model_init(&m, 0, 0);
	struct dec_regnames n;
	fx_decode("assert_label.mi.log", "-data-list-register-names", "^done",
		  0, do_regnames, &n);
	model_take_regnames(&m, &n, "m68k");
	CHECK(m.nregs > 256);
	CHECK_STR(m.regs[2].name, "R0");
	CHECK_STR(m.regnames_arch, "m68k");
	m.watches = calloc(1, sizeof *m.watches);
	m.watches[0].expr = strdup("i");
	m.nwatches = 1;

	fx_with_record("*stopped,reason=\"end-stepping-range\"", apply, &m);
	struct dec_regvals v;
	fx_with_record("^done,register-values=[{number=\"2\",value=\"0x1\"},"
		       "{number=\"3\",value=\"0x5\"}]", do_regvals, &v);
	model_set_regvals(&m, &v);
	dec_regvals_free(&v);
	model_set_watch_value(&m, 0, "1", false);
	CHECK(!m.regs[2].changed && !m.regs[3].changed);
	CHECK(!m.watches[0].changed);

	fx_with_record("*stopped,reason=\"end-stepping-range\"", apply, &m);
	CHECK(m.regs[2].value == NULL); /* aged: fetched again per stop */
	fx_with_record("^done,register-values=[{number=\"2\",value=\"0x1\"},"
		       "{number=\"3\",value=\"0x6\"},{number=\"99999\","
		       "value=\"0\"}]", do_regvals, &v);
	model_set_regvals(&m, &v);
	dec_regvals_free(&v);
	CHECK(!m.regs[2].changed);
	CHECK(m.regs[3].changed);
	CHECK_STR(m.regs[3].value, "0x6");
	model_set_watch_value(&m, 0, "2", false);
	CHECK(m.watches[0].changed);
	CHECK_INT(model_set_watch_value(&m, 5, "x", false), CTL_ENOTFOUND);
	/* an error is not a change */
	fx_with_record("*stopped,reason=\"end-stepping-range\"", apply, &m);
	model_set_watch_value(&m, 0, "No symbol \"i\" in current context.",
			      true);
	CHECK(m.watches[0].error && !m.watches[0].changed);
	CHECK(model_take_changes(&m) & MODEL_CH_REGS);
	model_free(&m);
}

TEST(gone_and_errors)
{
	struct dbg_model m;
	model_init(&m, 0, 0);
	CHECK_STR(model_state_name(m.state), "not started");
	model_set_error(&m, "bad %d", 7);
	CHECK_STR(m.error, "bad 7");
	model_set_error(&m, NULL);
	CHECK(m.error == NULL);
	model_set_gone(&m, "gdb was killed by signal 9");
	CHECK_INT(m.state, MODEL_GONE);
	model_set_state(&m, MODEL_RUNNING); /* gone is final */
	CHECK_INT(m.state, MODEL_GONE);
	char buf[64];
	CHECK_STR(model_describe_stop(&m, buf, sizeof buf),
		  "gdb was killed by signal 9");
	fx_with_record("*stopped,reason=\"exited\",exit-code=\"03\"", apply, &m);
	model_free(&m);
	model_init(&m, 0, 0);
	fx_with_record("=thread-group-exited,id=\"i1\",exit-code=\"03\"", apply,
		       &m);
	fx_with_record("*stopped,reason=\"exited\",exit-code=\"03\"", apply, &m);
	CHECK_INT(m.state, MODEL_EXITED);
	CHECK_INT(m.exit_code, 3);
	CHECK_STR(model_describe_stop(&m, buf, sizeof buf), "exited with code 3");
	model_free(&m);
	model_free(&m);
}

static void do_table(const struct mi_record *r, void *out)
{
	CHECK_INT(dec_table_decode(r->results, out), 0);
}

TEST_TIMEOUT(threads_find_in_coalesced_ranges, 120)
{
	struct dbg_model m;
	model_init(&m, 0, 0);
	struct dec_table t;
	fx_decode("big_grid.mi.log.gz", "-cuda-info-kernels", "^done", 0,
		  do_table, &t);
	model_take_table(&m, MODEL_T_KERNELS, &t);
	CHECK_INT(model_focus_kernel_row(&m), 0);
	fx_decode("big_grid.mi.log.gz", "-cuda-info-threads", "^done", 0,
		  do_table, &t);
	model_take_table(&m, MODEL_T_THREADS, &t);
	struct dec_dim3 b = { 132, 0, 0, true }, th = { 77, 0, 0, true };
	long row = model_threads_find(&m, b, th);
	CHECK(row >= 0);
	struct dec_thread_row r;
	CHECK_INT(dec_table_thread(&m.tables[MODEL_T_THREADS], (size_t)row, &r), 0);
	CHECK(r.current);
	/* a range that spans two blocks: (0,0,0)/(864,0,0) .. (1,0,0)/(63,0,0) */
	struct dec_dim3 b1 = { 1, 0, 0, true }, t10 = { 10, 0, 0, true };
	row = model_threads_find(&m, b1, t10);
	CHECK(row >= 0);
	dec_table_thread(&m.tables[MODEL_T_THREADS], (size_t)row, &r);
	CHECK(r.from_block.x == 0 && r.to_block.x == 1);
	/* outside the grid */
	struct dec_dim3 far = { 999, 0, 0, true };
	CHECK_INT(model_threads_find(&m, far, th), -1);
	CHECK(dec_dim3_linear(far, (struct dec_dim3){ 264, 1, 1, true }) ==
	      UINT64_MAX);
	CHECK(dec_dim3_linear((struct dec_dim3){ 1, 2, 3, true },
			      (struct dec_dim3){ 4, 5, 6, true }) == 1 + 4 * (2 + 5 * 3));
	model_free(&m);
}

/* The culprit of a warp-level address fault is the lane whose address
 * stands apart (GPU run 25: lane 18 of lane_wild_o3, 200 MB past the
 * others' 128 bytes); addresses merely spread (a row per lane) name
 * none, nor do too few lanes or a majority far away. */
static void culprit_lanes(struct model_culprit *c, struct model_lane_addr *l,
			  size_t n, uint64_t base, uint64_t step)
{
	memset(c, 0, sizeof *c);
	c->state = MODEL_CULPRIT_DONE;
	c->lanes = l;
	c->n = n;
	for (size_t i = 0; i < n; i++) {
		memset(&l[i], 0, sizeof l[i]);
		l[i].lane = (int)i;
		l[i].has_addr = true;
		l[i].addr = base + i * step;
	}
}

TEST(culprit_is_the_lane_far_from_the_others)
{
	struct model_lane_addr l[32];
	struct model_culprit c;
	bool far[32];

	culprit_lanes(&c, l, 32, 0x7ffdd3e00400, 4);
	l[18].addr = 0x7ffddfcbc600;
	CHECK_INT((int)model_culprit_far(&c, far), 1);
	CHECK(far[18] && !far[17] && !far[19]);
	CHECK_INT(model_culprit_lane(&c), 18);
	/* a row of 1 MiB per lane: spread, no outlier */
	culprit_lanes(&c, l, 32, 0x7ffd00000000, 1 << 20);
	CHECK_INT(model_culprit_lane(&c), -1);
	/* half the lanes far away: not a minority */
	culprit_lanes(&c, l, 32, 0x7ffdd3e00400, 4);
	for (int i = 0; i < 16; i++)
		l[i].addr += 1ull << 32;
	CHECK_INT(model_culprit_lane(&c), -1);
	/* three lanes with an address: too few to call one apart */
	culprit_lanes(&c, l, 3, 0x1000, 4);
	l[2].addr = 1ull << 40;
	CHECK_INT(model_culprit_lane(&c), -1);
	/* a lane whose address did not evaluate is never the culprit */
	culprit_lanes(&c, l, 32, 0x7ffdd3e00400, 4);
	l[5].addr = 0;
	l[5].has_addr = false;
	CHECK_INT(model_culprit_lane(&c), -1);
	/* the search did not finish */
	culprit_lanes(&c, l, 32, 0x7ffdd3e00400, 4);
	l[7].addr = 0;
	c.state = MODEL_CULPRIT_FAILED;
	CHECK_INT(model_culprit_lane(&c), -1);
}

static void feed_line_record(void *ctx, const struct mi_record *rec)
{
	model_on_record(ctx, rec);
}

/* Feeds MI lines one by one (mi_parse_line) to a model. */
static void feed_lines(struct dbg_model *m, const char *const *lines)
{
	for (size_t i = 0; lines[i]; i++)
		mi_parse_line(lines[i], strlen(lines[i]), feed_line_record, m);
}

static char *console_text(const struct dbg_model *m)
{
	static char buf[4096];
	size_t n = model_ring_copy(&m->console, buf, sizeof buf - 1);
	buf[n] = '\0';
	return buf;
}

/* cuda-gdb 13 at a PyTorch stop: the same two driver warnings by turns,
 * eight times each (tests/shared/fixtures/seed_py.mi.log); notifications
 * between them do not end the run, other console text does. */
TEST(driver_warnings_counted_on_one_line)
{
	static const char *const lines[] = {
		"~\"warning: Cuda Driver error detected: A\\n\"",
		"~\"warning: Cuda Driver error detected: B\\n\"",
		"~\"warning: Cuda Driver error detected: A\\n\"",
		"=library-loaded,id=\"/lib/x.so\"",
		"~\"warning: Cuda Driver error detected: B\\n\"",
		"~\"warning: Cuda Driver error detected: A\\n\"",
		"~\"[New Thread 0x7fff (LWP 9)]\\n\"",
		"~\"warning: other\\n\"",
		"^done",
		"~\"warning: two\\nlines\\n\"",
		NULL,
	};
	struct dbg_model m;
	CHECK_INT(model_init(&m, 0, 0), 0);
	feed_lines(&m, lines);
	CHECK_STR(console_text(&m),
		  "(x3) warning: Cuda Driver error detected: A\n"
		  "(x2) warning: Cuda Driver error detected: B\n"
		  "[New Thread 0x7fff (LWP 9)]\n"
		  "warning: other\n"
		  "warning: two\nlines\n");
	model_free(&m);
}

/* gdb 13's MI prints no word of these stops; the CLI does. */
TEST(stop_explanations_gdb_mi_leaves_out)
{
	static const char *const lines[] = {
		"*stopped,reason=\"watchpoint-scope\",wpnum=\"2\",thread-id=\"1\"",
		"*running,thread-id=\"all\"",
		"*stopped,reason=\"function-finished\",gdb-result-var=\"$1\","
		"return-value=\"3\",thread-id=\"1\"",
		"*running,thread-id=\"all\"",
		/* a typed finish: gdb said it itself */
		"~\"Value returned is $2 = 5\\n\"",
		"*stopped,reason=\"function-finished\",gdb-result-var=\"$2\","
		"return-value=\"5\",thread-id=\"1\"",
		NULL,
	};
	struct dbg_model m;
	CHECK_INT(model_init(&m, 0, 0), 0);
	feed_lines(&m, lines);
	CHECK_STR(console_text(&m),
		  "Watchpoint 2 deleted because the program has left the block "
		  "in which its expression is valid.\n"
		  "Value returned is $1 = 3\n"
		  "Value returned is $2 = 5\n");
	model_free(&m);
}

/* A typed command's error comes as a log line and then as ^error: the
 * console shows it once (it showed it twice). */
TEST(typed_error_once)
{
	static const char *const lines[] = {
		"&\"Undefined command: \\\"nish\\\".  Try \\\"help\\\".\\n\"",
		"^error,msg=\"Undefined command: \\\"nish\\\".  Try \\\"help\\\".\"",
		"^error,msg=\"No stack.\"",
		NULL,
	};
	struct dbg_model m;
	CHECK_INT(model_init(&m, 0, 0), 0);
	feed_lines(&m, lines);
	CHECK_STR(console_text(&m),
		  "Undefined command: \"nish\".  Try \"help\".\n"
		  "No stack.\n");
	model_free(&m);
}
