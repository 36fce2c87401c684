/* Every shared transcript and sanitizer report gives the expected
 * diagnosis: exception, kernel, block and thread, expression, file:line,
 * Python line, and the hint chosen.  The transcript's records go through
 * the real MI parser into the collector, its T lines in as terminal
 * bytes, as a live session would feed them. */
#include "cudbg/assertline.h"
#include "cudbg/diag.h"
#include "cudbg/hints.h"
#include "cudbg/memcheck.h"
#include "cudbg/mi.h"
#include "cudbg/model.h"
#include "cudbg/diagrun.h"
#include "cudbg/report.h"
#include "cudbg/sanitizer.h"
#include "tests/harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct run {
	struct diag *d;
	struct diag_rules *rules;
	const struct diag_fault *f;
	struct diag_hints hints;
};

/* The model the transcript's records build, as the controller builds
 * it: async records through model_on_record, each ^done through the
 * decoder the controller's continuation would use for its command
 * (known here by the result's key).  One run at a time. */
static struct dbg_model model;
static bool model_up;

static void model_reset(void)
{
	if (model_up)
		model_free(&model);
	CHECK_INT(model_init(&model, 0, 0), 0);
	/* the controller's state until its start sequence is answered:
	 * a core's story is told then */
	model_set_state(&model, MODEL_STARTING);
	model_up = true;
}

static void model_take_table_of(const struct mi_node *res, const char *key,
				enum model_table which)
{
	struct dec_table t;
	if (mi_find(res, key) && dec_table_decode(res, &t) == 0)
		model_take_table(&model, which, &t);
}

static void model_take_done(const struct mi_node *res)
{
	struct dec_stack st;
	struct dec_vars v;
	struct dec_focus f;
	if (mi_find(res, "stack") && dec_stack_decode(res, &st) == 0)
		model_take_frames(&model, &st);
	if (mi_find(res, "variables") && dec_vars_decode(res, &v) == 0)
		model_take_vars(&model, &v);
	if (mi_find(res, "stack-args") &&
	    dec_stack_args_decode(res, model.selected_frame, &v) == 0)
		model_take_vars(&model, &v);
	if (mi_find(res, "CudaFocus") && dec_focus_decode(res, &f) == 0)
		model_set_focus(&model, &f);
	model_take_table_of(res, "InfoCudaLanesTable", MODEL_T_LANES);
	model_take_table_of(res, "InfoCudaKernelsTable", MODEL_T_KERNELS);
}

static void on_rec(void *ctx, const struct mi_record *rec)
{
	if (!model_up)
		model_reset();
	if (rec->kind == MI_REC_RESULT && strcmp(rec->klass, "done") == 0)
		model_take_done(rec->results);
	else
		model_on_record(&model, rec);
	diag_on_record(ctx, rec);
	diag_feed_model(ctx, &model);
}

/* One transcript line: "SECONDS TAG TEXT" (../shared/fixtures/README.md). */
static void feed_line(struct diag *d, const char *l, size_t n)
{
	size_t i = 0;
	while (i < n && l[i] == ' ')
		i++;
	while (i < n && l[i] != ' ')
		i++;
	if (i + 2 >= n)
		return;
	char tag = l[i + 1];
	const char *text = l + i + 3;
	size_t len = i + 3 <= n ? n - (i + 3) : 0;
	if (tag == '<') {
		mi_parse_line(text, len, on_rec, d);
	} else if (tag == 'T') {
		diag_on_program_output(d, text, len);
		diag_on_program_output(d, "\r\n", 2);
	} else if (tag == 'E') {
		diag_on_debugger_stderr(d, text, len);
		diag_on_debugger_stderr(d, "\n", 1);
	}
}

static void feed_path(struct diag *d, const char *path)
{
	size_t len;
	char *buf = test_read_file(path, &len);
	for (size_t off = 0; off < len;) {
		char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - buf - off) : len - off;
		feed_line(d, buf + off, n);
		off += n + 1;
	}
	free(buf);
}

static void feed_log(struct diag *d, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", test_fixtures_dir(), name);
	feed_path(d, path);
}

/* The project's own GPU recordings (tests/fixtures/gpu: run 24's). */
static void feed_gpu_log(struct diag *d, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/fixtures/gpu/%s", test_root_dir(),
		 name);
	feed_path(d, path);
}

static void add_xml(struct diag *d, const char *name)
{
	char path[4096], err[512];
	snprintf(path, sizeof path, "%s/%s", test_fixtures_dir(), name);
	struct diag_san *s;
	CHECK_MSG(diag_san_load_file(path, &s, err, sizeof err) == 0, "%s", err);
	CHECK_INT(diag_add_sanitizer(d, s), 0);
}

static struct diag_rules *load_rules(void)
{
	char path[4096], err[512];
	snprintf(path, sizeof path, "%s/data/hints.rules", test_root_dir());
	struct diag_rules *r;
	CHECK_MSG(diag_rules_load_file(path, &r, err, sizeof err) == 0, "%s",
		  err);
	return r;
}

static void run_start(struct run *r, const char *argv0)
{
	memset(r, 0, sizeof *r);
	r->d = diag_new();
	model_reset();
	CHECK(r->d);
	char *argv[] = {(char *)(uintptr_t)argv0, NULL};
	char *envp[] = {NULL};
	diag_set_program(r->d, argv, envp);
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/../examples", test_fixtures_dir());
	diag_add_source_dir(r->d, dir);
	r->rules = load_rules();
}

static void run_finish(struct run *r)
{
	r->f = diag_analyze(r->d);
	CHECK(r->f);
	CHECK(diag_hints_match(r->rules, r->f, &r->hints) >= 0);
}

static void run_free(struct run *r)
{
	diag_hints_clear(&r->hints);
	diag_rules_free(r->rules);
	diag_free(r->d);
}

static void check_dim(struct diag_dim3 v, unsigned x, unsigned y, unsigned z)
{
	CHECK_MSG(v.x == x && v.y == y && v.z == z, "(%u,%u,%u) want (%u,%u,%u)",
		  v.x, v.y, v.z, x, y, z);
}

static const char *top_hint(const struct run *r)
{
	return r->hints.n ? r->hints.v[0].id : "(none)";
}

static bool has_hint(const struct run *r, const char *id)
{
	for (size_t i = 0; i < r->hints.n; i++)
		if (strcmp(r->hints.v[i].id, id) == 0)
			return true;
	return false;
}

static const struct diag_hint *hint(const struct run *r, const char *id)
{
	for (size_t i = 0; i < r->hints.n; i++)
		if (strcmp(r->hints.v[i].id, id) == 0)
			return &r->hints.v[i];
	return NULL;
}

static bool evidence_has(const struct diag_hint *h, const char *needle)
{
	for (size_t i = 0; h && i < h->n_evidence; i++)
		if (strstr(h->evidence[i], needle))
			return true;
	return false;
}

TEST(seed_py_transcript)
{
	struct run r;
	run_start(&r, "python3");
	feed_log(r.d, "seed_py.mi.log");
	run_finish(&r);
	const struct diag_fault *f = r.f;
	CHECK_INT(f->kind, DIAG_FAULT_ASSERT);
	CHECK_STR(f->signal_name, "CUDA_EXCEPTION_12");
	CHECK_INT(f->exception_code, 12);
	CHECK_STR(f->exception_name, "Warp Assert");
	CHECK_STR(f->kernel_short, "nll_loss_forward_reduce_cuda_kernel_2d");
	CHECK(f->focus.valid);
	check_dim(f->focus.block, 0, 0, 0);
	check_dim(f->focus.thread, 23, 0, 0);
	CHECK_INT(f->focus.lane, 23);
	CHECK_INT(f->n_asserts, 1);
	CHECK_STR(f->asserts[0]->expr, "t >= 0 && t < n_classes");
	CHECK_INT(f->where.source, DIAG_LOC_ASSERTION);
	CHECK_STR(f->where.file, "/pytorch/aten/src/ATen/native/cuda/Loss.cu");
	CHECK_INT(f->where.line, 245);
	CHECK(f->flags[DIAG_F_PYTORCH]);
	CHECK(f->flags[DIAG_F_PYTHON]);
	CHECK(f->flags[DIAG_F_CONTINUED_PAST_FAULT]);
	CHECK(!f->flags[DIAG_F_LANE_UNKNOWN]);
	CHECK(f->exited);
	CHECK_INT(f->exit_code, 0);
	CHECK_STR(top_hint(&r), "pytorch-class-index");
	CHECK(has_hint(&r, "continued-past-fault"));
	CHECK(has_hint(&r, "device-assert"));
	run_free(&r);
}

TEST(seed_py_with_sanitizer_report_names_the_script_line)
{
	struct run r;
	run_start(&r, "python3");
	feed_log(r.d, "seed_py.mi.log");
	add_xml(r.d, "seed_py.sanitizer.xml");
	run_finish(&r);
	const struct diag_fault *f = r.f;
	CHECK_INT(f->kind, DIAG_FAULT_ASSERT);
	CHECK(f->python.found);
	CHECK_STR(f->python.launch.file, "/src/examples/seed_repro.py");
	CHECK_INT(f->python.launch.line, 12);
	CHECK_STR(f->python.launch.func, "<module>");
	CHECK_STR(f->python.launch.source, "test_case()");
	CHECK_INT(f->python.call.line, 9);
	CHECK_STR(f->python.call.func, "test_case");
	CHECK_STR(f->python.call.source,
		  "loss = torch.nn.functional.cross_entropy(outputs, labels)");
	CHECK_STR(f->op, "nll_loss_forward");
	CHECK_INT(f->n_findings, 3);
	CHECK_INT(f->finding->kind, DIAG_SAN_IMPRECISE);
	CHECK_STR(top_hint(&r), "pytorch-class-index");
	const struct diag_hint *h = hint(&r, "pytorch-class-index");
	CHECK(evidence_has(h, "seed_repro.py:9: loss = torch.nn.functional"));
	CHECK(evidence_has(h, "ATen operator nll_loss_forward"));
	CHECK(evidence_has(h, "Threads that failed it: 1 (blocks (0,0,0)"));
	/* The sanitizer's stack is taken at the launch: the script line is
	 * right, and a CUDA_LAUNCH_BLOCKING=1 rerun would add nothing. */
	for (size_t i = 0; i < h->n_steps; i++)
		CHECK_MSG(!strstr(h->steps[i].text, "CUDA_LAUNCH_BLOCKING"),
			  "step: %s", h->steps[i].text);
	run_free(&r);
}

TEST(seed_sanitizer_report_alone)
{
	struct run r;
	run_start(&r, "python3");
	add_xml(r.d, "seed_py.sanitizer.xml");
	run_finish(&r);
	CHECK_INT(r.f->kind, DIAG_FAULT_ASSERT);
	check_dim(r.f->focus.thread, 23, 0, 0);
	CHECK_INT(r.f->python.call.line, 9);
	CHECK_STR(r.f->op, "nll_loss_forward");
	CHECK(r.f->flags[DIAG_F_PYTORCH]);
	CHECK(r.f->error_line == NULL);
	/* The operator names the check (issue 10, item 5). */
	CHECK_STR(top_hint(&r), "pytorch-nll-op");
	CHECK(has_hint(&r, "device-assert"));
	run_free(&r);
}

/* A report lent to one collector after another (the Hints pane's
 * builds) is read, never freed, by them: each sees all its findings and
 * the caller frees it once (ASan and valgrind judge the frees). */
TEST(lent_sanitizer_report_serves_many_collectors)
{
	char path[4096], err[512];
	snprintf(path, sizeof path, "%s/small_oob.sanitizer.xml",
		 test_fixtures_dir());
	struct diag_san *s;
	CHECK_MSG(diag_san_load_file(path, &s, err, sizeof err) == 0, "%s", err);
	for (int i = 0; i < 3; i++) {
		struct diag *d = diag_new();
		CHECK(d != NULL);
		CHECK_INT(diag_lend_sanitizer(d, s), 0);
		const struct diag_fault *f = diag_analyze(d);
		CHECK(f->flags[DIAG_F_SANITIZER]);
		CHECK_INT(f->n_findings, diag_san_count(s));
		diag_free(d);
	}
	CHECK(diag_san_count(s) > 0);
	diag_san_free(s);
}

