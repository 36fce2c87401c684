/* The live Python stack: the script's text parsed, the script itself run
 * in a real Python (tests/progs/py_crash.py in self-test mode), and the
 * bad value of the PyTorch index asserts found in a tensor's bytes. */
#include "tests/harness.h"
#include "cudbg/diag.h"
#include "cudbg/pystack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the script writes for torch_label.py-like code at the launch of
 * nll_loss: the functional frame (library), the user's train_step, the
 * module. */
static const char label_text[] =
	"F\t/opt/venv/lib/python3.12/site-packages/torch/nn/functional.py\t3504\tcross_entropy\n"
	"F\t/home/u/train.py\t12\ttrain_step\n"
	"F\t/home/u/train.py\t24\t<module>\n"
	"T\t0\tinput\ttorch.float32\tcuda:0\t64,4\t4,1\t140000000000000\t4\n"
	"T\t0\ttarget\ttorch.int64\tcuda:0\t64\t1\t140000000100000\t8\n"
	"I\t0\tignore_index\t-100\n"
	"T\t1\tlogits\ttorch.float32\tcuda:0\t64,4\t4,1\t140000000000000\t4\n"
	"T\t1\tlabels\ttorch.int64\tcuda:0\t64\t1\t140000000100000\t8\n";

TEST(parses_frames_tensors_ints)
{
	struct diag_pystack ps;
	CHECK_INT(diag_pystack_parse(label_text, strlen(label_text), &ps), 0);
	CHECK_INT(ps.n_frames, 3);
	CHECK(ps.frames[0].library);
	CHECK(!ps.frames[1].library);
	CHECK_STR(ps.frames[1].func, "train_step");
	CHECK_INT(ps.frames[1].line, 12);
	CHECK_INT(diag_pystack_user_frame(&ps), 1);
	CHECK_INT(ps.n_tensors, 4);
	CHECK_INT(ps.tensors[0].ndim, 2);
	CHECK_INT(ps.tensors[0].shape[1], 4);
	CHECK_INT(ps.tensors[1].elsize, 8);
	CHECK_INT(ps.n_ints, 1);
	CHECK_INT(ps.ints[0].value, -100);
	diag_pystack_free(&ps);
}

TEST(bad_lines_are_skipped_no_frames_is_an_error)
{
	static const char junk[] =
		"F\tonly-two\n"
		"T\t9\tx\ttorch.int64\tcuda\t4\t1\t1\t8\n" /* no frame 9 */
		"F\t/a/b.py\tnotanumber\tf\n"
		"Z\twhatever\n";
	struct diag_pystack ps;
	CHECK_INT(diag_pystack_parse(junk, strlen(junk), &ps), DIAG_ESYNTAX);
	static const char one[] = "F\t/a/b.py\t3\tf\n"
				  "T\t0\tx\ttorch.int64\tcuda\t4,x\t1\t1\t8\n"
				  "T\t0\ty\ttorch.int64\tcuda\t4\t1\t1\t99\n";
	CHECK_INT(diag_pystack_parse(one, strlen(one), &ps), 0);
	CHECK_INT(ps.n_frames, 1);
	CHECK_INT(ps.n_tensors, 0);
	diag_pystack_free(&ps);
	static const char err[] = "E\tNameError('x')\n";
	CHECK_INT(diag_pystack_parse(err, strlen(err), &ps), 0);
	CHECK_STR(ps.error, "NameError('x')");
	diag_pystack_free(&ps);
}

TEST(library_paths)
{
	CHECK(diag_py_library_path("/usr/lib/python3.11/runpy.py"));
	CHECK(diag_py_library_path("/x/lib/python3.12/site-packages/torch/nn/modules/module.py"));
	CHECK(diag_py_library_path("<frozen runpy>"));
	CHECK(diag_py_library_path("/usr/lib/python3/dist-packages/numpy/core.py"));
	CHECK(!diag_py_library_path("/home/u/python/train.py"));
	CHECK(!diag_py_library_path("train.py"));
}

static void put64(unsigned char *m, size_t i, long long v)
{
	for (int b = 0; b < 8; b++)
		m[i * 8 + (size_t)b] = (unsigned char)((unsigned long long)v >> (8 * b));
}

TEST(class_index_names_the_users_tensor_and_element)
{
	struct diag_pystack ps;
	CHECK_INT(diag_pystack_parse(label_text, strlen(label_text), &ps), 0);
	struct diag_pybad_plan p;
	CHECK_INT(diag_pybad_plan(&ps, "t >= 0 && t < n_classes",
				  DIAG_PYBAD_CLASS, &p),
		  DIAG_PYBAD_CLASS);
	CHECK(p.t != NULL);
	CHECK_STR(p.t->name, "target");
	CHECK_STR(p.user_name, "labels");
	CHECK_INT(p.bound, 4);
	CHECK_INT(p.addr, 140000000100000LL);
	CHECK_INT(p.bytes, 64 * 8);
	unsigned char mem[64 * 8];
	for (int i = 0; i < 64; i++)
		put64(mem, (size_t)i, i % 4 + 1); /* labels 1..4 */
	char out[300];
	CHECK_INT(diag_pybad_find(&p, mem, sizeof mem, out, sizeof out), 1);
	CHECK_STR(out, "labels[3] = 4, the model has 4 classes (labels must be 0..3)");
	for (int i = 0; i < 64; i++)
		put64(mem, (size_t)i, i % 4);
	CHECK_INT(diag_pybad_find(&p, mem, sizeof mem, out, sizeof out), 0);
	CHECK(strstr(out, "no bad value among the 64 elements of labels") != NULL);
	/* padding labels at ignore_index (-100 in cross_entropy's frame)
	 * are skipped by the kernel: not bad */
	CHECK(p.has_ignore);
	put64(mem, 1, -100);
	CHECK_INT(diag_pybad_find(&p, mem, sizeof mem, out, sizeof out), 0);
	put64(mem, 2, -1);
	CHECK_INT(diag_pybad_find(&p, mem, sizeof mem, out, sizeof out), 1);
	CHECK_STR(out, "labels[2] = -1, the model has 4 classes (labels must be 0..3)");
	diag_pystack_free(&ps);
}

