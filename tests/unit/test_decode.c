/* Typed decoders on real cuda-gdb records from ../shared/fixtures:
 * *stopped, focus, frames, variables, breakpoints, disassembly,
 * registers, completion, memory. */
#include "cudbg/decode.h"
#include "tests/harness.h"
#include "tests/unit/fixture.h"

#include <stdlib.h>
#include <string.h>

static void do_stop(const struct mi_record *r, void *out)
{
	CHECK_INT(r->kind, MI_REC_EXEC);
	CHECK_INT(dec_stop_decode(r->results, out), 0);
}

static void stop_of(const char *fixture, int nth, struct dec_stop *s)
{
	fx_decode(fixture, NULL, "*stopped", nth, do_stop, s);
}

#define CHECK_DIM(d, X, Y, Z)                                               \
	do {                                                                \
		CHECK((d).valid);                                           \
		CHECK_INT((d).x, X);                                        \
		CHECK_INT((d).y, Y);                                        \
		CHECK_INT((d).z, Z);                                        \
	} while (0)

TEST(seed_py_warp_assert)
{
	struct dec_stop s;
	stop_of("seed_py.mi.log", 0, &s);
	CHECK_INT(s.reason, DEC_REASON_SIGNAL_RECEIVED);
	CHECK_STR(s.signal_name, "CUDA_EXCEPTION_12");
	CHECK_STR(s.signal_meaning, "Warp Assert");
	CHECK(dec_stop_is_device(&s));
	CHECK(dec_stop_is_device_exception(&s));
	CHECK(!dec_stop_is_exit(&s));
	CHECK_DIM(s.focus.block, 0, 0, 0);
	CHECK_DIM(s.focus.thread, 23, 0, 0);
	CHECK_INT(s.focus.device, 0);
	CHECK_INT(s.focus.sm, 124);
	CHECK_INT(s.focus.lane, 23);
	CHECK_INT(s.focus.grid, 5);
	CHECK(!s.focus.cluster_idx.valid);
	CHECK(s.has_frame);
	CHECK(s.frame.file == NULL);
	char name[128];
	CHECK_STR(dec_func_basename(s.frame.func, name, sizeof name),
		  "nll_loss_forward_reduce_cuda_kernel_2d");
	CHECK_STR(s.frame.arch, "m68k");
	CHECK_STR(s.thread_id, "1");
	CHECK(!s.exception_name);
	dec_stop_free(&s);
	CHECK(s.arena == NULL);
	dec_stop_free(&s); /* twice is fine */
	dec_stop_free(NULL);
}

TEST(null_write_fault_fields)
{
	struct dec_stop s;
	stop_of("null_write.mi.log", 0, &s);
	CHECK_STR(s.signal_name, "CUDA_EXCEPTION_14");
	CHECK_STR(s.exception_name, "Warp Illegal Address");
	CHECK(s.has_error_pc);
	CHECK(s.error_pc == 0x7ffddb7a1e80ull);
	CHECK_STR(s.function, "apply(Params, float*)");
	CHECK_STR(s.filename, "null_write.cu");
	CHECK_INT(s.line, 10);
	/* The stop PC differs from the error PC. */
	CHECK(s.frame.has_addr && s.frame.addr == 0x7ffddb7a1e90ull);
	CHECK_STR(s.frame.fullname, "/src/examples/null_write.cu");
	CHECK_INT(s.frame.nargs, 2);
	CHECK_STR(s.frame.args[0].name, "p");
	CHECK_STR(s.frame.args[0].value, "...");
	CHECK_DIM(s.focus.block, 1, 0, 0);
	CHECK_INT(s.focus.lane, 0);
	dec_stop_free(&s);

	stop_of("null_write.mi.log", 1, &s);
	CHECK_INT(s.reason, DEC_REASON_EXITED_SIGNALLED);
	CHECK_STR(s.signal_name, "SIGKILL");
	CHECK(dec_stop_is_exit(&s));
	CHECK(!dec_stop_is_device(&s));
	CHECK(!s.has_exit_code);
	dec_stop_free(&s);
}

TEST(cluster_focus_by_name)
{
	struct dec_stop s;
	stop_of("cluster.mi.log", 0, &s);
	CHECK_DIM(s.focus.cluster_idx, 3, 0, 0);
	CHECK_DIM(s.focus.cluster_dim, 2, 1, 1);
	CHECK_DIM(s.focus.block, 6, 0, 0);
	CHECK_DIM(s.focus.thread, 9, 0, 0);
	CHECK_INT(s.focus.lane, 9);
	dec_stop_free(&s);
}

