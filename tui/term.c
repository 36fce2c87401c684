/* The curses backend: flushes the cell grid to the terminal through
 * ncursesw (wide characters, cchar_t) and turns curses keys into TK_*.
 * The grid holds only sanitised text, so nothing raw reaches the tty. */
#include "tui/backend.h"
#include "tui/keys.h"
#include "tui/sanitize.h"

#include <curses.h>
#include <stdio.h>
#include <term.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

struct term_state {
	SCREEN *scr;
	FILE *out, *in;      /* the terminal's streams */
	struct grid shadow;  /* what the terminal shows, to send only changes */
	bool full;           /* the next flush repaints everything */
	unsigned char queue[8]; /* bytes of a multibyte key still to hand out */
	int qlen, qpos;
};

static struct term_state term_st;
static volatile int term_active; /* read by the emergency restore */

/* Colours by meaning: foreground, background (-1 the terminal's); the
 * config file may change them before the start (term_colour_set). */
static short colour_table[UC__COUNT][2] = {
	[UC_DEFAULT] = { -1, -1 },
	[UC_STATUS] = { COLOR_WHITE, COLOR_BLUE },
	[UC_STATUS_ALERT] = { COLOR_WHITE, COLOR_RED },
	[UC_TITLE] = { COLOR_BLACK, COLOR_WHITE },
	[UC_TITLE_FOCUS] = { COLOR_BLACK, COLOR_CYAN },
	[UC_TAB_ACTIVE] = { COLOR_BLACK, COLOR_YELLOW },
	[UC_LINENO] = { COLOR_YELLOW, -1 },
	[UC_CURRENT] = { COLOR_BLACK, COLOR_GREEN },
	[UC_FAULT] = { COLOR_WHITE, COLOR_RED },
	[UC_BREAK] = { COLOR_RED, -1 },
	[UC_CURSOR] = { COLOR_BLACK, COLOR_WHITE },
	[UC_KEYWORD] = { COLOR_YELLOW, -1 },
	[UC_TYPE] = { COLOR_GREEN, -1 },
	[UC_STRING] = { COLOR_MAGENTA, -1 },
	[UC_COMMENT] = { COLOR_CYAN, -1 },
	[UC_NUMBER] = { COLOR_MAGENTA, -1 },
	[UC_PREPROC] = { COLOR_BLUE, -1 },
	[UC_MATCH] = { COLOR_BLACK, COLOR_YELLOW },
	[UC_ERROR] = { COLOR_RED, -1 },
	[UC_WARN] = { COLOR_YELLOW, -1 },
	[UC_GOOD] = { COLOR_GREEN, -1 },
	[UC_MUTED] = { -1, -1 },
	[UC_ACCENT] = { COLOR_CYAN, -1 },
	[UC_HINT] = { COLOR_BLACK, COLOR_WHITE },
	[UC_OVERLAY] = { COLOR_WHITE, COLOR_BLUE },
};

/* Without colours, meaning is carried by attributes. */
static const attr_t mono_table[UC__COUNT] = {
	[UC_STATUS] = A_REVERSE,
	[UC_STATUS_ALERT] = A_REVERSE | A_BOLD,
	[UC_TITLE] = A_REVERSE,
	[UC_TITLE_FOCUS] = A_REVERSE | A_BOLD,
	[UC_TAB_ACTIVE] = A_BOLD | A_UNDERLINE,
	[UC_LINENO] = A_DIM,
	[UC_CURRENT] = A_REVERSE | A_BOLD,
	[UC_FAULT] = A_REVERSE | A_BOLD | A_UNDERLINE,
	[UC_BREAK] = A_BOLD,
	[UC_CURSOR] = A_REVERSE,
	[UC_KEYWORD] = A_BOLD,
	[UC_COMMENT] = A_DIM,
	[UC_MATCH] = A_REVERSE | A_UNDERLINE,
	[UC_ERROR] = A_BOLD,
	[UC_WARN] = A_BOLD,
	[UC_MUTED] = A_DIM,
	[UC_ACCENT] = A_BOLD,
	[UC_HINT] = A_REVERSE,
	[UC_OVERLAY] = A_REVERSE,
};

void term_colour_set(int role, short fg, short bg)
{
	if (role > 0 && role < UC__COUNT && fg >= -1 && bg >= -1) {
		colour_table[role][0] = fg;
		colour_table[role][1] = bg;
	}
}