TEST(assert_label_transcript)
{
	struct run r;
	run_start(&r, "./assert_label");
	feed_log(r.d, "assert_label.mi.log");
	run_finish(&r);
	const struct diag_fault *f = r.f;
	CHECK_INT(f->kind, DIAG_FAULT_ASSERT);
	CHECK_STR(f->exception_name, "Warp Assert");
	CHECK_STR(f->kernel_short, "nll_loss");
	check_dim(f->focus.block, 1, 0, 0);
	check_dim(f->focus.thread, 5, 0, 0);
	CHECK_STR(f->asserts[0]->expr, "t >= 0 && t < num_classes");
	CHECK(f->asserts[0]->full_signature);
	CHECK_INT(f->where.source, DIAG_LOC_FRAME);
	CHECK_STR(f->where.file, "assert_label.cu");
	CHECK_INT(f->where.line, 10);
	CHECK(!f->flags[DIAG_F_PYTORCH]);
	CHECK_STR(top_hint(&r), "label-range-assert");
	/* The transcript's -stack-list-arguments of every frame is an old
	 * frontend's command: the controller lists the selected frame's
	 * variables alone, so num_classes is read by diag_evaluate
	 * (evaluate_hook_fills_evidence), in frame 1. */
	CHECK(!evidence_has(hint(&r, "label-range-assert"),
			    "Number of classes in the kernel: 10"));
	CHECK_INT(diag_eval_frame(r.d), 1);
	run_free(&r);
}

TEST(null_write_transcript_warns_about_the_lane)
{
	struct run r;
	run_start(&r, "./null_write");
	feed_log(r.d, "null_write.mi.log");
	run_finish(&r);
	const struct diag_fault *f = r.f;
	CHECK_INT(f->kind, DIAG_FAULT_EXCEPTION);
	CHECK_STR(f->signal_name, "CUDA_EXCEPTION_14");
	CHECK_STR(f->exception_name, "Warp Illegal Address");
	CHECK_STR(f->scope, "warp");
	CHECK_STR(f->kernel_short, "apply");
	check_dim(f->focus.block, 1, 0, 0);
	check_dim(f->focus.thread, 0, 0, 0);
	CHECK_INT(f->where.source, DIAG_LOC_EXCEPTION);
	CHECK_STR(f->where.file, "null_write.cu");
	CHECK_INT(f->where.line, 10);
	CHECK(f->has_error_pc && f->error_pc == 0x7ffddb7a1e80ULL);
	CHECK(f->has_stop_pc && f->stop_pc == 0x7ffddb7a1e90ULL);
	CHECK(f->flags[DIAG_F_LANE_UNKNOWN]);
	CHECK(f->flags[DIAG_F_ERROR_PC_DIFFERS]);
	CHECK(f->n_notes >= 2);
	CHECK(strstr(f->notes[0], "32 lanes"));
	CHECK_STR(top_hint(&r), "exc-warp-illegal-address");
	CHECK(has_hint(&r, "lane-unknown"));
	CHECK(has_hint(&r, "error-pc-differs"));
	CHECK_STR(f->exit_signal, "SIGKILL");
	run_free(&r);
}

TEST(recursion_transcript)
{
	struct run r;
	run_start(&r, "./trap_recursion");
	feed_log(r.d, "recursion.mi.log");
	run_finish(&r);
	const struct diag_fault *f = r.f;
	CHECK_INT(f->kind, DIAG_FAULT_EXCEPTION);
	CHECK_STR(f->signal_name, "CUDA_EXCEPTION_2");
	CHECK_STR(f->exception_name, "Lane User Stack Overflow");
	CHECK(strstr(f->exception_message, "exceeds stack memory limit"));
	CHECK_STR(f->kernel_short, "recurse");
	CHECK_STR(f->where.file, "trap_recursion.cu");
	CHECK_INT(f->where.line, 5);
	CHECK(!f->flags[DIAG_F_LANE_UNKNOWN]);
	CHECK_STR(top_hint(&r), "exc-stack-overflow");
	run_free(&r);
}

TEST(trap_transcript)
{
	struct run r;
	run_start(&r, "./trap_recursion");
	feed_log(r.d, "trap.mi.log");
	run_finish(&r);
	CHECK_INT(r.f->kind, DIAG_FAULT_TRAP);
	CHECK_STR(r.f->signal_name, "SIGTRAP");
	CHECK_STR(r.f->kernel_short, "check_trap");
	CHECK_STR(r.f->where.file, "trap_recursion.cu");
	CHECK_INT(r.f->where.line, 13);
	CHECK_STR(top_hint(&r), "device-trap");
	run_free(&r);
}

TEST(cluster_transcript)
{
	struct run r;
	run_start(&r, "./cluster");
	feed_log(r.d, "cluster.mi.log");
	run_finish(&r);
	const struct diag_fault *f = r.f;
	CHECK_INT(f->kind, DIAG_FAULT_ASSERT);
	CHECK(f->focus.has_cluster);
	check_dim(f->focus.cluster, 3, 0, 0);
	check_dim(f->focus.cluster_dim, 2, 1, 1);
	check_dim(f->focus.block, 6, 0, 0);
	check_dim(f->focus.thread, 9, 0, 0);
	CHECK_STR(f->kernel_short, "pairwise");
	CHECK_STR(f->asserts[0]->expr, "v >= 0");
	CHECK_STR(f->where.file, "cluster.cu");
	CHECK_INT(f->where.line, 14);
	CHECK(r.f->error_line == NULL);
	CHECK_STR(top_hint(&r), "device-assert");
	run_free(&r);
}

TEST_TIMEOUT(big_grid_and_filters_transcripts, 120)
{
	const char *logs[] = {"big_grid.mi.log.gz", "filters.mi.log"};
	for (int i = 0; i < 2; i++) {
		struct run r;
		run_start(&r, "./big_grid");
		feed_log(r.d, logs[i]);
		run_finish(&r);
		CHECK_INT(r.f->kind, DIAG_FAULT_ASSERT);
		check_dim(r.f->focus.block, 132, 0, 0);
		check_dim(r.f->focus.thread, 77, 0, 0);
		CHECK_STR(r.f->kernel_short, "busy");
		CHECK_STR(r.f->asserts[0]->expr, "acc == -1");
		CHECK_INT(r.f->where.line, 16);
		CHECK(r.f->error_line == NULL);
	CHECK_STR(top_hint(&r), "device-assert");
		run_free(&r);
	}
}

TEST(attach_and_remote_transcripts)
{
	struct {
		const char *log, *kernel;
		unsigned bx, tx;
	} c[] = {{"attach.mi.log", "late", 0, 0},
		 {"remote.mi.log", "nll_loss", 1, 5}};
	for (int i = 0; i < 2; i++) {
		struct run r;
		run_start(&r, "./prog");
		feed_log(r.d, c[i].log);
		run_finish(&r);
		CHECK_INT(r.f->kind, DIAG_FAULT_ASSERT);
		CHECK_STR(r.f->kernel_short, c[i].kernel);
		check_dim(r.f->focus.block, c[i].bx, 0, 0);
		check_dim(r.f->focus.thread, c[i].tx, 0, 0);
		/* attach's first stop (signal "0") is not a fault. */
		CHECK(!r.f->flags[DIAG_F_EXIT_FAILED]);
		CHECK_MSG(strcmp(top_hint(&r), "device-assert") == 0 ||
			  strcmp(top_hint(&r), "label-range-assert") == 0,
			  "%s: %s", c[i].log, top_hint(&r));
		run_free(&r);
	}
}

TEST(core_small_oob_alone_and_with_its_report)
{
	struct run r;
	run_start(&r, "./small_oob");
	feed_log(r.d, "core_small_oob.mi.log");
	run_finish(&r);
	const struct diag_fault *f = r.f;
	CHECK(f->flags[DIAG_F_COREDUMP]);
	CHECK_STR(f->core_path, "cores/small_oob.nvcudmp");
	CHECK_STR(f->signal_name, "SIGTRAP");
	CHECK_INT(f->kind, DIAG_FAULT_EXCEPTION);
	check_dim(f->focus.thread, 99, 0, 0);
	CHECK_STR(f->kernel_short, "sum_next");
	CHECK_STR(f->where.file, "small_oob.cu");
	CHECK_INT(f->where.line, 7);
	CHECK_STR(top_hint(&r), "coredump-unknown");
	bool i99 = false, n100 = false;
	for (size_t i = 0; i < f->n_values; i++) {
		i99 |= !strcmp(f->values[i].expr, "i") &&
		       !strcmp(f->values[i].value, "99");
		n100 |= !strcmp(f->values[i].expr, "n") &&
			!strcmp(f->values[i].value, "100");
	}
	CHECK(i99 && n100);
	run_free(&r);

	run_start(&r, "./small_oob");
	feed_log(r.d, "core_small_oob.mi.log");
	add_xml(r.d, "small_oob.sanitizer.xml");
	run_finish(&r);
	CHECK_INT(r.f->kind, DIAG_FAULT_MEMCHECK);
	CHECK_STR(top_hint(&r), "san-oob");
	CHECK(evidence_has(hint(&r, "san-oob"), "small_oob.cu:7"));
	/* The report is read: no advice to load it (issue 10, item 4). */
	CHECK(!has_hint(&r, "coredump-unknown"));
	CHECK(has_hint(&r, "coredump-sanitizer"));
	run_free(&r);
}

TEST(small_oob_report_with_text_is_one_past_the_end)
{
	struct run r;
	run_start(&r, "./small_oob");
	char path[4096], err[512];
	snprintf(path, sizeof path, "%s/small_oob.sanitizer.xml",
		 test_fixtures_dir());
	struct diag_san *s;
	CHECK_INT(diag_san_load_file(path, &s, err, sizeof err), 0);
	const char *text = "=========     Access to 0x7fa670800190 is out of "
			   "bounds\n=========     and is 1 bytes after the nearest "
			   "allocation at 0x7fa670800000 of size 400 bytes\n";
	CHECK_INT(diag_san_add_text(s, text, strlen(text)), 1);
	diag_add_sanitizer(r.d, s);
	run_finish(&r);
	const struct diag_fault *f = r.f;
	CHECK_INT(f->kind, DIAG_FAULT_MEMCHECK);
	check_dim(f->focus.thread, 99, 0, 0);
	CHECK_STR(f->kernel_short, "sum_next");
	CHECK_INT(f->where.source, DIAG_LOC_SANITIZER);
	CHECK_INT(f->where.line, 7);
	CHECK(f->flags[DIAG_F_OOB_AFTER]);
	CHECK_STR(top_hint(&r), "san-oob-after");
	const struct diag_hint *h = hint(&r, "san-oob-after");
	CHECK(strstr(h->title, "1 bytes past the end"));
	CHECK(strstr(h->what, "allocation of 400 bytes at 0x7fa670800000"));
	run_free(&r);
}

TEST(core_seed_py_with_report)
{
	struct run r;
	run_start(&r, "python3");
	feed_log(r.d, "core_seed_py.mi.log");
	run_finish(&r);
	CHECK_INT(r.f->kind, DIAG_FAULT_ASSERT);
	CHECK(r.f->flags[DIAG_F_COREDUMP]);
	check_dim(r.f->focus.thread, 23, 0, 0);
	CHECK_STR(r.f->kernel_short, "nll_loss_forward_reduce_cuda_kernel_2d");
	CHECK_STR(top_hint(&r), "pytorch-nll-kernel");
	run_free(&r);

	run_start(&r, "python3");
	feed_log(r.d, "core_seed_py.mi.log");
	add_xml(r.d, "seed_py.sanitizer.xml");
	run_finish(&r);
	CHECK_STR(top_hint(&r), "pytorch-nll-kernel");
	CHECK_INT(r.f->python.call.line, 9);
	CHECK(evidence_has(hint(&r, "pytorch-nll-kernel"), "seed_repro.py:9"));
	/* compute-sanitizer wrote this core, not the driver on its own
	 * (issue 10, item 4). */
	CHECK(!has_hint(&r, "device-assert-core"));
	run_free(&r);
}