/* torch_embedding.py: F.embedding(input, weight) from embed(table, ids). */
TEST(embedding_token_id_at_2d_index)
{
	static const char text[] =
		"F\t/v/lib/python3.12/site-packages/torch/nn/functional.py\t2551\tembedding\n"
		"F\t/v/lib/python3.12/site-packages/torch/nn/modules/sparse.py\t190\tforward\n"
		"F\t/v/lib/python3.12/site-packages/torch/nn/modules/module.py\t1784\t_call_impl\n"
		"F\t/home/u/emb.py\t14\tembed\n"
		"F\t/home/u/emb.py\t25\t<module>\n"
		"T\t0\tinput\ttorch.int64\tcuda:0\t4,50\t50,1\t4096\t8\n"
		"T\t0\tweight\ttorch.float32\tcuda:0\t1000,32\t32,1\t8192\t4\n"
		"T\t3\tids\ttorch.int64\tcuda:0\t4,50\t50,1\t4096\t8\n";
	struct diag_pystack ps;
	CHECK_INT(diag_pystack_parse(text, strlen(text), &ps), 0);
	struct diag_pybad_plan p;
	CHECK_INT(diag_pybad_plan(&ps, "srcIndex < srcSelectDimSize",
				  DIAG_PYBAD_INDEX, &p),
		  DIAG_PYBAD_INDEX);
	CHECK(p.t != NULL);
	CHECK_STR(p.user_name, "ids");
	CHECK_INT(p.bound, 1000);
	CHECK_INT(p.lo, 0);
	unsigned char mem[200 * 8] = {0};
	put64(mem, 2 * 50 + 17, 1000);
	char out[300];
	CHECK_INT(diag_pybad_find(&p, mem, sizeof mem, out, sizeof out), 1);
	CHECK_STR(out, "token id 1000 at ids[2, 17], the embedding has 1000 "
		  "rows (ids must be 0..999)");
	diag_pystack_free(&ps);
}

/* x[idx] in the user's own line: negative indices wrap, so -10 of 10 is
 * fine and -11 is not. */
TEST(advanced_indexing_allows_wrapped_negatives)
{
	static const char text[] =
		"F\t/home/u/idx.py\t7\tpick\n"
		"T\t0\tx\ttorch.float32\tcuda:0\t10\t1\t100\t4\n"
		"T\t0\tidx\ttorch.int32\tcuda:0\t3\t1\t200\t4\n";
	struct diag_pystack ps;
	CHECK_INT(diag_pystack_parse(text, strlen(text), &ps), 0);
	struct diag_pybad_plan p;
	CHECK_INT(diag_pybad_plan(&ps, "index >= -sizes[i] && index < sizes[i] "
				  "&& \"index out of bounds\"", DIAG_PYBAD_INDEX, &p),
		  DIAG_PYBAD_INDEX);
	CHECK_INT(p.lo, -10);
	unsigned char mem[12] = {0};
	int32_t v[3] = { -10, 9, -11 };
	memcpy(mem, v, sizeof v); /* little-endian host */
	char out[300];
	CHECK_INT(diag_pybad_find(&p, mem, sizeof mem, out, sizeof out), 1);
	CHECK_STR(out, "index -11 at idx[2], the indexed dimension has 10 entries");
	diag_pystack_free(&ps);
}

TEST(multinomial_nan_and_bce_range_in_half)
{
	static const char text[] =
		"F\t/home/u/s.py\t3\tsample\n"
		"T\t0\tprobs\ttorch.float32\tcuda:0\t2,2\t2,1\t100\t4\n";
	struct diag_pystack ps;
	CHECK_INT(diag_pystack_parse(text, strlen(text), &ps), 0);
	struct diag_pybad_plan p;
	CHECK_INT(diag_pybad_plan(&ps, "probability tensor contains either "
				  "`inf`, `nan` or element < 0", DIAG_PYBAD_PROB, &p),
		  DIAG_PYBAD_PROB);
	float f[4] = { 0.5f, 0.5f, 0.2f, -0.1f };
	char out[300];
	CHECK_INT(diag_pybad_find(&p, (unsigned char *)f, sizeof f, out,
				  sizeof out), 1);
	CHECK(strncmp(out, "probs[1, 1] = -0.1", 18) == 0);
	diag_pystack_free(&ps);

	static const char bce[] =
		"F\t/v/lib/python3.12/site-packages/torch/nn/functional.py\t3300\tbinary_cross_entropy\n"
		"F\t/home/u/b.py\t9\tstep\n"
		"T\t0\tinput\ttorch.float16\tcuda:0\t3\t1\t100\t2\n"
		"T\t0\ttarget\ttorch.float16\tcuda:0\t3\t1\t200\t2\n"
		"T\t1\tpred\ttorch.float16\tcuda:0\t3\t1\t100\t2\n";
	CHECK_INT(diag_pystack_parse(bce, strlen(bce), &ps), 0);
	CHECK_INT(diag_pybad_plan(&ps, "input_val >= zero && input_val <= one",
				  DIAG_PYBAD_RANGE01,
				  &p), DIAG_PYBAD_RANGE01);
	CHECK_STR(p.user_name, "pred");
	/* half: 0.5 = 0x3800, 1.0 = 0x3c00, 1.5 = 0x3e00 */
	unsigned char h[6] = { 0x00, 0x38, 0x00, 0x3c, 0x00, 0x3e };
	CHECK_INT(diag_pybad_find(&p, h, sizeof h, out, sizeof out), 1);
	CHECK(strncmp(out, "pred[2] = 1.5, outside [0, 1]", 29) == 0);
	diag_pystack_free(&ps);
}

