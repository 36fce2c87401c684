/* The SASS pane: the disassembly of the stopped function beside the
 * source, current and error PC marked.  Fetched lazily (cuda-gdb takes
 * about half a second the first time in a function) only while the pane is
 * on screen, and cached per function. */
#include "tui/keys.h"
#include "tui/ui.h"

#include "cudbg/decode.h"
#include "cudbg/model.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SASS_CACHE 16

struct sass_insn {
	uint64_t addr;
	char *offset;
	char *text;
	int line;
};

struct sass_fn {
	char *func;
	struct sass_insn *v;
	size_t n;
	char *err;    /* the fetch failed */
	bool pending; /* asked, no answer yet */
};

struct sass_state {
	struct listview lv; /* first: see listview_state_new */
	struct sass_fn cache[SASS_CACHE]; /* most recent first */
	uint64_t follow_pc; /* the PC the cursor was put on */
	bool centre;
	size_t hscroll;
	/* the function asked for (the controller's answer is stored under
	 * this name: the stop record and the stack may spell it otherwise)
	 * and the screen to tell; "" when nothing is asked */
	char want[sizeof ((struct ui_where *)0)->func];
	struct ui *ui;
};

static void fn_clear(struct sass_fn *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].offset);
		free(f->v[i].text);
	}
	free(f->v);
	free(f->func);
	free(f->err);
	memset(f, 0, sizeof(*f));
}

static int sass_init(struct pane *p, struct ui *ui)
{
	(void)ui;
	return listview_state_new(p, sizeof(struct sass_state), 20);
}
_Static_assert(offsetof(struct sass_state, lv) == 0, "listview_state_new: lv first");

static void sass_free(struct pane *p)
{
	struct sass_state *s = p->state;

	if (!s)
		return;
	for (int i = 0; i < SASS_CACHE; i++)
		fn_clear(&s->cache[i]);
	free(s);
	p->state = NULL;
}

/* The cache slot of func, moved to the front; created when `make`. */
static struct sass_fn *fn_get(struct sass_state *s, const char *func, bool make)
{
	int i;
	struct sass_fn tmp;

	for (i = 0; i < SASS_CACHE; i++)
		if (s->cache[i].func && strcmp(s->cache[i].func, func) == 0)
			break;
	if (i == SASS_CACHE) {
		if (!make)
			return NULL;
		i = SASS_CACHE - 1;
		fn_clear(&s->cache[i]);
		s->cache[i].func = strdup(func);
		if (!s->cache[i].func)
			return NULL;
	}
	tmp = s->cache[i];
	memmove(&s->cache[1], &s->cache[0], (size_t)i * sizeof(tmp));
	s->cache[0] = tmp;
	return &s->cache[0];
}

/* Puts the cursor on the instruction at pc. */
static void follow_pc(struct sass_state *s, const struct sass_fn *f, uint64_t pc)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].addr == pc) {
			s->lv.count = (long)f->n;
			s->lv.cursor = (long)i;
			s->centre = true;
			break;
		}
	s->follow_pc = pc;
}

static void sass_got(void *ctx, const struct dbg_model *m, const char *err);
static void sass_store(struct sass_state *s, const char *func,
		       const struct dbg_model *m, const char *err);

/* Asks the controller for the disassembly when the pane shows and it is
 * not cached. */
static void sass_fetch(struct pane *p, struct ui *ui)
{
	struct sass_state *s = p->state;
	struct sass_fn *f;

	if (!ui_pane_visible(ui, p) || !ui->where.func[0])
		return;
	f = fn_get(s, ui->where.func, true);
	if (!f)
		return;
	if (f->n > 0 || f->err) {
		if (ui->where.has_pc && s->follow_pc != ui->where.pc)
			follow_pc(s, f, ui->where.pc);
		return;
	}
	/* one ask at a time: the answer is stored under the name asked
	 * with, and the next ask follows it (sass_got) */
	if (f->pending || !ui->ctl || s->want[0])
		return;
	f->pending = true;
	s->ui = ui;
	snprintf(s->want, sizeof s->want, "%s", ui->where.func);
	int64_t r = ctl_disassemble(ui->ctl, sass_got, p);
	const struct dbg_model *m = ui->model;
	if (r == 0) { /* the model holds it already */
		sass_store(s, s->want, m, NULL);
	} else if (r == CTL_ESTATE && m->state == MODEL_STOPPED &&
		   !model_frame(m)) {
		/* Just stopped: the stack is still being fetched.  The
		 * pane asks again when the frames arrive. */
		f->pending = false;
		s->want[0] = '\0';
	} else if (r < 0) {
		char msg[sizeof ((struct ui_where *)0)->func + 300];
		snprintf(msg, sizeof msg, "cannot disassemble %s: %s", s->want,
			 m->error ? m->error : "not stopped");
		sass_store(s, s->want, NULL, msg);
	}
}

