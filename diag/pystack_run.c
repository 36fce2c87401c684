/* Taking the Python stack at a stop by calling into the interpreter, and
 * reading the bad value of an index assert (include/cudbg/pystack.h).
 *
 * Every step is one MI command waited for with a bound; the order of the
 * commands depends only on the answers, so a replay of a recording
 * issues the same commands and gets the same report. */
#include "cudbg/pystack.h"
#include "cudbg/decode.h"
#include "cudbg/mi.h"
#include "cudbg/pymem.h"
#include "cudbg/diag.h"
#include "cudbg/model.h"
#include "cudbg/session.h"
#include "diag/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pyrun {
	struct dbg_ctl *c;
	int timeout_ms;       /* per step */
	bool answered, failed;
	char value[256];      /* an evaluation's value (cut) */
	char *bigvalue;       /* the whole of the last one (malloc'd) */
	bool stuck;           /* a command got no answer: send no more */
	char err[256];
	struct dec_memory mem;
	bool have_mem;
	struct dec_threads threads;  /* the last -thread-info's */
	bool have_threads;
	bool keep_buffer;     /* the session ends after this stop */
};

static bool step_answered(void *ctx)
{
	const struct pyrun *r = ctx;
	return r->answered || !session_alive(ctl_session(r->c));
}

static void step_reset(struct pyrun *r)
{
	r->answered = r->failed = false;
	r->value[0] = r->err[0] = '\0';
}

static void on_value(void *ctx, const char *expr, const char *value,
		     bool error)
{
	struct pyrun *r = ctx;
	(void)expr;
	r->answered = true;
	r->failed = error;
	snprintf(error ? r->err : r->value, sizeof r->value, "%s",
		 value ? value : "");
	free(r->bigvalue);
	r->bigvalue = !error && value ? strdup(value) : NULL;
}

static void on_reply(void *ctx, const struct mi_record *rec, const char *err)
{
	struct pyrun *r = ctx;
	r->answered = true;
	if (!rec) {
		r->failed = true;
		snprintf(r->err, sizeof r->err, "%s", err ? err : "error");
		return;
	}
	if (r->have_mem)
		dec_memory_free(&r->mem);
	r->have_mem = dec_memory_decode(rec->results, &r->mem) == 0;
	if (r->have_threads)
		dec_threads_free(&r->threads);
	r->have_threads = dec_threads_decode(rec->results, &r->threads) == 0;
	const char *v = mi_find_str(rec->results, "value");
	snprintf(r->value, sizeof r->value, "%s", v ? v : "");
}

/* Waits for the step's answer.  A call into the program that does not
 * return in time (another thread holds the GIL, a lock the stopped
 * thread holds) is interrupted: with `unwindonsignal on` gdb then
 * drops the call's frame and answers with an error.  Returns 0 when
 * answered without error, -1 otherwise (r->err says why). */
static int step_wait(struct pyrun *r, bool interruptible)
{
	ctl_run_until(r->c, step_answered, r, r->timeout_ms);
	if (r->answered)
		return r->failed ? -1 : 0;
	if (interruptible) {
		ctl_interrupt(r->c);
		ctl_run_until(r->c, step_answered, r, 3000);
		if (r->answered) {
			snprintf(r->err, sizeof r->err, "the call into the "
				 "interpreter did not return within %d ms and "
				 "was interrupted (another thread held the GIL?)",
				 r->timeout_ms);
			r->failed = true;
			return -1;
		}
	}
	/* Nothing more is sent: the debugger is still busy with it. */
	r->stuck = true;
	snprintf(r->err, sizeof r->err, "the call into the interpreter did "
		 "not return within %d ms%s", r->timeout_ms, interruptible
		 ? ", nor after an interrupt" : "");
	return -1;
}

static int eval(struct pyrun *r, const char *expr, bool interruptible)
{
	if (r->stuck)
		return -1;
	step_reset(r);
	if (ctl_evaluate(r->c, expr, on_value, r) <= 0) {
		snprintf(r->err, sizeof r->err, "cannot send %s", expr);
		return -1;
	}
	return step_wait(r, interruptible);
}

