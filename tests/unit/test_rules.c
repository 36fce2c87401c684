/* The rules file: the shipped file loads, every placeholder of every rule
 * resolves against a complete fault, and broken files give clear errors
 * with FILE:LINE. */
#include "cudbg/assertline.h"
#include "cudbg/hints.h"
#include "cudbg/hang.h"
#include "cudbg/sanitizer.h"
#include "diag/internal.h"
#include "diag/rules.h"
#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct diag_rules *load_shipped(void)
{
	char path[4096], err[512];
	snprintf(path, sizeof path, "%s/data/hints.rules", test_root_dir());
	struct diag_rules *r = NULL;
	CHECK_MSG(diag_rules_load_file(path, &r, err, sizeof err) == 0, "%s",
		  err);
	return r;
}

TEST(shipped_rules_load)
{
	struct diag_rules *r = load_shipped();
	CHECK(diag_rules_count(r) >= 50);
	/* Every area of the issue has its rules. */
	const char *need[] = {
		"pytorch-class-index", "pytorch-index-select",
		"pytorch-advanced-index", "pytorch-scatter-gather",
		"pytorch-bce-range", "pytorch-multinomial", "pytorch-ctc-lengths",
		"device-assert", "exc-warp-illegal-address",
		"exc-device-illegal-address", "exc-misaligned",
		"exc-illegal-instruction", "exc-out-of-range",
		"exc-invalid-address-space", "exc-invalid-pc",
		"exc-stack-overflow", "exc-managed-memory", "lane-unknown",
		"san-oob-after", "san-oob-before", "san-misaligned", "san-null",
		"san-address-space", "san-use-after-free", "san-leak",
		"plain-run-failed", "continued-past-fault", "async-error",
		"dtype-mismatch", "caching-allocator", "env-debugger-missing",
		"env-sanitizer-missing", "env-cudadebugger-missing",
		"env-minimal-debugger", "env-no-gpu", "env-no-kernel-image",
		"env-driver-too-old",
	};
	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
		bool found = false;
		for (size_t j = 0; j < diag_rules_count(r); j++)
			found |= strcmp(diag_rules_id(r, j), need[i]) == 0;
		CHECK_MSG(found, "no rule [%s]", need[i]);
	}
	diag_rules_free(r);
}

/* A fault with every field set, so every placeholder has a value. */
struct full {
	struct diag_fault f;
	struct diag_assert_entry e;
	const struct diag_assert_entry *ep[1];
	struct diag_san_record rec;
	const struct diag_san_record *rp[1];
	struct diag_finding_group group;
	struct diag_value vals[64];
	char *lines[1];
	struct diag_hang hang;
	struct diag_hang_group groups[2];
	struct diag_host_access access;
};

static char *S(const char *s)
{
	return (char *)(uintptr_t)s;
}