TEST(recursion_message)
{
	struct dec_stop s;
	stop_of("recursion.mi.log", 0, &s);
	CHECK_STR(s.signal_name, "CUDA_EXCEPTION_2");
	CHECK_STR(s.exception_name, "Lane User Stack Overflow");
	CHECK(s.message && strstr(s.message, "exceeds stack memory limit"));
	CHECK(s.message && strstr(s.message, "allowed limit: 0x00fff9c0."));
	CHECK_STR(s.frame.func, "depth");
	CHECK_STR(s.frame.args[0].value, "<optimized out>");
	dec_stop_free(&s);
}

TEST(trap_is_device_stop)
{
	struct dec_stop s;
	stop_of("trap.mi.log", 0, &s);
	CHECK_STR(s.signal_name, "SIGTRAP");
	CHECK(dec_stop_is_device(&s));
	CHECK(dec_stop_is_device_exception(&s));
	CHECK_STR(s.frame.func, "__trap");
	CHECK_INT(s.frame.nargs, 0);
	dec_stop_free(&s);
}

TEST(host_stops_are_not_device)
{
	struct dec_stop s;
	stop_of("attach.mi.log", 0, &s);
	CHECK_STR(s.signal_name, "0");
	CHECK(!dec_stop_is_device(&s));
	CHECK(!dec_stop_is_device_exception(&s));
	CHECK_STR(s.frame.from, "/lib/x86_64-linux-gnu/libc.so.6");
	dec_stop_free(&s);
	stop_of("attach.mi.log", 1, &s);
	CHECK(dec_stop_is_device_exception(&s));
	CHECK_STR(s.thread_id, "3");
	dec_stop_free(&s);
	/* remote: the ld.so stop has no reason at all */
	stop_of("remote.mi.log", 0, &s);
	CHECK_INT(s.reason, DEC_REASON_NONE);
	CHECK(s.reason_text == NULL);
	CHECK_STR(s.frame.func, "??");
	dec_stop_free(&s);
}

TEST(exit_normally_has_code_zero)
{
	struct dec_stop s;
	stop_of("seed_py.mi.log", 1, &s);
	CHECK_INT(s.reason, DEC_REASON_EXITED_NORMALLY);
	CHECK(s.has_exit_code);
	CHECK_INT(s.exit_code, 0);
	dec_stop_free(&s);
}

TEST(exit_code_is_octal)
{
	/* gdb prints exit-code with "0%o": 10 is "012". */
	const char *line = "*stopped,reason=\"exited\",exit-code=\"012\"";
	struct dec_stop s;
	fx_with_record(line, do_stop, &s);
	CHECK(s.has_exit_code);
	CHECK_INT(s.exit_code, 10);
	CHECK(dec_stop_is_exit(&s));
	dec_stop_free(&s);
}

TEST(breakpoint_hit_in_kernel)
{
	struct dec_stop s;
	stop_of("step_kernel.mi.log", 0, &s);
	CHECK_INT(s.reason, DEC_REASON_BREAKPOINT_HIT);
	CHECK_INT(s.bkptno, 1);
	CHECK_INT(s.locno, 2);
	CHECK_STR(s.disp, "keep");
	CHECK(dec_stop_is_device(&s));
	CHECK(!dec_stop_is_device_exception(&s));
	CHECK_STR(s.frame.file, "step_kernel.cu");
	CHECK_INT(s.frame.line, 8);
	CHECK_INT(s.frame.nargs, 4);
	CHECK_STR(s.frame.args[3].name, "n");
	CHECK_STR(s.frame.args[3].value, "4096");
	dec_stop_free(&s);
	stop_of("step_kernel.mi.log", 1, &s);
	CHECK_INT(s.reason, DEC_REASON_END_STEPPING_RANGE);
	CHECK_INT(s.frame.line, 9);
	CHECK_INT(s.bkptno, -1);
	dec_stop_free(&s);
	/* kernel-entry stop (break_on_launch): breakpoint-hit, no bkptno */
	stop_of("replay_to_fault.mi.log", 0, &s);
	CHECK_INT(s.reason, DEC_REASON_BREAKPOINT_HIT);
	CHECK_INT(s.bkptno, -1);
	dec_stop_free(&s);
}

static void do_focus(const struct mi_record *r, void *out)
{
	CHECK_INT(dec_focus_decode(r->results, out), 0);
}

static void do_frame_of(const struct mi_record *r, void *out)
{
	struct dec_stack *st = out;
	CHECK_INT(dec_frame_result_decode(r->results, st), 0);
}

