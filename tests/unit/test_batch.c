/* The batch report (collect + text/JSON printers) on models fed from the
 * fixtures, escaping of hostile text, and JSON validity. */
#include "cudbg/batch.h"
#include "cudbg/model.h"
#include "cudbg/report.h"
#include "tests/harness.h"
#include "tests/unit/fixture.h"
#include "tests/unit/fx_model.h"
#include "tests/unit/json_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TEST(json_checker_works)
{
	CHECK(json_valid("{\"a\":[1,-2,null,true,false,\"x\\u0001\"]}\n"));
	CHECK(!json_valid("{\"a\":\"\x01\"}"));
	CHECK(!json_valid("{\"a\":1,}"));
	CHECK(!json_valid("{\"a\" 1}"));
	CHECK(!json_valid("[\"\\x\"]"));
}

static char *print(const struct batch_report *r, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (json)
		batch_print_json(f, r);
	else
		batch_print_text(f, r);
	fclose(f);
	return buf;
}

TEST(seed_py_report)
{
	struct dbg_model m;
	fx_model_at_stop("seed_py.mi.log", &m, false);
	struct batch_report r;
	CHECK_INT(batch_collect(&m, &r), 0);
	CHECK(r.fault);
	CHECK_INT(batch_exit_code(&r), 1);
	CHECK_STR(r.kernel, "nll_loss_forward_reduce_cuda_kernel_2d");
	CHECK_STR(r.signal_name, "CUDA_EXCEPTION_12");
	CHECK(r.focus.valid && r.focus.block.x == 0);
	CHECK(r.focus.thread.x == 23);
	char *t = print(&r, false);
	CHECK(strstr(t, "stop:      Warp Assert in "
			"nll_loss_forward_reduce_cuda_kernel_2d\n"));
	CHECK(strstr(t, "signal:    CUDA_EXCEPTION_12 (Warp Assert)\n"));
	CHECK(strstr(t, "focus:     kernel 0, grid 5, block (0,0,0), "
			"thread (23,0,0), device 0, sm 124, warp 0, lane 23\n"));
	CHECK(strstr(t, "kernel:    nll_loss_forward_reduce_cuda_kernel_2d\n"));
	CHECK(strstr(t, "(no source)"));
	CHECK(strstr(t, "fault:     yes\n"));
	free(t);
	char *j = print(&r, true);
	CHECK_MSG(json_valid(j), "invalid JSON: %s", j);
	CHECK(strstr(j, "\"fault\":true"));
	CHECK(strstr(j, "\"block\":[0,0,0]"));
	CHECK(strstr(j, "\"thread\":[23,0,0]"));
	CHECK(strstr(j, "\"kernel\":\"nll_loss_forward_reduce_cuda_kernel_2d\""));
	free(j);
	batch_report_free(&r);
	model_free(&m);
}

TEST(assert_label_kernel_frame_one)
{
	struct dbg_model m;
	fx_model_at_stop("assert_label.mi.log", &m, true);
	struct batch_report r;
	batch_collect(&m, &r);
	CHECK_STR(r.frame.func, "__assert_fail");
	CHECK(r.kernel_frame.valid);
	CHECK_INT(r.kernel_frame.level, 1);
	CHECK_STR(r.kernel_frame.func, "nll_loss");
	CHECK_STR(r.kernel_frame.file, "assert_label.cu");
	CHECK_INT(r.kernel_frame.line, 10);
	char *t = print(&r, false);
	CHECK(strstr(t, "stop:      Warp Assert in nll_loss\n"));
	CHECK(strstr(t, "frame:     #0 __assert_fail (no source)\n"));
	CHECK(strstr(t, "kernel at: #1 nll_loss at assert_label.cu:10\n"));
	free(t);
	char *j = print(&r, true);
	CHECK(json_valid(j));
	CHECK(strstr(j, "\"kernel_frame\":{\"level\":1,\"function\":\"nll_loss\","
			"\"file\":\"assert_label.cu\""));
	free(j);
	batch_report_free(&r);
	model_free(&m);
}

TEST(null_write_exception_fields)
{
	struct dbg_model m;
	fx_model_at_stop("null_write.mi.log", &m, true);
	struct batch_report r;
	batch_collect(&m, &r);
	char *t = print(&r, false);
	CHECK(strstr(t, "exception: Warp Illegal Address at pc 0x7ffddb7a1e80 "
			"in apply(Params, float*) at null_write.cu:10\n"));
	CHECK(strstr(t, "frame:     #0 apply at null_write.cu:10\n"));
	free(t);
	char *j = print(&r, true);
	CHECK(json_valid(j));
	CHECK(strstr(j, "\"pc\":\"0x7ffddb7a1e80\""));
	free(j);
	batch_report_free(&r);
	model_free(&m);
}

TEST(step_kernel_breakpoint_is_no_fault)
{
	struct dbg_model m;
	fx_model_at_stop("step_kernel.mi.log", &m, true);
	struct batch_report r;
	batch_collect(&m, &r);
	CHECK(!r.fault);
	CHECK_INT(batch_exit_code(&r), 0);
	CHECK_INT(r.bkptno, 1);
	char *t = print(&r, false);
	CHECK(strstr(t, "stop:      Breakpoint 1 in saxpy2\n"));
	CHECK(strstr(t, "frame:     #0 saxpy2 at step_kernel.cu:8\n"));
	CHECK(strstr(t, "fault:     no\n"));
	free(t);
	char *j = print(&r, true);
	CHECK(json_valid(j));
	CHECK(strstr(j, "\"breakpoint\":1"));
	free(j);
	batch_report_free(&r);
	model_free(&m);
}

