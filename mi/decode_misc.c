/* Decoders for disassembly, registers, memory and completion. */
#include "cudbg/base.h"
#include "cudbg/decode.h"
#include "mi/decode_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- -data-disassemble ---- */

struct src_line {
	const char *file, *fullname;
	int line;
};

static int insn_decode(struct dec_arena *a, const struct mi_node *t,
		       const struct src_line *src, struct dec_insn *out)
{
	int err = 0;
	*out = (struct dec_insn){ .offset = -1 };
	if (t->kind != MI_NODE_TUPLE)
		return DEC_ESHAPE;
	const struct mi_node *c = t->child;
	if (!dec_find_u64(c, "address", &out->addr))
		return DEC_ESHAPE;
	out->func = dec_str(a, c, "func-name", &err);
	out->offset = dec_find_int(c, "offset", -1);
	out->opcodes = dec_str(a, c, "opcodes", &err);
	out->inst = dec_str(a, c, "inst", &err);
	if (src) {
		out->file = src->file;
		out->fullname = src->fullname;
		out->line = src->line;
	}
	return err;
}

/* Instructions in the answer: plain ones plus those nested in
 * src_and_asm_line groups (source modes). */
static size_t insn_count(const struct mi_node *list)
{
	size_t n = 0;
	for (const struct mi_node *c = list->child; c; c = c->next) {
		const struct mi_node *inner = NULL;
		if (c->kind == MI_NODE_TUPLE && c->name &&
		    strcmp(c->name, "src_and_asm_line") == 0)
			inner = mi_find(c->child, "line_asm_insn");
		n += inner && inner->kind != MI_NODE_STRING ? inner->count : 1;
	}
	return n;
}

static int src_group(struct dec_arena *a, const struct mi_node *g,
		     struct dec_disasm *d)
{
	int err = 0;
	struct src_line src = { 0 };
	src.file = dec_str(a, g->child, "file", &err);
	src.fullname = dec_str(a, g->child, "fullname", &err);
	src.line = dec_find_int(g->child, "line", 0);
	const struct mi_node *list = mi_find(g->child, "line_asm_insn");
	if (err || !list || list->kind == MI_NODE_STRING)
		return err;
	for (const struct mi_node *c = list->child; c; c = c->next) {
		int e = insn_decode(a, c, &src, &d->v[d->n]);
		if (e == MI_ENOMEM)
			return e;
		if (e == 0)
			d->n++;
	}
	return 0;
}

int dec_disasm_decode(const struct mi_node *results, struct dec_disasm *out)
{
	*out = (struct dec_disasm){ 0 };
	const struct mi_node *list = mi_find(results, "asm_insns");
	if (!list)
		return DEC_EMISSING;
	if (list->kind == MI_NODE_STRING)
		return DEC_ESHAPE;
	int err = dec_begin(&out->arena);
	if (!err) {
		size_t n = insn_count(list);
		out->v = dec_arena_alloc(out->arena, (n ? n : 1) * sizeof *out->v);
		err = out->v ? 0 : MI_ENOMEM;
	}
	for (const struct mi_node *c = list->child; c && !err; c = c->next) {
		if (c->kind == MI_NODE_TUPLE && c->name &&
		    strcmp(c->name, "src_and_asm_line") == 0) {
			err = src_group(out->arena, c, out);
			continue;
		}
		int e = insn_decode(out->arena, c, NULL, &out->v[out->n]);
		if (e == MI_ENOMEM)
			err = e;
		else if (e == 0)
			out->n++;
	}
	if (err)
		dec_disasm_free(out);
	return err;
}

void dec_disasm_free(struct dec_disasm *d)
{
	if (!d)
		return;
	dec_arena_free(d->arena);
	*d = (struct dec_disasm){ 0 };
}

/* ---- registers ---- */