TEST(focus_query_and_switch)
{
	struct dec_focus f;
	fx_decode("step_kernel.mi.log", "-cuda-focus-switch", "^done", 0,
		  do_focus, &f);
	CHECK(f.valid);
	CHECK_DIM(f.block, 3, 0, 0);
	CHECK_DIM(f.thread, 17, 0, 0);
	CHECK_INT(f.sm, 131);
	CHECK_INT(f.lane, 17);
	/* A partial query answers "invalid" for what was not asked. */
	fx_decode("step_kernel.mi.log", "-cuda-focus-query block thread",
		  "^done", 0, do_focus, &f);
	CHECK(f.valid);
	CHECK_INT(f.device, -1);
	CHECK_INT(f.sm, -1);
	CHECK_INT(f.grid, -1);
	CHECK_DIM(f.block, 3, 0, 0);
	fx_decode("big_grid.mi.log.gz", "-cuda-focus-query", "^done", 0,
		  do_focus, &f);
	CHECK_DIM(f.block, 132, 0, 0);
	CHECK_DIM(f.thread, 77, 0, 0);
	CHECK_INT(f.warp, 2);
	/* The switch answer carries the new frame too. */
	struct dec_stack st;
	fx_decode("step_kernel.mi.log", "-cuda-focus-switch", "^done", 0,
		  do_frame_of, &st);
	CHECK_INT(st.n, 1);
	CHECK_INT(st.frames[0].line, 8);
	dec_stack_free(&st);
}

static void do_stack(const struct mi_record *r, void *out)
{
	CHECK_INT(dec_stack_decode(r->results, out), 0);
}

TEST(stack_frames)
{
	struct dec_stack st;
	fx_decode("assert_label.mi.log", "-stack-list-frames", "^done", 0,
		  do_stack, &st);
	CHECK_INT(st.n, 2);
	CHECK_INT(st.frames[0].level, 0);
	CHECK_STR(st.frames[0].func, "__assert_fail");
	CHECK(st.frames[0].file == NULL);
	CHECK_INT(st.frames[1].level, 1);
	CHECK_STR(st.frames[1].func, "nll_loss");
	CHECK_STR(st.frames[1].file, "assert_label.cu");
	CHECK_STR(st.frames[1].fullname, "/src/examples/assert_label.cu");
	CHECK_INT(st.frames[1].line, 10);
	CHECK(st.frames[1].addr == 0x7ffddb7a1c60ull);
	dec_stack_free(&st);
	/* deep device recursion */
	fx_decode("recursion.mi.log", "-stack-list-frames", "^done", 0,
		  do_stack, &st);
	CHECK_INT(st.n, 5);
	for (size_t i = 0; i < st.n; i++)
		CHECK_INT(st.frames[i].level, (int)i);
	CHECK_STR(st.frames[4].func, "recurse");
	CHECK_INT(st.frames[4].line, 16);
	dec_stack_free(&st);
	/* host stack of the launching thread */
	fx_decode("filters.mi.log", "-stack-list-frames", "^done", 0,
		  do_stack, &st);
	CHECK(st.n > 5);
	CHECK_STR(st.frames[0].from, "/usr/local/nvidia/lib64/libcuda.so.1");
	CHECK_STR(st.frames[0].arch, "i386:x86-64");
	dec_stack_free(&st);
}

static void do_vars(const struct mi_record *r, void *out)
{
	CHECK_INT(dec_vars_decode(r->results, out), 0);
}

static void do_args1(const struct mi_record *r, void *out)
{
	CHECK_INT(dec_stack_args_decode(r->results, 1, out), 0);
}

TEST(variables_and_args)
{
	struct dec_vars v;
	fx_decode("step_kernel.mi.log", "-stack-list-variables", "^done", 1,
		  do_vars, &v);
	CHECK_INT(v.n, 5);
	CHECK_STR(v.v[0].name, "i");
	CHECK_STR(v.v[0].value, "0");
	CHECK(!v.v[0].is_arg);
	CHECK_STR(v.v[4].name, "n");
	CHECK(v.v[4].is_arg);
	dec_vars_free(&v);
	fx_decode("null_write.mi.log", "-stack-list-variables", "^done", 0,
		  do_vars, &v);
	CHECK_STR(v.v[2].value, "{weights = 0x7ffdd3e00000, n = 64}");
	dec_vars_free(&v);
	fx_decode("assert_label.mi.log", "-stack-list-variables", "^done", 0,
		  do_vars, &v);
	CHECK_INT(v.n, 0);
	dec_vars_free(&v);
	fx_decode("assert_label.mi.log", "-stack-list-arguments", "^done", 0,
		  do_args1, &v);
	CHECK_INT(v.n, 5);
	CHECK_STR(v.v[4].name, "num_classes");
	CHECK_STR(v.v[4].value, "10");
	dec_vars_free(&v);
	/* --simple-values with types and bare names (--no-values) */
	fx_with_record("^done,locals=[{name=\"x\",type=\"int\",value=\"3\"},"
		       "{name=\"s\",type=\"struct S\"},\"bare\"]",
		       do_vars, &v);
	CHECK_INT(v.n, 3);
	CHECK_STR(v.v[0].type, "int");
	CHECK(v.v[1].value == NULL);
	CHECK_STR(v.v[2].name, "bare");
	dec_vars_free(&v);
}

