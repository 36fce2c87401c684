/* Breakpoint decoders: -break-insert, -break-list, =breakpoint-created,
 * =breakpoint-modified, =breakpoint-deleted. */
#include "cudbg/decode.h"
#include "mi/decode_int.h"

#include <string.h>

static bool yes(const char *s)
{
	return s && strcmp(s, "y") == 0;
}

static bool is_pending_addr(const char *addr)
{
	return addr && strcmp(addr, "<PENDING>") == 0;
}

static int loc_decode(struct dec_arena *a, const struct mi_node *t,
		      struct dec_bkpt_loc *out)
{
	int err = 0;
	*out = (struct dec_bkpt_loc){ 0 };
	if (t->kind != MI_NODE_TUPLE)
		return DEC_ESHAPE;
	const struct mi_node *c = t->child;
	out->number = dec_str(a, c, "number", &err);
	out->enabled = yes(mi_find_str(c, "enabled"));
	const char *addr = mi_find_str(c, "addr");
	out->pending = is_pending_addr(addr) || mi_find(c, "pending");
	if (!out->pending)
		dec_u64_parse(addr, &out->addr);
	out->func = dec_str(a, c, "func", &err);
	out->file = dec_str(a, c, "file", &err);
	out->fullname = dec_str(a, c, "fullname", &err);
	out->line = dec_find_int(c, "line", 0);
	out->pending_text = dec_str(a, c, "pending", &err);
	return err;
}

/* MI3 puts the locations of a breakpoint with several in locations=[...]
 * (cuda-gdb: one on the host stub, one in the device code). */
static int locs_decode(struct dec_arena *a, const struct mi_node *list,
		       struct dec_bkpt *b)
{
	if (!list || list->kind == MI_NODE_STRING || list->count == 0)
		return 0;
	b->locs = dec_arena_alloc(a, list->count * sizeof *b->locs);
	if (!b->locs)
		return MI_ENOMEM;
	for (const struct mi_node *c = list->child; c; c = c->next) {
		int err = loc_decode(a, c, &b->locs[b->nlocs]);
		if (err == MI_ENOMEM)
			return err;
		if (err == 0)
			b->nlocs++;
	}
	return 0;
}

static bool all_locs_pending(const struct dec_bkpt *b)
{
	if (b->nlocs == 0)
		return false;
	for (size_t i = 0; i < b->nlocs; i++)
		if (!b->locs[i].pending)
			return false;
	return true;
}

/* "step_kernel.cu:11" -> file and line; other forms (a function name,
 * "*0x...") are left alone. */
static int orig_split(struct dec_arena *a, struct dec_bkpt *b)
{
	const char *o = b->original_location;
	const char *colon = strrchr(o, ':');
	if (!colon || colon == o || colon[-1] == ':')
		return 0;
	int line = dec_int_or(colon + 1, -1);
	if (line <= 0 || colon[1] == '0')
		return 0;
	b->orig_file = dec_arena_strndup(a, o, (size_t)(colon - o));
	if (!b->orig_file)
		return MI_ENOMEM;
	b->orig_line = line;
	return 0;
}

/* One of the session's own dprintfs on the allocation API (mi/
 * alloc_watch.c): its script prints the "cudbg-alloc " lines. */
static bool is_alloc_watch(const struct mi_node *c)
{
	const char *type = mi_find_str(c, "type");
	const struct mi_node *script = mi_find(c, "script");
	if (!type || strcmp(type, "dprintf") != 0 || !script ||
	    script->kind == MI_NODE_STRING || !script->child ||
	    script->child->kind != MI_NODE_STRING)
		return false;
	return strncmp(script->child->str, ALLOC_WATCH_SCRIPT,
		       strlen(ALLOC_WATCH_SCRIPT)) == 0;
}