/* A list of strings into an arena array. */
static int str_list(struct dec_arena *a, const struct mi_node *list,
		    const char ***v, size_t *n)
{
	*v = dec_arena_alloc(a, (list->count ? list->count : 1) * sizeof **v);
	if (!*v)
		return MI_ENOMEM;
	*n = 0;
	for (const struct mi_node *c = list->child; c; c = c->next) {
		if (c->kind != MI_NODE_STRING)
			continue;
		int err = 0;
		(*v)[*n] = dec_node_str(a, c, &err);
		if (err)
			return err;
		(*n)++;
	}
	return 0;
}

int dec_regnames_decode(const struct mi_node *results,
			struct dec_regnames *out)
{
	*out = (struct dec_regnames){ 0 };
	const struct mi_node *list = mi_find(results, "register-names");
	if (!list)
		return DEC_EMISSING;
	if (list->kind == MI_NODE_STRING)
		return DEC_ESHAPE;
	int err = dec_begin(&out->arena);
	if (!err)
		err = str_list(out->arena, list, &out->names, &out->n);
	if (err)
		dec_regnames_free(out);
	return err;
}

void dec_regnames_free(struct dec_regnames *r)
{
	if (!r)
		return;
	dec_arena_free(r->arena);
	*r = (struct dec_regnames){ 0 };
}

int dec_regvals_decode(const struct mi_node *results, struct dec_regvals *out)
{
	*out = (struct dec_regvals){ 0 };
	const struct mi_node *list;
	void *v = NULL;
	int err = dec_list_begin(results, "register-values", &out->arena, &v,
				 sizeof *out->v, &list);
	if (err == DEC_EMISSING || err == DEC_ESHAPE)
		return err;
	out->v = v;
	for (const struct mi_node *c = list->child; c && !err; c = c->next) {
		if (c->kind != MI_NODE_TUPLE)
			continue;
		int num = dec_find_int(c->child, "number", -1);
		const char *val = dec_str(out->arena, c->child, "value", &err);
		if (num < 0 || !val)
			continue;
		out->v[out->n++] = (struct dec_regval){ num, val };
	}
	if (err)
		dec_regvals_free(out);
	return err;
}

void dec_regvals_free(struct dec_regvals *r)
{
	if (!r)
		return;
	dec_arena_free(r->arena);
	*r = (struct dec_regvals){ 0 };
}

/* ---- -data-read-memory-bytes ---- */