TEST(nothing_to_read_says_why)
{
	static const char text[] =
		"F\t/home/u/s.py\t3\tf\n"
		"T\t0\tweight\ttorch.float32\tcuda:0\t4,4\t1,4\t100\t4\n"
		"T\t0\ti\ttorch.int64\tcuda:0\t4\t2\t200\t8\n";
	struct diag_pystack ps;
	CHECK_INT(diag_pystack_parse(text, strlen(text), &ps), 0);
	struct diag_pybad_plan p;
	CHECK_INT(diag_pybad_plan(&ps, "srcIndex < srcSelectDimSize",
				  DIAG_PYBAD_INDEX, &p),
		  DIAG_PYBAD_INDEX);
	CHECK(p.t == NULL);
	CHECK_STR(p.why_not, "the tensor is not contiguous");
	CHECK_INT(diag_pybad_plan(&ps, "x > 0",
				  DIAG_PYBAD_NONE, &p), DIAG_PYBAD_NONE);
	diag_pystack_free(&ps);
	/* index_select(x, 1, i) with a literal dim: the bound is not known,
	 * and nothing is called bad against dim 0 */
	static const char sel[] =
		"F\t/home/u/s.py\t3\tf\n"
		"T\t0\tx\ttorch.float32\tcuda:0\t4,6\t6,1\t100\t4\n"
		"T\t0\ti\ttorch.int64\tcuda:0\t4\t1\t200\t8\n";
	CHECK_INT(diag_pystack_parse(sel, strlen(sel), &ps), 0);
	CHECK_INT(diag_pybad_plan(&ps, "srcIndex < srcSelectDimSize",
				  DIAG_PYBAD_INDEX, &p),
		  DIAG_PYBAD_INDEX);
	CHECK(p.t == NULL);
	CHECK_STR(p.why_not, "the indexed dimension is not known here");
	CHECK_INT(diag_pybad_plan(NULL, "t < n_classes",
				  DIAG_PYBAD_CLASS, &p), DIAG_PYBAD_CLASS);
	CHECK(p.why_not != NULL);
	diag_pystack_free(&ps);
}

TEST(call_expr_is_one_line_and_names_the_buffer)
{
	char *e = diag_pystack_call_expr(0x1234, 65536);
	CHECK(e != NULL);
	CHECK(strncmp(e, "(int)PyRun_SimpleString(\"", 25) == 0);
	CHECK(strchr(e, '\n') == NULL);
	CHECK(strstr(e, "_cudbg_tui_pystack(4660, 65536)\\n") != NULL);
	CHECK(strstr(e, "del _cudbg_tui_pystack") != NULL);
	char *again = diag_pystack_call_expr(0x1234, 65536);
	CHECK_STR(e, again); /* replays compare commands */
	free(again);
	free(e);
}

/* The script itself, run by a real Python in the frames of
 * tests/progs/py_crash.py (CUDBG_PYSTACK_SELFTEST), then parsed and
 * searched for the bad label as at a real stop. */
TEST_TIMEOUT(script_runs_in_real_python, 60)
{
	const char *py = access("/usr/bin/python3", X_OK) == 0
		? "/usr/bin/python3" : "python3";
	if (system("python3 -c 0 >/dev/null 2>&1") != 0 &&
	    access("/usr/bin/python3", X_OK) != 0)
		test_skip("python3 is not installed");
	const char *tmp = getenv("CUDBG_TEST_TMP");
	char expr_path[512], out_path[512], cmd[2048];
	snprintf(expr_path, sizeof expr_path, "%s/expr", tmp ? tmp : "/tmp");
	snprintf(out_path, sizeof out_path, "%s/out", tmp ? tmp : "/tmp");
	char *e = diag_pystack_call_expr(42, DIAG_PY_BUF_CAP);
	FILE *f = fopen(expr_path, "w");
	CHECK(f && e);
	fputs(e, f);
	fclose(f);
	free(e);
	snprintf(cmd, sizeof cmd, "CUDBG_PYSTACK_SELFTEST=%s %s "
		 "%s/tests/progs/py_crash.py >%s 2>&1", expr_path, py,
		 test_root_dir(), out_path);
	CHECK_MSG(system(cmd) == 0, "%s failed", cmd);
	size_t len;
	char *text = test_read_file(out_path, &len);
	struct diag_pystack ps;
	CHECK_MSG(diag_pystack_parse(text, len, &ps) == 0, "output: %s", text);
	CHECK_MSG(ps.error == NULL, "script error: %s", ps.error);
	int uf = diag_pystack_user_frame(&ps);
	CHECK(uf >= 0);
	CHECK_STR(ps.frames[uf].func, "train_step");
	CHECK_INT(ps.frames[uf].line, 41);
	CHECK_STR(ps.frames[uf].source, "return fakeloss.nll_loss(logits, labels)");
	CHECK(strstr(ps.frames[uf].file, "py_crash.py") != NULL);
	CHECK_STR(ps.frames[ps.n_frames - 1].func, "<module>");
	CHECK_INT(ps.frames[ps.n_frames - 1].line, 60);
	struct diag_pybad_plan p;
	CHECK_INT(diag_pybad_plan(&ps, "t >= 0 && t < n_classes",
				  DIAG_PYBAD_CLASS, &p),
		  DIAG_PYBAD_CLASS);
	CHECK_MSG(p.t != NULL, "why: %s", p.why_not ? p.why_not : "?");
	CHECK_STR(p.user_name, "labels");
	CHECK_INT(p.bound, 4);
	CHECK_INT(p.bytes, 64);
	free(text);
	diag_pystack_free(&ps);
}

