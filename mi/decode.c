/* Typed decoders: CUDA focus, frames, stacks, variables, *stopped,
 * -thread-info.  See include/cudbg/decode.h. */
#include "cudbg/decode.h"
#include "mi/decode_int.h"

#include <string.h>

const char *dec_str(struct dec_arena *a, const struct mi_node *first,
		    const char *name, int *err)
{
	const struct mi_node *n = mi_find(first, name);
	if (!n || n->kind != MI_NODE_STRING)
		return NULL;
	char *s = dec_arena_strndup(a, n->str, n->len);
	if (!s)
		*err = MI_ENOMEM;
	return s;
}

const char *dec_node_str(struct dec_arena *a, const struct mi_node *n,
			 int *err)
{
	if (!n || n->kind != MI_NODE_STRING)
		return NULL;
	char *s = dec_arena_strndup(a, n->str, n->len);
	if (!s)
		*err = MI_ENOMEM;
	return s;
}

int dec_find_int(const struct mi_node *first, const char *name, int def)
{
	return dec_int_or(mi_find_str(first, name), def);
}

bool dec_find_u64(const struct mi_node *first, const char *name,
		  uint64_t *out)
{
	return dec_u64_parse(mi_find_str(first, name), out);
}

int dec_begin(struct dec_arena **arena)
{
	*arena = dec_arena_new();
	return *arena ? 0 : MI_ENOMEM;
}

/* ---- focus ---- */

static int focus_int(const char *s)
{
	return dec_int_or(s, -1); /* "invalid" for fields not asked */
}

static void focus_field(struct dec_focus *f, const struct mi_node *n)
{
	const char *k = n->name, *v = n->str;
	if (!k || n->kind != MI_NODE_STRING)
		return;
	if (strcmp(k, "device") == 0)
		f->device = focus_int(v);
	else if (strcmp(k, "sm") == 0)
		f->sm = focus_int(v);
	else if (strcmp(k, "warp") == 0)
		f->warp = focus_int(v);
	else if (strcmp(k, "lane") == 0)
		f->lane = focus_int(v);
	else if (strcmp(k, "kernel") == 0)
		f->kernel = focus_int(v);
	else if (strcmp(k, "grid") == 0) {
		uint64_t g;
		f->grid = dec_u64_parse(v, &g) && g <= INT64_MAX ?
				  (int64_t)g : -1;
	} else if (strcmp(k, "clusterIdx") == 0)
		dec_dim3_parse(v, &f->cluster_idx);
	else if (strcmp(k, "clusterDim") == 0)
		dec_dim3_parse(v, &f->cluster_dim);
	else if (strcmp(k, "blockIdx") == 0)
		dec_dim3_parse(v, &f->block);
	else if (strcmp(k, "threadIdx") == 0)
		dec_dim3_parse(v, &f->thread);
}

void dec_focus_from_tuple(const struct mi_node *tuple, struct dec_focus *out)
{
	*out = (struct dec_focus){ .valid = true, .device = -1, .sm = -1,
				   .warp = -1, .lane = -1, .kernel = -1,
				   .grid = -1 };
	for (const struct mi_node *n = tuple->child; n; n = n->next)
		focus_field(out, n);
}

int dec_focus_decode(const struct mi_node *results, struct dec_focus *out)
{
	const struct mi_node *t = mi_find(results, "CudaFocus");
	if (!t || t->kind != MI_NODE_TUPLE) {
		*out = (struct dec_focus){ .valid = false, .device = -1,
					   .sm = -1, .warp = -1, .lane = -1,
					   .kernel = -1, .grid = -1 };
		return t ? DEC_ESHAPE : DEC_EMISSING;
	}
	dec_focus_from_tuple(t, out);
	return 0;
}

/* ---- variables ---- */

