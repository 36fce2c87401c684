/* The kernels pane: every active kernel with its grid and block
 * dimensions, status and invocation (cuda-gdb's -cuda-info-kernels, which
 * the controller fetches at every device stop).  The invocation is kept
 * as text: cuda-gdb 13 prints MI-looking fragments in it. */
#include "tui/dbgpane.h"
#include "tui/keys.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kernels_state {
	struct listview lv;
	size_t hscroll; /* columns of the invocation skipped */
};

static int kernels_init(struct pane *p, struct ui *ui)
{
	(void)ui;
	return dpane_state_new(p, sizeof(struct kernels_state));
}
_Static_assert(offsetof(struct kernels_state, lv) == 0, "dpane_state_new: lv first");


static const struct dec_table *kernels_table(const struct ui *ui, const char **why)
{
	const struct dbg_model *m = dpane_device(ui, why);

	return m ? dpane_table(m, MODEL_T_KERNELS, why) : NULL;
}

static void kernels_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct kernels_state *s = p->state;
	const char *why;
	const struct dec_table *t = kernels_table(ui, &why);
	char gd[48], bd[48];

	if (!t) {
		if (ui->model && ui->model->table_error[MODEL_T_KERNELS])
			dpane_error(c, 0, "no kernels table", why);
		else
			dpane_note(c, 0, why);
		return;
	}
	s->lv.count = (long)t->nr_rows;
	listview_fit(&s->lv, c->r.h - 1);
	canvas_str(c, 0, 0, "  K Dev Grid GridDim      BlockDim     Status Invocation",
		   STYLE(UC_MUTED, CA_BOLD));
	if (t->nr_rows == 0)
		dpane_note(c, 1, "no kernel is running");
	for (int y = 0; y < s->lv.height; y++) {
		struct dec_kernel_row r;
		long row = s->lv.top + y;
		if (dec_table_kernel(t, (size_t)row, &r) != 0)
			break;
		bool focus = r.kernel == ui->model->focus.kernel;
		struct style st = STYLE(focus ? UC_CURRENT : UC_DEFAULT, focus ? CA_BOLD : 0);
		int x = canvas_printf(c, 0, y + 1, st, "%s%2d %3d %4lld %-12s %-12s ",
				      focus ? "▶" : " ", r.kernel, r.device, (long long)r.grid,
				      dpane_dim3(gd, sizeof gd, r.grid_dim),
				      dpane_dim3(bd, sizeof bd, r.block_dim));
		x = canvas_printf(c, x, y + 1, STYLE(UC_GOOD, 0), "%-6s ", r.status ? r.status : "?");
		if (r.invocation)
			canvas_text_skip(c, x, y + 1, r.invocation, strlen(r.invocation), s->hscroll, st);
		if (row == s->lv.cursor)
			dpane_cursor(ui, p, c, y + 1);
	}
}

static int kernels_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	struct kernels_state *s = p->state;
	const char *why;
	const struct dec_table *t;

	if (what & (UCH_LAYOUT | UCH_STATE))
		dpane_want_sync(ui);
	if (!(what & (UCH_GPU | UCH_STOP | UCH_STATE)))
		return PR_HANDLED;
	t = kernels_table(ui, &why);
	s->lv.count = t ? (long)t->nr_rows : 0;
	/* the cursor starts on the focused kernel */
	for (long i = 0; t && (what & UCH_STOP) && i < s->lv.count; i++) {
		struct dec_kernel_row r;
		if (dec_table_kernel(t, (size_t)i, &r) == 0 && r.kernel == ui->model->focus.kernel)
			listview_select(&s->lv, i);
	}
	return PR_REDRAW;
}

static int kernels_key(struct pane *p, struct ui *ui, int key)
{
	struct kernels_state *s = p->state;
	const char *why;
	const struct dec_table *t = kernels_table(ui, &why);
	struct dec_kernel_row r;
	char cmd[64];

	switch (key) {
	case TK_LEFT:
		s->hscroll = s->hscroll >= 8 ? s->hscroll - 8 : 0;
		return PR_REDRAW;
	case TK_RIGHT:
		s->hscroll += 8;
		return PR_REDRAW;
	case TK_ENTER: case '\n':
		if (!t || s->lv.cursor < 0 || dec_table_kernel(t, (size_t)s->lv.cursor, &r) != 0)
			return PR_HANDLED;
		if (r.kernel == ui->model->focus.kernel) {
			ui_message(ui, UC_MUTED, "kernel %d has the focus already", r.kernel);
			return PR_REDRAW;
		}
		/* The console form switches to the kernel's first resident
		 * thread; the controller then refreshes every pane. */
		snprintf(cmd, sizeof cmd, "cuda kernel %d", r.kernel);
		return dpane_done(ui, ctl_console(ui->ctl, cmd));
	}
	return listview_key(&s->lv, key);
}

static int kernels_click(struct pane *p, struct ui *ui, int x, int y)
{
	(void)ui;
	(void)x;
	return listview_click(&((struct kernels_state *)p->state)->lv, y - 1);
}

static const struct key_help kernels_help[] = {
	{ "Enter", "switch the CUDA focus to the kernel" },
	{ "Left Right", "scroll the invocation" },
	{ NULL, NULL },
};

const struct pane_ops pane_kernels_ops = {
	.name = "kernels",
	.title = "Kernels",
	.home = AREA_SIDE_TOP,
	.init = kernels_init,
	.draw = kernels_draw,
	.key = kernels_key,
	.click = kernels_click,
	.on_change = kernels_on_change,
	.free = dpane_state_free,
	.help = kernels_help,
};