static int raw(struct pyrun *r, const char *cmd)
{
	if (r->stuck)
		return -1;
	step_reset(r);
	if (ctl_raw(r->c, cmd, on_reply, r) <= 0) {
		snprintf(r->err, sizeof r->err, "cannot send %s", cmd);
		return -1;
	}
	return step_wait(r, false);
}

static bool value_ll(const char *v, long long *out)
{
	char *end;
	long long x = strtoll(v, &end, 0);
	if (end == v)
		return false;
	*out = x;
	return true;
}

/* Reads len bytes at addr; the block is in r->mem.  0 or -1. */
static int read_bytes(struct pyrun *r, uint64_t addr, size_t len)
{
	char cmd[96];
	snprintf(cmd, sizeof cmd, "-data-read-memory-bytes 0x%llx %zu",
		 (unsigned long long)addr, len);
	if (raw(r, cmd) < 0)
		return -1;
	if (!r->have_mem || r->mem.n < 1 || r->mem.v[0].len == 0) {
		snprintf(r->err, sizeof r->err, "the debugger read no bytes");
		return -1;
	}
	return 0;
}

/* The text the script wrote: a 4-byte length, then the lines. */
static int read_script_text(struct pyrun *r, uint64_t buf,
			    struct diag_pystack *ps)
{
	if (read_bytes(r, buf, 4) < 0 || r->mem.v[0].len < 4)
		return -1;
	const unsigned char *b = r->mem.v[0].bytes;
	size_t len = (size_t)b[0] | (size_t)b[1] << 8 | (size_t)b[2] << 16 |
		     (size_t)b[3] << 24;
	if (len == 0 || len > DIAG_PY_BUF_CAP - 4) {
		snprintf(r->err, sizeof r->err, "the script wrote nothing "
			 "(it could not run in the interpreter)");
		return -1;
	}
	if (read_bytes(r, buf + 4, len) < 0)
		return -1;
	int rc = diag_pystack_parse((const char *)r->mem.v[0].bytes,
				    r->mem.v[0].len, ps);
	if (rc < 0) {
		snprintf(r->err, sizeof r->err, "the script's text made no "
			 "sense (no frames)");
		return -1;
	}
	return 0;
}

/* The room at the buffer's end the script's own text is written into;
 * the stack's text goes before it. */
enum { SCRIPT_ROOM = 8192 };

/* Writes len bytes at addr with no call into the program.  0 or -1. */
static int write_bytes(struct pyrun *r, uint64_t addr, const char *bytes,
		       size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char *cmd = malloc(64 + 2 * len);
	if (!cmd)
		return -1;
	int n = snprintf(cmd, 64, "-data-write-memory-bytes 0x%llx ",
			 (unsigned long long)addr);
	for (size_t i = 0; i < len; i++) {
		cmd[n++] = hex[(unsigned char)bytes[i] >> 4];
		cmd[n++] = hex[(unsigned char)bytes[i] & 15];
	}
	cmd[n] = '\0';
	int rc = raw(r, cmd);
	free(cmd);
	return rc;
}

/* The call that runs the script, malloc'd.  Its text written into the
 * buffer's last SCRIPT_ROOM bytes and run from there, where the debugger
 * takes the write: a string literal in the call costs gdb a call to the
 * program's malloc first (about 35 ms under cuda-gdb: PyRun_SimpleString
 * took 70 ms in run 31's recordings) and leaves that copy behind.  Else
 * (a replay of a session that passed the literal) the literal, whose
 * stack text may fill the whole buffer. */
