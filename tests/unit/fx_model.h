/* Test helper: a model fed from a shared cuda-gdb transcript as the
 * controller leaves it after the first stop's refresh (stop, focus query,
 * optionally the stack).  Header-only (static inline), like fixture.h. */
#ifndef CUDBG_TEST_FX_MODEL_H
#define CUDBG_TEST_FX_MODEL_H

#include "cudbg/model.h"
#include "tests/harness.h"
#include "tests/unit/fixture.h"

struct fx_feed {
	struct dbg_model m;
	int stops_wanted;   /* stop after this many *stopped */
	bool done;
};

static inline void fx_feed_record(const struct mi_record *rec, void *out)
{
	struct fx_feed *f = out;
	if (f->done)
		return;
	model_on_record(&f->m, rec);
	if ((int)f->m.stop_count >= f->stops_wanted)
		f->done = true;
}

static inline void fx_do_stack(const struct mi_record *r, void *out)
{
	struct dec_stack st;
	CHECK_INT(dec_stack_decode(r->results, &st), 0);
	model_take_frames(out, &st);
}

/* The model of `fixture` at its first stop (a replay of cuda-gdb);
 * with_stack: with the -stack-list-frames answer taken.  model_free()
 * it. */
static inline void fx_model_at_stop(const char *fixture, struct dbg_model *m,
				    bool with_stack)
{
	struct fx_feed f = { .stops_wanted = 1 };
	model_init(&f.m, 0, 0);
	f.m.backend = SESSION_REPLAY;
	f.m.cuda = true;
	fx_each(fixture, fx_feed_record, &f);
	CHECK_INT(f.m.state, MODEL_STOPPED);
	if (with_stack)
		fx_decode(fixture, "-stack-list-frames", "^done", 0, fx_do_stack,
			  &f.m);
	*m = f.m;
}

#endif