static void full_fault(struct full *x, const struct diag_rules *r)
{
	memset(x, 0, sizeof *x);
	struct diag_fault *f = &x->f;
	f->kind = DIAG_FAULT_EXCEPTION;
	f->program = S("./prog");
	f->command = S("./prog --n 3");
	f->signal_name = S("CUDA_EXCEPTION_14");
	f->signal_meaning = f->exception_name = S("Warp Illegal Address");
	f->exception_code = 14;
	f->exception_message = S("msg");
	f->explanation = "text";
	f->scope = "warp";
	f->focus = (struct diag_focus){.valid = true, .device = 0, .sm = 1,
				       .warp = 2, .lane = 3, .kernel = 0,
				       .grid = 1};
	f->kernel = S("void k(int*)");
	f->kernel_short = S("k");
	f->where = (struct diag_loc){DIAG_LOC_FRAME, S("k.cu"), S("/s/k.cu"), 7,
				     S("k"), S("x[i] = 0;")};
	f->caller = (struct diag_loc){DIAG_LOC_FRAME, S("k.cu"), S("/s/k.cu"), 19,
				      S("main"), S("run(x);")};
	f->recursion_func = "walk";
	f->recursion_depth = 29120;
	x->access = (struct diag_host_access){
		.address = 0x1000, .expr = S("d[i]"), .base = S("d"),
		.base_value = 0x800, .has_base = true, .index = S("i"),
		.index_value = 512, .has_index = true, .line_checked = true};
	f->host_access = &x->access;
	f->error_pc = 0x10;
	f->stop_pc = 0x20;
	f->has_error_pc = f->has_stop_pc = true;
	f->op = S("nll_loss_forward");
	f->bad_value = "labels[3] = 4, the model has 4 classes";
	f->python = (struct diag_python){
		true, {S("<module>"), S("/s/a.py"), 12, S("main()")},
		{S("main"), S("/s/a.py"), 9, S("loss(x)")}};
	f->py_exception = "RuntimeError: expected mat1 and mat2 to have the "
			  "same dtype";
	f->py_start_error = "No module named pytest";
	x->e = (struct diag_assert_entry){.file = S("k.cu"), .line = 7,
					  .kernel = S("void k(int*)"),
					  .kernel_short = S("k"), .expr = S("x"),
					  .count = 3, .n_examples = 1};
	x->ep[0] = &x->e;
	f->asserts = x->ep;
	f->n_asserts = 1;
	f->assert_total = 3;
	x->rec = (struct diag_san_record){
		.kind = DIAG_SAN_PRECISE, .has_who = true, .text = S("Invalid"),
		.space = S("__global__"), .size = 4, .direction = S("read"),
		.error = S("out of bounds"), .api = S("cudaMalloc"),
		.message = S("oops"), .address = 0x100, .has_address = true,
		.path = S("/s/k.cu"), .line = 7, .has_alloc = true,
		.alloc_address = 0x1000, .alloc_size = 400, .distance = 4,
		.hazard = S("RAW"), .hazards = 62, .direction2 = S("read"),
		.path2 = S("/s/k.cu"), .line2 = 9};
	x->rp[0] = &x->rec;
	f->findings = x->rp;
	f->n_findings = 1;
	f->finding = &x->rec;
	x->group = (struct diag_finding_group){.count = 2, .has_who = true};
	f->groups = &x->group;
	f->n_groups = 1;
	f->prov = (struct diag_provenance){
		.cls = DIAG_PTR_NEAR_ALLOC, .has_address = true, .address = 0x100,
		.var = S("in"), .var_value = S("0x1000"), .has_offset = true,
		.offset = 404, .index_var = S("i"), .index_value = S("-2"),
		.index_type = S("int"), .line_text = S("x[i] = 0;"),
		.wrap = true, .wrap_index = -2147483648ll,
		.wrap_true = 2147483648ll, .wrap_elem = 1, .wrap_expr = S("i")};
	f->freed = (struct diag_freed){
		.found = true, .addr = 0x7f0000000044, .base = 0x7f0000000000,
		.size = 1 << 20,
		.alloc = { .api = "cudaMalloc", .func = S("main"),
			   .file = S("/s/uaf.cu"), .line = 27 },
		.free = { .api = "cudaFree", .func = S("main"),
			  .file = S("/s/uaf.cu"), .line = 30 }};
	static struct diag_child_death child = { .pid = 4242, .sig = 11 };
	child.cmd = S("worker 1");
	f->child_deaths = &child;
	f->n_child_deaths = 1;
	f->child_events_off = "they need CAP_NET_ADMIN (root)";
	f->core_path = S("/tmp/core");
	f->pass_failed = "cut short after 3.0 s (--timeout)";
	f->sync_call = "__syncwarp";
	f->exited = true;
	f->exit_code = 1;
	f->exit_signal = NULL;
	f->error_line = S("CUDA error: an illegal memory access");
	x->lines[0] = f->error_line;
	f->output_lines = x->lines;
	f->n_output_lines = 1;
	size_t n = 0;
	for (size_t i = 0; i < r->n_evals && n < 64; i++)
		x->vals[n++] = (struct diag_value){r->evals[i], S("42")};
	f->values = x->vals;
	f->n_values = n;
	x->groups[0] = (struct diag_hang_group){
		.file = S("/s/k.cu"), .line = 6, .threads = 64, .blocks = 1,
		.source = S("while (*flag == 0) ;"), .wait = DIAG_HANG_SPIN};
	x->groups[1] = (struct diag_hang_group){
		.file = S("/s/k.cu"), .line = 9, .threads = 32, .blocks = 1,
		.source = S("__syncthreads();"), .wait = DIAG_HANG_BARRIER};
	x->hang = (struct diag_hang){
		.seconds = 5, .device = true, .kernel = S("k"),
		.groups = x->groups, .n_groups = 2, .threads_live = 96,
		.blocks_live = 1, .blocks_total = 8, .block_size = 128,
		.barrier_divergent = true, .barrier_threads = 32,
		.spin = true, .all_waiting = true};
	f->hang = &x->hang;
}