static char *script_call(struct pyrun *r, uint64_t buf)
{
	size_t text_cap = DIAG_PY_BUF_CAP - SCRIPT_ROOM;
	char *script = diag_pystack_script(buf, text_cap);
	size_t len = script ? strlen(script) : 0;
	char *call = NULL;
	if (script && len < SCRIPT_ROOM &&
	    write_bytes(r, buf + text_cap, script, len + 1) == 0 &&
	    asprintf(&call, "(int)PyRun_SimpleString((const char *)%llu)",
		     (unsigned long long)(buf + text_cap)) < 0)
		call = NULL;
	free(script);
	return call ? call : diag_pystack_call_expr(buf, DIAG_PY_BUF_CAP);
}

/* Ensure, run, release: the GIL goes back to the state it was in. */
static int run_script(struct pyrun *r, uint64_t buf, struct diag_pystack *ps)
{
	char *call = script_call(r, buf);
	if (eval(r, "(int)PyGILState_Ensure()", true) < 0) {
		free(call);
		return -1;
	}
	long long gil;
	if (!value_ll(r->value, &gil)) {
		text_fit(r->err, sizeof r->err, "PyGILState_Ensure gave '%s'",
			 r->value);
		free(call);
		return -1;
	}
	int rc = call ? eval(r, call, true) : -1;
	free(call);
	char why[256];
	snprintf(why, sizeof why, "%s", r->err);
	char rel[64];
	snprintf(rel, sizeof rel, "(void)PyGILState_Release(%lld)", gil);
	eval(r, rel, true);
	if (rc < 0) {
		snprintf(r->err, sizeof r->err, "%s", why);
		return -1;
	}
	return read_script_text(r, buf, ps);
}

static int eval_number(struct pyrun *r, const char *thread, const char *expr,
		       unsigned long long *out);
static int python_version(struct pyrun *r, const char *thread,
			  unsigned *version);

/* _PyRuntime.initialized, which Py_IsInitialized() returns, read from
 * memory where the reader knows its place (diag/pymem.c's layouts, 3.10
 * to 3.13): true only when it reads 1.  Three quick commands instead of
 * a call into the program, which costs cuda-gdb about 40 ms (run 31's
 * recordings); anything else (an unknown version, a symbol not found, a
 * replay of a session that called) leaves it to the call. */
static bool initialized_in_memory(struct pyrun *r)
{
	unsigned long long rt;
	unsigned version;
	if (eval_number(r, "", "(long)&_PyRuntime", &rt) < 0 ||
	    python_version(r, "", &version) < 0)
		return false;
	long off = diag_pymem_initialized_offset(version);
	if (off <= 0 || read_bytes(r, rt + (unsigned long long)off, 4) < 0 ||
	    r->mem.v[0].len < 4)
		return false;
	const unsigned char *b = r->mem.v[0].bytes;
	return b[0] == 1 && b[1] == 0 && b[2] == 0 && b[3] == 0;
}

/* Whether the interpreter runs: its flag in memory, else the call.
 * 0, or -1 with r->err saying why not. */
static int interpreter_running(struct pyrun *r)
{
	if (initialized_in_memory(r))
		return 0;
	if (eval(r, "(int)Py_IsInitialized()", false) < 0) {
		char e[200];
		text_fit(e, sizeof e, "%s", r->err);
		/* gdb: 'No symbol "Py_IsInitialized" in current context.' */
		if (strstr(e, "No symbol"))
			snprintf(r->err, sizeof r->err, "no Python interpreter "
				 "symbols in the program (%s)", e);
		else
			snprintf(r->err, sizeof r->err, "the debugger could not "
				 "call into the program: %s", e);
		return -1;
	}
	if (strcmp(r->value, "1") != 0) {
		text_fit(r->err, sizeof r->err, "the Python interpreter is not "
			 "running (Py_IsInitialized() = %s)", r->value);
		return -1;
	}
	return 0;
}

/* The whole sequence on the current thread.  0 with ps filled, or -1
 * with r->err saying why. */