static void keep_value(const struct mi_record *r, void *out)
{
	const char *v = dec_value(r->results);
	*(char **)out = v ? strdup(v) : NULL;
}

static void keep_error(const struct mi_record *r, void *out)
{
	CHECK_STR(r->klass, "error");
	const char *v = dec_error_msg(r->results);
	*(char **)out = v ? strdup(v) : NULL;
}

TEST(evaluate_and_errors)
{
	char *v;
	fx_decode("null_write.mi.log", "-data-evaluate-expression $errorpc",
		  "^done", 0, keep_value, &v);
	CHECK_STR(v, "0x7ffddb7a1e80 <apply(Params, float*)+2432>");
	free(v);
	fx_decode("assert_label.mi.log", "-data-evaluate-expression threadIdx",
		  "^done", 0, keep_value, &v);
	CHECK_STR(v, "{x = 5, y = 0, z = 0}");
	free(v);
	fx_decode("step_kernel.mi.log", "-exec-finish", "^error", 0,
		  keep_error, &v);
	CHECK_STR(v, "\"finish\" not meaningful in the outermost frame.");
	free(v);
}

static void do_bkpt(const struct mi_record *r, void *out)
{
	CHECK_INT(dec_bkpt_decode(r->results, out), 0);
}

TEST(breakpoint_insert_multiple_locations)
{
	struct dec_bkpts b;
	fx_decode("step_kernel.mi.log", "-break-insert -f saxpy2", "^done", 0,
		  do_bkpt, &b);
	CHECK_INT(b.n, 1);
	const struct dec_bkpt *k = &b.v[0];
	CHECK_INT(k->number, 1);
	CHECK_STR(k->type, "breakpoint");
	CHECK(k->enabled);
	CHECK(k->multiple);
	CHECK_STR(k->original_location, "saxpy2");
	CHECK_INT(k->orig_line, 0);
	CHECK_INT(k->nlocs, 1);
	CHECK_STR(k->locs[0].number, "1.1");
	CHECK(!k->locs[0].enabled);
	CHECK(!k->locs[0].pending);
	CHECK(k->locs[0].addr == 0x9072);
	CHECK_INT(k->locs[0].line, 7);
	dec_bkpts_free(&b);
}

TEST(breakpoint_pending_then_modified)
{
	struct dec_bkpts b;
	/* =breakpoint-modified #5 (0.765): bkpt 2 has only a pending
	 * location; #7 (0.767): resolved to one device address. */
	fx_decode("step_kernel.mi.log", NULL, "=breakpoint-modified", 5,
		  do_bkpt, &b);
	CHECK_INT(b.v[0].number, 2);
	CHECK(b.v[0].pending);
	CHECK_INT(b.v[0].nlocs, 1);
	CHECK(b.v[0].locs[0].pending);
	CHECK_STR(b.v[0].locs[0].pending_text, "step_kernel.cu:11");
	const char *file, *full;
	int line;
	CHECK(dec_bkpt_where(&b.v[0], &file, &full, &line));
	CHECK_STR(file, "step_kernel.cu");
	CHECK_INT(line, 11);
	dec_bkpts_free(&b);
	fx_decode("step_kernel.mi.log", NULL, "=breakpoint-modified", 7,
		  do_bkpt, &b);
	CHECK_INT(b.v[0].number, 2);
	CHECK(!b.v[0].pending);
	CHECK(!b.v[0].multiple);
	CHECK(b.v[0].addr == 0x7ffddb7a1890ull);
	CHECK_INT(b.v[0].line, 11);
	CHECK_INT(b.v[0].nlocs, 0);
	CHECK(dec_bkpt_where(&b.v[0], &file, &full, &line));
	CHECK_STR(full, "/src/examples/step_kernel.cu");
	dec_bkpts_free(&b);
	/* bkpt 1 at 0.766: the device location 1.2 is enabled at line 8 */
	fx_decode("step_kernel.mi.log", NULL, "=breakpoint-modified", 6,
		  do_bkpt, &b);
	CHECK_INT(b.v[0].nlocs, 2);
	CHECK(!b.v[0].pending);
	CHECK(dec_bkpt_where(&b.v[0], &file, &full, &line));
	CHECK_INT(line, 8);
	dec_bkpts_free(&b);
	/* after the program exited: pending again, hit count kept */
	fx_decode("warp_watch.mi.log", NULL, "=breakpoint-modified", 5,
		  do_bkpt, &b);
	CHECK(b.v[0].pending);
	CHECK_INT(b.v[0].times, 1);
	dec_bkpts_free(&b);
}

