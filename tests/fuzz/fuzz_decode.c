/* Fuzz target: parse arbitrary MI and run every typed decoder (and every
 * typed table accessor) over every record, and the allocation watch's
 * reader (model_alloc_line) and the core story's (model_core_line) over
 * every console and log record. */
#include "cudbg/decode.h"
#include "cudbg/model.h"
#include "tests/fuzz/fuzz.h"

static size_t sink;

static void touch(const char *s)
{
	sink += s ? (size_t)(unsigned char)s[0] : 0;
}

static void rows(const struct dec_table *t)
{
	for (size_t i = 0; i < t->nr_rows && i < 64; i++) {
		struct dec_device_row d;
		struct dec_sm_row s;
		struct dec_warp_row w;
		struct dec_lane_row l;
		struct dec_kernel_row k;
		struct dec_block_row b;
		struct dec_thread_row r;
		struct dec_context_row c;
		if (dec_table_device(t, i, &d) == 0)
			touch(d.name);
		if (dec_table_sm(t, i, &s) == 0)
			sink += s.active_warps_mask;
		if (dec_table_warp(t, i, &w) == 0)
			sink += w.block.x;
		if (dec_table_lane(t, i, &l) == 0)
			touch(l.exception);
		if (dec_table_kernel(t, i, &k) == 0)
			touch(k.invocation);
		if (dec_table_block(t, i, &b) == 0)
			touch(b.state);
		if (dec_table_thread(t, i, &r) == 0)
			touch(r.filename);
		if (dec_table_context(t, i, &c) == 0)
			touch(c.state);
		for (size_t col = 0; col < t->nr_cols; col++)
			touch(dec_table_cell(t, i, (int)col));
	}
}

static void stop(const struct mi_node *res)
{
	struct dec_stop s;
	if (dec_stop_decode(res, &s) != 0)
		return;
	char name[64];
	touch(dec_func_basename(s.frame.func, name, sizeof name));
	touch(dec_func_basename(s.function, name, sizeof name));
	sink += dec_stop_is_device_exception(&s) + dec_stop_is_exit(&s);
	touch(dec_reason_name(s.reason));
	dec_stop_free(&s);
}

static void bkpts(const struct mi_node *res)
{
	struct dec_bkpts b;
	for (int pass = 0; pass < 2; pass++) {
		int rc = pass ? dec_bkpt_list_decode(res, &b)
			      : dec_bkpt_decode(res, &b);
		if (rc != 0)
			continue;
		for (size_t i = 0; i < b.n; i++) {
			const char *f, *full;
			int line;
			if (dec_bkpt_where(&b.v[i], &f, &full, &line))
				touch(f);
		}
		dec_bkpts_free(&b);
	}
	sink += (size_t)dec_bkpt_deleted(res);
}

static void lists(const struct mi_node *res)
{
	struct dec_stack st;
	struct dec_vars v;
	struct dec_threads th;
	struct dec_disasm d;
	struct dec_regnames rn;
	struct dec_regvals rv;
	struct dec_memory m;
	struct dec_complete c;
	struct dec_focus f;
	if (dec_stack_decode(res, &st) == 0)
		dec_stack_free(&st);
	if (dec_frame_result_decode(res, &st) == 0)
		dec_stack_free(&st);
	if (dec_vars_decode(res, &v) == 0)
		dec_vars_free(&v);
	if (dec_stack_args_decode(res, 1, &v) == 0)
		dec_vars_free(&v);
	if (dec_threads_decode(res, &th) == 0)
		dec_threads_free(&th);
	if (dec_disasm_decode(res, &d) == 0)
		dec_disasm_free(&d);
	if (dec_regnames_decode(res, &rn) == 0)
		dec_regnames_free(&rn);
	if (dec_regvals_decode(res, &rv) == 0)
		dec_regvals_free(&rv);
	if (dec_memory_decode(res, &m) == 0)
		dec_memory_free(&m);
	if (dec_complete_decode(res, &c) == 0)
		dec_complete_free(&c);
	sink += (size_t)dec_focus_decode(res, &f);
	touch(dec_value(res));
	touch(dec_error_msg(res));
}

static struct dbg_model model;

static void on_record(void *ctx, const struct mi_record *r)
{
	(void)ctx;
	if (r->kind == MI_REC_ERROR)
		return;
	if (r->kind == MI_REC_CONSOLE && r->text)
		sink += model_alloc_line(&model, r->text, r->text_len);
	if ((r->kind == MI_REC_CONSOLE || r->kind == MI_REC_LOG) && r->text) {
		/* a core's story is read while the model starts */
		model.state = MODEL_STARTING;
		model_core_line(&model, r->text, r->text_len,
				r->kind == MI_REC_LOG);
	}
	stop(r->results);
	bkpts(r->results);
	lists(r->results);
	struct dec_table t;
	if (dec_table_decode(r->results, &t) == 0) {
		rows(&t);
		dec_table_free(&t);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mi_parser *p = mi_parser_new(on_record, NULL);
	if (!p)
		return 0;
	mi_parser_set_max_line(p, 1 << 20);
	mi_parser_push(p, (const char *)data, size);
	mi_parser_finish(p);
	mi_parser_free(p);
	sink += model.allocs.n + model.core.stopped;
	model_allocs_free(&model);
	model_core_free(&model.core);
	return 0;
}