/* cuda-gdb's print of a device array, the fallback read of a tensor. */
TEST(gdb_array_print_to_bytes)
{
	unsigned char b[64];
	long n = diag_gdb_array_bytes("{1, 2, 3 <repeats 3 times>, -1}", 8,
				      false, b, sizeof b);
	CHECK_INT(n, 6 * 8);
	long long v[6];
	memcpy(v, b, sizeof v); /* little-endian host */
	CHECK_INT(v[0], 1);
	CHECK_INT(v[4], 3);
	CHECK_INT(v[5], -1);
	float f[3];
	n = diag_gdb_array_bytes("{0.5, nan(0x400000), -inf...}", 4, true, b,
				 sizeof b);
	CHECK_INT(n, 12);
	memcpy(f, b, sizeof f);
	CHECK(f[0] == 0.5f);
	CHECK(f[1] != f[1]);
	CHECK(f[2] < -1e30f);
	/* cut at cap, not past it */
	CHECK_INT(diag_gdb_array_bytes("{7 <repeats 100 times>}", 4, false, b,
				       sizeof b), 64);
	CHECK_INT(diag_gdb_array_bytes("0x1234", 8, false, b, sizeof b), -1);
	CHECK_INT(diag_gdb_array_bytes("{1, x}", 8, false, b, sizeof b), -1);
	CHECK_INT(diag_gdb_array_bytes("{1}", 3, false, b, sizeof b), -1);
	/* the bad label found in what a print gave */
	struct diag_pystack ps;
	CHECK_INT(diag_pystack_parse(label_text, strlen(label_text), &ps), 0);
	struct diag_pybad_plan p;
	diag_pybad_plan(&ps, "t >= 0 && t < n_classes", DIAG_PYBAD_CLASS, &p);
	n = diag_gdb_array_bytes("{1, 2, 3, 4, 1, 2, 3, 4}", 8, false, b, sizeof b);
	char out[300];
	CHECK_INT(diag_pybad_find(&p, b, (size_t)n, out, sizeof out), 1);
	CHECK_STR(out, "labels[3] = 4, the model has 4 classes (labels must be 0..3)");
	diag_pystack_free(&ps);
}

/* torch_adv_index.py: `return table[ids]` in the user's own frame, a 2-d
 * table and the vectorized gather's assert (no -sizes[): the line says
 * which tensor is indexed, and by its first dimension. */
TEST(subscript_on_the_line_names_the_indexed_tensor)
{
	static const char text[] =
		"F\t/src/gpu/torch_adv_index.py\t14\tbucketize\treturn table[ids]  # fault\n"
		"F\t/src/gpu/torch_adv_index.py\t19\tmain\tprint(bucketize(table, x).sum().item())\n"
		"T\t0\tx\ttorch.float32\tcuda:0\t101\t1\t300\t4\n"
		"T\t0\ttable\ttorch.float32\tcuda:0\t10,4\t4,1\t100\t4\n"
		"T\t0\tids\ttorch.int64\tcuda:0\t101\t1\t200\t8\n";
	struct diag_pystack ps;
	CHECK_INT(diag_pystack_parse(text, strlen(text), &ps), 0);
	CHECK_STR(ps.frames[0].source, "return table[ids]  # fault");
	struct diag_pybad_plan p;
	CHECK_INT(diag_pybad_plan(&ps, "ind >=0 && ind < ind_dim_size && "
				  "\"vectorized gather kernel index out of bounds\"", DIAG_PYBAD_INDEX,
				  &p), DIAG_PYBAD_INDEX);
	CHECK_MSG(p.t != NULL, "why: %s", p.why_not ? p.why_not : "?");
	CHECK_INT(p.bound, 10);
	CHECK_INT(p.lo, 0);
	unsigned char mem[101 * 8] = {0};
	put64(mem, 100, 10);
	char out[300];
	CHECK_INT(diag_pybad_find(&p, mem, sizeof mem, out, sizeof out), 1);
	CHECK_STR(out, "index 10 at ids[100], the indexed dimension has 10 entries");
	/* a name that only starts like it is not the subscript */
	diag_pystack_free(&ps);
	static const char other[] =
		"F\t/u.py\t3\tf\treturn mytable[ids]\n"
		"T\t0\ttable\ttorch.float32\tcuda:0\t10,4\t4,1\t100\t4\n"
		"T\t0\tids\ttorch.int64\tcuda:0\t3\t1\t200\t8\n";
	CHECK_INT(diag_pystack_parse(other, strlen(other), &ps), 0);
	diag_pybad_plan(&ps, "ind < ind_dim_size", DIAG_PYBAD_INDEX, &p);
	CHECK(p.t == NULL);
	diag_pystack_free(&ps);
}

/* ---- the dim of gather, scatter and the index_* calls, from the line ---- */

static const char gather_assert[] = "idx_dim >= 0 && idx_dim < index_size && "
	"\"scatter gather kernel index out of bounds\"";
static const char scatter_assert[] = "idx_dim >= 0 && idx_dim < index_size && "
	"\"index out of bounds\"";

/* The plan for a one-frame stack: the line, then the T and I lines. */
static void plan_line(const char *line, const char *locals, const char *a,
		      struct diag_pystack *ps, struct diag_pybad_plan *p)
{
	char text[2048];
	snprintf(text, sizeof text, "F\t/home/u/t.py\t7\tf\t%s\n%s", line, locals);
	CHECK_INT(diag_pystack_parse(text, strlen(text), ps), 0);
	diag_pybad_plan(ps, a, DIAG_PYBAD_INDEX, p);
}

