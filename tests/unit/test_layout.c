/* Layout: a pure function from size and options to rectangles. */
#include "tests/harness.h"
#include "tui/layout.h"

static bool overlaps(struct rect a, struct rect b)
{
	return a.w && b.w && a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h &&
	       b.y < a.y + a.h;
}

static void check_sane(const struct layout_req *q, const struct layout *l)
{
	for (int a = 0; a < AREA__COUNT; a++) {
		struct rect r = l->area[a];
		if (!r.w)
			continue;
		CHECK_MSG(r.x >= 0 && r.y >= 0 && r.x + r.w <= q->cols && r.y + r.h <= q->rows,
			  "area %d out of %dx%d: %d,%d %dx%d", a, q->cols, q->rows, r.x, r.y, r.w, r.h);
		CHECK(r.h >= 1);
		for (int b = a + 1; b < AREA__COUNT; b++)
			CHECK_MSG(!overlaps(r, l->area[b]), "areas %d and %d overlap at %dx%d", a, b,
				  q->cols, q->rows);
	}
}

TEST(full_layout_all_sizes)
{
	for (int c = LAYOUT_FULL_COLS; c <= 300; c += 7)
		for (int r = LAYOUT_FULL_ROWS; r <= 120; r += 5)
			for (int m = 0; m < 3; m++) {
				struct layout_req q = { .cols = c, .rows = r, .code = (enum code_mode)m, .focus = AREA_SOURCE };
				struct layout l;
				layout_compute(&q, &l);
				CHECK_INT(l.kind, LAYOUT_FULL);
				check_sane(&q, &l);
				CHECK(l.area[AREA_STATUS].y == 0 && l.area[AREA_STATUS].w == c);
				CHECK(l.area[AREA_HINTS].y == r - 1);
				CHECK(l.area[AREA_CONSOLE].w > 0 && l.area[AREA_OUTPUT].w > 0);
				CHECK(l.area[AREA_SIDE_TOP].w > 0 && l.area[AREA_SIDE_BOTTOM].w > 0);
				CHECK_INT(l.area[AREA_SOURCE].w > 0, m != CODE_SASS);
				CHECK_INT(l.area[AREA_SASS].w > 0, m != CODE_SOURCE);
			}
}

TEST(source_and_sass_side_by_side_when_wide)
{
	struct layout_req q = { .cols = 200, .rows = 50, .code = CODE_BOTH, .focus = AREA_SOURCE };
	struct layout l;

	layout_compute(&q, &l);
	CHECK_INT(l.area[AREA_SOURCE].y, l.area[AREA_SASS].y);
	CHECK(l.area[AREA_SASS].x > l.area[AREA_SOURCE].x);
	q.cols = 100;
	layout_compute(&q, &l);
	CHECK(l.area[AREA_SASS].y > l.area[AREA_SOURCE].y); /* stacked */
}

/* A fault stop: the diagnosis (in the SASS area) goes above the source
 * when stacked, and gets half the code block beside it when wide; the
 * code column is wider below 120 columns. */
TEST(diagnosis_first_layout)
{
	struct layout_req q = { .cols = 80, .rows = 24, .code = CODE_BOTH, .focus = AREA_SASS,
				.diag_first = true };
	struct layout l, plain;

	layout_compute(&q, &l);
	check_sane(&q, &l);
	CHECK(l.area[AREA_SASS].y < l.area[AREA_SOURCE].y);
	CHECK(l.area[AREA_SASS].h > l.area[AREA_SOURCE].h);
	CHECK(l.area[AREA_SOURCE].h >= 5); /* the source stays readable */
	q.diag_first = false;
	layout_compute(&q, &plain);
	CHECK(l.area[AREA_SASS].w > plain.area[AREA_SASS].w);
	q = (struct layout_req){ .cols = 200, .rows = 60, .code = CODE_BOTH,
				 .focus = AREA_SASS, .diag_first = true };
	layout_compute(&q, &l);
	check_sane(&q, &l);
	CHECK_INT(l.area[AREA_SOURCE].y, l.area[AREA_SASS].y);
	CHECK(l.area[AREA_SASS].w >= l.area[AREA_SOURCE].w - 1);
	for (int c = LAYOUT_FULL_COLS; c <= 300; c += 11)
		for (int r = LAYOUT_FULL_ROWS; r <= 100; r += 9) {
			q.cols = c;
			q.rows = r;
			layout_compute(&q, &l);
			check_sane(&q, &l);
		}
}

TEST(small_terminal_shows_one_area)
{
	struct layout_req q = { .cols = 40, .rows = 10, .code = CODE_BOTH, .focus = AREA_CONSOLE };
	struct layout l;

	layout_compute(&q, &l);
	CHECK_INT(l.kind, LAYOUT_SINGLE);
	check_sane(&q, &l);
	CHECK(l.area[AREA_CONSOLE].w == 40 && l.area[AREA_CONSOLE].h == 8);
	CHECK_INT(l.area[AREA_SOURCE].w, 0);
}

TEST(too_small)
{
	int sizes[][2] = { { 39, 10 }, { 40, 9 }, { 20, 5 }, { 0, 0 }, { 1, 1 } };
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		struct layout_req q = { .cols = sizes[i][0], .rows = sizes[i][1], .focus = AREA_SOURCE };
		struct layout l;
		layout_compute(&q, &l);
		CHECK_INT(l.kind, LAYOUT_TOO_SMALL);
		for (int a = 0; a < AREA__COUNT; a++)
			CHECK_INT(l.area[a].w, 0);
	}
}

TEST(zoom_and_hit_test)
{
	struct layout_req q = { .cols = 120, .rows = 40, .focus = AREA_SIDE_TOP, .zoom = true };
	struct layout l;

	layout_compute(&q, &l);
	CHECK_INT(l.kind, LAYOUT_SINGLE);
	CHECK_INT(layout_area_at(&l, 5, 5), AREA_SIDE_TOP);
	CHECK_INT(layout_area_at(&l, 5, 0), AREA_STATUS);
	CHECK_INT(layout_area_at(&l, 5, 39), AREA_HINTS);
	q.zoom = false;
	layout_compute(&q, &l);
	struct rect s = l.area[AREA_SIDE_TOP];
	CHECK_INT(layout_area_at(&l, s.x, s.y), AREA_SIDE_TOP);
	CHECK_INT(layout_area_at(&l, s.x - 1, s.y), -1); /* the separator */
	CHECK_INT(layout_area_at(&l, 500, 5), -1);
}

TEST(empty_areas_give_room_to_neighbours)
{
	struct layout_req q = { 120, 40, CODE_BOTH, AREA_SOURCE, false,
				(1u << AREA_SIDE_TOP) | (1u << AREA_SIDE_BOTTOM), false };
	struct layout l;

	layout_compute(&q, &l);
	check_sane(&q, &l);
	CHECK_INT(l.area[AREA_SIDE_TOP].w, 0);
	CHECK_INT(l.area[AREA_SOURCE].w + l.area[AREA_SASS].w + 1, 120);
	q.empty = 1u << AREA_SIDE_BOTTOM | 1u << AREA_OUTPUT;
	q.code = CODE_SOURCE;
	layout_compute(&q, &l);
	check_sane(&q, &l);
	CHECK_INT(l.area[AREA_SIDE_TOP].h, l.area[AREA_SOURCE].h);
	CHECK_INT(l.area[AREA_CONSOLE].w, 120);
}