static void do_bkpt_list(const struct mi_record *r, void *out)
{
	CHECK_INT(dec_bkpt_list_decode(r->results, out), 0);
}

TEST(breakpoint_list_and_deleted)
{
	struct dec_bkpts b;
	fx_decode("warp_watch.mi.log", "-break-list", "^done", 0,
		  do_bkpt_list, &b);
	CHECK_INT(b.n, 1);
	CHECK_INT(b.v[0].number, 1);
	CHECK_INT(b.v[0].times, 1);
	CHECK_STR(b.v[0].func, "saxpy2(float, float const*, float*, int)");
	dec_bkpts_free(&b);
	fx_with_record("=breakpoint-created,bkpt={number=\"3\",type=\"breakpoint\","
		       "disp=\"keep\",enabled=\"n\",addr=\"0x401136\",func=\"main\","
		       "file=\"a.c\",line=\"5\",cond=\"i == 2\",times=\"0\"}",
		       do_bkpt, &b);
	CHECK(!b.v[0].enabled);
	CHECK_STR(b.v[0].cond, "i == 2");
	dec_bkpts_free(&b);
}

static void do_deleted(const struct mi_record *r, void *out)
{
	*(int *)out = dec_bkpt_deleted(r->results);
}

TEST(breakpoint_deleted)
{
	int n = -1;
	fx_with_record("=breakpoint-deleted,id=\"7\"", do_deleted, &n);
	CHECK_INT(n, 7);
	fx_with_record("=breakpoint-deleted,id=\"x\"", do_deleted, &n);
	CHECK_INT(n, DEC_ESHAPE);
	fx_with_record("=breakpoint-deleted", do_deleted, &n);
	CHECK_INT(n, DEC_EMISSING);
}

static void do_disasm(const struct mi_record *r, void *out)
{
	CHECK_INT(dec_disasm_decode(r->results, out), 0);
}

TEST(disassembly_modes)
{
	struct dec_disasm d;
	fx_decode("assert_label.mi.log", "-data-disassemble", "^done", 0,
		  do_disasm, &d);
	CHECK_INT(d.n, 6);
	CHECK(d.v[0].addr == 0x7ffddb7a2aa0ull);
	CHECK_STR(d.v[0].func, "__assert_fail");
	CHECK_INT(d.v[0].offset, 416);
	CHECK_STR(d.v[0].inst, "BRA 0x7ffddb7a2ab0");
	CHECK(d.v[0].opcodes == NULL);
	CHECK_INT(d.v[0].line, 0);
	dec_disasm_free(&d);
	fx_decode("assert_label.mi.log", "-data-disassemble", "^done", 1,
		  do_disasm, &d);
	CHECK(d.n > 4);
	CHECK(d.v[0].opcodes != NULL);
	dec_disasm_free(&d);
	/* gdb's source mode groups instructions under their line */
	fx_with_record("^done,asm_insns=[src_and_asm_line={line=\"5\",file=\"a.c\","
		       "fullname=\"/t/a.c\",line_asm_insn=[{address=\"0x10\","
		       "func-name=\"main\",offset=\"0\",inst=\"push %rbp\"},"
		       "{address=\"0x11\",func-name=\"main\",offset=\"1\","
		       "inst=\"mov %rsp,%rbp\"}]},src_and_asm_line={line=\"6\","
		       "file=\"a.c\",line_asm_insn=[]}]", do_disasm, &d);
	CHECK_INT(d.n, 2);
	CHECK_INT(d.v[1].line, 5);
	CHECK_STR(d.v[1].fullname, "/t/a.c");
	CHECK(d.v[1].addr == 0x11);
	dec_disasm_free(&d);
}

static void do_regnames(const struct mi_record *r, void *out)
{
	CHECK_INT(dec_regnames_decode(r->results, out), 0);
}