static void check_template(const char *id, const char *t,
			   const struct diag_fault *f)
{
	/* {python.rerun} has a value only while no script line is known
	 * (then the other python.* have none): check it in such a fault. */
	if (strstr(t, "{python.rerun}")) {
		struct diag_fault g = *f;
		g.python.found = false;
		g.script = "train.py";
		f = &g;
		char *s = diag_hint_render(t, f, NULL);
		CHECK_MSG(s && strstr(s, "train.py"), "[%s] no script in: %s", id, t);
		free(s);
		return;
	}
	const char *missing = NULL;
	char *s = diag_hint_render(t, f, &missing);
	CHECK_MSG(s, "[%s] placeholder without a value at: %.40s", id,
		  missing ? missing : "?");
	CHECK_MSG(!strchr(s, '{') || strstr(t, "{{"), "[%s] unfilled: %s", id, s);
	free(s);
}

TEST(every_placeholder_of_every_rule_resolves)
{
	struct diag_rules *r = load_shipped();
	struct full x;
	full_fault(&x, r);
	/* Every placeholder name alone, except the rule-relative one. */
	for (const char *const *p = diag_placeholders(); *p; p++) {
		if (strcmp(*p, "output.match") == 0 ||
		    strcmp(*p, "exit.signal") == 0 ||
		    strcmp(*p, "python.rerun") == 0)
			continue;
		char t[64];
		snprintf(t, sizeof t, "{%s}", *p);
		check_template(*p, t, &x.f);
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct rule *u = &r->v[i];
		struct diag_fault *f = &x.f;
		/* output.match comes from the rule's own output pattern;
		 * give it a value by making the pattern's line present. */
		bool has_out = u->match[MK_OUTPUT].n > 0;
		const char *texts[3] = {u->title, u->what, u->why};
		for (int k = 0; k < 3; k++) {
			if (!texts[k])
				continue;
			if (has_out && strstr(texts[k], "{output.match}"))
				continue; /* checked in the matching test */
			check_template(u->id, texts[k], f);
		}
		for (size_t k = 0; k < u->n_evidence; k++)
			check_template(u->id, u->evidence[k], f);
		for (size_t k = 0; k < u->n_steps; k++)
			check_template(u->id, u->steps[k].text, f);
	}
	diag_rules_free(r);
}

/* Rules whose texts use {output.match} render it from the line their
 * pattern matched. */
TEST(output_match_placeholder_comes_from_the_matched_line)
{
	struct diag_rules *r = load_shipped();
	struct full x;
	full_fault(&x, r);
	char *line = S("RuntimeError: expected scalar type Float but found Half");
	x.lines[0] = line;
	struct diag_hints h = {0};
	CHECK(diag_hints_match(r, &x.f, &h) > 0);
	bool seen = false;
	for (size_t i = 0; i < h.n; i++)
		if (strcmp(h.v[i].id, "dtype-mismatch") == 0) {
			seen = true;
			CHECK(strstr(h.v[i].what, "found Half"));
		}
	CHECK(seen);
	diag_hints_clear(&h);
	diag_rules_free(r);
}

