/* A CPU crash's address and the crashing line's dereference there
 * (include/cudbg/model.h, ctl_host_access).
 *
 * Why: a host SIGSEGV names only the function and line; the user wants
 * to know which pointer was bad.  The signal's si_addr is the address
 * the access used (a NULL struct's member: the member's offset), and each
 * dereference of the crashing line (n->next, n->next->val), asked for its
 * address and size, either holds it or does not: the first that does, in
 * the order written, is the access, and the pointer it went through is
 * named with its value (NULL, or where a past-the-end index took it).
 *
 * The commands, in order: the address; per dereference its address and
 * its size; once all are in, the matching one's pointer and subscript.
 * Each answer's op checks the generation: a new stop drops what is left.
 * Batch and DAP wait for it (diag/diagrun.c), the screen takes it as it
 * comes (tui/glue.c); the diagnosis reads the model (diag/model_feed.c). */
#include "cudbg/base.h"
#include "cudbg/decode.h"
#include "cudbg/model.h"
#include "mi/ctl_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* which answer an op carries (op->level) */
enum { ASK_ADDRESS, ASK_AT, ASK_SIZE, ASK_BASE, ASK_INDEX };

void model_access_clear(struct dbg_model *m)
{
	struct model_access *a = &m->access;
	for (size_t i = 0; i < a->n; i++) {
		free(a->derefs[i].expr);
		free(a->derefs[i].base);
		free(a->derefs[i].index);
	}
	free(a->derefs);
	bool had = a->state != MODEL_ACCESS_NONE;
	*a = (struct model_access){ .state = MODEL_ACCESS_NONE, .match = -1 };
	if (had)
		m->changes |= MODEL_CH_ACCESS;
}

static bool stale(struct dbg_ctl *c, const struct ctl_op *op)
{
	return op->gen != c->gen || c->m.access.state != MODEL_ACCESS_BUSY;
}

/* The answer's number: unsigned, or signed for a subscript. */
static bool answer_number(const struct session_reply *r, bool is_signed,
			  uint64_t *out)
{
	const char *v = r->kind == SESSION_REPLY_DONE && r->rec
				? dec_value(r->rec->results) : NULL;
	/* (strtoull would take "-1" as a huge number) */
	if (!v || !*v || (!is_signed && v[0] == '-'))
		return false;
	char *end;
	errno = 0;
	*out = is_signed ? (uint64_t)strtoll(v, &end, 10) : strtoull(v, &end, 10);
	return *end == '\0' && errno == 0;
}

static void done(struct dbg_ctl *c)
{
	c->m.access.state = MODEL_ACCESS_DONE;
	c->m.changes |= MODEL_CH_ACCESS;
}

static void answered(struct dbg_ctl *c, struct ctl_op *op,
		     const struct session_reply *r);

/* Sends PRE TEXT POST for answer kind (op->level) of deref index. */
static bool ask(struct dbg_ctl *c, int kind, size_t index, const char *pre,
		const char *text, const char *post)
{
	char *e = NULL, *cmd = NULL;
	if (asprintf(&e, "%s%s%s", pre, text, post) < 0)
		return false;
	char *q = ctl_quote(e);
	free(e);
	if (!q || asprintf(&cmd, "-data-evaluate-expression %s", q) < 0) {
		free(q);
		return false;
	}
	free(q);
	struct ctl_op *op = ctl_op_new(c, answered, false);
	if (op) {
		op->level = kind;
		op->index = index;
	}
	/* (ctl_send_op frees an op it could not send) */
	bool sent = ctl_send_op(c, op, 0, cmd) > 0;
	free(cmd);
	if (sent)
		c->m.access.pending++;
	return sent;
}

/* All the addresses are in: the first dereference holding the crash's,
 * then its pointer and subscript. */
static void match_and_ask(struct dbg_ctl *c)
{
	struct model_access *a = &c->m.access;
	for (size_t i = 0; a->has_address && i < a->n && a->match < 0; i++) {
		const struct model_deref *d = &a->derefs[i];
		uint64_t size = d->has_size && d->size ? d->size : 1;
		if (d->has_at && a->address >= d->at && a->address - d->at < size)
			a->match = (int)i;
	}
	if (a->match >= 0) {
		const struct model_deref *d = &a->derefs[a->match];
		ask(c, ASK_BASE, 0, "(unsigned long)(", d->base, ")");
		if (d->index)
			ask(c, ASK_INDEX, 0, "(long long)(", d->index, ")");
	}
	if (!a->pending)
		done(c);
}

static void answered(struct dbg_ctl *c, struct ctl_op *op,
		     const struct session_reply *r)
{
	struct model_access *a = &c->m.access;
	if (stale(c, op))
		return;
	uint64_t v = 0;
	bool ok = answer_number(r, op->level == ASK_INDEX, &v);
	struct model_deref *d = op->index < a->n ? &a->derefs[op->index] : NULL;
	switch (op->level) {
	case ASK_ADDRESS:
		a->has_address = ok;
		a->address = v;
		break;
	case ASK_AT:
		if (d) {
			d->has_at = ok;
			d->at = v;
		}
		break;
	case ASK_SIZE:
		if (d) {
			d->has_size = ok;
			d->size = v;
		}
		break;
	case ASK_BASE:
		a->has_base = ok;
		a->base_value = v;
		break;
	case ASK_INDEX:
		a->has_index = ok;
		a->index_value = (long long)v;
		break;
	}
	if (a->pending && --a->pending)
		return;
	if (op->level <= ASK_SIZE)
		match_and_ask(c);
	else
		done(c);
}

static bool copy_deref(struct model_deref *to, const struct model_deref *from)
{
	*to = (struct model_deref){ 0 };
	to->expr = from->expr ? strdup(from->expr) : NULL;
	to->base = from->base ? strdup(from->base) : NULL;
	to->index = from->index ? strdup(from->index) : NULL;
	return to->expr && to->base && (!from->index || to->index);
}

int ctl_host_access(struct dbg_ctl *c, const struct model_deref *derefs,
		    size_t n)
{
	struct dbg_model *m = &c->m;
	if (!model_host_address_stop(m))
		return CTL_ESTATE;
	model_access_clear(m);
	struct model_access *a = &m->access;
	a->derefs = n ? calloc(n, sizeof *a->derefs) : NULL;
	if (n && !a->derefs)
		return MI_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		a->n = i + 1; /* (a half copy is freed by the clear) */
		if (!copy_deref(&a->derefs[i], &derefs[i])) {
			model_access_clear(m);
			return MI_ENOMEM;
		}
	}
	a->state = MODEL_ACCESS_BUSY;
	m->changes |= MODEL_CH_ACCESS;
	if (!ask(c, ASK_ADDRESS, 0, "(unsigned long)",
		 "$_siginfo._sifields._sigfault.si_addr", "")) {
		model_access_clear(m);
		return CTL_ESTATE;
	}
	for (size_t i = 0; i < n; i++) {
		ask(c, ASK_AT, i, "(unsigned long)&(", a->derefs[i].expr, ")");
		ask(c, ASK_SIZE, i, "sizeof(", a->derefs[i].expr, ")");
	}
	return 0;
}