TEST(assert_label_report_alone_finds_the_kernel_from_the_stub)
{
	struct run r;
	run_start(&r, "./assert_label");
	add_xml(r.d, "assert_label.sanitizer.xml");
	run_finish(&r);
	CHECK_INT(r.f->kind, DIAG_FAULT_ASSERT);
	CHECK_STR(r.f->kernel_short, "nll_loss");
	check_dim(r.f->focus.block, 1, 0, 0);
	check_dim(r.f->focus.thread, 5, 0, 0);
	CHECK(!r.f->python.found);
	run_free(&r);
}

/* Clean sessions: no fault, exit 0. */
TEST(clean_runs_have_no_fault)
{
	const char *logs[] = {"step_kernel.mi.log", "replay_to_fault.mi.log",
			      "late_condition.mi.log", "warp_watch.mi.log"};
	for (int i = 0; i < 4; i++) {
		struct run r;
		run_start(&r, "./prog");
		feed_log(r.d, logs[i]);
		run_finish(&r);
		CHECK_MSG(r.f->kind == DIAG_FAULT_NONE, "%s: kind %s", logs[i],
			  diag_fault_kind_name(r.f->kind));
		/* a run that exited cleanly gets the one hint that says
		 * what the debugger changes (issue 29 item 5); no other */
		if (r.f->flags[DIAG_F_EXITED_NORMALLY])
			CHECK_MSG(r.hints.n == 1 && !strcmp(top_hint(&r),
							    "clean-under-debugger"),
				  "%s: %zu hints, first %s", logs[i], r.hints.n,
				  top_hint(&r));
		else
			CHECK_MSG(r.hints.n == 0, "%s: hint %s", logs[i],
				  top_hint(&r));
		struct diag_report_in in = {.fault = r.f, .hints = &r.hints,
					    .memcheck_seconds = -1};
		CHECK_INT(diag_report_exit_code(&in), 0);
		run_free(&r);
	}
}

/* The auto memcheck policy's signal: a live run that ended without a
 * device stop but printed a CUDA error. */
TEST(cuda_error_without_stop)
{
	struct run r;
	run_start(&r, "./small_oob");
	const char *lines[] = {
		"*running,thread-id=\"all\"",
		"*stopped,reason=\"exited\",exit-code=\"01\"",
	};
	const char *sync = "sync: unspecified launch failure\r\n";
	diag_on_program_output(r.d, sync, strlen(sync));
	for (int i = 0; i < 2; i++)
		mi_parse_line(lines[i], strlen(lines[i]), on_rec, r.d);
	run_finish(&r);
	CHECK_INT(r.f->kind, DIAG_FAULT_CUDA_ERROR);
	CHECK_INT(r.f->exit_code, 1);
	CHECK(r.f->flags[DIAG_F_NO_DEVICE_STOP]);
	CHECK(r.f->flags[DIAG_F_CUDA_ERROR_OUTPUT]);
	CHECK_STR(r.f->error_line, "sync: unspecified launch failure");
	CHECK_STR(top_hint(&r), "cuda-error-no-stop");
	CHECK(has_hint(&r, "async-error"));
	run_free(&r);
}

TEST(environment_problems_from_text_and_flags)
{
	struct run r;
	run_start(&r, "./prog");
	const char *w = "warning: libcudadebugger.so.1 could not be loaded\n";
	diag_on_debugger_stderr(r.d, w, strlen(w));
	run_finish(&r);
	CHECK_INT(r.f->kind, DIAG_FAULT_ENVIRONMENT);
	CHECK_STR(top_hint(&r), "env-cudadebugger-missing");
	struct diag_report_in in = {.fault = r.f, .memcheck_seconds = -1};
	CHECK_INT(diag_report_exit_code(&in), 2);
	run_free(&r);

	run_start(&r, "./prog");
	char *envp[] = {(char *)(uintptr_t)"CUDA_VISIBLE_DEVICES=", NULL};
	char *argv[] = {(char *)(uintptr_t)"./prog", NULL};
	diag_set_program(r.d, argv, envp);
	const char *nogpu = "CUDA error: no CUDA-capable device is detected\n";
	diag_on_program_output(r.d, nogpu, strlen(nogpu));
	run_finish(&r);
	CHECK_STR(top_hint(&r), "env-no-gpu-visible-devices");
	run_free(&r);

	run_start(&r, "./prog");
	diag_set_flag(r.d, DIAG_F_DEBUGGER_MISSING, true);
	run_finish(&r);
	CHECK_STR(top_hint(&r), "env-debugger-missing");
	run_free(&r);
}

TEST(dtype_mismatch_from_output)
{
	struct run r;
	run_start(&r, "python3");
	const char *t = "RuntimeError: expected scalar type Float but found "
			"Half\n";
	diag_on_program_output(r.d, t, strlen(t));
	const char *rec = "*stopped,reason=\"exited\",exit-code=\"01\"";
	mi_parse_line(rec, strlen(rec), on_rec, r.d);
	run_finish(&r);
	CHECK_STR(top_hint(&r), "dtype-mismatch");
	CHECK(strstr(hint(&r, "dtype-mismatch")->what, "found Half"));
	run_free(&r);
}

/* An evaluate hook supplies values the evidence asks for. */
static int fake_eval(void *ctx, int frame, const char *expr, char *out,
		     size_t cap)
{
	int *calls = ctx;
	(*calls)++;
	if (frame != 1)
		return -1;
	if (strcmp(expr, "t") == 0 || strcmp(expr, "num_classes") == 0) {
		snprintf(out, cap, "10");
		return 0;
	}
	return -1;
}

TEST(evaluate_hook_fills_evidence)
{
	struct run r;
	run_start(&r, "./assert_label");
	feed_log(r.d, "assert_label.mi.log");
	const char *want[16];
	size_t n = diag_wanted(r.d, r.rules, want, 16);
	bool wants_t = false, wants_num = false;
	for (size_t i = 0; i < n; i++) {
		wants_t |= strcmp(want[i], "t") == 0;
		wants_num |= strcmp(want[i], "num_classes") == 0;
	}
	CHECK(wants_t);
	CHECK(wants_num); /* not among frame 0's variables */
	int calls = 0;
	CHECK(diag_evaluate(r.d, r.rules, fake_eval, &calls) >= 2);
	CHECK(calls >= 2);
	run_finish(&r);
	CHECK(evidence_has(hint(&r, "label-range-assert"),
			   "The failing label: 10"));
	CHECK(evidence_has(hint(&r, "label-range-assert"),
			   "Number of classes in the kernel: 10"));
	run_free(&r);
}

/* The launching host stack as cuda-gdb lists it (-thread-select 1 then
 * -stack-list-frames with launch_blocking on): the ATen operator comes
 * from the at::native frame. */
TEST(aten_operator_from_the_host_stack)
{
	struct run r;
	run_start(&r, "python3");
	feed_log(r.d, "seed_py.mi.log");
	const char *stack =
		"^done,stack=[frame={level=\"0\",addr=\"0x1\",func=\"??\","
		"from=\"/usr/lib/libcuda.so.1\",arch=\"i386:x86-64\"},"
		"frame={level=\"1\",addr=\"0x2\",func=\"cudaLaunchKernel\","
		"from=\"libcudart.so.13\",arch=\"i386:x86-64\"},"
		"frame={level=\"2\",addr=\"0x3\",func=\"at::native::nll_loss_"
		"forward_out_cuda_template(at::Tensor const&, long)\","
		"from=\"libtorch_cuda.so\",arch=\"i386:x86-64\"}]";
	mi_parse_line(stack, strlen(stack), on_rec, r.d);
	run_finish(&r);
	CHECK_INT(r.f->n_host_frames, 3);
	CHECK_STR(r.f->op, "nll_loss_forward_out_cuda_template");
	CHECK(evidence_has(hint(&r, "pytorch-class-index"),
			   "ATen operator nll_loss_forward_out_cuda_template"));
	/* The device stack of the stop is kept. */
	CHECK_INT(r.f->n_frames, 1);
	run_free(&r);
}

/* Without launch_blocking the host thread has moved on when the GPU
 * stops (torch_label on the H200: in .item()'s stream synchronize): its
 * operator is not the launcher, and the report says so instead. */
TEST(host_stack_past_the_launch_names_no_operator)
{
	struct run r;
	run_start(&r, "python3");
	feed_log(r.d, "seed_py.mi.log");
	const char *stack =
		"^done,stack=[frame={level=\"0\",addr=\"0x1\",func=\"cuStreamSynchronize\","
		"from=\"/usr/lib/libcuda.so.1\",arch=\"i386:x86-64\"},"
		"frame={level=\"1\",addr=\"0x2\",func=\"cudaStreamSynchronize\","
		"from=\"libcudart.so.13\",arch=\"i386:x86-64\"},"
		"frame={level=\"2\",addr=\"0x3\",func=\"at::native::_local_scalar_"
		"dense_cuda(at::Tensor const&)\","
		"from=\"libtorch_cuda.so\",arch=\"i386:x86-64\"}]";
	mi_parse_line(stack, strlen(stack), on_rec, r.d);
	run_finish(&r);
	CHECK(r.f->op == NULL);
	CHECK_STR(r.f->host_op_later, "_local_scalar_dense_cuda");
	CHECK(!evidence_has(hint(&r, "pytorch-class-index"), "ATen operator"));
	run_free(&r);
}

/* A coredump the driver wrote on a hardware exception names it only on
 * the console: "CUDA Exception: " and the name as two records, then "The
 * exception was triggered at PC ... func  (file:line)".  It was read as
 * "no fault found" (issue 10, item 1). */
TEST(driver_coredump_names_the_hardware_exception)
{
	struct run r;
	run_start(&r, "/src/gpu/null_deref");
	feed_gpu_log(r.d, "null_deref.core.mi.log");
	run_finish(&r);
	const struct diag_fault *f = r.f;
	CHECK_INT(f->kind, DIAG_FAULT_EXCEPTION);
	CHECK_STR(f->exception_name, "Warp Illegal Address");
	CHECK(f->flags[DIAG_F_DEVICE_EXCEPTION]);
	CHECK(f->flags[DIAG_F_COREDUMP]);
	CHECK(f->flags[DIAG_F_LANE_UNKNOWN]);
	/* All 8 lanes carry the exception in the core's lanes table: the
	 * note says the hardware did not name the lane, as live. */
	bool unnamed = false;
	for (size_t i = 0; i < f->n_notes; i++)
		unnamed |= strstr(f->notes[i], "8 lanes of the warp") &&
			   strstr(f->notes[i], "does not say which lane faulted");
	CHECK(unnamed);
	CHECK_STR(f->kernel_short, "row_sums");
	CHECK(f->has_error_pc);
	CHECK(f->error_pc == 0x7f16937ac770ull); /* run 29: its "triggered at PC" */
	CHECK_INT(f->where.source, DIAG_LOC_EXCEPTION);
	CHECK_STR(f->where.file, "null_deref.cu");
	CHECK_INT(f->where.line, 14);
	CHECK_STR(f->where.func, "row_sums(float**, int, float*)");
	CHECK_STR(top_hint(&r), "exc-warp-illegal-address");
	CHECK(!has_hint(&r, "coredump-unknown"));
	run_free(&r);
}

/* Without line info the PC line ends at the function; a name in the
 * same record as its prefix is read too. */