static int mem_block(struct dec_arena *a, const struct mi_node *t,
		     struct dec_mem_block *b)
{
	*b = (struct dec_mem_block){ 0 };
	if (t->kind != MI_NODE_TUPLE)
		return DEC_ESHAPE;
	const struct mi_node *c = t->child;
	if (!dec_find_u64(c, "begin", &b->begin))
		return DEC_ESHAPE;
	dec_find_u64(c, "offset", &b->offset);
	dec_find_u64(c, "end", &b->end);
	const struct mi_node *hex = mi_find(c, "contents");
	if (!hex || hex->kind != MI_NODE_STRING || hex->len % 2)
		return DEC_ESHAPE;
	b->bytes = dec_arena_alloc(a, hex->len / 2 + 1);
	if (!b->bytes)
		return MI_ENOMEM;
	for (size_t i = 0; i + 1 < hex->len; i += 2) {
		int hi = hex_value(hex->str[i]), lo = hex_value(hex->str[i + 1]);
		if (hi < 0 || lo < 0)
			return DEC_ESHAPE;
		b->bytes[b->len++] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

int dec_memory_decode(const struct mi_node *results, struct dec_memory *out)
{
	*out = (struct dec_memory){ 0 };
	const struct mi_node *list;
	void *v = NULL;
	int err = dec_list_begin(results, "memory", &out->arena, &v,
				 sizeof *out->v, &list);
	if (err == DEC_EMISSING || err == DEC_ESHAPE)
		return err;
	out->v = v;
	for (const struct mi_node *c = list->child; c && !err; c = c->next) {
		int e = mem_block(out->arena, c, &out->v[out->n]);
		if (e == MI_ENOMEM)
			err = e;
		else if (e == 0)
			out->n++;
	}
	if (err)
		dec_memory_free(out);
	return err;
}

void dec_memory_free(struct dec_memory *m)
{
	if (!m)
		return;
	dec_arena_free(m->arena);
	*m = (struct dec_memory){ 0 };
}

/* ---- -complete ---- */

int dec_complete_decode(const struct mi_node *results,
			struct dec_complete *out)
{
	*out = (struct dec_complete){ 0 };
	const struct mi_node *list = mi_find(results, "matches");
	if (list && list->kind == MI_NODE_STRING)
		return DEC_ESHAPE;
	int err = dec_begin(&out->arena);
	if (!err)
		out->completion = dec_str(out->arena, results, "completion",
					  &err);
	if (!err && list)
		err = str_list(out->arena, list, &out->matches, &out->n);
	const char *max = mi_find_str(results, "max_completions_reached");
	out->max_reached = max && strcmp(max, "1") == 0;
	if (err)
		dec_complete_free(out);
	return err;
}

void dec_complete_free(struct dec_complete *c)
{
	if (!c)
		return;
	dec_arena_free(c->arena);
	*c = (struct dec_complete){ 0 };
}

/* ---- a SASS memory operand ---- */

/* "R4.64+0x10" (the inside of one bracket group) into out; false when it
 * is no general register (URn, RZ, a number). */
static bool sass_reg_group(const char *s, size_t n, struct dec_sass_mem *out)
{
	if (n < 2 || s[0] != 'R' || s[1] < '0' || s[1] > '9')
		return false;
	size_t i = 1;
	int reg = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9' && reg < 1000)
		reg = reg * 10 + (s[i++] - '0');
	bool wide = false;
	if (i + 3 <= n && memcmp(s + i, ".64", 3) == 0) {
		wide = true;
		i += 3;
	}
	long long off = 0;
	if (i < n && (s[i] == '+' || s[i] == '-')) {
		char sign = s[i++];
		char tmp[32];
		size_t k = n - i < sizeof tmp - 1 ? n - i : sizeof tmp - 1;
		memcpy(tmp, s + i, k);
		tmp[k] = '\0';
		char *end;
		off = strtoll(tmp, &end, 0);
		if (end == tmp || *end)
			return false;
		if (sign == '-')
			off = -off;
	} else if (i != n) {
		return false;
	}
	out->reg = reg;
	out->wide = wide;
	out->offset = off;
	return true;
}

int dec_sass_mem_operand(const char *inst, struct dec_sass_mem *out)
{
	memset(out, 0, sizeof *out);
	if (!inst)
		return -1;
	/* an optional predicate ("@P0 ", "@!PT ") comes first */
	if (*inst == '@')
		inst += strcspn(inst, " ") + strspn(inst + strcspn(inst, " "), " ");
	size_t oplen = strcspn(inst, " .");
	if (oplen == 0 || oplen >= sizeof out->op)
		return -1;
	memcpy(out->op, inst, oplen);
	/* a load's destination: the first operand, a register ("LD.E R4,",
	 * "LDG.E.64 R8,"; LDGSTS writes shared memory, not a register) */
	const char *sp = strchr(inst, ' ');
	if (sp && strncmp(out->op, "LD", 2) == 0 &&
	    strcmp(out->op, "LDGSTS") != 0 && sp[1] == 'R' &&
	    sp[2] >= '0' && sp[2] <= '9') {
		out->dest = atoi(sp + 2);
		const char *mn_end = sp;
		out->ndest = memmem(inst, (size_t)(mn_end - inst), ".128", 4) ? 4
			     : memmem(inst, (size_t)(mn_end - inst), ".64", 3) ? 2
			     : 1;
	}
	bool found = false;
	/* the last register group is the address ([UR4] before it is a
	 * descriptor) */
	for (const char *p = strchr(inst, '['); p; p = strchr(p + 1, '[')) {
		const char *q = strchr(p + 1, ']');
		if (!q)
			break;
		struct dec_sass_mem m = *out;
		if (sass_reg_group(p + 1, (size_t)(q - p - 1), &m)) {
			*out = m;
			found = true;
		}
	}
	return found ? 0 : -1;
}