static int take_stack(struct pyrun *r, struct diag_pystack *ps,
		      bool *interpreter)
{
	if (interpreter_running(r) < 0)
		return -1;
	*interpreter = true;
	/* On a timeout gdb unwinds the call instead of leaving the program
	 * stopped inside it. */
	raw(r, "-gdb-set unwindonsignal on");
	char alloc[64];
	snprintf(alloc, sizeof alloc, "(long)PyMem_RawCalloc(1, %d)",
		 DIAG_PY_BUF_CAP);
	long long buf;
	if (eval(r, alloc, true) < 0 || !value_ll(r->value, &buf) || buf == 0) {
		if (!r->err[0])
			snprintf(r->err, sizeof r->err, "no memory for the "
				 "stack's text in the program");
		return -1;
	}
	int rc = run_script(r, (uint64_t)buf, ps);
	if (r->keep_buffer)
		return rc; /* the program ends with the session */
	char why[256];
	snprintf(why, sizeof why, "%s", r->err);
	char fr[64];
	snprintf(fr, sizeof fr, "(void)PyMem_RawFree(%lld)", buf);
	eval(r, fr, true);
	snprintf(r->err, sizeof r->err, "%s", why);
	return rc;
}

/* The bad value: the operator's tensor read in the program's memory
 * (after a device stop with the CUDA focus selected again, so a device
 * pointer reads device memory). */
/* The fallback for device memory: cuda-gdb's print of the tensor as an
 * array of its element type in the global address space (at most the
 * first 200 elements, gdb's print elements limit): the find's answer, or
 * -1 when not read. */
static int read_by_print(struct pyrun *r, const struct diag_pybad_plan *plan,
			 char *out, size_t cap)
{
	bool fl = plan->kind == DIAG_PYBAD_PROB || plan->kind == DIAG_PYBAD_RANGE01;
	int es = plan->t->elsize;
	const char *type = fl ? (es == 8 ? "double" : es == 4 ? "float" : NULL)
			      : (es == 8 ? "long" : es == 4 ? "int"
				 : es == 2 ? "short" : NULL);
	if (!type)
		return -1;
	size_t n = plan->bytes / (size_t)es;
	if (n > 200)
		n = 200;
	char expr[160];
	snprintf(expr, sizeof expr, "*(@global %s *)0x%llx@%zu", type,
		 (unsigned long long)plan->addr, n);
	if (eval(r, expr, false) < 0)
		return -1;
	unsigned char *buf = malloc(n * (size_t)es);
	long got = buf ? diag_gdb_array_bytes(r->bigvalue, es, fl, buf,
					      n * (size_t)es) : -1;
	int found = got > 0 ? diag_pybad_find(plan, buf, (size_t)got, out, cap)
			    : -1;
	free(buf);
	return found;
}

/* Reads one tensor of the plan and finds its first bad element: 1 when
 * found, 0 when none is (out says so), -1 when not read (out says why). */
static int read_one(struct pyrun *r, const struct diag_pybad_plan *plan,
		    bool device, char *out, size_t cap)
{
	/* Device memory through cuda-gdb's @global print first: on the
	 * H200, -data-read-memory-bytes of a tensor's device address after
	 * the focus came back answered zeros, with no error, and the value
	 * was missed (tests/fixtures/gpu/torch_label.mi.log of run 2,
	 * docs/tool-quirks.md). */
	int found = device ? read_by_print(r, plan, out, cap) : -1;
	if (found >= 0)
		return found;
	if (read_bytes(r, plan->addr, plan->bytes) == 0)
		return diag_pybad_find(plan, r->mem.v[0].bytes,
				       r->mem.v[0].len, out, cap);
	char why[256];
	snprintf(why, sizeof why, "%s", r->err);
	/* A replay answers a command its recording lacks with "not in this
	 * recording" (mi/replay.c): a recording made before this read was
	 * taken (run 5's gather/scatter/index_select/index_add_, recorded
	 * when the dim was not read from the line) has no value to give. */
	if (strstr(why, "not in this recording"))
		snprintf(out, cap, "not read: the recording holds no such read "
			 "(%s at 0x%llx)", plan->t->name,
			 (unsigned long long)plan->addr);
	else
		snprintf(out, cap, "not read: %s at 0x%llx: %s", plan->t->name,
			 (unsigned long long)plan->addr, why);
	return -1;
}