static void apply(const struct mi_record *r, void *out)
{
	model_on_record(out, r);
}

TEST(exits_and_gone)
{
	struct dbg_model m;
	struct batch_report r;
	model_init(&m, 0, 0);
	fx_with_record("*stopped,reason=\"exited\",exit-code=\"03\"", apply, &m);
	model_set_gone(&m, "gdb exited with status 0");
	batch_collect(&m, &r);
	CHECK(r.exited);
	CHECK(!r.error);
	CHECK_INT(r.exit_code, 3);
	CHECK_INT(batch_exit_code(&r), 1);
	char *t = print(&r, false);
	CHECK(strstr(t, "stop:      exited with code 3\n"));
	CHECK(strstr(t, "exit:      code 3\n"));
	free(t);
	batch_report_free(&r);
	model_free(&m);

	model_init(&m, 0, 0);
	fx_with_record("*stopped,reason=\"exited-normally\"", apply, &m);
	batch_collect(&m, &r);
	CHECK_INT(batch_exit_code(&r), 0);
	char *j = print(&r, true);
	CHECK(json_valid(j));
	CHECK(strstr(j, "\"exit\":{\"code\":0,\"signal\":null}"));
	free(j);
	batch_report_free(&r);
	model_free(&m);

	model_init(&m, 0, 0);
	model_set_gone(&m, "cuda-gdb exited with status 1: bad\x1b");
	batch_collect(&m, &r);
	CHECK_INT(batch_exit_code(&r), 2);
	j = print(&r, true);
	CHECK(json_valid(j));
	CHECK(strstr(j, "\"fault\":null"));
	CHECK(strstr(j, "bad\\u001b"));
	free(j);
	batch_report_free(&r);
	model_free(&m);
}

TEST(hostile_text_is_escaped)
{
	struct batch_report r = { .mode = "live", .state = "stopped",
				  .bkptno = -1 };
	r.summary = strdup("evil \x1b[2J\x1b]0;title\x07 \xe2\x80\xae"
			   "rev \xc2\x9b bad\xff\xfe end \"q\" \\");
	r.frame.valid = true;
	r.frame.func = strdup("f\r\nx");
	char *t = print(&r, false);
	CHECK(!strchr(t, '\x1b'));
	CHECK(!strchr(t, '\x07'));
	CHECK(!strchr(t, '\r'));
	CHECK(!strstr(t, "\xe2\x80\xae"));
	CHECK(!strstr(t, "\xc2\x9b"));
	CHECK(!strstr(t, "\xff"));
	CHECK(strstr(t, "\\x1b[2J"));
	CHECK(strstr(t, "\\u{202e}rev"));
	/* a C1 control in UTF-8 form is a code point, written as one
	 * (docs/text-safety.md); "\x9b" would read as an invalid byte */
	CHECK(strstr(t, "\\u{009b}"));
	CHECK(strstr(t, "bad\\xff\\xfe end"));
	CHECK(strstr(t, "#0 f\\x0d\\x0ax (no source)"));
	free(t);
	char *j = print(&r, true);
	CHECK_MSG(json_valid(j), "invalid JSON: %s", j);
	CHECK(!strchr(j, '\x1b'));
	CHECK(strstr(j, "\\u001b[2J"));
	CHECK(strstr(j, "\\u202erev"));
	CHECK(strstr(j, "bad\\ufffd\\ufffd end \\\"q\\\" \\\\"));
	CHECK(strstr(j, "f\\u000d\\nx"));
	free(j);
	batch_report_free(&r);
}

static int occurrences(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* One --json document, one escaper: the batch part and the diagnosis part
 * (diag/report.c) write the same untrusted text the same way.  Before
 * base/, the diagnosis left U+2028/U+2029 raw while the batch part
 * escaped them. */
TEST(report_parts_escape_alike)
{
	static const char text[] = "m\xe2\x80\xa8 n\xe2\x80\xa9 c1\xc2\x85 "
				   "rlo\xe2\x80\xae t\tx";
	static const char want[] = "m\\u2028 n\\u2029 c1\\u0085 rlo\\u202e "
				   "t\\tx";
	struct diag_fault f = { .kind = DIAG_FAULT_NONE };
	struct diag_report_in in = { .fault = &f, .mode = "replay",
				     .stop_reason = text,
				     .memcheck_seconds = -1 };
	struct batch_report r = { .mode = "replay", .state = "stopped",
				  .bkptno = -1 };
	r.summary = strdup(text);
	r.diagnosis = diag_report_json(&in);
	CHECK(r.diagnosis != NULL);
	char *j = print(&r, true);
	CHECK_MSG(json_valid(j), "invalid JSON: %s", j);
	CHECK_MSG(occurrences(j, want) == 2, "the two parts differ: %s", j);
	CHECK_INT(occurrences(j, "\xe2\x80\xa8"), 0);
	CHECK_INT(occurrences(j, "\xe2\x80\xa9"), 0);
	free(j);
	batch_report_free(&r);
}