static void term_colours(struct backend *b)
{
	const char *nc = getenv("NO_COLOR");
	bool defaults;

	/* https://no-color.org: any non-empty value turns colour off. */
	b->mono = (nc && *nc) || !has_colors() || start_color() == ERR ||
		  COLOR_PAIRS < UC__COUNT;
	if (b->mono)
		return;
	defaults = use_default_colors() == OK;
	for (int i = 1; i < UC__COUNT; i++) {
		short fg = colour_table[i][0], bg = colour_table[i][1];
		/* a 256-colour number on a smaller terminal: its default */
		if (fg >= COLORS)
			fg = -1;
		if (bg >= COLORS)
			bg = -1;
		if (!defaults) {
			fg = fg < 0 ? COLOR_WHITE : fg;
			bg = bg < 0 ? COLOR_BLACK : bg;
		}
		init_pair((short)i, fg, bg);
	}
}

/* A terminal that cannot move its cursor (TERM=dumb, a hard-copy or
 * generic entry) would get a blank screen that still takes keys blind:
 * refused before curses writes anything, like an unknown TERM.  True
 * when TERM is known and has cursor addressing, or is unknown (newterm
 * then says so). */
static bool term_addressable(FILE *out, char *err, size_t cap)
{
	const char *name = getenv("TERM");
	int e = 0;
	bool ok;

	if (setupterm(NULL, fileno(out), &e) != OK)
		return true;
	char *cup = tigetstr("cup");
	ok = cup && cup != (char *)-1 && tigetflag("hc") <= 0 &&
	     tigetflag("gn") <= 0;
	del_curterm(cur_term);
	if (!ok)
		snprintf(err, cap, "the terminal TERM=%s cannot move its cursor; "
			 "run cudbg-tui in a terminal such as TERM=xterm-256color, "
			 "or use --batch", name ? name : "(unset)");
	return ok;
}

