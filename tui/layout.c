/* Layout arithmetic.  Pure: same input, same rectangles. */
#include "tui/layout.h"

#include <string.h>

static struct rect rect_make(int x, int y, int w, int h)
{
	if (w <= 0 || h <= 0)
		return (struct rect){ x, y, 0, 0 };
	return (struct rect){ x, y, w, h };
}

/* Source and SASS share the top-left block: side by side when wide enough
 * to read both, else stacked, or one alone. */
static void layout_code(const struct layout_req *req, struct rect r,
			struct layout *out)
{
	if (req->code == CODE_SOURCE) {
		out->area[AREA_SOURCE] = r;
		return;
	}
	if (req->code == CODE_SASS) {
		out->area[AREA_SASS] = r;
		return;
	}
	if (r.w >= 100) {
		int sw = req->diag_first ? (r.w - 1) / 2 : (r.w - 1) * 11 / 20;
		out->area[AREA_SOURCE] = rect_make(r.x, r.y, sw, r.h);
		out->area[AREA_SASS] = rect_make(r.x + sw + 1, r.y, r.w - sw - 1, r.h);
	} else if (req->diag_first) {
		/* The diagnosis leads: what happened, then where in the code. */
		int dh = r.h * 2 / 3;
		out->area[AREA_SASS] = rect_make(r.x, r.y, r.w, dh);
		out->area[AREA_SOURCE] = rect_make(r.x, r.y + dh, r.w, r.h - dh);
	} else {
		int sh = r.h * 3 / 5;
		out->area[AREA_SOURCE] = rect_make(r.x, r.y, r.w, sh);
		out->area[AREA_SASS] = rect_make(r.x, r.y + sh, r.w, r.h - sh);
	}
}

#define EMPTY(req, a) (((req)->empty >> (a)) & 1u)

/* The right column: two areas stacked, or one alone. */
static void layout_side(const struct layout_req *req, struct rect r, struct layout *out)
{
	if (EMPTY(req, AREA_SIDE_BOTTOM)) {
		out->area[AREA_SIDE_TOP] = r;
	} else if (EMPTY(req, AREA_SIDE_TOP)) {
		out->area[AREA_SIDE_BOTTOM] = r;
	} else {
		out->area[AREA_SIDE_TOP] = rect_make(r.x, r.y, r.w, r.h / 2);
		out->area[AREA_SIDE_BOTTOM] = rect_make(r.x, r.y + r.h / 2, r.w, r.h - r.h / 2);
	}
}

/* The bottom row: console and output side by side, or one alone; the
 * split lines up with the one above when there is one (split_at > 0). */
static void layout_bottom(const struct layout_req *req, struct rect r, int split_at,
			  struct layout *out)
{
	int con_w = split_at > 0 ? split_at : r.w * 3 / 5;

	if (EMPTY(req, AREA_OUTPUT)) {
		out->area[AREA_CONSOLE] = r;
	} else if (EMPTY(req, AREA_CONSOLE)) {
		out->area[AREA_OUTPUT] = r;
	} else {
		out->area[AREA_CONSOLE] = rect_make(r.x, r.y, con_w, r.h);
		out->area[AREA_OUTPUT] = rect_make(r.x + con_w + 1, r.y, r.w - con_w - 1, r.h);
	}
}

static void layout_full(const struct layout_req *req, struct layout *out)
{
	int cols = req->cols, body = req->rows - 2;
	int bottom_h = body * 3 / 10, top_h, side_w, code_w;
	bool side = !EMPTY(req, AREA_SIDE_TOP) || !EMPTY(req, AREA_SIDE_BOTTOM);

	if (bottom_h < 5)
		bottom_h = 5;
	top_h = body - bottom_h;
	side_w = side ? cols * 2 / 5 : 0;
	/* The diagnosis wraps less in a wider code column; the GPU and
	 * program state panes give some room below 120 columns. */
	if (side && req->diag_first && cols < 120)
		side_w = cols / 3;
	if (side_w > 72)
		side_w = 72;
	code_w = side ? cols - side_w - 1 : cols;
	layout_code(req, rect_make(0, 1, code_w, top_h), out);
	if (side)
		layout_side(req, rect_make(code_w + 1, 1, side_w, top_h), out);
	layout_bottom(req, rect_make(0, 1 + top_h, cols, bottom_h), side ? code_w : 0, out);
}

void layout_compute(const struct layout_req *req, struct layout *out)
{
	memset(out, 0, sizeof(*out));
	if (req->cols < LAYOUT_MIN_COLS || req->rows < LAYOUT_MIN_ROWS) {
		out->kind = LAYOUT_TOO_SMALL;
		return;
	}
	out->area[AREA_STATUS] = rect_make(0, 0, req->cols, 1);
	out->area[AREA_HINTS] = rect_make(0, req->rows - 1, req->cols, 1);
	if (req->zoom || req->cols < LAYOUT_FULL_COLS ||
	    req->rows < LAYOUT_FULL_ROWS) {
		int f = req->focus >= 0 && req->focus < AREA__PANES ? (int)req->focus
								     : AREA_SOURCE;
		out->kind = LAYOUT_SINGLE;
		out->area[f] = rect_make(0, 1, req->cols, req->rows - 2);
		return;
	}
	out->kind = LAYOUT_FULL;
	layout_full(req, out);
}

int layout_area_at(const struct layout *l, int x, int y)
{
	for (int a = 0; a < AREA__COUNT; a++) {
		const struct rect *r = &l->area[a];
		if (r->w > 0 && x >= r->x && x < r->x + r->w && y >= r->y &&
		    y < r->y + r->h)
			return a;
	}
	return -1;
}