TEST(driver_coredump_exception_without_line_info)
{
	struct run r;
	run_start(&r, "python3");
	static const char *const lines[] = {
		"~\"Opening GPU coredump: /tmp/x.nvcudmp\\n\"",
		"~\"[Current focus set to CUDA kernel 0, grid 1, block (1,0,0), "
		"thread (0,0,0), device 0, sm 3, warp 0, lane 0]\\n\"",
		"~\"\\nCUDA Exception: Warp Out-of-range Address\\n\"",
		"~\"The exception was triggered at PC 0x1230  void k<int>(int*)\\n\"",
	};
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
		mi_parse_line(lines[i], strlen(lines[i]), on_rec, r.d);
	run_finish(&r);
	CHECK_INT(r.f->kind, DIAG_FAULT_EXCEPTION);
	CHECK_STR(r.f->exception_name, "Warp Out-of-range Address");
	CHECK(r.f->error_pc == 0x1230);
	CHECK(r.f->where.file == NULL);
	check_dim(r.f->focus.block, 1, 0, 0);
	CHECK_STR(top_hint(&r), "exc-out-of-range");
	run_free(&r);
}

static void add_gpu_xml(struct diag *d, const char *name)
{
	char path[4096], err[512];
	snprintf(path, sizeof path, "%s/tests/fixtures/gpu/%s", test_root_dir(),
		 name);
	struct diag_san *s;
	CHECK_MSG(diag_san_load_file(path, &s, err, sizeof err) == 0, "%s", err);
	CHECK_INT(diag_add_sanitizer(d, s), 0);
}

/* compute-sanitizer writes its coredump only on an error; after a device
 * assert, __trap() or stack overflow the kernel has ended and cuda-gdb
 * finds none in it ("No CUDA focus could be set", frame ??).  Opened
 * alone that is a fault whose kind only the report names; it was "no
 * fault found", exit 0.  A driver coredump of __trap() is no sanitizer
 * coredump, though it ends with SIGTRAP too. */
TEST(sanitizer_coredump_without_a_kernel_is_a_fault)
{
	static const char *const logs[] = {
		"device_assert.sancore.mi.log", "trap.sancore.mi.log",
		"stack_overflow.sancore.mi.log", "torch_label.sancore.mi.log",
	};
	struct run r;
	for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
		run_start(&r, "./prog");
		feed_gpu_log(r.d, logs[i]);
		run_finish(&r);
		CHECK_MSG(r.f->kind == DIAG_FAULT_MEMCHECK, "%s: kind %d",
			  logs[i], (int)r.f->kind);
		CHECK(r.f->flags[DIAG_F_SANITIZER_CORE]);
		CHECK(r.f->flags[DIAG_F_CORE_NO_KERNEL]);
		CHECK_STR(top_hint(&r), "coredump-no-kernel");
		CHECK(!has_hint(&r, "coredump-unknown"));
		run_free(&r);
	}

	/* With its report the report's error is the diagnosis. */
	run_start(&r, "./device_assert");
	feed_gpu_log(r.d, "device_assert.sancore.mi.log");
	add_gpu_xml(r.d, "device_assert.sanitizer.xml");
	run_finish(&r);
	CHECK_INT(r.f->kind, DIAG_FAULT_ASSERT);
	CHECK(!has_hint(&r, "coredump-no-kernel"));
	run_free(&r);

	/* A sanitizer coredump with the thread: SIGTRAP outside __trap(). */
	run_start(&r, "./null_deref");
	feed_gpu_log(r.d, "null_deref.sancore.mi.log");
	run_finish(&r);
	CHECK(r.f->flags[DIAG_F_SANITIZER_CORE]);
	CHECK(!r.f->flags[DIAG_F_CORE_NO_KERNEL]);
	CHECK_STR(top_hint(&r), "coredump-unknown");
	run_free(&r);

	/* The driver's coredump of __trap(): a trap, no sanitizer advice. */
	run_start(&r, "./trap");
	feed_gpu_log(r.d, "trap.core.mi.log");
	run_finish(&r);
	CHECK_INT(r.f->kind, DIAG_FAULT_TRAP);
	CHECK(!r.f->flags[DIAG_F_SANITIZER_CORE]);
	CHECK_STR(top_hint(&r), "device-trap");
	CHECK(!has_hint(&r, "coredump-unknown"));
	run_free(&r);
}

/* memcheck's StackOverflow record (kind Other) is the fault: the
 * failing-call hint, whose text is the main finding's call, said
 * "(unknown) returned (unknown)" beside it.  A trap with no line in the
 * report (Imprecise, func __trap) says no "(unknown)" location either. */
TEST(stack_overflow_and_trap_reports_say_nothing_unknown)
{
	static const char *const runs[][2] = {
		{ "stack_overflow.memcheck.mi.log", "stack_overflow.sanitizer.xml" },
		{ "stack_overflow.mi.log", "stack_overflow.sanitizer.xml" },
		{ "trap.memcheck.mi.log", "trap.sanitizer.xml" },
	};
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		struct run r;
		run_start(&r, "./prog");
		feed_gpu_log(r.d, runs[i][0]);
		add_gpu_xml(r.d, runs[i][1]);
		run_finish(&r);
		CHECK(!has_hint(&r, "san-api-error"));
		CHECK(!has_hint(&r, "coredump-sanitizer"));
		for (size_t h = 0; h < r.hints.n; h++) {
			const struct diag_hint *x = &r.hints.v[h];
			CHECK_MSG(!strstr(x->title, "(unknown)") &&
				  !strstr(x->what, "(unknown)") &&
				  !(x->why && strstr(x->why, "(unknown)")),
				  "%s: %s", runs[i][0], x->id);
		}
		CHECK(strcmp(top_hint(&r), i < 2 ? "exc-stack-overflow"
						  : "device-trap") == 0);
		if (i < 2)
			CHECK(r.f->flags[DIAG_F_SANITIZER_OTHER]);
		run_free(&r);
	}
}

/* cuda-gdb 13.0 aborted opening torch_extension's driver coredump right
 * after the exception's PC line: no focus, no frame.  The hint named
 * "(unknown)" for the kernel, warp and SM, and the note "lane -1". */
TEST(driver_coredump_cut_short_names_the_faulting_function)
{
	struct run r;
	run_start(&r, "python3");
	feed_gpu_log(r.d, "torch_extension.core.mi.log");
	run_finish(&r);
	const struct diag_fault *f = r.f;
	CHECK_INT(f->kind, DIAG_FAULT_EXCEPTION);
	CHECK_STR(f->exception_name, "Warp Illegal Address");
	CHECK_STR(f->where.file, "cuda.cu");
	CHECK_INT(f->where.line, 9);
	CHECK(!f->flags[DIAG_F_LANE_UNKNOWN]);
	for (size_t i = 0; i < f->n_notes; i++)
		CHECK_MSG(!strstr(f->notes[i], "lane -1"), "%s", f->notes[i]);
	CHECK_STR(top_hint(&r), "exc-warp-illegal-address");
	const struct diag_hint *h = &r.hints.v[0];
	CHECK_STR(h->title, "Illegal memory access in scatter_rows_kernel");
	CHECK(!strstr(h->what, "(unknown)"));
	run_free(&r);
}

/* No assertion text in a driver coredump or an XML-only report: the
 * kernel's name, else the host operator, picks the PyTorch rule instead
 * of the generic assert hint (issue 10, item 5). */
TEST(pytorch_rule_from_kernel_or_operator_without_assert_text)
{
	struct run r;
	run_start(&r, "python3");
	feed_gpu_log(r.d, "torch_embedding.core.mi.log");
	run_finish(&r);
	CHECK_INT(r.f->kind, DIAG_FAULT_ASSERT);
	CHECK_STR(r.f->kernel_short, "vectorized_gather_kernel");
	CHECK_STR(top_hint(&r), "pytorch-gather-kernel");
	run_free(&r);

	run_start(&r, "python3");
	add_gpu_xml(r.d, "torch_label.sanitizer.xml");
	run_finish(&r);
	CHECK_STR(r.f->op, "nll_loss_forward");
	CHECK_STR(top_hint(&r), "pytorch-nll-op");
	run_free(&r);

	run_start(&r, "python3");
	add_gpu_xml(r.d, "torch_embedding.sanitizer.xml");
	run_finish(&r);
	CHECK_STR(top_hint(&r), "pytorch-gather-op");
	run_free(&r);

	/* With the kernel known the kernel's rule speaks alone. */
	run_start(&r, "python3");
	feed_gpu_log(r.d, "torch_label.core.mi.log");
	add_gpu_xml(r.d, "torch_label.sanitizer.xml");
	run_finish(&r);
	CHECK_STR(top_hint(&r), "pytorch-nll-kernel");
	CHECK(!has_hint(&r, "pytorch-nll-op"));
	run_free(&r);
}

/* A kernel template launched with a lambda, built without -G: the stop's
 * frame is __assert_fail, the assertion names "operator()".  The kernel
 * comes from the kernels table, not from the assert (issue 10, item 6).
 * The records follow device_assert.mi.log's, with the names changed. */
TEST(lambda_kernel_named_from_the_kernels_table)
{
	struct run r;
	run_start(&r, "./lam");
	static const char *const recs[] = {
		"*stopped,reason=\"signal-received\",signal-name=\"CUDA_EXCEPTION_12\","
		"signal-meaning=\"Warp Assert\",CudaFocus={device=\"0\",sm=\"3\","
		"warp=\"0\",lane=\"3\",kernel=\"0\",grid=\"1\",blockIdx=\"(0,0,0)\","
		"threadIdx=\"(3,0,0)\"},frame={addr=\"0x7f00\",func=\"__assert_fail\","
		"args=[],arch=\"m68k\"},thread-id=\"1\",stopped-threads=\"all\"",
		"^done,stack=[frame={level=\"0\",addr=\"0x7f00\",func=\"__assert_fail\","
		"arch=\"m68k\"}]",
		"^done,InfoCudaKernelsTable={nr_rows=\"1\",nr_cols=\"2\",hdr=[],"
		"body=[InfoCudaKernelsRow={current=\"*\",kernel=\"0\",invocation="
		"\"void launch<main::{lambda(int)#1}>(main::{lambda(int)#1})(,args="
		"[{name=\\\"f\\\",value=\\\"{...}\\\"}])\"}]}",
	};
	for (size_t i = 0; i < sizeof recs / sizeof recs[0]; i++)
		mi_parse_line(recs[i], strlen(recs[i]), on_rec, r.d);
	const char *t = "/src/lam.cu:9: operator(): block: [0,0,0], thread: "
			"[3,0,0] Assertion `v >= 0` failed.\r\n";
	diag_on_program_output(r.d, t, strlen(t));
	run_finish(&r);
	CHECK_INT(r.f->kind, DIAG_FAULT_ASSERT);
	CHECK_STR(r.f->kernel_short, "launch");
	CHECK_INT(r.f->n_asserts, 1);
	CHECK_STR(r.f->asserts[0]->kernel_short, "operator()");
	CHECK_STR(r.f->where.file, "/src/lam.cu");
	CHECK_INT(r.f->where.line, 9);
	run_free(&r);
}

/* compute-sanitizer lists a warp-wide error thread by thread: the
 * report groups them by kind, place and access, numbered by the group's
 * first record (issue 10, item 3). */