/* One item of variables=/locals=/args=: a tuple or a bare name. */
static int var_decode(struct dec_arena *a, const struct mi_node *n,
		      struct dec_var *out)
{
	int err = 0;
	*out = (struct dec_var){ 0 };
	if (n->kind == MI_NODE_STRING) {
		out->name = dec_node_str(a, n, &err);
		return err;
	}
	if (n->kind != MI_NODE_TUPLE)
		return DEC_ESHAPE;
	out->name = dec_str(a, n->child, "name", &err);
	out->type = dec_str(a, n->child, "type", &err);
	out->value = dec_str(a, n->child, "value", &err);
	const char *arg = mi_find_str(n->child, "arg");
	out->is_arg = arg && strcmp(arg, "1") == 0;
	if (!err && !out->name)
		return DEC_ESHAPE;
	return err;
}

int dec_var_list(struct dec_arena *a, const struct mi_node *list,
		 struct dec_var **v, size_t *n)
{
	*v = NULL;
	*n = 0;
	if (!list || list->kind == MI_NODE_STRING)
		return list ? DEC_ESHAPE : 0;
	*v = dec_arena_alloc(a, (list->count ? list->count : 1) * sizeof **v);
	if (!*v)
		return MI_ENOMEM;
	for (const struct mi_node *c = list->child; c; c = c->next) {
		int err = var_decode(a, c, &(*v)[*n]);
		if (err == MI_ENOMEM)
			return err;
		if (err == 0)
			(*n)++;
	}
	return 0;
}

/* ---- frames ---- */

int dec_frame_decode(struct dec_arena *a, const struct mi_node *tuple,
		     struct dec_frame *out)
{
	int err = 0;
	*out = (struct dec_frame){ .level = -1 };
	if (!tuple || tuple->kind != MI_NODE_TUPLE)
		return DEC_ESHAPE;
	const struct mi_node *c = tuple->child;
	out->level = dec_find_int(c, "level", -1);
	out->has_addr = dec_find_u64(c, "addr", &out->addr);
	out->func = dec_str(a, c, "func", &err);
	out->file = dec_str(a, c, "file", &err);
	out->fullname = dec_str(a, c, "fullname", &err);
	out->line = dec_find_int(c, "line", 0);
	out->from = dec_str(a, c, "from", &err);
	out->arch = dec_str(a, c, "arch", &err);
	if (err)
		return err;
	return dec_var_list(a, mi_find(c, "args"), &out->args, &out->nargs);
}

int dec_stack_decode(const struct mi_node *results, struct dec_stack *out)
{
	*out = (struct dec_stack){ 0 };
	const struct mi_node *list = mi_find(results, "stack");
	if (!list)
		return DEC_EMISSING;
	if (list->kind == MI_NODE_STRING)
		return DEC_ESHAPE;
	int err = dec_begin(&out->arena);
	if (!err) {
		size_t cap = list->count ? list->count : 1;
		out->frames = dec_arena_alloc(out->arena,
					      cap * sizeof *out->frames);
		if (!out->frames)
			err = MI_ENOMEM;
	}
	for (const struct mi_node *c = list->child; c && !err; c = c->next) {
		int e = dec_frame_decode(out->arena, c, &out->frames[out->n]);
		if (e == MI_ENOMEM)
			err = e;
		else if (e == 0)
			out->n++;
	}
	if (err)
		dec_stack_free(out);
	return err;
}

int dec_frame_result_decode(const struct mi_node *results,
			    struct dec_stack *out)
{
	*out = (struct dec_stack){ 0 };
	const struct mi_node *f = mi_find(results, "frame");
	if (!f)
		return DEC_EMISSING;
	int err = dec_begin(&out->arena);
	if (!err) {
		out->frames = dec_arena_alloc(out->arena, sizeof *out->frames);
		err = out->frames ? 0 : MI_ENOMEM;
	}
	if (!err)
		err = dec_frame_decode(out->arena, f, &out->frames[0]);
	if (err) {
		dec_stack_free(out);
		return err;
	}
	out->n = 1;
	return 0;
}

void dec_stack_free(struct dec_stack *s)
{
	if (!s)
		return;
	dec_arena_free(s->arena);
	*s = (struct dec_stack){ 0 };
}

