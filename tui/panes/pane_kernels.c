/* The kernels pane: every active kernel with its grid and block
 * dimensions, status and invocation (cuda-gdb's -cuda-info-kernels, which
 * the controller fetches at every device stop).  The invocation is kept
 * as text: cuda-gdb 13 prints MI-looking fragments in it.  The table pane
 * work is in tui/dbgtable.c. */
#include "tui/keys.h"
#include "tui/dbgtable.h"

#include <stdio.h>
#include <string.h>

struct kernels_state {
	struct dtable tab; /* first: the table pane's state */
	size_t hscroll;    /* columns of the invocation skipped */
};

static bool kernels_draw_row(struct pane *p, struct ui *ui, const struct canvas *c,
			     int y, const struct dec_table *t, size_t row)
{
	struct kernels_state *s = p->state;
	struct dec_kernel_row r;
	char gd[48], bd[48];

	if (dec_table_kernel(t, row, &r) != 0)
		return false;
	bool focus = r.kernel == ui->model->focus.kernel;
	struct style st = STYLE(focus ? UC_CURRENT : UC_DEFAULT, focus ? CA_BOLD : 0);
	int x = canvas_printf(c, 0, y, st, "%s%2d %3d %4lld %-12s %-12s ",
			      focus ? "▶" : " ", r.kernel, r.device, (long long)r.grid,
			      dpane_dim3(gd, sizeof gd, r.grid_dim),
			      dpane_dim3(bd, sizeof bd, r.block_dim));
	x = canvas_printf(c, x, y, STYLE(UC_GOOD, 0), "%-6s ", r.status ? r.status : "?");
	if (r.invocation)
		canvas_text_skip(c, x, y, r.invocation, strlen(r.invocation), s->hscroll, st);
	return true;
}

static bool kernels_holds_focus(const struct dbg_model *m, const struct dec_table *t,
				size_t row)
{
	struct dec_kernel_row r;

	return dec_table_kernel(t, row, &r) == 0 && r.kernel == m->focus.kernel;
}

static int kernels_enter(struct ui *ui, const struct dec_table *t, size_t row)
{
	struct dec_kernel_row r;

	if (dec_table_kernel(t, row, &r) != 0)
		return PR_HANDLED;
	if (r.kernel == ui->model->focus.kernel) {
		ui_message(ui, UC_MUTED, "kernel %d has the focus already", r.kernel);
		return PR_REDRAW;
	}
	/* to the kernel's first resident thread; the controller then
	 * refreshes every pane */
	return dpane_done(ui, ctl_cuda_switch(ui->ctl, "kernel", r.kernel));
}

/* Left and Right scroll the invocation. */
static int kernels_sideways(struct pane *p, struct ui *ui, int key)
{
	struct kernels_state *s = p->state;

	(void)ui;
	return listview_hscroll(&s->hscroll, key);
}

static const struct dtable_ops kernels_table = {
	.table = MODEL_T_KERNELS,
	.no_table = "no kernels table",
	.heading = "  K Dev Grid GridDim      BlockDim     Status Invocation",
	.empty = "no kernel is running",
	.draw_row = kernels_draw_row,
	.holds_focus = kernels_holds_focus,
	.enter = kernels_enter,
};

static int kernels_init(struct pane *p, struct ui *ui)
{
	(void)ui;
	return dtable_state_new(p, &kernels_table, sizeof(struct kernels_state));
}
_Static_assert(offsetof(struct kernels_state, tab) == 0, "dtable_state_new: tab first");

static const struct pane_key kernels_keys[] = {
	{ TK_ENTER, TK_NONE, dtable_enter, NULL, "switch the CUDA focus to the kernel" },
	{ TK_LEFT, TK_RIGHT, kernels_sideways, NULL, "scroll the invocation" },
	PANE_KEYS_END,
};

const struct pane_ops pane_kernels_ops = {
	.name = "kernels",
	.title = "Kernels",
	.home = AREA_SIDE_TOP,
	.init = kernels_init,
	.draw = dtable_draw,
	.key = dtable_key,
	.click = dpane_click_table,
	.on_change = dtable_on_change,
	.free = dpane_state_free,
	.keys = kernels_keys,
};