static void do_regvals(const struct mi_record *r, void *out)
{
	CHECK_INT(dec_regvals_decode(r->results, out), 0);
}

TEST(registers)
{
	struct dec_regnames n;
	fx_decode("assert_label.mi.log", "-data-list-register-names", "^done",
		  0, do_regnames, &n);
	CHECK(n.n > 256);
	CHECK_STR(n.names[0], "pc");
	CHECK_STR(n.names[1], "errorpc");
	CHECK_STR(n.names[2], "R0");
	dec_regnames_free(&n);
	struct dec_regvals v;
	fx_with_record("^done,register-values=[{number=\"0\",value=\"0x1\"},"
		       "{number=\"7\",value=\"{v4_float = {0, 0}}\"}]",
		       do_regvals, &v);
	CHECK_INT(v.n, 2);
	CHECK_INT(v.v[1].number, 7);
	CHECK_STR(v.v[1].value, "{v4_float = {0, 0}}");
	dec_regvals_free(&v);
}

static void do_memory(const struct mi_record *r, void *out)
{
	CHECK_INT(dec_memory_decode(r->results, out), 0);
}

TEST(memory_bytes)
{
	struct dec_memory m;
	fx_with_record("^done,memory=[{begin=\"0x00007fffffffe0c0\",offset="
		       "\"0x0000000000000000\",end=\"0x00007fffffffe0c4\","
		       "contents=\"0aff10Ab\"}]", do_memory, &m);
	CHECK_INT(m.n, 1);
	CHECK(m.v[0].begin == 0x7fffffffe0c0ull);
	CHECK(m.v[0].end == 0x7fffffffe0c4ull);
	CHECK_INT(m.v[0].len, 4);
	CHECK_INT(m.v[0].bytes[1], 0xff);
	CHECK_INT(m.v[0].bytes[3], 0xab);
	dec_memory_free(&m);
}

static void do_complete(const struct mi_record *r, void *out)
{
	CHECK_INT(dec_complete_decode(r->results, out), 0);
}

TEST(completion)
{
	struct dec_complete c;
	fx_decode("warp_watch.mi.log", "-complete \"info cuda th\"", "^done", 0,
		  do_complete, &c);
	CHECK_STR(c.completion, "info cuda threads");
	CHECK_INT(c.n, 1);
	CHECK_STR(c.matches[0], "info cuda threads");
	CHECK(!c.max_reached);
	dec_complete_free(&c);
	fx_decode("warp_watch.mi.log", "-complete \"print x\"", "^done", 0,
		  do_complete, &c);
	CHECK(c.n > 30);
	CHECK_STR(c.matches[1], "print xdecrypt");
	dec_complete_free(&c);
	fx_with_record("^done,matches=[],max_completions_reached=\"1\"",
		       do_complete, &c);
	CHECK(c.completion == NULL);
	CHECK_INT(c.n, 0);
	CHECK(c.max_reached);
	dec_complete_free(&c);
}

static void do_threads(const struct mi_record *r, void *out)
{
	CHECK_INT(dec_threads_decode(r->results, out), 0);
}

TEST(thread_info)
{
	struct dec_threads t;
	fx_decode("assert_label.mi.log", "-thread-info", "^done", 0,
		  do_threads, &t);
	CHECK(t.n >= 3);
	CHECK_STR(t.v[0].id, "1");
	CHECK_STR(t.v[0].name, "assert_label");
	CHECK_STR(t.v[0].state, "stopped");
	CHECK(t.v[0].has_frame);
	CHECK_STR(t.v[1].frame.func, "poll");
	dec_threads_free(&t);
	fx_decode("assert_label.mi.log", "-thread-info", "^done", 1,
		  do_threads, &t);
	CHECK_INT(t.n, 0);
	dec_threads_free(&t);
}

TEST(func_basename)
{
	char b[64];
	CHECK_STR(dec_func_basename("saxpy2(float, float const*, float*, int)",
				    b, sizeof b), "saxpy2");
	CHECK_STR(dec_func_basename("apply", b, sizeof b), "apply");
	CHECK_STR(dec_func_basename("ns::C<int>::run<2>(int) const", b,
				    sizeof b), "run");
	CHECK_STR(dec_func_basename("void (anonymous namespace)::k(int)", b,
				    sizeof b), "k");
	/* a functor's body is named with its class (dec_func_short) */
	CHECK_STR(dec_func_basename("std::function<void ()>::operator()() const",
				    b, sizeof b), "function<void ()>::operator()");
	CHECK_INT(dec_func_short("void ns::k<float>(float*)", NULL, 0), 1);
	CHECK_STR(dec_func_basename("??", b, sizeof b), "??");
	CHECK_STR(dec_func_basename("", b, sizeof b), "");
	CHECK_STR(dec_func_basename(NULL, b, sizeof b), "");
	CHECK_STR(dec_func_basename("averyveryverylongname", b, 5), "aver");
}