static void read_bad_value(struct pyrun *r, const struct diag_pystack *ps,
			   const char *assertion, enum diag_pybad_kind kind,
			   bool device, char *out, size_t cap)
{
	struct diag_pybad_plan plan;
	if (diag_pybad_plan(ps, assertion, kind, &plan) == DIAG_PYBAD_NONE)
		return;
	if (!plan.t) {
		snprintf(out, cap, "not read: %s", plan.why_not);
		return;
	}
	if (plan.n_alt == 0) {
		read_one(r, &plan, device, out, cap);
		return;
	}
	/* a tuple of indices: the first that holds a bad one */
	struct diag_pybad_plan one;
	for (int k = 0; diag_pybad_plan_alt(&plan, k, &one); k++)
		if (read_one(r, &one, device, out, cap) == 1)
			return;
}

/* ---- the stack read from memory (include/cudbg/pymem.h) ---- */

struct memread {
	struct pyrun *r;
	const char *thread;   /* "--thread 1 " at a device stop, else "" */
};

static int memread_fn(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct memread *mr = ctx;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "-data-read-memory-bytes %s0x%llx %zu",
		 mr->thread, (unsigned long long)addr, len);
	struct pyrun *r = mr->r;
	if (raw(r, cmd) < 0 || !r->have_mem || r->mem.n < 1)
		return -1;
	const struct dec_mem_block *b = &r->mem.v[0];
	if (b->begin != addr || b->len < len)
		return -1;
	memcpy(buf, b->bytes, len);
	return 0;
}

/* A symbol's address or value through gdb (no debug information needed:
 * the dynamic symbol table has them).  0 or -1 (r->err). */
static int eval_number(struct pyrun *r, const char *thread, const char *expr,
		       unsigned long long *out)
{
	char cmd[160];
	snprintf(cmd, sizeof cmd, "-data-evaluate-expression %s\"%s\"", thread,
		 expr);
	long long v;
	if (raw(r, cmd) < 0)
		return -1;
	if (!value_ll(r->value, &v)) {
		text_fit(r->err, sizeof r->err, "%s gave '%s'", expr, r->value);
		return -1;
	}
	*out = (unsigned long long)v;
	return 0;
}

/* The interpreter's version: Py_Version (3.11 and later); without it,
 * 3.10 is told from 3.9 and older by Py_IsNone, new in 3.10. */
static int python_version(struct pyrun *r, const char *thread,
			  unsigned *version)
{
	unsigned long long v;
	if (eval_number(r, thread, "(long)*(unsigned int *)&Py_Version", &v) == 0) {
		*version = (unsigned)v;
		return 0;
	}
	if (strstr(r->err, "not in this recording"))
		return -1;
	if (eval_number(r, thread, "(long)&Py_IsNone", &v) == 0) {
		*version = 0x030a0000;
		return 0;
	}
	snprintf(r->err, sizeof r->err, "the interpreter is Python 3.9 or "
		 "older (no Py_Version, no Py_IsNone): its stack is read only "
		 "by calling into it");
	return -1;
}

/* "Thread 0x7ffff7d8a740 (LWP 4242)", "LWP 4242", "process 4242". */
static void parse_target_id(const char *t, struct diag_pymem_thread *want)
{
	const char *p;
	if ((p = strstr(t, "Thread 0x")))
		want->pthread = strtoull(p + 7, NULL, 16);
	if ((p = strstr(t, "LWP ")))
		want->lwp = strtol(p + 4, NULL, 10);
	else if ((p = strstr(t, "process ")))
		want->lwp = strtol(p + 8, NULL, 10);
}

/* Which host thread's Python stack: the one stopped (thread 1 at a
 * device stop: the one that launched the kernel). */