TEST(findings_grouped_in_text_and_json)
{
	struct run r;
	run_start(&r, "/src/gpu/misaligned");
	feed_gpu_log(r.d, "misaligned.mi.log");
	char path[4096], err[512];
	snprintf(path, sizeof path, "%s/tests/fixtures/gpu/misaligned.sanitizer.xml",
		 test_root_dir());
	struct diag_san *s;
	CHECK_INT(diag_san_load_file(path, &s, err, sizeof err), 0);
	const char *text =
		"Access to 0x7f6a5c800001 is out of bounds and is 1 bytes after "
		"the nearest allocation at 0x7f6a5c7ffc00 of size 1,020 bytes\n"
		"Access to 0x7f6a5c80000a is out of bounds and is 10 bytes after "
		"the nearest allocation at 0x7f6a5c7ffc00 of size 1,020 bytes\n";
	CHECK_INT(diag_san_add_text(s, text, strlen(text)), 2);
	CHECK_INT(diag_add_sanitizer(r.d, s), 0);
	run_finish(&r);
	const struct diag_fault *f = r.f;
	CHECK_INT(f->n_findings, 49);
	CHECK_INT(f->n_groups, 2);
	const struct diag_finding_group *g = &f->groups[0];
	CHECK_INT(g->first, 0);
	CHECK_INT(g->count, 48);
	check_dim(g->thread_min, 0, 0, 0);
	check_dim(g->thread_max, 62, 0, 0);
	check_dim(g->block_max, 0, 0, 0);
	CHECK(g->address_min == 0x7f6a5c800001ull);
	CHECK(g->address_max == 0x7f6a5c80022full);
	CHECK(g->has_alloc && g->alloc_size == 1020);
	CHECK(g->distance_min == 1 && g->distance_max == 10);
	CHECK_INT(f->groups[1].first, 48);
	CHECK_INT(f->groups[1].count, 1);
	/* The thread the account is about is still the first record's. */
	CHECK(f->finding == f->findings[0]);

	struct diag_report_in in = {.fault = f, .hints = &r.hints,
				    .mode = "replay", .memcheck_seconds = -1};
	char *t = diag_report_text(&in);
	CHECK(t);
	CHECK(strstr(t, "Sanitizer findings (49, in 2 groups):"));
	CHECK(strstr(t, "\n  1. Precise: Invalid __global__ read of size 4 "
			"bytes is misaligned; at /src/gpu/misaligned.cu:13\n"
			"       48 findings: threads (0..62,0,0), blocks (0,0,0)\n"
			"       addresses 0x7f6a5c800001..0x7f6a5c80022f, 1..10 "
			"bytes after an allocation of 1020 bytes at 0x7f6a5c7ffc00\n"
			"       first: thread (0,0,0) block (0,0,0), address "
			"0x7f6a5c800001 (finding 1)\n  49. Api: "));
	CHECK(!strstr(t, "\n  2. "));
	free(t);
	char *j = diag_report_json(&in);
	CHECK(j);
	CHECK(strstr(j, "\"finding_groups\":[{\"first\":0,\"count\":48,"));
	CHECK(strstr(j, "\"distance_min\":1,\"distance_max\":10"));
	free(j);
	run_free(&r);
}

static void feed_rec(struct diag *d, const char *rec)
{
	mi_parse_line(rec, strlen(rec), on_rec, d);
}

static const char *hint_evidence(const struct run *r, const char *id,
				 const char *needle)
{
	const struct diag_hint *h = hint(r, id);
	for (size_t i = 0; h && i < h->n_evidence; i++)
		if (strstr(h->evidence[i], needle))
			return h->evidence[i];
	return NULL;
}

/* Pointer provenance without a GPU (issue 10, item 7): the sanitizer's
 * address and nearest allocation, and the frame's pointers. */
TEST(provenance_names_the_allocation_and_wild_addresses)
{
	/* Just past the end: the frame's pointer into that allocation is
	 * named.  core_small_oob's values, with `in` set to the allocation
	 * the report's text names (the two come from different runs). */
	struct run r;
	run_start(&r, "./small_oob");
	feed_log(r.d, "core_small_oob.mi.log");
	feed_rec(r.d, "^done,variables=[{name=\"in\",arg=\"1\",type=\"const "
		      "@generic float * @parameter\",value=\"0x7fa670800000\"}]");
	char path[4096], err[512];
	snprintf(path, sizeof path, "%s/small_oob.sanitizer.xml",
		 test_fixtures_dir());
	struct diag_san *s;
	CHECK_INT(diag_san_load_file(path, &s, err, sizeof err), 0);
	const char *text = "Access to 0x7fa670800190 is out of bounds and is 1 "
			   "bytes after the nearest allocation at 0x7fa670800000 "
			   "of size 400 bytes\n";
	CHECK_INT(diag_san_add_text(s, text, strlen(text)), 1);
	diag_add_sanitizer(r.d, s);
	run_finish(&r);
	CHECK_INT(r.f->prov.cls, DIAG_PTR_NEAR_ALLOC);
	CHECK_STR(r.f->prov.var, "in");
	CHECK(r.f->prov.offset == 400);
	CHECK_STR(top_hint(&r), "san-oob-after");
	CHECK(hint_evidence(&r, "san-oob-after", "in = 0x7fa670800000 points to; "
			    "the access is 400 bytes from its start"));
	run_free(&r);

	/* 4 MB before a 4 MB allocation is no negative index at its edge. */
	run_start(&r, "./small_oob");
	CHECK_INT(diag_san_load_file(path, &s, err, sizeof err), 0);
	text = "Access to 0x7fa670800190 is out of bounds and is 4,185,984 bytes "
	       "before the nearest allocation at 0x7fa670bfe314 of size "
	       "4,194,304 bytes\n";
	CHECK_INT(diag_san_add_text(s, text, strlen(text)), 1);
	diag_add_sanitizer(r.d, s);
	run_finish(&r);
	CHECK_INT(r.f->prov.cls, DIAG_PTR_WILD);
	CHECK(r.f->flags[DIAG_F_ADDRESS_WILD]);
	CHECK_STR(top_hint(&r), "san-oob-wild");
	CHECK(!has_hint(&r, "san-oob-before"));
	run_free(&r);
}

TEST(provenance_host_and_null_pointers_of_the_frame)
{
	/* A live Warp Illegal Address (no sanitizer): a kernel argument
	 * holding a PIE heap address.  Run 25's recording, from before the
	 * culprit search by the line's access (run 29's names lane 3, whose
	 * null row is the stronger fact). */
	struct run r;
	run_start(&r, "/src/gpu/null_deref");
	feed_gpu_log(r.d, "run25/null_deref.mi.log");
	feed_rec(r.d, "^done,variables=[{name=\"rows\",arg=\"1\",type=\"@generic "
		      "float * @generic * @parameter\",value=\"0x5555555596b0\"}]");
	run_finish(&r);
	CHECK_INT(r.f->prov.cls, DIAG_PTR_HOST);
	CHECK_STR(r.f->prov.var, "rows");
	CHECK_STR(top_hint(&r), "ptr-host-address");
	CHECK(hint_evidence(&r, "ptr-host-address",
			    "rows = 0x5555555596b0 in the faulting frame"));
	run_free(&r);

	/* A null pointer of the frame. */
	run_start(&r, "/src/gpu/null_deref");
	feed_gpu_log(r.d, "run25/null_deref.mi.log");
	feed_rec(r.d, "^done,variables=[{name=\"row\",type=\"const @generic "
		      "float * @register\",value=\"0x0\"}]");
	run_finish(&r);
	CHECK_INT(r.f->prov.cls, DIAG_PTR_NULL);
	CHECK(r.f->flags[DIAG_F_POINTER_NULL]);
	CHECK_STR(top_hint(&r), "ptr-null-local");
	run_free(&r);

	/* Run 25's recording as it is (lane 0's values): no claim about
	 * its pointers. */
	run_start(&r, "/src/gpu/null_deref");
	feed_gpu_log(r.d, "run25/null_deref.mi.log");
	run_finish(&r);
	CHECK_INT(r.f->prov.cls, DIAG_PTR_UNKNOWN);
	CHECK(!r.f->flags[DIAG_F_INDEX_OVERFLOW]);
	CHECK_STR(top_hint(&r), "exc-warp-illegal-address");
	run_free(&r);

	/* Run 29's: the culprit lane 3 found and focused, its row = 0x0 read
	 * there: the null pointer is the fact. */
	run_start(&r, "/src/gpu/null_deref");
	feed_gpu_log(r.d, "null_deref.mi.log");
	run_finish(&r);
	CHECK_INT(r.f->prov.cls, DIAG_PTR_NULL);
	CHECK_STR(top_hint(&r), "ptr-null-local");
	run_free(&r);
}

/* A negative 32-bit index at an illegal address (issue 10, item 8);
 * tests/fixtures/int_overflow.mi.log is null_deref's real recording with
 * c set to -2147483520 (its header says so). */
TEST(index_overflow_names_the_variable_and_the_line)
{
	struct run r;
	run_start(&r, "/src/gpu/null_deref");
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/tests/gpu", test_root_dir());
	diag_add_source_dir(r.d, dir);
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/fixtures/int_overflow.mi.log",
		 test_root_dir());
	feed_path(r.d, path);
	run_finish(&r);
	CHECK(r.f->flags[DIAG_F_INDEX_OVERFLOW]);
	CHECK_STR(r.f->prov.index_var, "c");
	CHECK_STR(r.f->prov.index_value, "-2147483520");
	CHECK_STR(r.f->prov.line_text, "s += row[c];");
	CHECK_STR(top_hint(&r), "index-overflow");
	CHECK(hint_evidence(&r, "index-overflow", "null_deref.cu:14: s += row[c];"));
	run_free(&r);
}

/* A small negative value counts only as a subscript of the faulting
 * line; a near-INT_MIN one anywhere in it. */
TEST(index_overflow_needs_the_line_to_use_the_value)
{
	static const struct {
		const char *rec;
		bool want;
	} c[] = {
		{"^done,variables=[{name=\"c\",type=\"int\",value=\"-1\"}]", true},
		{"^done,variables=[{name=\"r\",type=\"@register int\",value=\"-1\"}]", false},
		{"^done,variables=[{name=\"c\",type=\"unsigned int\",value=\"-1\"}]", false},
		{"^done,variables=[{name=\"s\",type=\"float\",value=\"-3e+09\"}]", false},
	};
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/tests/gpu", test_root_dir());
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct run r;
		run_start(&r, "/src/gpu/null_deref");
		diag_add_source_dir(r.d, dir);
		feed_gpu_log(r.d, "null_deref.mi.log");
		feed_rec(r.d, c[i].rec);
		run_finish(&r);
		CHECK_MSG(r.f->flags[DIAG_F_INDEX_OVERFLOW] == c[i].want, "%s",
			  c[i].rec);
		run_free(&r);
	}
}

/* At a null access the pointer is named only from the finding's own
 * thread: a sanitizer coredump focuses it, a live warp stop may not. */
TEST(null_pointer_named_only_from_the_faulting_thread)
{
	static const char *const core[] = {
		"~\"Opening GPU coredump: /tmp/null_deref.nvcudmp\\n\"",
		"~\"[Current focus set to CUDA kernel 0, grid 1, block (0,0,0), "
		"thread (3,0,0), device 0, sm 124, warp 0, lane 3]\\n\"",
		"~\"Program terminated with signal SIGTRAP, Trace/breakpoint trap.\\n\"",
		"^done,variables=[{name=\"row\",type=\"const @generic float * "
		"@register\",value=\"0x0\"}]",
	};
	struct run r;
	run_start(&r, "/src/gpu/null_deref");
	for (size_t i = 0; i < sizeof core / sizeof core[0]; i++)
		feed_rec(r.d, core[i]);
	add_gpu_xml(r.d, "null_deref.sanitizer.xml");
	run_finish(&r);
	CHECK_STR(top_hint(&r), "san-null");
	CHECK(hint_evidence(&r, "san-null", "pointer row is 0x0"));
	run_free(&r);

	/* Live: lane 0 is in focus, the sanitizer names thread 3. */
	run_start(&r, "/src/gpu/null_deref");
	feed_gpu_log(r.d, "null_deref.mi.log");
	feed_rec(r.d, core[3]);
	add_gpu_xml(r.d, "null_deref.sanitizer.xml");
	run_finish(&r);
	CHECK_STR(top_hint(&r), "san-null");
	CHECK(!hint_evidence(&r, "san-null", "pointer row"));
	run_free(&r);
}