/* The controller's answer to the pane's ask (ctl_disasm_fn). */
static void sass_got(void *ctx, const struct dbg_model *m, const char *err)
{
	struct pane *p = ctx;
	struct sass_state *s = p->state;
	char msg[sizeof ((struct ui_where *)0)->func + 300];

	if (!s || !s->want[0])
		return;
	if (err)
		snprintf(msg, sizeof msg, "The debugger could not disassemble "
			 "%s: %s", s->want, err);
	sass_store(s, s->want, err ? NULL : m, err ? msg : NULL);
	if (s->ui) /* the function on screen now, if another was asked */
		sass_fetch(p, s->ui);
}

/* The model's disassembly (m NULL: the failure err) into func's cache
 * slot, copied. */
static void sass_store(struct sass_state *s, const char *func,
		       const struct dbg_model *m, const char *err)
{
	struct ui *ui = s->ui;
	struct sass_fn *f = fn_get(s, func, true);
	size_t n = m ? m->disasm.n : 0;

	if (!f)
		return;
	free(f->err);
	f->err = NULL;
	f->pending = false;
	f->v = n ? calloc(n, sizeof(*f->v)) : NULL;
	f->n = f->v ? n : 0;
	for (size_t i = 0; i < f->n; i++) {
		const struct dec_insn *in = &m->disasm.v[i];
		char off[24];
		f->v[i].addr = in->addr;
		f->v[i].line = in->line;
		if (in->offset >= 0) {
			snprintf(off, sizeof off, "<+%ld>", in->offset);
			f->v[i].offset = strdup(off);
		}
		f->v[i].text = strdup(in->inst ? in->inst : "");
	}
	if (f->n == 0)
		f->err = strdup(err ? err : "the debugger returned no instructions");
	s->follow_pc = 0;
	if (ui && ui->where.has_pc && strcmp(ui->where.func, f->func) == 0)
		follow_pc(s, f, ui->where.pc);
	if (ui)
		ui->dirty = true;
	s->want[0] = '\0';
}

/* A new debugger session (the memcheck pass's coredump, a rerun): a
 * kernel's code sits at other addresses in another process, so nothing
 * cached may be shown again. */
static void sass_forget(struct sass_state *s)
{
	for (int i = 0; i < SASS_CACHE; i++)
		fn_clear(&s->cache[i]);
	s->follow_pc = 0;
	s->want[0] = '\0'; /* (the old controller answers nothing more) */
}

/* A failed fetch is asked again at the next stop: it may have failed only
 * because the program was running then (replay to fault continues from
 * the kernel-entry stop while the pane is still asking; seen on the H200). */
static void forget_failures(struct sass_state *s)
{
	for (int i = 0; i < SASS_CACHE; i++)
		if (s->cache[i].err)
			fn_clear(&s->cache[i]);
}

static int sass_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	if (what & UCH_SESSION)
		sass_forget(p->state);
	if (what & (UCH_STOP | UCH_FRAME | UCH_LAYOUT)) {
		if (what & UCH_STOP) {
			((struct sass_state *)p->state)->follow_pc = 0;
			forget_failures(p->state);
		}
		sass_fetch(p, ui);
		return PR_REDRAW;
	}
	return what & UCH_BREAKPOINTS ? PR_REDRAW : PR_HANDLED;
}

static bool bp_at(const struct ui *ui, uint64_t addr)
{
	for (size_t i = 0; i < ui->nbps; i++)
		if (ui->bps[i].addr == addr && ui->bps[i].enabled)
			return true;
	return false;
}