static void host_thread_of(struct pyrun *r, const char *id,
			   struct diag_pymem_thread *want)
{
	char cmd[64];
	snprintf(cmd, sizeof cmd, "-thread-info %s", id);
	if (raw(r, cmd) < 0 || !r->have_threads)
		return;
	for (size_t i = 0; i < r->threads.n; i++)
		if (r->threads.v[i].target_id &&
		    strcmp(r->threads.v[i].id ? r->threads.v[i].id : "", id) == 0)
			parse_target_id(r->threads.v[i].target_id, want);
}

/* The whole read.  0 with ps filled, -1 with r->err saying why. */
static int read_from_memory(struct pyrun *r, bool device,
			    const char *thread_id, struct diag_pystack *ps)
{
	const char *thread = device ? "--thread 1 " : "";
	struct diag_pymem_syms syms = {0};
	unsigned long long v;
	if (eval_number(r, thread, "(long)&_PyRuntime", &v) < 0) {
		char e[200];
		text_fit(e, sizeof e, "%s", r->err);
		snprintf(r->err, sizeof r->err, "%s%s", strstr(e, "No symbol")
			 ? "no Python runtime in the program: " : "", e);
		return -1;
	}
	syms.runtime = v;
	if (python_version(r, thread, &syms.version) < 0)
		return -1;
	if (!diag_pymem_supported(syms.version)) {
		snprintf(r->err, sizeof r->err, "Python %u.%u: its layout is "
			 "not one this reader knows (3.10 to 3.13)",
			 syms.version >> 24, (syms.version >> 16) & 0xff);
		return -1;
	}
	if (eval_number(r, thread, "(long)&PyCode_Type", &v) == 0)
		syms.code_type = v;
	struct diag_pymem_thread want = {0};
	host_thread_of(r, device ? "1" : thread_id ? thread_id : "1", &want);
	struct memread mr = { .r = r, .thread = thread };
	char why[256];
	if (diag_pymem_stack(memread_fn, &mr, &syms, &want, ps, why,
			     sizeof why) < 0) {
		snprintf(r->err, sizeof r->err, "%s", why);
		return -1;
	}
	return 0;
}

/* Where no call can be made (a hardware exception, a coredump, a call
 * that failed): the stack read from memory.  1 when had; else 0 with
 * out->why: no_call, and why the read failed unless the replay's
 * recording never had it (then the recording's own story stands).
 * call_failed: the debugger's error when a call was tried and failed
 * (gdb 13 on a CPU with AMX), said in the value's place; else NULL. */
static int take_by_reading(struct pyrun *r, const struct dbg_model *m,
			   bool device, const char *no_call,
			   const char *call_failed, const char *what,
			   struct diag_pystack_result *out)
{
	out->device = device;
	if (read_from_memory(r, device, m->thread_id, &out->ps) == 0) {
		out->have = out->interpreter = true;
		out->ps.from_memory = true;
		out->why[0] = '\0';
		struct diag_pybad_plan plan;
		if (diag_pybad_plan(&out->ps, what, out->kind, &plan) ==
		    DIAG_PYBAD_NONE)
			return 1;
		if (call_failed)
			text_fit(out->bad, sizeof out->bad, "not read: the "
				 "debugger could not call into the program "
				 "(%s); the stack read from its memory holds "
				 "no tensor", call_failed);
		else
			snprintf(out->bad, sizeof out->bad, "not read: the stack "
				 "was read from memory (%s), which holds no "
				 "tensor", m->is_core ? "a coredump"
				 : "no call into the program at this stop");
		return 1;
	}
	if (strstr(r->err, "not in this recording"))
		snprintf(out->why, sizeof out->why, "%s", no_call);
	else
		text_fit(out->why, sizeof out->why, "%s; reading its memory "
			 "failed too: %s", no_call, r->err);
	return 0;
}