int dec_vars_decode(const struct mi_node *results, struct dec_vars *out)
{
	*out = (struct dec_vars){ 0 };
	const struct mi_node *list = mi_find(results, "variables");
	if (!list)
		list = mi_find(results, "locals");
	if (!list)
		list = mi_find(results, "args");
	if (!list)
		return DEC_EMISSING;
	int err = dec_begin(&out->arena);
	if (!err)
		err = dec_var_list(out->arena, list, &out->v, &out->n);
	if (err)
		dec_vars_free(out);
	return err;
}

int dec_stack_args_decode(const struct mi_node *results, int level,
			  struct dec_vars *out)
{
	*out = (struct dec_vars){ 0 };
	const struct mi_node *list = mi_find(results, "stack-args");
	if (!list)
		return DEC_EMISSING;
	if (list->kind == MI_NODE_STRING)
		return DEC_ESHAPE;
	for (const struct mi_node *f = list->child; f; f = f->next) {
		if (f->kind != MI_NODE_TUPLE ||
		    dec_find_int(f->child, "level", -1) != level)
			continue;
		int err = dec_begin(&out->arena);
		if (!err)
			err = dec_var_list(out->arena, mi_find(f->child, "args"),
					   &out->v, &out->n);
		if (err)
			dec_vars_free(out);
		return err;
	}
	return DEC_EMISSING;
}

void dec_vars_free(struct dec_vars *v)
{
	if (!v)
		return;
	dec_arena_free(v->arena);
	*v = (struct dec_vars){ 0 };
}

const char *dec_value(const struct mi_node *results)
{
	return mi_find_str(results, "value");
}

const char *dec_error_msg(const struct mi_node *results)
{
	return mi_find_str(results, "msg");
}

/* ---- *stopped ---- */

static const char *const reason_names[] = {
#define DEC_REASON_TEXT(id, text) text,
	DEC_REASONS(DEC_REASON_TEXT)
#undef DEC_REASON_TEXT
};

const char *dec_reason_name(enum dec_reason r)
{
	if ((size_t)r >= sizeof reason_names / sizeof reason_names[0])
		return "?";
	return reason_names[r];
}

static enum dec_reason reason_parse(const char *s)
{
	if (!s)
		return DEC_REASON_NONE;
	for (size_t i = 1; i < DEC_REASON_OTHER; i++)
		if (strcmp(s, reason_names[i]) == 0)
			return (enum dec_reason)i;
	return DEC_REASON_OTHER;
}

static int stop_fault_fields(struct dec_arena *a, const struct mi_node *r,
			     struct dec_stop *s)
{
	int err = 0;
	s->exception_name = dec_str(a, r, "exception_name", &err);
	s->has_error_pc = dec_find_u64(r, "pc", &s->error_pc);
	s->function = dec_str(a, r, "function", &err);
	s->filename = dec_str(a, r, "filename", &err);
	s->line = dec_find_int(r, "line", 0);
	s->message = dec_str(a, r, "message", &err);
	return err;
}

static int stop_fields(struct dec_arena *a, const struct mi_node *r,
		       struct dec_stop *s)
{
	int err = 0;
	s->reason_text = dec_str(a, r, "reason", &err);
	s->reason = reason_parse(s->reason_text);
	s->signal_name = dec_str(a, r, "signal-name", &err);
	s->signal_meaning = dec_str(a, r, "signal-meaning", &err);
	s->thread_id = dec_str(a, r, "thread-id", &err);
	s->stopped_threads = dec_str(a, r, "stopped-threads", &err);
	s->disp = dec_str(a, r, "disp", &err);
	s->return_value = dec_str(a, r, "return-value", &err);
	s->gdb_result_var = dec_str(a, r, "gdb-result-var", &err);
	s->bkptno = dec_find_int(r, "bkptno", -1);
	s->locno = dec_find_int(r, "locno", -1);
	uint64_t code;
	if (dec_find_u64(r, "exit-code", &code)) {
		s->has_exit_code = true;
		s->exit_code = (int)(code & 0xff);
	} else if (s->reason == DEC_REASON_EXITED_NORMALLY) {
		s->has_exit_code = true;
		s->exit_code = 0;
	}
	return err ? err : stop_fault_fields(a, r, s);
}