/* The first bad one of n int64 values read as the plan's tensor. */
static int find_in(const struct diag_pybad_plan *p, const long long *v,
		   size_t n, char *out, size_t cap)
{
	unsigned char mem[256 * 8];
	CHECK(n <= 256);
	for (size_t i = 0; i < n; i++)
		put64(mem, i, v[i]);
	return diag_pybad_find(p, mem, n * 8, out, cap);
}

/* Run 5's torch_gather.py, its stack as the H200 gave it: the dim is the
 * call's literal 1, the bound scores' 8 columns. */
TEST(gather_reads_the_literal_dim_of_the_call)
{
	static const char text[] =
		"F\t/src/gpu/torch_gather.py\t14\tpick_next\treturn torch.gather(scores, 1, nxt)  # fault\n"
		"F\t/src/gpu/torch_gather.py\t21\tmain\tprint(pick_next(scores).sum().item())\n"
		"F\t/src/gpu/torch_gather.py\t24\t<module>\tmain()\n"
		"T\t0\tscores\ttorch.float32\tcuda:0\t16,8\t8,1\t140724433584128\t4\n"
		"T\t0\tnxt\ttorch.int64\tcuda:0\t16,1\t1,1\t140724433585152\t8\n";
	struct diag_pystack ps;
	CHECK_INT(diag_pystack_parse(text, strlen(text), &ps), 0);
	struct diag_pybad_plan p;
	CHECK_INT(diag_pybad_plan(&ps, gather_assert,
				  DIAG_PYBAD_INDEX, &p), DIAG_PYBAD_INDEX);
	CHECK_MSG(p.t != NULL, "why: %s", p.why_not ? p.why_not : "?");
	CHECK_STR(p.t->name, "nxt");
	CHECK_STR(p.op, "gather");
	CHECK_INT(p.dim, 1);
	CHECK_INT(p.bound, 8);
	CHECK_INT(p.lo, 0);
	CHECK_INT(p.addr, 140724433585152LL);
	CHECK_INT(p.bytes, 16 * 8);
	long long v[16];
	for (int i = 0; i < 16; i++)
		v[i] = 4;
	v[11] = 8;
	char out[300];
	CHECK_INT(find_in(&p, v, 16, out, sizeof out), 1);
	CHECK_STR(out, "index 8 at nxt[11, 0], dim 1 of scores has 8 entries "
		  "(gather's indices must be 0..7)");
	diag_pystack_free(&ps);
}

/* Run 5's torch_index_select.py: a method call, dim 0 of a 2-d table. */
TEST(index_select_method_reads_its_dim)
{
	static const char text[] =
		"F\t/src/gpu/torch_index_select.py\t14\tnode_features\treturn table.index_select(0, nodes)  # fault\n"
		"F\t/src/gpu/torch_index_select.py\t20\tmain\tprint(node_features(table, nodes).sum().item())\n"
		"T\t0\ttable\ttorch.float32\tcuda:0\t1000,16\t16,1\t140724433584128\t4\n"
		"T\t0\tnodes\ttorch.int64\tcuda:0\t5\t1\t140724433648128\t8\n";
	struct diag_pystack ps;
	CHECK_INT(diag_pystack_parse(text, strlen(text), &ps), 0);
	struct diag_pybad_plan p;
	CHECK_INT(diag_pybad_plan(&ps, "srcIndex < srcSelectDimSize",
				  DIAG_PYBAD_INDEX, &p),
		  DIAG_PYBAD_INDEX);
	CHECK_MSG(p.t != NULL, "why: %s", p.why_not ? p.why_not : "?");
	long long v[5] = { 3, 17, 999, 1000, 42 };
	char out[300];
	CHECK_INT(find_in(&p, v, 5, out, sizeof out), 1);
	CHECK_STR(out, "index 1000 at nodes[3], dim 0 of table has 1000 entries "
		  "(index_select's indices must be 0..999)");
	diag_pystack_free(&ps);
}

/* Run 5's torch_scatter.py: the index is labels.view(-1, 1), the same
 * elements in the same order as the contiguous labels; the bound is the
 * output's (self's) 5 columns. */
TEST(scatter_through_a_view_names_the_local)
{
	static const char text[] =
		"F\t/src/gpu/torch_scatter.py\t13\tone_hot\tout.scatter_(1, labels.view(-1, 1), 1.0)  # fault\n"
		"F\t/src/gpu/torch_scatter.py\t19\tmain\tprint(one_hot(labels, 5).sum().item())\n"
		"T\t0\tlabels\ttorch.int64\tcuda:0\t40\t1\t140724433584128\t8\n"
		"I\t0\tn\t5\n"
		"T\t0\tout\ttorch.float32\tcuda:0\t40,5\t5,1\t140724433584640\t4\n";
	struct diag_pystack ps;
	CHECK_INT(diag_pystack_parse(text, strlen(text), &ps), 0);
	struct diag_pybad_plan p;
	CHECK_INT(diag_pybad_plan(&ps, scatter_assert,
				  DIAG_PYBAD_INDEX, &p), DIAG_PYBAD_INDEX);
	CHECK_MSG(p.t != NULL, "why: %s", p.why_not ? p.why_not : "?");
	long long v[40];
	for (int i = 0; i < 40; i++)
		v[i] = i % 5 + 1;
	char out[300];
	CHECK_INT(find_in(&p, v, 40, out, sizeof out), 1);
	CHECK_STR(out, "index 5 at labels[4], dim 1 of out has 5 entries "
		  "(scatter_'s indices must be 0..4)");
	diag_pystack_free(&ps);
}