/* The toolkit's frames are not the user's line (shared_oob on the H200:
 * __iAtomicAdd, then atomicAdd in device_atomic_functions.hpp, then the
 * kernel). */
TEST(toolkit_frames)
{
	CHECK(dec_path_in_cuda_toolkit("/usr/local/cuda/bin/../targets/"
				       "x86_64-linux/include/"
				       "device_atomic_functions.hpp"));
	CHECK(dec_path_in_cuda_toolkit("/usr/local/cuda-13.0/targets/"
				       "x86_64-linux/include/crt/"
				       "device_functions.h"));
	CHECK(dec_path_in_cuda_toolkit("/usr/local/cuda-12.4/include/cub/"
				       "block/block_reduce.cuh"));
	CHECK(dec_path_in_cuda_toolkit("/venv/lib/python3.12/site-packages/"
				       "nvidia/cuda_runtime/include/x.h"));
	CHECK(!dec_path_in_cuda_toolkit("shared_oob.cu"));
	CHECK(!dec_path_in_cuda_toolkit("/src/gpu/shared_oob.cu"));
	CHECK(!dec_path_in_cuda_toolkit("/src/include/cuda/mine.cuh"));
	CHECK(!dec_path_in_cuda_toolkit("/home/u/cuda-samples/include/h.cuh"));
	CHECK(!dec_path_in_cuda_toolkit("/usr/local/cuda/include"));
	CHECK(!dec_path_in_cuda_toolkit(NULL));
	CHECK(!dec_path_in_cuda_toolkit(""));
	CHECK(dec_frame_is_toolkit("__iAtomicAdd", NULL, true));
	CHECK(!dec_frame_is_toolkit("__iAtomicAdd", NULL, false));
	CHECK(!dec_frame_is_toolkit("block_histogram", NULL, true));
	CHECK(!dec_frame_is_toolkit("block_histogram", "shared_oob.cu", true));
	CHECK(dec_frame_is_toolkit("atomicAdd", "/usr/local/cuda/include/"
				   "device_atomic_functions.hpp", true));
	CHECK(!dec_frame_is_toolkit(NULL, NULL, true));
	struct dec_frame f = { .arch = "m68k" };
	CHECK(dec_frame_is_device(&f));
	f.arch = "i386:x86-64";
	CHECK(!dec_frame_is_device(&f));
	CHECK(!dec_frame_is_device(NULL));
}

TEST(numbers_and_dims)
{
	uint64_t v;
	CHECK(dec_u64_parse("0x00007ffddb7a1e90", &v) && v == 0x7ffddb7a1e90ull);
	CHECK(dec_u64_parse("42", &v) && v == 42);
	CHECK(dec_u64_parse("0", &v) && v == 0);
	CHECK(!dec_u64_parse("invalid", &v));
	CHECK(!dec_u64_parse("", &v));
	CHECK(!dec_u64_parse("0x", &v));
	CHECK(!dec_u64_parse("99999999999999999999999", &v));
	CHECK(!dec_u64_parse("09", &v));
	CHECK_INT(dec_int_or("-3", 7), 7);
	struct dec_dim3 d;
	CHECK(dec_dim3_parse("(132,0,0)", &d) && d.x == 132);
	CHECK(!dec_dim3_parse("(1,2)", &d) && !d.valid);
	CHECK(!dec_dim3_parse("(1,2,3)x", &d));
	CHECK(!dec_dim3_parse("(,2,3)", &d));
	CHECK(!dec_dim3_parse("(99999999999,0,0)", &d));
	CHECK(!dec_dim3_parse(NULL, &d));
	struct dec_dim3 e = { 132, 0, 0, true };
	dec_dim3_parse("(132,0,0)", &d);
	CHECK(dec_dim3_eq(d, e));
	e.valid = false;
	CHECK(!dec_dim3_eq(d, e));
}