/* The hint about the main finding says how many threads failed alike. */
TEST(hint_counts_the_threads_of_the_main_finding)
{
	struct run r;
	run_start(&r, "/src/gpu/misaligned");
	feed_gpu_log(r.d, "misaligned.mi.log");
	add_gpu_xml(r.d, "misaligned.sanitizer.xml");
	run_finish(&r);
	CHECK_STR(top_hint(&r), "san-misaligned");
	CHECK(hint_evidence(&r, "san-misaligned", "48 threads failed the same way "
			    "on that line: threads (0..62,0,0), blocks (0,0,0)"));
	CHECK(!has_hint(&r, "san-oob"));
	run_free(&r);

	/* One record: no such line. */
	run_start(&r, "./small_oob");
	add_xml(r.d, "small_oob.sanitizer.xml");
	run_finish(&r);
	CHECK(!hint_evidence(&r, "san-oob", "failed the same way"));
	run_free(&r);
}

/* A __shared__ address is an offset in the block's window: no null
 * pointer, no host address. */
TEST(shared_memory_addresses_are_not_classified)
{
	static const char *const addrs[] = {"0x400", "0x1000400"};
	for (size_t i = 0; i < 2; i++) {
		char xml[2048];
		snprintf(xml, sizeof xml,
			 "<?xml version=\"1.0\"?><ComputeSanitizerOutput><record>"
			 "<kind>Precise</kind><level>Error</level><who><threadIdx>"
			 "<x>5</x><y>0</y><z>0</z></threadIdx><blockIdx><x>0</x>"
			 "<y>0</y><z>0</z></blockIdx></who><what><text>Invalid "
			 "__shared__ write of size 4 bytes is out of bounds</text>"
			 "<space>__shared__</space><size>4</size><direction>write"
			 "</direction><error>out of bounds</error><address>%s"
			 "</address></what><where><func>k</func><path>/src/k.cu"
			 "</path><line>9</line></where></record>"
			 "</ComputeSanitizerOutput>", addrs[i]);
		struct run r;
		run_start(&r, "./k");
		struct diag_san *s = diag_san_new();
		CHECK_INT(diag_san_feed(s, xml, strlen(xml)), 0);
		CHECK_INT(diag_san_finish(s), 0);
		CHECK_INT(diag_san_count(s), 1);
		diag_add_sanitizer(r.d, s);
		run_finish(&r);
		CHECK_INT(r.f->prov.cls, DIAG_PTR_UNKNOWN);
		CHECK(!r.f->flags[DIAG_F_HOST_ADDRESS]);
		CHECK(!r.f->flags[DIAG_F_NULL_ADDRESS]);
		CHECK_MSG(!strcmp(top_hint(&r), "san-oob"), "%s: %s", addrs[i],
			  top_hint(&r));
		run_free(&r);
	}
}

/* lambda_assert on the H200 (run 1, memcheck pass): the assertion line
 * names the lambda that asserted, "lambda [](float)->auto::operator()
 * (float)->auto", whose base name is "->auto"; the launch on memcheck's
 * host stack names the kernel, transform.  The "cudaError" in a host
 * frame of memcheck's text made async-error the first hint. */
TEST(lambda_assert_kernel_is_the_launched_one)
{
	struct run r;
	run_start(&r, "./lambda_assert");
	char path[4096], err[512];
	snprintf(path, sizeof path,
		 "%s/tests/fixtures/gpu/run1/lambda_assert.sanitizer.xml",
		 test_root_dir());
	struct diag_san *s;
	CHECK_MSG(diag_san_load_file(path, &s, err, sizeof err) == 0, "%s", err);
	diag_add_sanitizer(r.d, s);
	const char *line = "lambda_assert.cu:24: lambda [](float)->auto::"
			   "operator()(float)->auto: block: [11,0,0], thread: "
			   "[184,0,0] Assertion `v > 0.0f` failed.\r\n";
	diag_on_program_output(r.d, line, strlen(line));
	/* memcheck's own text around it names the lambda's type, with a
	 * "cudaError" in it: no CUDA error the program printed */
	const char *frame = "=========     Host Frame: void transform<"
			    "__nv_dl_wrapper_t<__nv_dl_tag<cudaError (*)(float*, "
			    "int), &(log_in_place(float*, int)), 1u>> >(float*, "
			    "int, __nv_dl_wrapper_t<__nv_dl_tag<cudaError (*)("
			    "float*, int), &(log_in_place(float*, int)), 1u>>) in "
			    "lambda_assert.cu:16 [0x91c3] in lambda_assert\r\n";
	diag_on_program_output(r.d, frame, strlen(frame));
	run_finish(&r);
	CHECK_INT(r.f->kind, DIAG_FAULT_ASSERT);
	CHECK_STR(r.f->kernel_short, "transform");
	CHECK(r.f->error_line == NULL);
	CHECK_STR(top_hint(&r), "device-assert");
	CHECK_INT(r.f->n_asserts, 1);
	run_free(&r);
}

/* A Python failure is read where it happened.  An exception raised in
 * another process is the worker's, not the line that re-raised it:
 * multiprocessing's Pool (and concurrent.futures) prints the worker's
 * traceback first, quoted; PyTorch's DataLoader (ExceptionWrapper) and
 * torch.multiprocessing.spawn after their own; the program's own line
 * that asked for it runs it.  A test that failed under pytest is read
 * from pytest's own failure format.  (Python 3.11's real output, paths
 * shortened; pytest's default failure format written by hand, no pytest
 * being here: GPU run 30 runs a real one.) */
static void py_output_run(struct run *r, const char *out)
{
	run_start(r, "python3");
	size_t n = strlen(out);
	for (size_t i = 0; i < n; i += 11)
		diag_on_program_output(r->d, out + i, n - i < 11 ? n - i : 11);
	diag_on_exit(r->d, false, 1);
	run_finish(r);
}

/* What a program's output should give: the exception, the user's file,
 * function and line, and the line that ran it. */
struct py_place {
	const char *out, *exc, *file, *func;
	unsigned call, launch;
};

static void check_py_places(const struct py_place *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct run r;
		py_output_run(&r, v[i].out);
		CHECK_STR(r.f->py_exception, v[i].exc);
		CHECK_STR(r.f->python.call.file, v[i].file);
		CHECK_STR(r.f->python.call.func, v[i].func);
		CHECK_INT(r.f->python.call.line, v[i].call);
		CHECK_INT(r.f->python.launch.line, v[i].launch);
		CHECK(has_hint(&r, "python-host-error"));
		run_free(&r);
	}
}

TEST(python_failure_read_where_it_happened)
{
	static const char pool[] =
		"multiprocessing.pool.RemoteTraceback: \n"
		"\"\"\"\n"
		"Traceback (most recent call last):\n"
		"  File \"/py/lib/python3.11/multiprocessing/pool.py\", line 125, in worker\n"
		"    result = (True, func(*args, **kwds))\n"
		"  File \"/s/pool.py\", line 3, in square_label\n"
		"    return row[\"label\"] ** 2\n"
		"           ~~~^^^^^^^^^\n"
		"KeyError: 'label'\n"
		"\"\"\"\n"
		"\n"
		"The above exception was the direct cause of the following exception:\n"
		"\n"
		"Traceback (most recent call last):\n"
		"  File \"/s/pool.py\", line 6, in <module>\n"
		"    print(p.map(square_label, rows))\n"
		"  File \"/py/lib/python3.11/multiprocessing/pool.py\", line 774, in get\n"
		"    raise self._value\n"
		"KeyError: 'label'\n";

	static const char loader[] =
		"Traceback (most recent call last):\n"
		"  File \"/s/train.py\", line 30, in <module>\n"
		"    for batch in loader:\n"
		"  File \"/py/site-packages/torch/_utils.py\", line 694, in reraise\n"
		"    raise exception\n"
		"KeyError: Caught KeyError in DataLoader worker process 0.\n"
		"Original Traceback (most recent call last):\n"
		"  File \"/py/site-packages/torch/utils/data/_utils/worker.py\", line 308, in _worker_loop\n"
		"    data = fetcher.fetch(index)\n"
		"  File \"/s/train.py\", line 12, in __getitem__\n"
		"    return self.items[idx][\"label\"]\n"
		"KeyError: 'label'\n"
		"\n";

	static const char spawn[] =
		"Traceback (most recent call last):\n"
		"  File \"/s/ddp.py\", line 40, in <module>\n"
		"    mp.spawn(run, nprocs=2)\n"
		"  File \"/py/site-packages/torch/multiprocessing/spawn.py\", line 158, in join\n"
		"    raise ProcessRaisedException(msg, error_index, failed_process.pid)\n"
		"torch.multiprocessing.spawn.ProcessRaisedException: \n"
		"\n"
		"-- Process 1 terminated with the following error:\n"
		"Traceback (most recent call last):\n"
		"  File \"/py/site-packages/torch/multiprocessing/spawn.py\", line 69, in _wrap\n"
		"    fn(i, *args)\n"
		"  File \"/s/ddp.py\", line 21, in run\n"
		"    loss = model(x).sum() / bad\n"
		"ZeroDivisionError: division by zero\n";
	/* A test that failed on the host under pytest (python -m pytest):
	 * its own format, no "Traceback" head; the failing entry's line and
	 * its E line are the user's line and exception, the test's own line
	 * runs it. */
	static const char out[] =
		"=================================== FAILURES ===================================\n"
		"______________________________ test_parse_labels _______________________________\n"
		"\n"
		"    def test_parse_labels():\n"
		"        rows = [{\"x\": 1}]\n"
		">       assert square_label(rows[0]) == 1\n"
		"\n"
		"test_pool.py:8: \n"
		"_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \n"
		"\n"
		"row = {'x': 1}\n"
		"\n"
		"    def square_label(row):\n"
		">       return row[\"label\"] ** 2\n"
		"E       KeyError: 'label'\n"
		"\n"
		"test_pool.py:3: KeyError\n"
		"________________________________ test_later __________________________________\n"
		"\n"
		"    def test_later():\n"
		">       assert 1 == 2\n"
		"E       assert 1 == 2\n"
		"\n"
		"test_pool.py:11: AssertionError\n"
		"=========================== short test summary info ============================\n"
		"FAILED test_pool.py::test_parse_labels - KeyError: 'label'\n";
	struct run r;
	py_output_run(&r, out);
	CHECK_STR(r.f->python.call.source, "return row[\"label\"] ** 2");
	run_free(&r);

	static const char assertion[] =
		"________________________________ test_square _________________________________\n"
		"\n"
		"    def test_square():\n"
		">       assert square(3) == 10\n"
		"E       assert 9 == 10\n"
		"E        +  where 9 = square(3)\n"
		"\n"
		"test_math.py:5: AssertionError\n";
	static const struct py_place want[] = {
		{ pool, "KeyError: 'label'", "/s/pool.py", "square_label", 3, 6 },
		{ loader, "KeyError: 'label'", "/s/train.py", "__getitem__", 12, 30 },
		{ spawn, "ZeroDivisionError: division by zero", "/s/ddp.py",
		  "run", 21, 40 },
		{ out, "KeyError: 'label'", "test_pool.py", "square_label", 3, 8 },
		{ assertion, "AssertionError: assert 9 == 10", "test_math.py",
		  "test_square", 5, 5 },
	};
	check_py_places(want, sizeof want / sizeof want[0]);
}

/* The GPU's memory ran out (PyTorch's words, or a C program's CUDA
 * error): its own hint, neither "no CUDA error" nor "reported later",
 * and no memcheck pass, which would run out the same way. */
