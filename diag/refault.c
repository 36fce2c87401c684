/* Replay to fault: a state machine that drives cuda-gdb to stop the
 * faulting thread just before its bad access (recipe in refault.h). */
#include "cudbg/refault.h"
#include "cudbg/mi.h"
#include "cudbg/sanitizer.h"
#include "diag/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_WRONG_STOPS = 64, MAX_ENTRY_STOPS = 10000 };

struct diag_refault {
	struct diag_refault_target t;
	enum diag_refault_state state;
	char cmd[1024];
	bool cmd_ready;      /* cmd waits to be handed out */
	int bkptno;
	int wrong_stops, entry_stops;
	bool disabled_launch;/* break_on_launch turned off again */
	char error[256];
};

int diag_refault_target_from(const struct diag_san_record *r,
			     struct diag_refault_target *t)
{
	memset(t, 0, sizeof *t);
	if (!r || !r->has_who || !r->path || !r->line)
		return DIAG_ENOTFOUND;
	/* gdb resolves a basename against the program's line tables; the
	 * recorded path (/src/examples/...) need not exist here. */
	const char *base = strrchr(r->path, '/');
	snprintf(t->file, sizeof t->file, "%s", base ? base + 1 : r->path);
	t->line = r->line;
	if (r->func)
		snprintf(t->kernel, sizeof t->kernel, "%s", r->func);
	t->block = r->block;
	t->thread = r->thread;
	return DIAG_OK;
}

static void cond_axis(struct dbuf *b, const char *var, char axis, uint32_t v,
		      uint32_t dim, bool first)
{
	if (!first)
		dbuf_puts(b, " && ");
	dbuf_printf(b, "%s.%c == %u", var, axis, v);
	(void)dim;
}

/* blockIdx.x == B && threadIdx.x == T, with y and z terms where they are
 * not 0 or the launch has more than one row in that axis. */
size_t diag_refault_condition(const struct diag_refault_target *t, char *buf,
			      size_t cap)
{
	struct dbuf b = {0};
	dbuf_put(&b, "", 0);
	const char *vars[2] = {"blockIdx", "threadIdx"};
	const struct diag_dim3 *v[2] = {&t->block, &t->thread};
	bool first = true;
	for (int i = 0; i < 2; i++) {
		uint32_t vals[3] = {v[i]->x, v[i]->y, v[i]->z};
		uint32_t dims[3] = {0, t->block_dim.y, t->block_dim.z};
		for (int a = 0; a < 3; a++) {
			bool need = a == 0 || vals[a] != 0 ||
				    (i == 1 && dims[a] > 1);
			if (!need)
				continue;
			cond_axis(&b, vars[i], (char)('x' + a), vals[a],
				  dims[a], first);
			first = false;
		}
	}
	size_t n = b.len;
	if (cap) {
		snprintf(buf, cap, "%s", b.s ? b.s : "");
	}
	dbuf_free(&b);
	return n;
}

struct diag_refault *diag_refault_new(const struct diag_refault_target *t)
{
	struct diag_refault *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->t = *t;
	r->bkptno = -1;
	r->state = DIAG_RF_START;
	return r;
}

void diag_refault_free(struct diag_refault *r)
{
	free(r);
}

static void set_cmd(struct diag_refault *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_cmd(struct diag_refault *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->cmd, sizeof r->cmd, fmt, ap);
	va_end(ap);
	r->cmd_ready = true;
}

static void fail(struct diag_refault *r, const char *msg)
{
	snprintf(r->error, sizeof r->error, "%s", msg);
	r->state = DIAG_RF_FAILED;
	r->cmd_ready = false;
}

bool diag_refault_pending(const struct diag_refault *r)
{
	return r->state == DIAG_RF_START || r->cmd_ready;
}

const char *diag_refault_next(struct diag_refault *r)
{
	if (r->state == DIAG_RF_START) {
		r->state = DIAG_RF_SETUP;
		set_cmd(r, "-gdb-set cuda break_on_launch application");
	}
	if (!r->cmd_ready)
		return NULL;
	r->cmd_ready = false;
	return r->cmd;
}

static void insert_breakpoint(struct diag_refault *r)
{
	char cond[256], quoted[300];
	diag_refault_condition(&r->t, cond, sizeof cond);
	mi_quote(quoted, sizeof quoted, cond, strlen(cond));
	r->state = DIAG_RF_INSERTING;
	set_cmd(r, "-break-insert -c %s %s:%u", quoted, r->t.file, r->t.line);
}