/* Run 5's torch_index_add.py: index_add_'s own assertion is an index
 * assert (it was not recognised before), bound self's 64 rows. */
TEST(index_add_assert_is_recognised)
{
	static const char text[] =
		"F\t/src/gpu/torch_index_add.py\t13\taccumulate\ttable.index_add_(0, ids, grads)  # fault\n"
		"F\t/src/gpu/torch_index_add.py\t22\tmain\tprint(accumulate(table, ids, grads).sum().item())\n"
		"T\t0\ttable\ttorch.float32\tcuda:0\t64,8\t8,1\t140724433584128\t4\n"
		"T\t0\tids\ttorch.int64\tcuda:0\t100\t1\t140724433587200\t8\n"
		"T\t0\tgrads\ttorch.float32\tcuda:0\t100,8\t8,1\t140724433588224\t4\n";
	struct diag_pystack ps;
	CHECK_INT(diag_pystack_parse(text, strlen(text), &ps), 0);
	struct diag_pybad_plan p;
	CHECK_INT(diag_pybad_plan(&ps, "dstIndex < dstAddDimSize",
				  DIAG_PYBAD_INDEX, &p),
		  DIAG_PYBAD_INDEX);
	CHECK_MSG(p.t != NULL, "why: %s", p.why_not ? p.why_not : "?");
	CHECK_STR(p.t->name, "ids");
	long long v[100];
	for (int i = 0; i < 100; i++)
		v[i] = i % 64;
	v[77] = 64;
	char out[300];
	CHECK_INT(find_in(&p, v, 100, out, sizeof out), 1);
	CHECK_STR(out, "index 64 at ids[77], dim 0 of table has 64 entries "
		  "(index_add_'s indices must be 0..63)");
	/* a negative id is bad too: dstIndex is unsigned in the kernel */
	v[77] = 3;
	v[5] = -1;
	CHECK_INT(find_in(&p, v, 100, out, sizeof out), 1);
	CHECK(strncmp(out, "index -1 at ids[5],", 19) == 0);
	diag_pystack_free(&ps);
}

/* The other spellings: keywords, a negative dim, an int local, the
 * function forms, the other index_* calls, the safe wrappers. */
TEST(index_call_forms)
{
	static const char xi[] =
		"T\t0\tx\ttorch.float32\tcuda:0\t4,6,3\t18,3,1\t100\t4\n"
		"T\t0\ti\ttorch.int64\tcuda:0\t2,2\t2,1\t200\t8\n"
		"T\t0\ty\ttorch.float32\tcuda:0\t2,6,3\t18,3,1\t300\t4\n"
		"I\t0\td\t1\n";
	static const struct {
		const char *line, *a;
		long long dim, bound, lo;
		const char *op;
	} ok[] = {
		{ "g = torch.gather(input=x, dim=-1, index=i)", gather_assert, 2, 3, 0, "gather" },
		{ "g = torch.gather(x, dim=1, index=i, sparse_grad=False)", gather_assert, 1, 6, 0, "gather" },
		{ "return x.gather(d, i)", gather_assert, 1, 6, 0, "gather" },
		{ "x.scatter_add_(dim=0, index=i.reshape(-1), src=y)", scatter_assert, 0, 4, 0, "scatter_add_" },
		{ "z = torch.scatter(x, 2, i.flatten().long(), 0.5)", scatter_assert, 2, 3, 0, "scatter" },
		{ "z = torch.index_select(x, 1, i.view(4))", "srcIndex < srcSelectDimSize", 1, 6, 0, "index_select" },
		{ "x.index_copy_(0, i.unsqueeze(0).contiguous(), y)",
		  "idx >= 0 && idx < self_dim_size && \"index_copy_(): index out of bounds\"", 0, 4, 0, "index_copy_" },
		{ "x.index_fill_(-2, i, 0.0)",
		  "idx >= -self_dim_size && idx < self_dim_size && \"index out of bounds\"", 1, 6, -6, "index_fill_" },
		{ "out = x . index_add ( 1 , i , y , alpha = 2 )", "dstIndex < dstAddDimSize", 1, 6, 0, "index_add" },
		/* a call in a string or a comment is not the call */
		{ "log('.gather(0, i)'); x.gather(2, i)  # i.gather(0, i)", gather_assert, 2, 3, 0, "gather" },
	};
	for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
		struct diag_pystack ps;
		struct diag_pybad_plan p;
		plan_line(ok[k].line, xi, ok[k].a, &ps, &p);
		CHECK_MSG(p.t != NULL, "%s: %s", ok[k].line,
			  p.why_not ? p.why_not : "?");
		CHECK_STR(p.t->name, "i");
		CHECK_STR(p.op, ok[k].op);
		CHECK_MSG(p.dim == ok[k].dim, "%s: dim %lld", ok[k].line, p.dim);
		CHECK_MSG(p.bound == ok[k].bound, "%s: bound %lld", ok[k].line, p.bound);
		CHECK_INT(p.lo, ok[k].lo);
		diag_pystack_free(&ps);
	}
	/* index_fill wraps negatives: -6 of 6 is fine, -7 is not */
	struct diag_pystack ps;
	struct diag_pybad_plan p;
	plan_line("x.index_fill_(1, i, 0.0)", xi, "idx >= -self_dim_size && "
		  "idx < self_dim_size && \"index out of bounds\"", &ps, &p);
	long long v[4] = { -6, 5, 0, -7 };
	char out[300];
	CHECK_INT(find_in(&p, v, 4, out, sizeof out), 1);
	CHECK_STR(out, "index -7 at i[1, 1], dim 1 of x has 6 entries "
		  "(index_fill_'s indices must be -6..5)");
	diag_pystack_free(&ps);
}

/* What the line does not say exactly stays "not read", with the reason;
 * nothing is called bad against a guessed dimension. */
