/* The cell grid: text in, sanitised; clipping; wide glyphs; dumps. */
#include "tests/harness.h"
#include "tui/cells.h"
#include "tui/sanitize.h"

#include <stdlib.h>
#include <string.h>

static struct grid g;

static char *row(int y)
{
	char *d = grid_dump(&g), *p = d;
	static char out[1024];
	for (int i = 0; i < y; i++)
		p = strchr(p, '\n') + 1;
	size_t n = (size_t)(strchr(p, '\n') - p);
	memcpy(out, p, n);
	out[n] = '\0';
	free(d);
	return out;
}

static void setup(int w, int h)
{
	CHECK(sanitize_init_locale() == 0);
	CHECK(grid_resize(&g, w, h) == 0);
}

TEST(text_is_clipped_to_canvas)
{
	setup(20, 3);
	struct canvas c = canvas_of(&g, (struct rect){ 2, 1, 5, 1 });
	int end = canvas_str(&c, 0, 0, "abcdefghij", STYLE(0, 0));
	CHECK_INT(end, 5);
	CHECK_STR(row(1), "  abcde");
	canvas_str(&c, 0, 1, "zzz", STYLE(0, 0)); /* below the canvas */
	CHECK_STR(row(2), "");
	canvas_str(&c, -2, 0, "XYZ", STYLE(0, 0));
	CHECK_STR(row(1), "  Zbcde");
	grid_free(&g);
}

TEST(escape_sequences_never_reach_cells)
{
	setup(40, 1);
	struct canvas c = canvas_of(&g, (struct rect){ 0, 0, 40, 1 });
	canvas_str(&c, 0, 0, "\x1b[2J\x1b]0;x\x07\xc2\x9b" "1m\xe2\x80\xae!", STYLE(0, 0));
	CHECK_STR(row(0), "␛[2J␛]0;x␇�1m�!");
	for (int x = 0; x < g.w; x++) {
		uint32_t ch = g.cells[x].ch;
		CHECK(ch == 0 || (ch >= 0x20 && ch != 0x7f && !(ch >= 0x80 && ch < 0xa0)));
	}
	grid_free(&g);
}

TEST(wide_glyphs)
{
	setup(6, 2);
	struct canvas c = canvas_of(&g, (struct rect){ 0, 0, 5, 2 });
	CHECK_INT(canvas_str(&c, 0, 0, "中文字", STYLE(0, 0)), 5);
	/* The third glyph does not fit in the last column: a blank. */
	CHECK_STR(row(0), "中文");
	CHECK_INT(g.cells[1].width, 0);
	/* Writing over half of a wide glyph clears the other half. */
	canvas_str(&c, 1, 0, "x", STYLE(0, 0));
	CHECK_STR(row(0), " x文");
	canvas_str(&c, 0, 1, "ab", STYLE(0, 0));
	canvas_str(&c, 1, 1, "中", STYLE(0, 0));
	CHECK_STR(row(1), "a中");
	grid_free(&g);
}

TEST(tabs_skip_and_combining)
{
	setup(30, 3);
	struct canvas c = canvas_of(&g, (struct rect){ 0, 0, 30, 3 });
	canvas_str(&c, 0, 0, "a\tb", STYLE(0, 0));
	CHECK_STR(row(0), "a       b");
	canvas_text_skip(&c, 0, 1, "0123456789", 10, 4, STYLE(0, 0));
	CHECK_STR(row(1), "456789");
	canvas_str(&c, 0, 2, "e\xcc\x81t\xcc\x81", STYLE(0, 0));
	CHECK_STR(row(2), "e\xcc\x81t\xcc\x81");
	grid_free(&g);
}

TEST(styles_and_fill)
{
	setup(10, 2);
	struct canvas c = canvas_of(&g, (struct rect){ 0, 0, 10, 2 });
	canvas_fill(&c, 0, 0, 10, 1, '-', STYLE(UC_TITLE, 0));
	canvas_set_style(&c, 2, 0, 3, STYLE(UC_CURRENT, CA_BOLD));
	CHECK_INT(g.cells[2].color, UC_CURRENT);
	CHECK_INT(g.cells[5].color, UC_TITLE);
	CHECK_STR(row(0), "----------");
	canvas_str_right(&c, 1, "end", STYLE(0, 0));
	CHECK_STR(row(1), "       end");
	grid_free(&g);
}

TEST(wrap)
{
	setup(12, 5);
	struct canvas c = canvas_of(&g, (struct rect){ 0, 0, 12, 5 });
	int n = canvas_wrap(&c, 0, 0, 10, "the quick brown fox jumps", STYLE(0, 0), true);
	CHECK_INT(n, 3);
	CHECK_STR(row(0), "the quick");
	CHECK_STR(row(1), "brown fox");
	CHECK_STR(row(2), "jumps");
	grid_free(&g);
}