static void draw_insn(struct pane *p, struct ui *ui, const struct canvas *c,
		      const struct sass_insn *in, int y, long row, int prev_line)
{
	struct sass_state *s = p->state;
	const struct ui_where *w = &ui->where;
	bool cur = w->has_pc && in->addr == w->pc;
	bool err = w->has_error_pc && in->addr == w->error_pc && !cur;
	char head[64];
	int x;

	if (bp_at(ui, in->addr))
		canvas_str(c, 0, y, "●", STYLE(UC_BREAK, CA_BOLD));
	if (cur || err)
		canvas_str(c, 1, y, cur ? "▶" : "✖", STYLE(cur ? UC_CURRENT : UC_FAULT, CA_BOLD));
	/* The source line, where it changes. */
	if (in->line > 0 && in->line != prev_line)
		canvas_printf(c, 2, y, STYLE(UC_ACCENT, 0), "%5d", in->line);
	snprintf(head, sizeof head, "%llx", (unsigned long long)in->addr);
	x = canvas_str(c, 8, y, head, STYLE(UC_LINENO, row == s->lv.cursor && ui_focus_pane(ui) == p ? CA_REVERSE : 0));
	if (in->offset)
		x = canvas_printf(c, x + 1, y, STYLE(UC_MUTED, 0), "%-7s", in->offset);
	canvas_text_skip(c, x + 1, y, in->text, strlen(in->text), s->hscroll, STYLE(UC_DEFAULT, 0));
	if (cur || err)
		canvas_set_style(c, 8, y, c->r.w - 8, STYLE(cur ? UC_CURRENT : UC_FAULT, CA_BOLD));
}

static void sass_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct sass_state *s = p->state;
	struct sass_fn *f = ui->where.func[0] ? fn_get(s, ui->where.func, false) : NULL;

	if (!ui->where.func[0]) {
		canvas_str(c, 1, 0, "No function to disassemble.", STYLE(UC_MUTED, 0));
		return;
	}
	if (!f || (f->pending && !f->n)) {
		canvas_str(c, 1, 0, "Fetching the disassembly…", STYLE(UC_MUTED, 0));
		return;
	}
	if (!f->n && !f->err) {
		canvas_str(c, 1, 0, ui->ctl
				    ? "Not fetched yet." : "No debugger to disassemble with.",
			   STYLE(UC_MUTED, 0));
		return;
	}
	if (f->err) {
		canvas_wrap(c, 1, 0, c->r.w - 2, f->err, STYLE(UC_WARN, 0), true);
		return;
	}
	s->lv.count = (long)f->n;
	if (s->centre) {
		if (s->lv.cursor < s->lv.top || s->lv.cursor >= s->lv.top + c->r.h)
			s->lv.top = s->lv.cursor - c->r.h / 2;
		s->centre = false;
	}
	listview_fit(&s->lv, c->r.h);
	for (int y = 0; y < c->r.h && s->lv.top + y < s->lv.count; y++) {
		long i = s->lv.top + y;
		draw_insn(p, ui, c, &f->v[i], y, i, i > 0 && y > 0 ? f->v[i - 1].line : -1);
	}
}

static int sass_sideways(struct pane *p, struct ui *ui, int key)
{
	(void)ui;
	return listview_hscroll(&((struct sass_state *)p->state)->hscroll, key);
}

static int sass_current(struct pane *p, struct ui *ui, int key)
{
	(void)key;
	((struct sass_state *)p->state)->follow_pc = 0;
	sass_fetch(p, ui);
	return PR_REDRAW;
}

static int sass_key(struct pane *p, struct ui *ui, int key)
{
	(void)ui;
	return listview_key(&((struct sass_state *)p->state)->lv, key);
}

static int sass_click(struct pane *p, struct ui *ui, int x, int y)
{
	(void)ui;
	(void)x;
	return listview_click(&((struct sass_state *)p->state)->lv, y);
}

static void sass_title(struct pane *p, struct ui *ui, char *buf, size_t cap)
{
	(void)p;
	if (ui->where.func[0] && strcmp(ui->where.func, "??") != 0)
		dec_func_basename(ui->where.func, buf, cap);
}

static const struct pane_key sass_keys[] = {
	{ '.', TK_NONE, sass_current, NULL, "back to the current PC" },
	{ TK_LEFT, TK_RIGHT, sass_sideways, NULL, "scroll sideways" },
	PANE_KEYS_END,
};

const struct pane_ops pane_sass_ops = {
	.name = "sass",
	.title = "SASS",
	.home = AREA_SASS,
	.init = sass_init,
	.draw = sass_draw,
	.key = sass_key,
	.click = sass_click,
	.on_change = sass_on_change,
	.title_info = sass_title,
	.free = sass_free,
	.keys = sass_keys,
};