TEST(index_call_not_known_says_why)
{
	static const char xi[] =
		"T\t0\tx\ttorch.float32\tcuda:0\t4,6\t6,1\t100\t4\n"
		"T\t0\ti\ttorch.int64\tcuda:0\t2,2\t2,1\t200\t8\n"
		"T\t0\tj\ttorch.int64\tcuda:0\t2,2\t1,2\t400\t8\n"
		"T\t0\tc\ttorch.int64\tcpu\t2\t1\t500\t8\n"
		"T\t0\tf\ttorch.float32\tcuda:0\t2\t1\t600\t4\n";
	static const struct {
		const char *line, *why;
	} no[] = {
		{ "return x.gather(k, i)", "gather's dim `k` is no int local of the frame" },
		{ "return x.gather(x.dim() - 1, i)", "gather's dim `x.dim() - 1` is an expression, not read here" },
		{ "return x.gather(2, i)", "gather's dim 2 is outside the 2 dimensions of x" },
		{ "return x.gather(1, i.t())", "gather's index `i.t()` is no integer tensor local of the frame (or changes the order of its elements)" },
		{ "return x.gather(1, i.view(torch.int32))", "gather's index `i.view(torch.int32)` is no integer tensor local of the frame (or changes the order of its elements)" },
		{ "return x.gather(1, i + 1)", "gather's index `i + 1` is no integer tensor local of the frame (or changes the order of its elements)" },
		{ "return x.gather(1, i[0])", "gather's index `i[0]` is no integer tensor local of the frame (or changes the order of its elements)" },
		{ "return x.gather(1, f.long())", "gather's index `f.long()` is no integer tensor local of the frame (or changes the order of its elements)" },
		{ "return x.gather(1, c)", "gather's index c is on cpu: the kernel read a copy" },
		{ "return self.x.gather(1, i)", "gather's tensor `self.x` is no tensor local of the frame" },
		{ "return x.float().gather(1, i)", "gather's tensor `x.float()` is no tensor local of the frame" },
		{ "return x.gather(1, i) + x.gather(0, i)", "the line has 2 gather-like calls: which one failed is not known" },
		{ "return torch.gather(x, 1,", "gather's arguments are not all on the line" },
		{ "return x.gather(1)", "gather's arguments are not all on the line" },
		/* a non-contiguous index (a transposed view as a local) */
		{ "return x.gather(1, j)", "the tensor is not contiguous" },
	};
	for (size_t k = 0; k < sizeof no / sizeof no[0]; k++) {
		struct diag_pystack ps;
		struct diag_pybad_plan p;
		plan_line(no[k].line, xi, gather_assert, &ps, &p);
		CHECK_MSG(p.t == NULL, "%s: read %s", no[k].line,
			  p.t ? p.t->name : "");
		CHECK_STR(p.why_not ? p.why_not : "(null)", no[k].why);
		diag_pystack_free(&ps);
	}
	/* a call of another family on the line is not this assert's: the
	 * 2-d x's dimension stays unknown */
	struct diag_pystack ps;
	struct diag_pybad_plan p;
	plan_line("return x.index_select(1, i)", xi, gather_assert, &ps, &p);
	CHECK(p.t == NULL);
	CHECK_STR(p.why_not, "the indexed dimension is not known here");
	diag_pystack_free(&ps);
}

/* torch_embedding_bag.py: bag(ids, offsets) -> F.embedding_bag(input,
 * weight, offsets, ...); the class rule's `value = index` reads the
 * functional frame's input against the weight's rows, named as the
 * user's ids (issue 29 item 1). */
TEST(embedding_bag_reads_the_functional_frames_input)
{
	static const char text[] =
		"F\t/v/lib/python3.12/site-packages/torch/nn/functional.py\t2774\tembedding_bag\n"
		"F\t/v/lib/python3.12/site-packages/torch/nn/modules/sparse.py\t461\tforward\n"
		"F\t/home/u/bag.py\t13\tpool\treturn bag(ids, offsets)\n"
		"F\t/home/u/bag.py\t20\tmain\n"
		"T\t0\tinput\ttorch.int64\tcuda:0\t6\t1\t4096\t8\n"
		"T\t0\tweight\ttorch.float32\tcuda:0\t10,4\t4,1\t8192\t4\n"
		"T\t0\toffsets\ttorch.int64\tcuda:0\t2\t1\t12288\t8\n"
		"T\t2\tids\ttorch.int64\tcuda:0\t6\t1\t4096\t8\n"
		"T\t2\toffsets\ttorch.int64\tcuda:0\t2\t1\t12288\t8\n";
	struct diag_pystack ps;
	CHECK_INT(diag_pystack_parse(text, strlen(text), &ps), 0);
	struct diag_pybad_plan p;
	CHECK_INT(diag_pybad_plan(&ps, "!has_invalid_index && \"Invalid input "
				  "index in EmbeddingBag: index out of range "
				  "[0, numRows)\"", DIAG_PYBAD_INDEX, &p),
		  DIAG_PYBAD_INDEX);
	CHECK_MSG(p.t != NULL, "why: %s", p.why_not ? p.why_not : "?");
	CHECK_STR(p.t->name, "input");
	CHECK_STR(p.user_name, "ids");
	CHECK_INT(p.bound, 10);
	unsigned char mem[6 * 8] = {0};
	long long ids[6] = { 1, 2, 10, 3, 4, 5 };
	for (int i = 0; i < 6; i++)
		put64(mem, (size_t)i, ids[i]);
	char out[300];
	CHECK_INT(diag_pybad_find(&p, mem, sizeof mem, out, sizeof out), 1);
	CHECK_STR(out, "token id 10 at ids[2], the embedding has 10 rows "
		  "(ids must be 0..9)");
	diag_pystack_free(&ps);
}