static int term_start(struct backend *b, char *err, size_t cap)
{
	struct term_state *t = &term_st;
	FILE *out = b->priv ? ((struct term_state *)b->priv)->out : stdout;
	FILE *in = b->priv ? ((struct term_state *)b->priv)->in : stdin;

	memset(t, 0, sizeof(*t));
	t->out = out;
	t->in = in;
	if (!term_addressable(out, err, cap))
		return -1;
	t->scr = newterm(NULL, out, in);
	if (!t->scr) {
		snprintf(err, cap, "cannot start the screen for TERM=%s; try TERM=xterm-256color or --batch",
			 getenv("TERM") ? getenv("TERM") : "(unset)");
		return -1;
	}
	term_active = 1;
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	meta(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	term_colours(b);
	t->full = true;
	b->priv = t;
	return 0;
}

void term_emergency_restore(void)
{
	if (term_active) {
		term_active = 0;
		endwin();
	}
}

static void term_stop(struct backend *b)
{
	struct term_state *t = b->priv;

	term_emergency_restore();
	if (t && t->scr) {
		delscreen(t->scr);
		t->scr = NULL;
		grid_free(&t->shadow);
	}
}

static int term_key_fd(struct backend *b)
{
	(void)b;
	return fileno(term_st.in);
}

static int map_keycode(wint_t k, struct ui_mouse *m)
{
	MEVENT ev;

	switch (k) {
	case KEY_UP: return TK_UP;
	case KEY_DOWN: return TK_DOWN;
	case KEY_LEFT: return TK_LEFT;
	case KEY_RIGHT: return TK_RIGHT;
	case KEY_HOME: return TK_HOME;
	case KEY_END: return TK_END;
	case KEY_PPAGE: return TK_PGUP;
	case KEY_NPAGE: return TK_PGDN;
	case KEY_IC: return TK_INSERT;
	case KEY_DC: return TK_DELETE;
	case KEY_BTAB: return TK_BTAB;
	case KEY_BACKSPACE: return TK_BACKSPACE;
	case KEY_ENTER: return TK_ENTER;
	case KEY_RESIZE: return TK_RESIZE;
	case KEY_MOUSE:
		if (getmouse(&ev) != OK)
			return TK_NONE;
		m->x = ev.x;
		m->y = ev.y;
		m->button = (ev.bstate & BUTTON4_PRESSED) ? 4
			  : (ev.bstate & BUTTON5_PRESSED) ? 5 : 1;
		return TK_MOUSE;
	}
	if (k > KEY_F0 && k <= KEY_F(24))
		return TK_F((int)(k - KEY_F0));
	return TK_NONE;
}

static int term_read_key(struct backend *b, struct ui_mouse *m)
{
	struct term_state *t = b->priv;
	wint_t wc;
	int r;

	if (t->qpos < t->qlen)
		return t->queue[t->qpos++];
	r = wget_wch(stdscr, &wc);
	if (r == ERR)
		return TK_NONE;
	if (r == KEY_CODE_YES)
		return map_keycode(wc, m);
	if (wc < 0x80)
		return (int)wc;
	/* A character beyond ASCII: hand out its UTF-8 bytes one by one,
	 * as readline expects. */
	t->qlen = (int)utf8_encode((uint32_t)wc, (char *)t->queue);
	t->qpos = 1;
	return t->queue[0];
}

static void term_size(struct backend *b, int *cols, int *rows)
{
	struct winsize ws;

	(void)b;
	/* Our SIGWINCH handler replaces ncurses' own: ask the tty, then tell
	 * curses. */
	if (ioctl(fileno(term_st.out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
		if (ws.ws_col != COLS || ws.ws_row != LINES)
			resizeterm(ws.ws_row, ws.ws_col);
	}
	*cols = COLS;
	*rows = LINES;
}

static attr_t cell_attrs(const struct backend *b, const struct cell *c)
{
	attr_t a = 0;

	if (c->attr & CA_BOLD)
		a |= A_BOLD;
	if (c->attr & CA_REVERSE)
		a |= A_REVERSE;
	if (c->attr & CA_UNDERLINE)
		a |= A_UNDERLINE;
	if (c->attr & CA_DIM)
		a |= A_DIM;
	if (b->mono && c->color < UC__COUNT)
		a |= mono_table[c->color];
	return a;
}

static bool cell_same(const struct cell *a, const struct cell *b)
{
	return a->ch == b->ch && a->comb == b->comb && a->color == b->color &&
	       a->attr == b->attr && a->width == b->width;
}

static void term_flush(struct backend *b, const struct grid *g)
{
	struct term_state *t = b->priv;

	if (t->shadow.w != g->w || t->shadow.h != g->h) {
		grid_resize(&t->shadow, g->w, g->h);
		t->full = true;
	}
	if (b->repaint) /* C-l: the terminal may hold anything */
		t->full = true;
	b->repaint = false;
	if (t->full)
		clearok(curscr, TRUE);
	for (int y = 0; y < g->h && y < LINES; y++) {
		for (int x = 0; x < g->w && x < COLS; x++) {
			const struct cell *c = &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
			struct cell *s = &t->shadow.cells[(size_t)y * (size_t)g->w + (size_t)x];
			wchar_t wcs[3] = { (wchar_t)c->ch, (wchar_t)c->comb, 0 };
			cchar_t cc;
			if (!t->full && cell_same(c, s))
				continue;
			*s = *c;
			if (c->width == 0)
				continue; /* the right half of a wide glyph */
			setcchar(&cc, wcs, cell_attrs(b, c), b->mono ? 0 : (short)c->color, NULL);
			mvadd_wch(y, x, &cc);
		}
	}
	t->full = false;
	if (g->cursor_x >= 0) {
		move(g->cursor_y, g->cursor_x);
		curs_set(1);
	} else {
		curs_set(0);
	}
	wnoutrefresh(stdscr);
	doupdate();
}

static void term_suspend(struct backend *b)
{
	(void)b;
	if (term_active)
		endwin(); /* modes, cursor, alternate screen back */
}

static void term_resume(struct backend *b)
{
	(void)b;
	if (!term_active)
		return;
	refresh(); /* curses takes the terminal again */
	b->repaint = true;
}

void term_backend_on(struct backend *b, FILE *out, FILE *in)
{
	term_backend(b);
	term_st.out = out;
	term_st.in = in;
	b->priv = &term_st;
}

void term_backend(struct backend *b)
{
	*b = (struct backend){
		.start = term_start,
		.stop = term_stop,
		.suspend = term_suspend,
		.resume = term_resume,
		.key_fd = term_key_fd,
		.read_key = term_read_key,
		.size = term_size,
		.flush = term_flush,
	};
}