static void expect_error(const char *text, const char *want)
{
	char err[512] = "";
	struct diag_rules *r = NULL;
	int rc = diag_rules_load_buf("t.rules", text, strlen(text), &r, err,
				     sizeof err);
	CHECK_MSG(rc < 0, "accepted: %s", text);
	CHECK(r == NULL);
	CHECK_MSG(strstr(err, want), "error '%s' lacks '%s'", err, want);
}

TEST(bad_rules_files_give_file_and_line)
{
	const char *ok = "[a]\ntitle = T\nwhat = W\nwhen = device-assert\n";
	expect_error("[a]\ntitle = T\nwhat = W\nwhen = device-assert\ncolour = red\n",
		     "t.rules:5: unknown key 'colour'");
	expect_error("[a]\ntitle = T {nope}\nwhat = W\nwhen = device-assert\n",
		     "t.rules:2: title: an unknown placeholder");
	expect_error("[a]\ntitle = T\nwhat = W\nwhen = device-assert\n\n[a]\n"
		     "title = T\nwhat = W\nwhen = device-assert\n",
		     "t.rules:6: duplicate rule id [a] (first at line 1)");
	expect_error("[a]\ntitle = T\nwhat = W\nwhen = device-asert\n",
		     "t.rules:4: unknown fact 'device-asert'");
	expect_error("[a]\ntitle = T\nwhat = W\nwhen = device-assert\nkey = fly: x\n",
		     "t.rules:5: unknown action 'fly'");
	expect_error("[a]\nwhat = W\nwhen = device-assert\n",
		     "t.rules:1: rule [a] has no title");
	expect_error("[a]\ntitle = T\nwhat = W\n", "t.rules:1: rule [a] has no "
		     "match condition");
	expect_error("[a]\ntitle = T\nwhat = W\nwhen = device-assert\npriority = high\n",
		     "t.rules:5: priority must be");
	expect_error("title = T\n", "t.rules:1: a key before the first [rule-id]");
	expect_error("  continued\n", "t.rules:1: an indented line continues");
	expect_error("[a]\ntitle = T\x1b[31m\n", "t.rules:2: a control character");
	expect_error("[a]\ntitle = {kernel\nwhat = W\nwhen = device-assert\n",
		     "t.rules:2: title: a '{' without '}'");
	expect_error("[a]\ntitle = T\nwhat = {eval:x\"y}\nwhen = device-assert\n",
		     "t.rules:3: what: a bad expression");
	expect_error("[a]\ntitle = T\nwhat = W\nassert = x |  | y\n",
		     "t.rules:4: an empty pattern");
	expect_error("[a b]\n", "t.rules:1: bad rule id");
	expect_error("[a]\ntitle = T\ntitle = U\n", "t.rules:3: 'title' given twice");
	expect_error("[a]\ntitle =\n", "t.rules:2: 'title' has no value");
	expect_error("# nothing\n", "t.rules: no rules");
	expect_error("[a]\nstray line\n", "t.rules:2: expected 'key = value'");
	char nul[] = "[a]\ntitle = T\0\n";
	char err[256];
	struct diag_rules *r;
	CHECK(diag_rules_load_buf("t.rules", nul, sizeof nul - 1, &r, err,
				  sizeof err) < 0);
	CHECK(strstr(err, "NUL"));
	CHECK_INT(diag_rules_load_buf("t.rules", ok, strlen(ok), &r, err,
				      sizeof err), 0);
	diag_rules_free(r);
	CHECK(diag_rules_load_file("/nonexistent.rules", &r, err, sizeof err) < 0);
	CHECK(strstr(err, "/nonexistent.rules"));
}