static bool settled(void *ctx)
{
	struct dbg_ctl *c = ctx;
	return !session_alive(ctl_session(c)) ||
	       (!ctl_busy(c) && ctl_refreshed(c));
}

/* Where a call into the interpreter is safe (cuda-gdb 13.0, H200,
 * tests/fixtures/gpu/explore/README.md): at a host stop, and at a Warp
 * Assert, where the launch-blocked host thread is still in the launch.
 * At a hardware exception (illegal address...) any inferior call ended
 * the program with SIGKILL; at a device breakpoint or step the call
 * would resume the GPU under the user.  At a Warp Assert the call ends
 * the kernel too (cuda-gdb resumes the GPU for it and has no scheduler
 * locking): the caller reads the device state first. */
static bool pystack_safe_at(const struct dbg_model *m)
{
	const char *sig = m->stop.signal_name;
	return sig && strcmp(sig, "CUDA_EXCEPTION_12") == 0;
}

static void pyrun_free(struct pyrun *r)
{
	if (r->have_mem)
		dec_memory_free(&r->mem);
	if (r->have_threads)
		dec_threads_free(&r->threads);
	free(r->bigvalue);
}

int diag_pystack_take(struct dbg_ctl *c, int timeout_ms, const char *what,
		      struct diag_pystack_result *out)
{
	bool no_wait = out->no_wait, memory_only = out->memory_only;
	bool final_stop = out->final_stop;
	enum diag_pybad_kind kind = out->kind;
	memset(out, 0, sizeof *out);
	out->kind = kind;
	const struct dbg_model *m = ctl_model(c);
	if (m->state != MODEL_STOPPED && !m->is_core) {
		snprintf(out->why, sizeof out->why, "the program is not stopped");
		return 0;
	}
	struct pyrun r = { .c = c,
			   .timeout_ms = timeout_ms > 0 ? timeout_ms : 5000,
			   .keep_buffer = final_stop };
	/* A device stop: the host thread that launched the kernel (with
	 * launch blocking it is still in the launch). */
	bool device = m->focus.valid;
	if (memory_only) {
		if (!take_by_reading(&r, m, device, "", NULL, what, out))
			out->why[0] = '\0';
		goto done;
	}
	if (m->is_core && device) {
		/* a GPU coredump (target cudacore) holds the GPU's state only:
		 * host addresses read the program file's initial data, zeros
		 * for _PyRuntime (run 27: "the interpreter is not running",
		 * which was false) */
		snprintf(out->why, sizeof out->why, "a GPU coredump has no "
			 "running interpreter to ask and holds no host memory");
		goto done;
	}
	if (m->is_core) {
		take_by_reading(&r, m, false, "a coredump has no running "
				"interpreter to ask", NULL, what, out);
		goto done;
	}
	if (device && !pystack_safe_at(m)) {
		char no_call[300];
		snprintf(no_call, sizeof no_call, "not asked: calling into the "
			 "program at a %s stop would end it (cuda-gdb 13 on the "
			 "H200 killed the program for an inferior call at a "
			 "hardware exception); the memcheck pass (M) names the "
			 "script line", m->stop.signal_meaning
			 ? m->stop.signal_meaning : "device");
		take_by_reading(&r, m, true, no_call, NULL, what, out);
		goto done;
	}
	int rc = 0;
	/* First whether there is an interpreter at all, without leaving
	 * the CUDA focus (--thread applies to this command only): a replay
	 * of a session that never asked ends here with its focus untouched
	 * (its recording has the -thread-select of a host stack read, but
	 * not the focus switch back). */
	/* (A live debugger's error here is not trusted as "no Python": the
	 * call below decides; only the replay's own answer for a command its
	 * recording lacks ends it, the session having never asked.) */
	if (device && raw(&r, "-data-evaluate-expression --thread 1 "
			  "\"(long)&Py_IsInitialized\"") < 0 &&
	    strstr(r.err, "not in this recording")) {
		char e[200];
		text_fit(e, sizeof e, "%s", r.err);
		snprintf(r.err, sizeof r.err, "no Python interpreter symbols in "
			 "the program (%s)", e);
		/* a session that read the stack from memory instead (a
		 * launcher's, not python by its name: run 27's launch_label)
		 * replays that way */
		char no_call[300];
		snprintf(no_call, sizeof no_call, "%s", r.err);
		take_by_reading(&r, m, true, no_call, NULL, what, out);
		goto done;
	}
	if (device && raw(&r, "-thread-select 1") < 0)
		rc = -1;
	if (rc == 0)
		rc = take_stack(&r, &out->ps, &out->interpreter);
	snprintf(out->why, sizeof out->why, "%s", rc < 0 ? r.err : "");
	/* The call failed where a Python runtime may still be there (gdb 13
	 * cannot call functions on a CPU with AMX; a call that timed out):
	 * its memory has the stack. */
	if (rc < 0 && !r.stuck && !strstr(r.err, "no Python interpreter") &&
	    !strstr(r.err, "not in this recording") && !device) {
		char no_call[300];
		snprintf(no_call, sizeof no_call, "%s", r.err);
		if (take_by_reading(&r, m, false, no_call, no_call, what, out))
			goto done;
	}
	out->device = device;
	/* The screen (no_wait) reads the value once the refresh that the
	 * switch back starts is in (diag_pystack_read_value): the commands
	 * go out in the order batch sends them. */
	bool defer = no_wait && device && !r.stuck;
	if (device && !r.stuck) {
		ctl_restore_focus(c);
		if (!defer)
			ctl_run_until(c, settled, c, r.timeout_ms);
	}
	if (rc == 0) {
		out->have = true;
		if (defer)
			out->value_pending = true;
		else
			read_bad_value(&r, &out->ps, what, out->kind, device,
				       out->bad, sizeof out->bad);
		if (out->ps.error)
			snprintf(out->why, sizeof out->why, "%s", out->ps.error);
	}
done:
	pyrun_free(&r);
	return out->have ? 1 : 0;
}

