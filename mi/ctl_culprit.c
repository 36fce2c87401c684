/* The culprit-lane search (include/cudbg/model.h, ctl_culprit_search).
 *
 * Why: a warp-level address fault (Warp Illegal Address, Misaligned,
 * Out-of-range, Invalid Address Space) names no lane: cuda-gdb 13 puts
 * the focus on lane 0 of the warp whatever lane faulted (null_deref:
 * lane 0 in focus, thread 3 the culprit), and the memcheck pass that
 * names it costs a whole second run.  The stopped warp already holds the
 * answer: every lane's registers.  The faulting instruction at the error
 * PC names its address operand ("LD.E R4,desc[UR4][R4.64]": R4:R5), so
 * the address each lane used is read from its registers, and the lane
 * whose address lies far from all the others' made the access
 * (model_culprit_lane).  GPU run 25 (H100): lane_wild_o3's lane 18 used
 * out + 200000000 while the other 31 used out + 0..124.  Whether the
 * debugger can read memory there says nothing: it read that address, and
 * freed buffers, as zeros.  A load whose destination is its address
 * register (-G's "LD.E R4,desc[UR4][R4.64]") left the loaded value there,
 * not the address: no search then.
 *
 * The commands, in order (answers come back in order): the disassembly
 * at the error PC; the lanes table; per active lane a focus switch (and
 * frame 0) and one evaluation; the switch back.  Each answer's op checks
 * the generation: a new stop drops what is left.
 *
 * Line first: cuda-gdb's first disassembly in a kernel costs 0.37 s
 * (GPU run 32, lane_wild), most of the search.  Where the caller gives
 * the faulting line's one access (a -G build's locals are exact at the
 * fault), its names are checked once in the focused lane (sizeof, no
 * memory read: an -O3 build has no such names) and its address is asked
 * in every lane first; only when that names no lane does the register
 * search follow. */
#include "cudbg/base.h"
#include "cudbg/decode.h"
#include "cudbg/model.h"
#include "mi/ctl_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool answered(const struct session_reply *r)
{
	return r->kind == SESSION_REPLY_DONE && r->rec;
}

/* what failed, and its detail (may be NULL) */
static void search_failed(struct dbg_ctl *c, const char *what, const char *a)
{
	struct model_culprit *cu = &c->m.culprit;
	char why[512];
	/* the lvalue search after an overwritten register: the first
	 * failure's reason stands (a recording made before it answers
	 * none of its commands) */
	if (cu->lvalue && cu->why) {
		cu->state = MODEL_CULPRIT_FAILED;
		c->m.changes |= MODEL_CH_CULPRIT;
		return;
	}
	/* a replay of a recording made before the search answers each of
	 * its commands so: said as what it means */
	if (a && strstr(a, "not in this recording"))
		snprintf(why, sizeof why, "the recording was made without the "
			 "culprit-lane search (%s)", what);
	else
		snprintf(why, sizeof why, "%s%s%s", what, a ? ": " : "",
			 a ? a : "");
	free(cu->why);
	cu->why = strdup(why);
	cu->state = MODEL_CULPRIT_FAILED;
	c->m.changes |= MODEL_CH_CULPRIT;
}

static bool stale(struct dbg_ctl *c, const struct ctl_op *op)
{
	return op->gen != c->gen ||
	       c->m.culprit.state != MODEL_CULPRIT_BUSY;
}

/* "-cuda-focus-switch lane N", "-stack-select-frame N" */
static void send_num(struct dbg_ctl *c, ctl_op_fn fn, size_t index,
		     const char *verb, long arg)
{
	struct ctl_op *op = ctl_op_new(c, fn, false);
	char cmd[96];
	snprintf(cmd, sizeof cmd, "%s %ld", verb, arg);
	if (op) {
		op->index = index;
		ctl_send_op(c, op, 0, cmd);
	}
}

static void register_search(struct dbg_ctl *c);

/* The line's access named no lane, or the focused lane lacks its names:
 * the instruction's registers next. */
static void line_first_failed(struct dbg_ctl *c)
{
	struct model_culprit *cu = &c->m.culprit;
	free(cu->lvalue);
	free(cu->expr);
	free(cu->lanes);
	cu->lvalue = cu->expr = NULL;
	cu->lanes = NULL;
	cu->n = 0;
	cu->line_first = false;
	cu->state = MODEL_CULPRIT_BUSY;
	register_search(c);
}

/* Back on the user's lane: the answers are all in. */
static void returned(struct dbg_ctl *c, struct ctl_op *op,
		     const struct session_reply *r)
{
	(void)r;
	struct model_culprit *cu = &c->m.culprit;
	if (stale(c, op))
		return;
	cu->state = MODEL_CULPRIT_DONE; /* (model_culprit_lane reads done
					 * searches only) */
	/* (the line's access may not be the one that faulted: the
	 * registers may name a lane where it did not) */
	if (cu->line_first && model_culprit_lane(cu) < 0) {
		line_first_failed(c);
		return;
	}
	c->m.changes |= MODEL_CH_CULPRIT;
}