TEST(continuations_alternatives_priorities)
{
	const char *text =
		"# comment\n"
		"[low]\n"
		"title = Low\n"
		"what = first line\n"
		"  second line {{literal}}\n"
		"assert = *a* | *b*\n"
		"\n"
		"[high]\n"
		"title = High {kernel}\n"
		"priority = 90\n"
		"what = W\n"
		"kernel = k\n"
		"evidence = has {san.address}\n"
		"evidence = kernel {kernel}\n"
		"run = go {python.file}\n"
		"key = memcheck: check {kernel}\n";
	char err[256];
	struct diag_rules *r;
	CHECK_MSG(diag_rules_load_buf("t", text, strlen(text), &r, err,
				      sizeof err) == 0, "%s", err);
	struct diag_assert_entry e = {.file = S("f"), .line = 1,
				      .kernel = S("k"), .kernel_short = S("k"),
				      .expr = S("xbx"), .count = 1};
	const struct diag_assert_entry *ep[1] = {&e};
	struct diag_fault f = {.kind = DIAG_FAULT_ASSERT, .asserts = ep,
			       .n_asserts = 1, .kernel_short = S("k")};
	struct diag_hints h = {0};
	CHECK_INT(diag_hints_match(r, &f, &h), 2);
	CHECK_STR(h.v[0].id, "high");
	CHECK_STR(h.v[0].title, "High k");
	CHECK_INT(h.v[0].n_evidence, 1); /* no address: that line is left out */
	CHECK_STR(h.v[0].evidence[0], "kernel k");
	CHECK_INT(h.v[0].n_steps, 1);    /* no python file: run step left out */
	CHECK_INT(h.v[0].steps[0].kind, DIAG_STEP_KEY);
	CHECK_INT(h.v[0].steps[0].action, DIAG_ACT_MEMCHECK);
	CHECK_STR(h.v[0].steps[0].text, "check k");
	CHECK_STR(h.v[1].id, "low");
	CHECK_STR(h.v[1].what, "first line second line {literal}");
	diag_hints_clear(&h);
	/* Nothing matches a clean run. */
	struct diag_fault none = {.kind = DIAG_FAULT_NONE};
	CHECK_INT(diag_hints_match(r, &none, &h), 0);
	diag_hints_clear(&h);
	diag_rules_free(r);
}

TEST(globs)
{
	CHECK(diag_glob_match("*t >= 0 && t < n_classes*", "t >= 0 && t < n_classes"));
	CHECK(diag_glob_match("warp illegal address", "Warp Illegal Address"));
	CHECK(diag_glob_match("CUDA_EXCEPTION_1?", "CUDA_EXCEPTION_14"));
	CHECK(!diag_glob_match("CUDA_EXCEPTION_1", "CUDA_EXCEPTION_14"));
	CHECK(diag_glob_match("a\\*b", "a*b"));
	CHECK(!diag_glob_match("a\\*b", "axb"));
	CHECK(diag_glob_match("*", ""));
	CHECK(!diag_glob_match("?", ""));
	CHECK(diag_glob_match("*a*b*c*", "xxaxxbxxcxx"));
	/* Many stars against a long near-miss stays fast (no exponential
	 * backtracking). */
	char s[4096];
	memset(s, 'a', sizeof s - 1);
	s[sizeof s - 1] = '\0';
	CHECK(!diag_glob_match("*a*a*a*a*a*a*a*a*b", s));
}

TEST(default_path)
{
	char buf[4096];
	setenv("CUDBG_HINTS", "/x/h.rules", 1);
	CHECK_STR(diag_rules_default_path(NULL, buf, sizeof buf), "/x/h.rules");
	unsetenv("CUDBG_HINTS");
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/build", test_root_dir());
	const char *p = diag_rules_default_path(dir, buf, sizeof buf);
	CHECK(strstr(p, "data/hints.rules"));
	p = diag_rules_default_path("/nonexistent", buf, sizeof buf);
	CHECK(strstr(p, "/hints.rules"));
}

/* The commands a hint suggests run the user's whole command line,
 * shell-quoted, not argv[0] alone (issue 29 item 2: "compute-sanitizer
 * --tool racecheck python3" dropped the script and its arguments). */