int diag_pystack_read_value(struct dbg_ctl *c, int timeout_ms,
			    const char *what, struct diag_pystack_result *out)
{
	if (!out->value_pending)
		return 0;
	out->value_pending = false;
	if (ctl_model(c)->state != MODEL_STOPPED)
		return 0;
	struct pyrun r = { .c = c,
			   .timeout_ms = timeout_ms > 0 ? timeout_ms : 5000 };
	read_bad_value(&r, &out->ps, what, out->kind, out->device, out->bad,
		       sizeof out->bad);
	pyrun_free(&r);
	return out->bad[0] ? 1 : 0;
}

void diag_pystack_result_free(struct diag_pystack_result *r)
{
	if (r)
		diag_pystack_free(&r->ps);
}

void diag_pystack_result_give(struct diag *d, const struct diag_pystack_result *r)
{
	if (r->interpreter)
		diag_set_flag(d, DIAG_F_PYTHON, true);
	struct diag_pystack copy;
	if (r->have && diag_pystack_copy(&copy, &r->ps) == 0) {
		diag_set_pystack(d, &copy, r->why[0] ? r->why : NULL);
		diag_pystack_free(&copy);
	} else {
		diag_set_pystack(d, NULL, r->why[0] &&
				  !strstr(r->why, "not in this recording")
				  ? r->why : NULL);
	}
	if (r->bad[0])
		diag_set_bad_value(d, r->bad);
}

int diag_pystack_fetch(struct diag *d, struct dbg_ctl *c, int timeout_ms,
		       const char *what, enum diag_pybad_kind kind,
		       bool final_stop)
{
	struct diag_pystack_result r = { .no_wait = false, .kind = kind,
					 .final_stop = final_stop };
	int rc = diag_pystack_take(c, timeout_ms, what, &r);
	diag_pystack_result_give(d, &r);
	diag_pystack_result_free(&r);
	return rc;
}