/* torch_index_put.py: x.index_put_((rows, cols), v, accumulate=True) over
 * two lines, under an _assert_async with no words: each index of the
 * tuple is checked against its own dimension, and the bad one is the
 * second's (issue 29 item 1). */
TEST(index_put_tuple_reads_each_index_against_its_dimension)
{
	static const char text[] =
		"F\t/home/u/ip.py\t11\tscatter_ones\tx.index_put_((rows, cols), "
		"torch.ones(rows.numel(), device=x.device),\n"
		"F\t/home/u/ip.py\t20\tmain\n"
		"T\t0\tx\ttorch.float32\tcuda:0\t4,8\t8,1\t4096\t4\n"
		"T\t0\trows\ttorch.int64\tcuda:0\t3\t1\t8192\t8\n"
		"T\t0\tcols\ttorch.int64\tcuda:0\t3\t1\t12288\t8\n";
	struct diag_pystack ps;
	CHECK_INT(diag_pystack_parse(text, strlen(text), &ps), 0);
	struct diag_pybad_plan p;
	CHECK_INT(diag_pybad_plan(&ps, "", DIAG_PYBAD_INDEX, &p),
		  DIAG_PYBAD_INDEX);
	CHECK_MSG(p.t != NULL, "why: %s", p.why_not ? p.why_not : "?");
	CHECK_INT(p.n_alt, 2);
	struct diag_pybad_plan one;
	unsigned char mem[3 * 8] = {0};
	char out[300];
	/* rows 0, 1, 2 against x's 4 rows: fine */
	CHECK(diag_pybad_plan_alt(&p, 0, &one));
	CHECK_INT(one.addr, 8192);
	CHECK_INT(one.bound, 4);
	for (int i = 0; i < 3; i++)
		put64(mem, (size_t)i, i);
	CHECK_INT(diag_pybad_find(&one, mem, sizeof mem, out, sizeof out), 0);
	/* cols 1, 8, 3 against its 8 columns: cols[1] */
	CHECK(diag_pybad_plan_alt(&p, 1, &one));
	CHECK_INT(one.addr, 12288);
	put64(mem, 0, 1);
	put64(mem, 1, 8);
	put64(mem, 2, 3);
	CHECK_INT(diag_pybad_find(&one, mem, sizeof mem, out, sizeof out), 1);
	CHECK_STR(out, "index 8 at cols[1], dim 1 of x has 8 entries "
		  "(index_put_'s indices must be -8..7)");
	CHECK(!diag_pybad_plan_alt(&p, 2, &one));
	diag_pystack_free(&ps);
	/* a tuple held in a variable: not read, and said why */
	static const char held[] =
		"F\t/home/u/ip.py\t11\tf\tx.index_put_(ix, v)\n"
		"T\t0\tx\ttorch.float32\tcuda:0\t4,8\t8,1\t4096\t4\n"
		"T\t0\trows\ttorch.int64\tcuda:0\t3\t1\t8192\t8\n";
	CHECK_INT(diag_pystack_parse(held, strlen(held), &ps), 0);
	diag_pybad_plan(&ps, "", DIAG_PYBAD_INDEX, &p);
	CHECK(p.t == NULL);
	CHECK_MSG(p.why_not && strstr(p.why_not, "not written out"), "%s",
		  p.why_not ? p.why_not : "?");
	diag_pystack_free(&ps);
}

/* F.one_hot(y, num_classes=C) with a class equal to C: a builtin with no
 * frame of its own and no float tensor anywhere; the bound is the call's
 * argument, a literal or an int local (issue 29 item 1). */
TEST(one_hot_reads_against_its_num_classes)
{
	static const char text[] =
		"F\t/home/u/oh.py\t9\tencode\treturn F.one_hot(y, num_classes=n)\n"
		"F\t/home/u/oh.py\t15\tmain\n"
		"T\t0\ty\ttorch.int64\tcuda:0\t5\t1\t4096\t8\n"
		"I\t0\tn\t10\n";
	struct diag_pystack ps;
	CHECK_INT(diag_pystack_parse(text, strlen(text), &ps), 0);
	struct diag_pybad_plan p;
	CHECK_INT(diag_pybad_plan(&ps, "idx_dim >= 0 && idx_dim < index_size "
				  "&& \"index out of bounds\"",
				  DIAG_PYBAD_INDEX, &p), DIAG_PYBAD_INDEX);
	CHECK_MSG(p.t != NULL, "why: %s", p.why_not ? p.why_not : "?");
	CHECK_STR(p.t->name, "y");
	CHECK_INT(p.bound, 10);
	unsigned char mem[5 * 8] = {0};
	put64(mem, 3, 10);
	char out[300];
	CHECK_INT(diag_pybad_find(&p, mem, sizeof mem, out, sizeof out), 1);
	CHECK_STR(out, "class 10 at y[3], one_hot's num_classes is 10 "
		  "(classes must be 0..9)");
	diag_pystack_free(&ps);
	/* num_classes=-1 takes the classes from the data: no bound */
	static const char any[] =
		"F\t/home/u/oh.py\t9\tencode\treturn F.one_hot(y, -1)\n"
		"T\t0\ty\ttorch.int64\tcuda:0\t5\t1\t4096\t8\n";
	CHECK_INT(diag_pystack_parse(any, strlen(any), &ps), 0);
	diag_pybad_plan(&ps, "", DIAG_PYBAD_INDEX, &p);
	CHECK(p.t == NULL);
	CHECK_MSG(p.why_not && strstr(p.why_not, "num_classes"), "%s",
		  p.why_not ? p.why_not : "?");
	diag_pystack_free(&ps);
}