TEST(cuda_out_of_memory_is_its_own_account)
{
	static const char *const outs[] = {
		"Traceback (most recent call last):\n"
		"  File \"/s/train.py\", line 12, in <module>\n"
		"    x = torch.empty(int(2e11), device=\"cuda\")\n"
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
		"745.06 GiB. GPU 0 has a total capacity of 79.19 GiB\n",
		"CUDA error: out of memory at alloc.cu:17 (cudaErrorMemoryAllocation)\n",
		"GPUassert: out of memory alloc.cu 23\n",
	};
	for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
		struct run r;
		py_output_run(&r, outs[i]);
		CHECK(r.f->flags[DIAG_F_CUDA_OOM]);
		CHECK_STR(top_hint(&r), "cuda-out-of-memory");
		CHECK(!has_hint(&r, "python-host-error"));
		CHECK(!has_hint(&r, "async-error"));
		CHECK(!diag_memcheck_wanted(DIAG_MEMCHECK_AUTO, r.f));
		run_free(&r);
	}
	/* the host's memory is no GPU's */
	struct run r;
	py_output_run(&r, "Traceback (most recent call last):\n"
			  "  File \"/s/load.py\", line 3, in <module>\n"
			  "    rows = read_all()\n"
			  "MemoryError: out of memory reading the dataset\n");
	CHECK(!r.f->flags[DIAG_F_CUDA_OOM]);
	CHECK_STR(top_hint(&r), "python-host-error");
	run_free(&r);
}

/* Hydra with the user's own HYDRA_FULL_ERROR=0 prints a traceback's last
 * frame and says so: the hint asks for the whole one. */
TEST(hydra_short_traceback_asks_for_the_whole)
{
	static const char out[] =
		"Error executing job with overrides: []\n"
		"Traceback (most recent call last):\n"
		"  File \"/s/train.py\", line 9, in main\n"
		"    x = cfg.nope\n"
		"AttributeError: nope\n"
		"\n"
		"Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.\n";
	struct run r;
	py_output_run(&r, out);
	CHECK_STR(top_hint(&r), "hydra-short-traceback");
	CHECK(has_hint(&r, "python-host-error"));
	run_free(&r);
}

/* A Python program that failed on the host (torch_dtype, run 24): the
 * last traceback of its output gives the exception and the user's
 * lines, read in pieces as the output comes; a chained exception's
 * first block, 3.11's carets and the library's frames are not its line.
 * A traceback of a CUDA error is no host error. */
/* Output in chunks of 5 bytes, then the exit. */
static void feed_and_exit(struct run *r, const char *out, int code)
{
	size_t n = strlen(out);
	for (size_t i = 0; i < n; i += 5)
		diag_on_program_output(r->d, out + i, n - i < 5 ? n - i : 5);
	diag_on_exit(r->d, false, code);
	run_finish(r);
}

TEST(python_start_error_and_syntax_error_are_host_failures)
{
	struct run r;
	run_start(&r, "python3");
	feed_and_exit(&r, "/opt/venv/bin/python3.12: No module named pytest\n", 1);
	CHECK(r.f->flags[DIAG_F_PYTHON_NOT_STARTED]);
	CHECK_STR(r.f->py_start_error, "No module named pytest");
	CHECK(has_hint(&r, "python-not-started"));
	CHECK(!has_hint(&r, "exit-failed"));
	run_free(&r);

	/* the program's own words in that shape, from no interpreter */
	run_start(&r, "python3");
	feed_and_exit(&r, "loader: No module named pytest\n"
			  "  /usr/bin/python3: No module named x\n", 1);
	CHECK(!r.f->flags[DIAG_F_PYTHON_NOT_STARTED]);
	CHECK(r.f->py_start_error == NULL);
	run_free(&r);

	/* a traceback after it: the exception is what ended the run */
	run_start(&r, "python3");
	feed_and_exit(&r, "/usr/bin/python3: No module named helper\n"
			  "Traceback (most recent call last):\n"
			  "  File \"/s/t.py\", line 4, in <module>\n"
			  "    run()\n"
			  "KeyError: 'x'\n", 1);
	CHECK(r.f->py_start_error == NULL);
	CHECK_STR(r.f->py_exception, "KeyError: 'x'");
	run_free(&r);

	/* a script that does not compile: no head, its error's line */
	run_start(&r, "python3");
	feed_and_exit(&r, "  File \"/s/syn.py\", line 7\n"
			  "    def f(:\n"
			  "          ^\n"
			  "SyntaxError: invalid syntax\n", 1);
	CHECK_STR(r.f->py_exception, "SyntaxError: invalid syntax");
	CHECK(r.f->python.found);
	CHECK_STR(r.f->python.call.file, "/s/syn.py");
	CHECK_INT(r.f->python.call.line, 7);
	CHECK_STR(r.f->python.call.source, "def f(:");
	run_free(&r);

	/* a location line that no syntax error follows is no traceback */
	run_start(&r, "python3");
	feed_and_exit(&r, "  File \"/s/x.py\", line 3\n"
			  "    print(1)\n"
			  "epoch 3 done\n", 1);
	CHECK(r.f->py_exception == NULL);
	CHECK(!r.f->python.found);
	run_free(&r);
}

TEST(python_host_error_from_the_last_traceback)
{
	static const char out[] =
		"Traceback (most recent call last):\n"
		"  File \"/s/a.py\", line 3, in <module>\n"
		"    import missing\n"
		"ImportError: first\n"
		"\n"
		"During handling of the above exception, another exception occurred:\n"
		"\n"
		"Traceback (most recent call last):\n"
		"  File \"/s/a.py\", line 19, in <module>\n"
		"    main()\n"
		"  File \"/s/a.py\", line 10, in forward\n"
		"    return x @ w\n"
		"           ~~^~~\n"
		"  File \"/usr/lib/python3/dist-packages/torch/nn/f.py\", line 7, in mm\n"
		"    return torch.mm(a, b)\n"
		"RuntimeError: expected mat1 and mat2 to have the same dtype\n";
	struct run r;
	run_start(&r, "python3");
	for (size_t i = 0; i < sizeof out - 1; i += 7)
		diag_on_program_output(r.d, out + i,
				       sizeof out - 1 - i < 7 ? sizeof out - 1 - i : 7);
	diag_on_exit(r.d, false, 1);
	run_finish(&r);
	const struct diag_fault *f = r.f;
	CHECK(f->flags[DIAG_F_PYTHON_HOST_ERROR]);
	CHECK_STR(f->py_exception,
		  "RuntimeError: expected mat1 and mat2 to have the same dtype");
	CHECK(f->python.found);
	CHECK_STR(f->python.call.file, "/s/a.py");
	CHECK_INT(f->python.call.line, 10);
	CHECK_STR(f->python.call.source, "return x @ w");
	CHECK_INT(f->python.launch.line, 19);
	CHECK(has_hint(&r, "python-host-error"));
	CHECK(!has_hint(&r, "exit-failed"));
	struct diag_report_in in = {.fault = f, .hints = &r.hints,
				    .mode = "live", .memcheck_seconds = -1};
	char *t = diag_report_text(&in);
	CHECK(t && strstr(t, "\n  raised     RuntimeError: expected mat1 and "
			  "mat2 to have the same dtype\n"));
	free(t);
	run_free(&r);

	static const char cuda[] =
		"Traceback (most recent call last):\n"
		"  File \"/s/a.py\", line 5, in <module>\n"
		"    y.item()\n"
		"RuntimeError: CUDA error: an illegal memory access was encountered\n";
	run_start(&r, "python3");
	diag_on_program_output(r.d, cuda, sizeof cuda - 1);
	diag_on_exit(r.d, false, 1);
	run_finish(&r);
	CHECK(!r.f->flags[DIAG_F_PYTHON_HOST_ERROR]);
	CHECK(r.f->py_exception == NULL);
	CHECK(!has_hint(&r, "python-host-error"));
	run_free(&r);
}

/* The access of the faulting line whose address each lane used, when
 * the -G load wrote over its address register (diag/lvalue.c): the
 * corpus's lines, a load against a store, and text the debugger must
 * never evaluate (it would change the program). */
TEST(culprit_lvalue)
{
	static const struct { const char *line; bool store; const char *want; } ok[] = {
		{ "    out[key] += 1.0f;", false, "out[key]" },
		{ "        s += row[c];", false, "row[c]" },
		{ "    out[r] = s;", true, "out[r]" },
		/* a load reads the right side, a store writes the left */
		{ "out[i] = in[idx[i]] * 2; // x[9]", false, "in[idx[i]]" },
		{ "out[i] = in[idx[i]] * 2;", true, "out[i]" },
		{ "if (p->rows[r][c] > 0.5f) n++;", false, "p->rows[r][c]" },
		{ "  x = s.v[i + 1 * n];", false, "s.v[i + 1 * n]" },
	};
	char b[160];
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		CHECK_MSG(diag_culprit_lvalue(ok[i].line, ok[i].store, b, sizeof b),
			  "%s", ok[i].line);
		CHECK_STR(b, ok[i].want);
	}
	/* never: an increment, an assignment or a call inside, no access */
	CHECK(!diag_culprit_lvalue("  y = a[i++];", false, b, sizeof b));
	CHECK(!diag_culprit_lvalue("  y = a[f(i)];", false, b, sizeof b));
	CHECK(!diag_culprit_lvalue("  y = a[i = 3];", false, b, sizeof b));
	CHECK(!diag_culprit_lvalue("  y = *p;", false, b, sizeof b));
	CHECK(!diag_culprit_lvalue("  y = a[i", false, b, sizeof b));
	CHECK(!diag_culprit_lvalue(NULL, false, b, sizeof b));
	/* too small a buffer: nothing cut */
	CHECK(!diag_culprit_lvalue("out[key] += 1;", false, b, 4));
}

/* Every dereference of a host crash's line (diag/lvalue.c), in the
 * order written: the address the crash names is matched against them. */
TEST(line_derefs)
{
	/* each as EXPR=POINTER/SUBSCRIPT| */
	static const struct { const char *line; const char *want; } cases[] = {
		{ "static int second(struct node *n) { return n->next->val; }",
		  "n->next=n/|n->next->val=n->next/|" },
		{ "    for (int i = 0; i <= j->n; i++) sum += j->data[i * 1000];",
		  "j->n=j/|j->data=j/|j->data[i * 1000]=j->data/i * 1000|" },
		{ "  *p = 1;", "*p=p/|" },
		{ "  x = *q->buf + a[i][j]; // b[9]",
		  "q->buf=q/|*q->buf=q->buf/|a[i]=a/i|a[i][j]=a[i]/j|" },
		{ "  s.v[k] = t.w;", "s.v[k]=s.v/k|" },
		/* a call, an increment: not evaluated */
		{ "  y = get(p)->v + a[i++] + b[f(i)];", "" },
		{ "  return 3 * x;", "" },
	};
	struct diag_deref out[8];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n = diag_line_derefs(cases[i].line, out, 8);
		char got[8 * 3 * DIAG_DEREF_MAX + 64] = "";
		for (size_t k = 0; k < n; k++)
			snprintf(got + strlen(got), sizeof got - strlen(got),
				 "%s=%s/%s|", out[k].expr, out[k].base, out[k].index);
		CHECK_MSG(strcmp(got, cases[i].want) == 0, "%s: got %s", cases[i].line, got);
	}
	CHECK(diag_line_derefs(NULL, out, 8) == 0);
	CHECK(diag_line_derefs("a[1]->b->c->d", out, 2) == 2);
}

/* A run that loaded no CUDA library and started no other process ran
 * nothing on a GPU: its failure is the host's (no memcheck pass, no
 * "cuda-gdb lays out device memory its own way"); with libcuda loaded,
 * a fork, or no library list at all (a static binary), nothing is
 * claimed. */
static void ended_run(struct run *r, const char *lib, const char *console,
		      const char *exit_rec)
{
	char rec[512];
	run_start(r, "./prog");
	snprintf(rec, sizeof rec, "=library-loaded,id=\"/lib/x86_64-linux-gnu/"
		 "libc.so.6\",target-name=\"/lib/x86_64-linux-gnu/libc.so.6\"");
	mi_parse_line(rec, strlen(rec), on_rec, r->d);
	if (lib) {
		snprintf(rec, sizeof rec, "=library-loaded,id=\"%s\"", lib);
		mi_parse_line(rec, strlen(rec), on_rec, r->d);
	}
	if (console)
		mi_parse_line(console, strlen(console), on_rec, r->d);
	mi_parse_line("*running,thread-id=\"all\"", 25, on_rec, r->d);
	mi_parse_line(exit_rec, strlen(exit_rec), on_rec, r->d);
	run_finish(r);
}