TEST(arena_large_and_small)
{
	struct dec_arena *a = dec_arena_new();
	CHECK(a != NULL);
	char *s = dec_arena_strndup(a, "abc", 3);
	CHECK_STR(s, "abc");
	unsigned char *big = dec_arena_alloc(a, 10 << 20);
	CHECK(big && big[0] == 0 && big[(10 << 20) - 1] == 0);
	for (int i = 0; i < 10000; i++)
		CHECK(dec_arena_alloc(a, (size_t)i % 100) != NULL);
	CHECK(((uintptr_t)dec_arena_alloc(a, 8) & 15) == 0);
	CHECK(dec_arena_size(a) >= (10u << 20));
	dec_arena_free(a);
	dec_arena_free(NULL);
}

TEST(missing_fields_are_errors_not_crashes)
{
	struct dec_stack st;
	struct dec_vars v;
	struct dec_table t;
	struct dec_disasm d;
	struct dec_focus f;
	CHECK_INT(dec_stack_decode(NULL, &st), DEC_EMISSING);
	CHECK_INT(dec_vars_decode(NULL, &v), DEC_EMISSING);
	CHECK_INT(dec_table_decode(NULL, &t), DEC_EMISSING);
	CHECK_INT(dec_disasm_decode(NULL, &d), DEC_EMISSING);
	CHECK_INT(dec_focus_decode(NULL, &f), DEC_EMISSING);
	CHECK(!f.valid);
	CHECK(dec_strerror(DEC_EMISSING)[0] != '\0');
	/* a stop with nothing in it is still a stop */
	struct dec_stop s;
	CHECK_INT(dec_stop_decode(NULL, &s), 0);
	CHECK_INT(s.reason, DEC_REASON_NONE);
	CHECK(!s.has_frame);
	dec_stop_free(&s);
}

/* The memory operand of the faulting instruction (the culprit-lane
 * search, issue 28 item 2): the forms cuda-gdb 13 printed on the H200
 * (../shared/fixtures/core_small_oob.mi.log, tests/fixtures/gpu), and
 * what is no address. */
TEST(sass_memory_operands)
{
	struct dec_sass_mem m;
	CHECK_INT(dec_sass_mem_operand("LD.E R4,desc[UR4][R4.64]", &m), 0);
	CHECK_STR(m.op, "LD");
	CHECK(m.reg == 4 && m.wide && m.offset == 0);
	CHECK(m.dest == 4 && m.ndest == 1); /* run 25: the address overwritten */
	CHECK_INT(dec_sass_mem_operand("@!P0 LDG.E.64 R8,desc[UR10][R2.64]", &m), 0);
	CHECK(m.dest == 8 && m.ndest == 2 && m.reg == 2);
	CHECK_INT(dec_sass_mem_operand("LDGSTS.E.LTC128B P0[R184+0x4000][R4.64]", &m), 0);
	CHECK(m.ndest == 0 && m.reg == 4 && m.wide); /* run 25: cuBLAS */
	CHECK_INT(dec_sass_mem_operand("ST.E desc[UR4][R2.64],R0", &m), 0);
	CHECK(m.ndest == 0 && m.reg == 2);
	CHECK_INT(dec_sass_mem_operand("STG.E desc[UR6][R2.64+0x10],R5", &m), 0);
	CHECK(!strcmp(m.op, "STG") && m.reg == 2 && m.wide && m.offset == 16);
	CHECK_INT(dec_sass_mem_operand("LDL R21[R1+0x4]", &m), 0);
	CHECK(!strcmp(m.op, "LDL") && m.reg == 1 && !m.wide && m.offset == 4);
	CHECK_INT(dec_sass_mem_operand("STL [R1+0x110],R20", &m), 0);
	CHECK(m.reg == 1 && m.offset == 0x110);
	CHECK_INT(dec_sass_mem_operand("LDS R0[R23]", &m), 0);
	CHECK(!strcmp(m.op, "LDS") && m.reg == 23 && !m.wide);
	CHECK_INT(dec_sass_mem_operand("@P0 RED.E.ADD.F32.FTZ.RN.STRONG.GPU desc[UR4][R2.64-0x8],R7", &m), 0);
	CHECK(!strcmp(m.op, "RED") && m.reg == 2 && m.offset == -8);
	CHECK_INT(dec_sass_mem_operand("ULDC.64 UR4,c[0x0][0x248]", &m), -1);
	CHECK_INT(dec_sass_mem_operand("FADD R10,R10,R4", &m), -1);
	CHECK_INT(dec_sass_mem_operand("STG.E desc[UR4][RZ],R0", &m), -1);
	CHECK_INT(dec_sass_mem_operand("LDG.E R0,desc[UR4][R2.64+junk]", &m), -1);
	CHECK_INT(dec_sass_mem_operand(NULL, &m), -1);
	CHECK_INT(dec_sass_mem_operand("[R", &m), -1);
}