TEST(suggested_commands_keep_the_whole_command_line)
{
	struct diag_rules *r = load_shipped();
	struct diag_fault f;
	memset(&f, 0, sizeof f);
	f.kind = DIAG_FAULT_NONE;
	f.flags[DIAG_F_SANITIZER_CLEAN] = true;
	char prog[] = "python3", cmd[] = "python3 'my train.py' --lr 3";
	f.program = prog;
	f.command = cmd;
	struct diag_hints h = {0};
	CHECK(diag_hints_match(r, &f, &h) > 0);
	bool seen = false;
	for (size_t i = 0; i < h.n; i++)
		for (size_t k = 0; k < h.v[i].n_steps; k++) {
			const struct diag_hint_step *s = &h.v[i].steps[k];
			if (s->kind != DIAG_STEP_RUN)
				continue;
			CHECK_MSG(strstr(s->text, "python3 'my train.py' --lr 3"),
				  "[%s] %s", h.v[i].id, s->text);
			seen = true;
		}
	CHECK(seen);
	diag_hints_clear(&h);
	diag_rules_free(r);
}

static bool hint_listed(const struct diag_hints *h, const char *id)
{
	for (size_t i = 0; i < h->n; i++)
		if (strcmp(h->v[i].id, id) == 0)
			return true;
	return false;
}

/* A device assert of PyTorch's with the given expression, kernel and
 * operators (outer may be NULL), matched against the shipped rules. */
static const struct diag_fault *match_assert_of(struct diag_rules *r,
						const char *expr,
						const char *kernel,
						const char *op,
						const char *outer,
						struct diag_hints *h)
{
	static struct diag_assert_entry e;
	static const struct diag_assert_entry *ep[1];
	e = (struct diag_assert_entry){ .file = S("/pytorch/aten/x.cu"),
					.line = 9, .kernel = S(kernel),
					.kernel_short = S(kernel),
					.expr = S(expr), .count = 1 };
	ep[0] = &e;
	static struct diag_fault f;
	f = (struct diag_fault){ .kind = DIAG_FAULT_ASSERT, .asserts = ep,
				 .n_asserts = 1, .kernel = S(kernel),
				 .kernel_short = S(kernel),
				 .op = op ? S(op) : NULL,
				 .op_outer = outer ? S(outer) : NULL };
	f.flags[DIAG_F_DEVICE_ASSERT] = f.flags[DIAG_F_PYTORCH] = true;
	f.flags[DIAG_F_ASSERT_OUTPUT] = f.flags[DIAG_F_KERNEL_KNOWN] = true;
	CHECK(diag_hints_match(r, &f, h) > 0);
	return &f;
}

/* Index asserts as a class (issue 29 item 1): a new assert whose words say
 * an index is out of range gets the index hint from data alone; a rule
 * for one assert still wins over the class; _assert_async is told apart
 * by the operator that called it. */
TEST(index_asserts_as_a_class)
{
	struct diag_rules *r = load_shipped();
	struct diag_hints h = {0};
	/* nn.EmbeddingBag, PyTorch 2.11 (EmbeddingBag.cu:149) */
	match_assert_of(r, "!has_invalid_index && \"Invalid input index in "
			"EmbeddingBag: index out of range [0, numRows)\"",
			"EmbeddingBag_updateOutputKernel_sum_mean",
			"_embedding_bag", "embedding_bag", &h);
	CHECK_STR(h.v[0].id, "pytorch-index-class");
	diag_hints_clear(&h);
	/* a member with its own rule: the class gives way */
	match_assert_of(r, "ind >=0 && ind < ind_dim_size && \"vectorized gather "
			"kernel index out of bounds\"", "vectorized_gather_kernel",
			"index_select", NULL, &h);
	CHECK(hint_listed(&h, "pytorch-advanced-index"));
	CHECK(!hint_listed(&h, "pytorch-index-class"));
	diag_hints_clear(&h);
	/* index_put_(accumulate=True): `Assertion `` failed` in _assert_async */
	match_assert_of(r, "", "_assert_async_cuda_kernel", "_assert_async",
			"index_put_", &h);
	CHECK_STR(h.v[0].id, "pytorch-assert-async-index");
	CHECK_STR(h.v[0].title, "An index check inside index_put_ failed");
	CHECK(!hint_listed(&h, "user-assert-async"));
	diag_hints_clear(&h);
	/* torch._assert_async in the user's own code */
	match_assert_of(r, "", "_assert_async_cuda_kernel", "_assert_async",
			NULL, &h);
	CHECK(hint_listed(&h, "user-assert-async"));
	CHECK(!hint_listed(&h, "pytorch-assert-async-index"));
	diag_hints_clear(&h);
	diag_rules_free(r);
}

