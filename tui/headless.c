/* The headless backend: a screen of a fixed size that nobody sees.  Test
 * scripts drive it and dump the grid as text. */
#include "tui/backend.h"
#include "tui/keys.h"

static int hl_start(struct backend *b, char *err, size_t cap)
{
	(void)err;
	(void)cap;
	b->mono = true;
	return 0;
}

static void hl_stop(struct backend *b)
{
	(void)b;
}

static int hl_key_fd(struct backend *b)
{
	(void)b;
	return -1;
}

static int hl_read_key(struct backend *b, struct ui_mouse *m)
{
	(void)b;
	(void)m;
	return TK_NONE;
}

static void hl_size(struct backend *b, int *cols, int *rows)
{
	*cols = b->cols;
	*rows = b->rows;
}

static void hl_flush(struct backend *b, const struct grid *g)
{
	(void)b;
	(void)g;
}

void headless_backend(struct backend *b, int cols, int rows)
{
	*b = (struct backend){
		.start = hl_start,
		.stop = hl_stop,
		.key_fd = hl_key_fd,
		.read_key = hl_read_key,
		.size = hl_size,
		.flush = hl_flush,
		.cols = cols,
		.rows = rows,
	};
}