int dec_stop_decode(const struct mi_node *results, struct dec_stop *out)
{
	*out = (struct dec_stop){ .bkptno = -1, .locno = -1 };
	int err = dec_begin(&out->arena);
	if (!err)
		err = stop_fields(out->arena, results, out);
	dec_focus_decode(results, &out->focus);
	const struct mi_node *frame = mi_find(results, "frame");
	if (!err && frame && frame->kind == MI_NODE_TUPLE) {
		err = dec_frame_decode(out->arena, frame, &out->frame);
		out->has_frame = err == 0;
		if (err == DEC_ESHAPE)
			err = 0;
	}
	if (err) {
		dec_stop_free(out);
		return err;
	}
	return 0;
}

void dec_stop_free(struct dec_stop *s)
{
	if (!s)
		return;
	dec_arena_free(s->arena);
	*s = (struct dec_stop){ .bkptno = -1, .locno = -1 };
}

bool dec_stop_is_device(const struct dec_stop *s)
{
	return s && s->focus.valid;
}

bool dec_stop_is_device_signal(const struct dec_stop *s)
{
	return dec_stop_is_device(s) &&
	       s->reason == DEC_REASON_SIGNAL_RECEIVED;
}

bool dec_stop_is_device_exception(const struct dec_stop *s)
{
	/* (an interrupt, C-c or --timeout or a pause, stops a running
	 * kernel with SIGINT: no exception; nothing is lost by going on) */
	return dec_stop_is_device_signal(s) &&
	       !(s->signal_name && strcmp(s->signal_name, "SIGINT") == 0);
}

bool dec_stop_is_exit(const struct dec_stop *s)
{
	return s && (s->reason == DEC_REASON_EXITED ||
		     s->reason == DEC_REASON_EXITED_NORMALLY ||
		     s->reason == DEC_REASON_EXITED_SIGNALLED);
}

/* ---- -thread-info ---- */

static int thread_decode(struct dec_arena *a, const struct mi_node *t,
			 struct dec_thread *out)
{
	int err = 0;
	*out = (struct dec_thread){ .core = -1 };
	if (t->kind != MI_NODE_TUPLE)
		return DEC_ESHAPE;
	const struct mi_node *c = t->child;
	out->id = dec_str(a, c, "id", &err);
	out->target_id = dec_str(a, c, "target-id", &err);
	out->name = dec_str(a, c, "name", &err);
	out->state = dec_str(a, c, "state", &err);
	out->core = dec_find_int(c, "core", -1);
	const struct mi_node *f = mi_find(c, "frame");
	if (!err && f && dec_frame_decode(a, f, &out->frame) == 0)
		out->has_frame = true;
	return err;
}

int dec_threads_decode(const struct mi_node *results, struct dec_threads *out)
{
	*out = (struct dec_threads){ 0 };
	const struct mi_node *list;
	void *v = NULL;
	int err = dec_list_begin(results, "threads", &out->arena, &v,
				 sizeof *out->v, &list);
	if (err == DEC_EMISSING || err == DEC_ESHAPE)
		return err;
	out->v = v;
	if (!err)
		out->current_id = dec_str(out->arena, results,
					  "current-thread-id", &err);
	for (const struct mi_node *c = list->child; c && !err; c = c->next) {
		struct dec_thread *t = &out->v[out->n];
		int e = thread_decode(out->arena, c, t);
		if (e == MI_ENOMEM)
			err = e;
		else if (e == 0) {
			t->current = out->current_id && t->id &&
				     strcmp(out->current_id, t->id) == 0;
			out->n++;
		}
	}
	if (err)
		dec_threads_free(out);
	return err;
}

void dec_threads_free(struct dec_threads *t)
{
	if (!t)
		return;
	dec_arena_free(t->arena);
	*t = (struct dec_threads){ 0 };
}