/* A CPU crash read from a host stack as gdb gives it without libc's line
 * information (only exported names: free, __stack_chk_fail, abort): the
 * frame the program called says how it came about, and the program's
 * own frame (its source here to read) is the location. */
static void host_abort_run(struct run *r, const char *libc_frames,
			   const char *func, unsigned line, bool source_here)
{
	char src[4096], stack[4096];
	snprintf(src, sizeof src, "%s/tests/progs/host_crash.c",
		 source_here ? test_root_dir() : "/nonexistent");
	run_start(r, "./host_crash");
	static const char stop[] =
		"*stopped,reason=\"signal-received\",signal-name=\"SIGABRT\","
		"signal-meaning=\"Aborted\",frame={addr=\"0x7f01\",func=\"??\","
		"args=[],from=\"/lib/x86_64-linux-gnu/libc.so.6\"},thread-id=\"1\"";
	mi_parse_line(stop, strlen(stop), on_rec, r->d);
	int n = snprintf(stack, sizeof stack, "^done,stack=[%s", libc_frames);
	snprintf(stack + n, sizeof stack - (size_t)n,
		 ",frame={level=\"9\",addr=\"0x5501\",func=\"%s\",file=\"host_crash.c\","
		 "fullname=\"%s\",line=\"%u\"},frame={level=\"10\",addr=\"0x5502\","
		 "func=\"main\",file=\"host_crash.c\",fullname=\"%s\",line=\"80\"}]",
		 func, src, line, src);
	mi_parse_line(stack, strlen(stack), on_rec, r->d);
	/* the choice the controller makes at the stop (mi/ctl_refresh.c) */
	const struct dec_frame *u = model_user_frame(&model);
	model.user_frame = u ? u->level : -1;
	diag_feed_model(r->d, &model);
	run_finish(r);
}

#define LIBC(l, f) "frame={level=\"" #l "\",addr=\"0x7f0" #l "\",func=\"" f "\"," \
	"from=\"/lib/x86_64-linux-gnu/libc.so.6\"}"

TEST(host_crash_named_from_the_host_stack_without_libc_lines)
{
	struct run r;
	host_abort_run(&r, LIBC(0, "??") "," LIBC(1, "raise") "," LIBC(2, "abort")
		       "," LIBC(3, "??") "," LIBC(4, "??") "," LIBC(5, "free"),
		       "release", 51, true);
	CHECK(r.f->flags[DIAG_F_HOST_HEAP_CORRUPT]);
	CHECK(!r.f->flags[DIAG_F_HOST_ABORT]);
	CHECK_STR(top_hint(&r), "host-heap-corrupt");
	CHECK_INT(r.f->where.line, 51);
	run_free(&r);

	host_abort_run(&r, LIBC(0, "??") "," LIBC(1, "raise") "," LIBC(2, "abort")
		       "," LIBC(3, "??") "," LIBC(4, "__stack_chk_fail"),
		       "fill_header", 46, true);
	CHECK(r.f->flags[DIAG_F_HOST_STACK_SMASH]);
	CHECK_STR(top_hint(&r), "host-stack-smash");
	run_free(&r);

	host_abort_run(&r, LIBC(0, "??") "," LIBC(1, "raise") "," LIBC(2, "abort"),
		       "give_up", 24, true);
	CHECK(r.f->flags[DIAG_F_HOST_ABORT]);
	CHECK_STR(top_hint(&r), "host-abort");
	CHECK_INT(r.f->where.line, 24);
	run_free(&r);

	/* the program's sources not here (a recording from elsewhere): no
	 * frame is known for its own, so no claim of how it came about; the
	 * location is still its innermost frame with an absolute path */
	host_abort_run(&r, LIBC(0, "??") "," LIBC(1, "raise") "," LIBC(2, "abort"),
		       "give_up", 24, false);
	CHECK(!r.f->flags[DIAG_F_HOST_ABORT]);
	CHECK_STR(top_hint(&r), "host-signal");
	CHECK_INT(r.f->where.line, 24);
	run_free(&r);
}

/* A SIGKILL (the OOM killer) is no fault: its own fact and hint while no
 * child faulted; a fault among the deaths is named first whatever the
 * order the reports came in. */
TEST(child_killed_is_apart_from_a_fault)
{
	static const char bad[] = "*stopped,reason=\"exited\",exit-code=\"01\"";
	struct run r;

	run_start(&r, "./launcher");
	CHECK(diag_add_child_death(r.d, 41, SIGKILL, "") == DIAG_OK);
	CHECK(diag_add_child_death(r.d, 41, SIGKILL, "") == DIAG_OK);
	mi_parse_line(bad, strlen(bad), on_rec, r.d);
	run_finish(&r);
	CHECK(r.f->n_child_deaths == 1);
	/* a child reaped before its command was read says so */
	CHECK(strstr(r.hints.v[0].what, "Process 41 (its command was not "
		     "read)") != NULL);
	CHECK(r.f->flags[DIAG_F_CHILD_DIED] && r.f->flags[DIAG_F_CHILD_KILLED]);
	CHECK_STR(top_hint(&r), "job-child-killed");
	CHECK(!has_hint(&r, "job-child-died"));
	run_free(&r);

	run_start(&r, "./launcher");
	CHECK(diag_add_child_death(r.d, 41, SIGKILL, "worker 1") == DIAG_OK);
	CHECK(diag_add_child_death(r.d, 42, SIGSEGV, "worker 2") == DIAG_OK);
	CHECK(diag_add_child_death(r.d, 43, SIGKILL, "worker 3") == DIAG_OK);
	CHECK(diag_add_child_death(r.d, 44, SIGBUS, "worker 4") == DIAG_OK);
	mi_parse_line(bad, strlen(bad), on_rec, r.d);
	run_finish(&r);
	CHECK(r.f->n_child_deaths == 4);
	CHECK(r.f->child_deaths[0].pid == 42 && r.f->child_deaths[1].pid == 44);
	CHECK(r.f->child_deaths[2].pid == 41 && r.f->child_deaths[3].pid == 43);
	CHECK(!r.f->flags[DIAG_F_CHILD_KILLED]);
	CHECK_STR(top_hint(&r), "job-child-died");
	CHECK(!has_hint(&r, "job-child-killed"));
	run_free(&r);
}

/* A program killed by SIGKILL never stops first: the kill's own hint
 * (the OOM killer), no "status (unknown)", no memcheck pass to run it to
 * the same end, and gdb's "Program terminated with signal" is no child's
 * failure (the launcher rule once took it for one). */
TEST(sigkill_is_a_kill_not_a_child_or_a_status)
{
	static const char killed[] = "*stopped,reason=\"exited-signalled\","
				     "signal-name=\"SIGKILL\",signal-meaning=\"Killed\"";
	static const char gdb_says[] = "~\"\\nProgram terminated with signal "
				       "SIGKILL, Killed.\\n\"";
	struct run r;

	ended_run(&r, "/lib/x86_64-linux-gnu/libcuda.so.1", gdb_says, killed);
	CHECK(r.f->flags[DIAG_F_EXIT_SIGKILL]);
	CHECK_STR(top_hint(&r), "exit-sigkill");
	CHECK(!has_hint(&r, "job-child-failed"));
	CHECK(!has_hint(&r, "exit-failed"));
	CHECK(!diag_memcheck_wanted(DIAG_MEMCHECK_AUTO, r.f));
	run_free(&r);

	/* another signal's end says which, not "status (unknown)" */
	static const char alarm[] = "*stopped,reason=\"exited-signalled\","
				    "signal-name=\"SIGALRM\",signal-meaning=\"Alarm clock\"";
	ended_run(&r, "/lib/x86_64-linux-gnu/libcuda.so.1", NULL, alarm);
	CHECK(!r.f->flags[DIAG_F_EXIT_SIGKILL]);
	CHECK_STR(top_hint(&r), "exit-failed");
	CHECK(strstr(r.hints.v[0].what, "ended with signal SIGALRM") != NULL);
	run_free(&r);
}

TEST(no_cuda_library_is_a_host_run)
{
	static const char ok[] = "*stopped,reason=\"exited-normally\"";
	static const char bad[] = "*stopped,reason=\"exited\",exit-code=\"01\"";
	static const char fork_line[] = "~\"[Detaching after fork from child "
					"process 4242]\\n\"";
	struct run r;

	ended_run(&r, NULL, NULL, ok);
	CHECK(r.f->flags[DIAG_F_NO_CUDA_LIBRARY]);
	CHECK_STR(top_hint(&r), "host-only-clean");
	CHECK(!has_hint(&r, "clean-under-debugger"));
	run_free(&r);

	ended_run(&r, NULL, NULL, bad);
	CHECK_STR(top_hint(&r), "host-only-failed");
	CHECK(!has_hint(&r, "exit-failed"));
	CHECK(!diag_memcheck_wanted(DIAG_MEMCHECK_AUTO, r.f));
	run_free(&r);

	static const char *const gpu[] = {
		"/lib/x86_64-linux-gnu/libcuda.so.1",
		"/usr/local/cuda/lib64/libcudart.so.12",
	};
	for (size_t i = 0; i < 2; i++) {
		ended_run(&r, gpu[i], NULL, bad);
		CHECK(!r.f->flags[DIAG_F_NO_CUDA_LIBRARY]);
		CHECK_STR(top_hint(&r), "exit-failed");
		CHECK(diag_memcheck_wanted(DIAG_MEMCHECK_AUTO, r.f));
		run_free(&r);
	}
	/* a child may have run on the GPU; the pass follows children */
	ended_run(&r, NULL, fork_line, bad);
	CHECK(!r.f->flags[DIAG_F_NO_CUDA_LIBRARY]);
	CHECK(diag_memcheck_wanted(DIAG_MEMCHECK_AUTO, r.f));
	run_free(&r);
	ended_run(&r, NULL, fork_line, ok);
	CHECK_STR(top_hint(&r), "clean-under-debugger");
	run_free(&r);
}

/* One headline for the Hints pane and DAP's stop (diag_fault_headline):
 * the exception at a device stop, the sanitizer's own words for a
 * finding (not the SIGTRAP the sanitizer stopped with), how a clean run
 * ended. */
TEST(fault_headline_per_case)
{
	char head[512];
	struct run r;
	run_start(&r, "python3");
	feed_log(r.d, "seed_py.mi.log");
	run_finish(&r);
	enum diag_headline_kind k;
	CHECK_STR(diag_fault_headline(r.f, head, sizeof head, &k), "Warp Assert");
	CHECK_INT(k, DIAG_HEAD_EXCEPTION);
	run_free(&r);

	run_start(&r, "./small_oob");
	add_xml(r.d, "small_oob.sanitizer.xml");
	run_finish(&r);
	diag_fault_headline(r.f, head, sizeof head, &k);
	CHECK_MSG(!strncmp(head, "memcheck: Invalid __global__ ", 29), "%s", head);
	CHECK_INT(k, DIAG_HEAD_FINDING);
	run_free(&r);

	bool exited_seen = false;
	const char *logs[] = {"step_kernel.mi.log", "replay_to_fault.mi.log",
			      "late_condition.mi.log", "warp_watch.mi.log"};
	for (int i = 0; i < 4; i++) {
		run_start(&r, "./prog");
		feed_log(r.d, logs[i]);
		run_finish(&r);
		if (r.f->exited && !r.f->exit_signal && r.f->exit_code == 0) {
			exited_seen = true;
			CHECK_STR(diag_fault_headline(r.f, head, sizeof head, &k),
				  "The program exited with status 0: no fault seen");
			CHECK_INT(k, DIAG_HEAD_EXITED);
		}
		run_free(&r);
	}
	CHECK(exited_seen);
}