/* The bad value's kind is data (issue 29 item 1): the best matching
 * rule's `value`, for the asserts the value reader knows and the new
 * ones of the class; a user's own assert has none; a wrong word does not
 * load. */
TEST(value_kinds_come_from_the_rules)
{
	struct diag_rules *r = load_shipped();
	static const struct { const char *expr, *kernel, *op, *outer, *kind; }
	cases[] = {
		{ "t >= 0 && t < n_classes", "nll_loss_forward_reduce_cuda_kernel_2d",
		  "nll_loss_forward", NULL, "class" },
		{ "srcIndex < srcSelectDimSize", "indexSelectLargeIndex",
		  "index_select", NULL, "index" },
		{ "idx_dim >= 0 && idx_dim < index_size && \"index out of "
		  "bounds\"", "_scatter_gather_elementwise_kernel", "gather",
		  NULL, "index" },
		{ "!has_invalid_index && \"Invalid input index in EmbeddingBag: "
		  "index out of range [0, numRows)\"",
		  "EmbeddingBag_updateOutputKernel_sum_mean", "_embedding_bag",
		  "embedding_bag", "index" },
		{ "", "_assert_async_cuda_kernel", "_assert_async", "index_put_",
		  "index" },
		{ "probability tensor contains either `inf`, `nan` or element "
		  "< 0", "_assert_async_cuda_kernel", "_assert_async",
		  "multinomial", "prob" },
		{ "input_val >= zero && input_val <= one", "binary_cross_entropy_kernel",
		  "binary_cross_entropy", NULL, "range01" },
		{ "x > 0", "my_kernel", NULL, NULL, NULL },
	};
	struct diag_hints h = {0};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct diag_fault *f =
			match_assert_of(r, cases[i].expr, cases[i].kernel,
					cases[i].op, cases[i].outer, &h);
		const char *kind = diag_hints_value(r, f);
		CHECK_MSG(kind ? cases[i].kind && strcmp(kind, cases[i].kind) == 0
			       : !cases[i].kind, "case %zu (%s): %s, not %s", i,
			  cases[i].kernel, kind ? kind : "none",
			  cases[i].kind ? cases[i].kind : "none");
		diag_hints_clear(&h);
	}
	diag_rules_free(r);
	static const char bad[] = "[a]\ntitle = A\nwhat = W\nkernel = k\n"
				  "value = tokens\n";
	char err[256];
	CHECK(diag_rules_load_buf("t.rules", bad, strlen(bad), &r, err,
				  sizeof err) != 0);
	CHECK_MSG(strstr(err, "no kind of bad value"), "%s", err);
}

TEST(instead_of_names_a_rule)
{
	const char *bad = "[a]\ntitle = A\nwhat = W\nkernel = k\n"
			  "instead-of = nosuch\n";
	char err[256];
	struct diag_rules *r;
	CHECK(diag_rules_load_buf("t.rules", bad, strlen(bad), &r, err,
				  sizeof err) < 0);
	CHECK_MSG(strstr(err, "t.rules:5") && strstr(err, "nosuch"), "%s", err);
	const char *self = "[a]\ntitle = A\nwhat = W\nkernel = k\n"
			   "instead-of = a\n";
	CHECK(diag_rules_load_buf("t.rules", self, strlen(self), &r, err,
				  sizeof err) < 0);
}