static bool focus_is_target(const struct diag_refault *r,
			    const struct mi_node *res)
{
	const struct mi_node *f = mi_find(res, "CudaFocus");
	struct diag_dim3 b, t;
	const char *bs, *ts;
	if (!f || f->kind != MI_NODE_TUPLE ||
	    !(bs = mi_find_str(f->child, "blockIdx")) ||
	    !(ts = mi_find_str(f->child, "threadIdx")) ||
	    diag_parse_dim3(bs, &b) || diag_parse_dim3(ts, &t))
		return false;
	return memcmp(&b, &r->t.block, sizeof b) == 0 &&
	       memcmp(&t, &r->t.thread, sizeof t) == 0;
}

/* The kernel-entry stop of break_on_launch is a breakpoint-hit with a
 * CudaFocus and no bkptno (cuda-gdb 13, replay_to_fault.mi.log). */
static void on_stopped(struct diag_refault *r, const struct mi_node *res)
{
	const char *reason = mi_find_str(res, "reason");
	const char *bkpt = mi_find_str(res, "bkptno");
	bool device = mi_find(res, "CudaFocus") != NULL;
	if (reason && strncmp(reason, "exited", 6) == 0) {
		fail(r, r->state == DIAG_RF_CONTINUING
				? "the program ended without reaching the "
				  "faulting thread at its line"
				: "the program ended before the kernel started");
		return;
	}
	if (reason && strcmp(reason, "signal-received") == 0 && device) {
		fail(r, "a device exception came before the breakpoint");
		return;
	}
	if (!reason || strcmp(reason, "breakpoint-hit") != 0 || !device)
		return;
	if (!bkpt) { /* a kernel entry */
		if (++r->entry_stops > MAX_ENTRY_STOPS) {
			fail(r, "too many kernel launches before the fault");
			return;
		}
		if (r->state == DIAG_RF_RUNNING) {
			insert_breakpoint(r);
		} else {
			r->state = DIAG_RF_CONTINUING;
			set_cmd(r, "-exec-continue");
		}
		return;
	}
	if (r->state != DIAG_RF_CONTINUING || atoi(bkpt) != r->bkptno)
		return;
	if (focus_is_target(r, res)) {
		r->state = DIAG_RF_ARRIVED;
		return;
	}
	/* The condition left out an axis: another thread matched. */
	if (++r->wrong_stops > MAX_WRONG_STOPS) {
		fail(r, "the breakpoint keeps stopping other threads");
		return;
	}
	set_cmd(r, "-exec-continue");
}

static void on_result(struct diag_refault *r, const struct mi_record *rec)
{
	bool err = strcmp(rec->klass, "error") == 0;
	const char *msg = err ? mi_find_str(rec->results, "msg") : NULL;
	switch (r->state) {
	case DIAG_RF_SETUP:
		if (err) {
			fail(r, "the debugger refused `set cuda break_on_launch` "
				"(not cuda-gdb?)");
			return;
		}
		r->state = DIAG_RF_RUNNING;
		set_cmd(r, "-exec-run");
		break;
	case DIAG_RF_RUNNING:
		if (err)
			fail(r, msg ? msg : "-exec-run failed");
		break;
	case DIAG_RF_INSERTING: {
		if (err) {
			/* The module of this launch may not hold the file:
			 * wait for the next kernel entry. */
			r->state = DIAG_RF_RUNNING;
			set_cmd(r, "-exec-continue");
			return;
		}
		const struct mi_node *b = mi_find(rec->results, "bkpt");
		const char *num = b && b->kind == MI_NODE_TUPLE
					  ? mi_find_str(b->child, "number")
					  : NULL;
		r->bkptno = num ? atoi(num) : -1;
		/* Further launches need no entry stop now.  An error here
		 * (an older cuda-gdb, a replay) is harmless. */
		r->state = DIAG_RF_CONTINUING;
		r->disabled_launch = true;
		set_cmd(r, "-gdb-set cuda break_on_launch none");
		break;
	}
	case DIAG_RF_CONTINUING:
		if (r->disabled_launch) {
			r->disabled_launch = false;
			set_cmd(r, "-exec-continue");
		} else if (err) {
			fail(r, msg ? msg : "-exec-continue failed");
		}
		break;
	default:
		break;
	}
}

enum diag_refault_state diag_refault_on_record(struct diag_refault *r,
					       const struct mi_record *rec)
{
	if (r->state == DIAG_RF_ARRIVED || r->state == DIAG_RF_FAILED)
		return r->state;
	if (rec->kind == MI_REC_EXEC && strcmp(rec->klass, "stopped") == 0)
		on_stopped(r, rec->results);
	else if (rec->kind == MI_REC_RESULT &&
		 (strcmp(rec->klass, "done") == 0 ||
		  strcmp(rec->klass, "error") == 0))
		on_result(r, rec);
	return r->state;
}

enum diag_refault_state diag_refault_state(const struct diag_refault *r)
{
	return r->state;
}

const char *diag_refault_error(const struct diag_refault *r)
{
	return r->error;
}

int diag_refault_bkptno(const struct diag_refault *r)
{
	return r->bkptno;
}