static void lane_address(struct dbg_ctl *c, struct ctl_op *op,
			 const struct session_reply *r)
{
	struct model_culprit *cu = &c->m.culprit;
	if (stale(c, op) || op->index >= cu->n || !answered(r))
		return;
	const char *v = dec_value(r->rec->results);
	char *end;
	unsigned long long a = v ? strtoull(v, &end, 0) : 0;
	if (v && end != v && *end == '\0') {
		cu->lanes[op->index].addr = a;
		cu->lanes[op->index].has_addr = true;
	}
}

/* A failed switch: the evaluation after it would read the previous
 * lane's registers. */
static void lane_switched(struct dbg_ctl *c, struct ctl_op *op,
			  const struct session_reply *r)
{
	struct model_culprit *cu = &c->m.culprit;
	if (stale(c, op) || op->index >= cu->n || answered(r))
		return;
	cu->lanes[op->index].lane = -1; /* its answer is not its own */
}

static void lanes_listed(struct dbg_ctl *c, struct ctl_op *op,
			 const struct session_reply *r)
{
	struct model_culprit *cu = &c->m.culprit;
	struct dec_table t;
	if (stale(c, op))
		return;
	if (!answered(r) || dec_table_decode(r->rec->results, &t) != 0) {
		search_failed(c, "-cuda-info-lanes", r->msg ? r->msg : "no table");
		return;
	}
	cu->lanes = calloc(t.nr_rows ? t.nr_rows : 1, sizeof *cu->lanes);
	char *eval = NULL;
	if (!cu->lanes || asprintf(&eval, "-data-evaluate-expression \"%s\"",
				   cu->expr) < 0) {
		dec_table_free(&t);
		search_failed(c, "out of memory", NULL);
		return;
	}
	for (size_t i = 0; i < t.nr_rows; i++) {
		struct dec_lane_row row;
		if (dec_table_lane(&t, i, &row) != 0 || row.lane < 0 ||
		    !row.state || strcmp(row.state, "active") != 0)
			continue;
		cu->lanes[cu->n++] = (struct model_lane_addr){
			.lane = row.lane, .thread = row.thread,
		};
	}
	dec_table_free(&t);
	for (size_t i = 0; i < cu->n; i++) {
		send_num(c, lane_switched, i, "-cuda-focus-switch lane",
			 cu->lanes[i].lane);
		/* registers as they are at the fault: frame 0 */
		send_num(c, NULL, i, "-stack-select-frame", 0);
		struct ctl_op *ev = ctl_op_new(c, lane_address, false);
		if (ev) {
			ev->index = i;
			ctl_send_op(c, ev, 0, eval);
		}
	}
	free(eval);
	send_num(c, c->m.selected_frame > 0 ? NULL : returned, 0,
		 "-cuda-focus-switch lane", cu->back_lane);
	if (c->m.selected_frame > 0)
		send_num(c, returned, 0, "-stack-select-frame",
			 c->m.selected_frame);
}

static void disassembled(struct dbg_ctl *c, struct ctl_op *op,
			 const struct session_reply *r)
{
	struct model_culprit *cu = &c->m.culprit;
	struct dec_disasm d;
	if (stale(c, op))
		return;
	if (!answered(r) || dec_disasm_decode(r->rec->results, &d) != 0 ||
	    d.n == 0) {
		search_failed(c, "no disassembly at the error PC",
			      r->msg ? r->msg : "empty");
		return;
	}
	const struct dec_insn *in = &d.v[0];
	for (size_t i = 0; i < d.n; i++)
		if (d.v[i].addr == cu->error_pc)
			in = &d.v[i];
	cu->inst = strdup(in->inst ? in->inst : "");
	struct dec_sass_mem mem;
	int rc = dec_sass_mem_operand(in->inst, &mem);
	dec_disasm_free(&d);
	if (rc != 0) {
		search_failed(c, "the faulting instruction has no register "
			      "address", cu->inst);
		return;
	}
	int alast = mem.reg + (mem.wide ? 1 : 0);
	if (mem.ndest && mem.dest <= alast && mem.reg < mem.dest + mem.ndest) {
		search_failed(c, "the faulting load wrote its destination over "
			      "its address register, so the address is gone",
			      cu->inst);
		cu->addr_gone = true;
		return;
	}
	/* gdb's own arithmetic, one evaluation a lane; a 32-bit operand
	 * (a shared or local window) is an offset, not a global address */
	char e[160];
	if (mem.wide)
		snprintf(e, sizeof e, "(((unsigned long long)(unsigned int)$R%d"
			 " << 32) | (unsigned int)$R%d) + (%lld)", mem.reg + 1,
			 mem.reg, mem.offset);
	else
		snprintf(e, sizeof e, "(unsigned long long)(unsigned int)$R%d"
			 " + (%lld)", mem.reg, mem.offset);
	cu->expr = strdup(e);
	if (!cu->expr) {
		search_failed(c, "out of memory", NULL);
		return;
	}
	ctl_sendf(c, lanes_listed, false, "-cuda-info-lanes");
}