static int bkpt_fields(struct dec_arena *a, const struct mi_node *c,
		       struct dec_bkpt *b)
{
	int err = 0;
	b->number_text = dec_str(a, c, "number", &err);
	b->number = dec_find_int(c, "number", -1);
	b->type = dec_str(a, c, "type", &err);
	b->disp = dec_str(a, c, "disp", &err);
	b->enabled = yes(mi_find_str(c, "enabled"));
	b->addr_text = dec_str(a, c, "addr", &err);
	b->multiple = b->addr_text && strcmp(b->addr_text, "<MULTIPLE>") == 0;
	if (!b->multiple)
		dec_u64_parse(b->addr_text, &b->addr);
	b->func = dec_str(a, c, "func", &err);
	b->file = dec_str(a, c, "file", &err);
	b->fullname = dec_str(a, c, "fullname", &err);
	b->line = dec_find_int(c, "line", 0);
	b->pending_text = dec_str(a, c, "pending", &err);
	b->times = dec_find_int(c, "times", 0);
	b->original_location = dec_str(a, c, "original-location", &err);
	if (b->original_location)
		err = err ? err : orig_split(a, b);
	b->cond = dec_str(a, c, "cond", &err);
	b->ignore = dec_find_int(c, "ignore", 0);
	b->what = dec_str(a, c, "what", &err);
	b->internal = is_alloc_watch(c);
	return err;
}

static int bkpt_decode(struct dec_arena *a, const struct mi_node *t,
		       struct dec_bkpt *b)
{
	*b = (struct dec_bkpt){ .number = -1 };
	if (t->kind != MI_NODE_TUPLE)
		return DEC_ESHAPE;
	int err = bkpt_fields(a, t->child, b);
	if (!err)
		err = locs_decode(a, mi_find(t->child, "locations"), b);
	b->pending = is_pending_addr(b->addr_text) || b->pending_text ||
		     all_locs_pending(b);
	return err;
}

static int bkpts_alloc(struct dec_bkpts *out, size_t n)
{
	int err = dec_begin(&out->arena);
	if (err)
		return err;
	out->v = dec_arena_alloc(out->arena, (n ? n : 1) * sizeof *out->v);
	return out->v ? 0 : MI_ENOMEM;
}

int dec_bkpt_decode(const struct mi_node *results, struct dec_bkpts *out)
{
	*out = (struct dec_bkpts){ 0 };
	const struct mi_node *t = mi_find(results, "bkpt");
	if (!t)
		return DEC_EMISSING;
	if (t->kind != MI_NODE_TUPLE)
		return DEC_ESHAPE;
	int err = bkpts_alloc(out, 1);
	if (!err)
		err = bkpt_decode(out->arena, t, &out->v[0]);
	if (err) {
		dec_bkpts_free(out);
		return err;
	}
	out->n = 1;
	return 0;
}

int dec_bkpt_list_decode(const struct mi_node *results, struct dec_bkpts *out)
{
	*out = (struct dec_bkpts){ 0 };
	const struct mi_node *t = mi_find(results, "BreakpointTable");
	if (!t)
		return DEC_EMISSING;
	const struct mi_node *body = t->kind == MI_NODE_TUPLE ?
					     mi_find(t->child, "body") : NULL;
	if (!body || body->kind == MI_NODE_STRING)
		return DEC_ESHAPE;
	int err = bkpts_alloc(out, body->count);
	for (const struct mi_node *c = body->child; c && !err; c = c->next) {
		int e = bkpt_decode(out->arena, c, &out->v[out->n]);
		if (e == MI_ENOMEM)
			err = e;
		else if (e == 0)
			out->n++;
	}
	if (err)
		dec_bkpts_free(out);
	return err;
}

int dec_bkpt_deleted(const struct mi_node *results)
{
	const char *id = mi_find_str(results, "id");
	if (!id)
		return DEC_EMISSING;
	int n = dec_int_or(id, -1);
	return n < 0 ? DEC_ESHAPE : n;
}

void dec_bkpts_free(struct dec_bkpts *b)
{
	if (!b)
		return;
	dec_arena_free(b->arena);
	*b = (struct dec_bkpts){ 0 };
}

bool dec_bkpt_where(const struct dec_bkpt *b, const char **file,
		    const char **fullname, int *line)
{
	if (b->line > 0 && (b->file || b->fullname)) {
		*file = b->file;
		*fullname = b->fullname;
		*line = b->line;
		return true;
	}
	/* Prefer an enabled resolved location: cuda-gdb keeps a disabled
	 * host-stub location beside the device one. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < b->nlocs; i++) {
			const struct dec_bkpt_loc *l = &b->locs[i];
			if (l->pending || l->line <= 0 || (pass == 0 && !l->enabled))
				continue;
			*file = l->file;
			*fullname = l->fullname;
			*line = l->line;
			return true;
		}
		if (pass == 0 && b->orig_line > 0) {
			*file = b->orig_file;
			*fullname = NULL;
			*line = b->orig_line;
			return true;
		}
	}
	return false;
}