static bool address_fault(const char *exception)
{
	/* "Lane ..." exceptions name their lane already */
	return exception && strncmp(exception, "Warp ", 5) == 0 &&
	       strstr(exception, "Address");
}

/* The stop's warp-level address fault and its error PC: a live stop's
 * record, or a GPU coredump's story (cuda-gdb 13 gives a coredump no
 * *stopped record; its lanes' registers are all in it, so the search
 * works there too).  False when the stop is no such fault. */
static bool address_fault_pc(const struct dbg_model *m, uint64_t *pc)
{
	if (m->has_stop) {
		const struct dec_stop *s = &m->stop;
		*pc = s->error_pc;
		return s->has_error_pc &&
		       address_fault(s->exception_name ? s->exception_name
						       : s->signal_meaning);
	}
	*pc = m->core.pc;
	return m->is_core && m->core.gpu && m->core.has_pc &&
	       address_fault(m->core.exception);
}

/* Sets the search's access to lvalue: its expression, asked per lane. */
static int set_lvalue(struct model_culprit *cu, const char *lvalue)
{
	char e[192];
	snprintf(e, sizeof e, "(unsigned long long)&(%s)", lvalue);
	char *lv = strdup(lvalue), *ex = strdup(e);
	if (!lv || !ex) {
		free(lv);
		free(ex);
		return MI_ENOMEM;
	}
	free(cu->expr);
	free(cu->lvalue);
	cu->expr = ex;
	cu->lvalue = lv;
	return 0;
}

static bool lvalue_sendable(const char *lvalue)
{
	return lvalue && *lvalue && strlen(lvalue) <= 120 &&
	       !strpbrk(lvalue, "\"\\\n");
}

int ctl_culprit_search_lvalue(struct dbg_ctl *c, const char *lvalue)
{
	struct dbg_model *m = &c->m;
	struct model_culprit *cu = &m->culprit;
	if (m->state != MODEL_STOPPED || cu->state != MODEL_CULPRIT_FAILED ||
	    !cu->addr_gone || cu->lvalue)
		return CTL_ESTATE;
	if (!lvalue_sendable(lvalue))
		return CTL_EINVAL;
	int rc = set_lvalue(cu, lvalue);
	if (rc < 0)
		return rc;
	free(cu->lanes);
	cu->lanes = NULL;
	cu->n = 0;
	cu->state = MODEL_CULPRIT_BUSY;
	int64_t tok = ctl_sendf(c, lanes_listed, false, "-cuda-info-lanes");
	if (tok < 0) {
		cu->state = MODEL_CULPRIT_FAILED;
		return (int)tok;
	}
	return 0;
}

/* The faulting instruction at the error PC, decoded in disassembled(). */
static int64_t send_disassembly(struct dbg_ctl *c)
{
	unsigned long long pc = c->m.culprit.error_pc;
	return ctl_sendf(c, disassembled, false,
			 "-data-disassemble -s 0x%llx -e 0x%llx -- 0",
			 pc, pc + 16);
}

static void register_search(struct dbg_ctl *c)
{
	if (send_disassembly(c) < 0)
		search_failed(c, "the disassembly could not be asked", NULL);
}

/* The line's names, checked in the focused lane: known, its address is
 * asked in every lane; unknown (an -O3 build, a replay of a recording
 * made before line-first), the register search. */
static void line_probed(struct dbg_ctl *c, struct ctl_op *op,
			const struct session_reply *r)
{
	if (stale(c, op))
		return;
	if (!answered(r)) {
		line_first_failed(c);
		return;
	}
	if (ctl_sendf(c, lanes_listed, false, "-cuda-info-lanes") < 0)
		search_failed(c, "-cuda-info-lanes could not be asked", NULL);
}

int ctl_culprit_search(struct dbg_ctl *c, const char *line_lvalue)
{
	struct dbg_model *m = &c->m;
	uint64_t error_pc;
	if (m->state != MODEL_STOPPED || !address_fault_pc(m, &error_pc) ||
	    !m->focus.valid || m->focus.lane < 0)
		return CTL_ESTATE;
	model_culprit_clear(m);
	struct model_culprit *cu = &m->culprit;
	cu->state = MODEL_CULPRIT_BUSY;
	cu->error_pc = error_pc;
	cu->back_lane = m->focus.lane;
	int64_t tok;
	if (lvalue_sendable(line_lvalue) && set_lvalue(cu, line_lvalue) == 0) {
		cu->line_first = true;
		tok = ctl_sendf(c, line_probed, false,
				"-data-evaluate-expression \"sizeof(%s)\"",
				line_lvalue);
	} else {
		tok = send_disassembly(c);
	}
	if (tok < 0) {
		cu->state = MODEL_CULPRIT_NONE;
		return (int)tok;
	}
	return 0;
}
