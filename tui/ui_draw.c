/* Drawing the screen: status line, area title bars, panes, separators,
 * the hint line, and the overlays (help, question, too small). */
#include "tui/keys.h"
#include "tui/sanitize.h"
#include "tui/ui.h"

#include <stdio.h>
#include <string.h>

static const char *const spinner_frames[] = {
	"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏",
};

static bool area_shown_draw(const struct ui *ui, int a)
{
	return ui->layout.area[a].w > 0 && ui->area_pane[a] >= 0;
}

static void draw_too_small(struct ui *ui)
{
	struct canvas c = canvas_of(&ui->grid, (struct rect){ 0, 0, ui->grid.w, ui->grid.h });
	char msg[160];

	snprintf(msg, sizeof msg,
		 "Terminal too small (%dx%d): cudbg-tui needs at least %dx%d. "
		 "Enlarge the window, or press q to quit.",
		 ui->grid.w, ui->grid.h, LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
	canvas_wrap(&c, 0, 0, c.r.w, msg, STYLE(UC_WARN, CA_BOLD), true);
}

static const char *state_word(const struct ui_status *st, char *buf, size_t cap)
{
	switch (st->state) {
	case UST_NONE: return "not started";
	case UST_STARTING: return "starting";
	case UST_RUNNING: return "running";
	case UST_STOPPED: return "stopped";
	case UST_EXITED:
		snprintf(buf, cap, "exited with code %d", st->exit_code);
		return buf;
	case UST_GONE: return "debugger gone";
	}
	return "?";
}

/* A start or a run that takes long (PyTorch spends 13 s before its first
 * kernel; a coredump takes seconds to open): what is going on, for how
 * long, and the key that stops it.  Shown after a second. */
static bool long_wait(const struct ui *ui, char *buf, size_t cap)
{
	const struct ui_status *st = &ui->status;
	double t = ui_elapsed(&st->state_since);

	if (t < 1.0 || st->state_since.tv_sec == 0)
		return false;
	if (st->state == UST_RUNNING)
		snprintf(buf, cap, " running %.0fs (C-c interrupts) ", t);
	else if (st->state == UST_STARTING)
		snprintf(buf, cap, " %s %.0fs (q quits) ",
			 st->core ? "opening the coredump" : "starting the debugger", t);
	else
		return false;
	return true;
}

const char *ui_busy_words(const char *cmd)
{
	static const struct {
		const char *prefix, *words;
	} table[] = {
		/* (session_symbols_command: the late read is torch's, each
		 * library from its lean copy where one can be made: 1.4-2.0
		 * s on the H100 in run 32, when only the CUDA library had
		 * one; without it that library alone took 8 s; docs/
		 * python.md, "Host symbols") */
		{ "-interpreter-exec console \"sharedlibrary libtorch_",
		  "reading torch's symbols, for the operator" },
		{ "-interpreter-exec console \"add-symbol-file ",
		  "reading torch's symbols (a lean copy), for the operator" },
		{ "-interpreter-exec console \"sharedlibrary ",
		  "reading host libraries' symbols" },
		{ "-data-evaluate-expression \"(int)PyRun_SimpleString(",
		  "taking the Python stack" },
	};
	if (!cmd)
		return "";
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (strncmp(cmd, table[i].prefix, strlen(table[i].prefix)) == 0)
			return table[i].words;
	return cmd;
}

static void draw_status(struct ui *ui)
{
	const struct ui_status *st = &ui->status;
	struct canvas c = canvas_of(&ui->grid, ui->layout.area[AREA_STATUS]);
	struct style s = STYLE(st->fault ? UC_STATUS_ALERT : UC_STATUS, 0);
	char buf[64], right[128] = "";
	int x;

	canvas_fill(&c, 0, 0, c.r.w, 1, ' ', s);
	/* The spinner waits a moment: most commands answer in a few ms and
	 * a flash on every step would only distract. */
	char wait[96];
	bool waiting = long_wait(ui, wait, sizeof wait);
	if (ui->busy && ui_elapsed(&ui->busy_since) >= 0.2 && waiting) {
		/* A start or a coredump that takes long keeps a command in
		 * flight all along: the spinner stays, but the words say what
		 * is going on and the key that stops it, not the MI command. */
		snprintf(right, sizeof right, " %s%s", spinner_frames[ui->spin % 10],
			 wait);
		canvas_str_right(&c, 0, right, STYLE(s.color, CA_BOLD));
	} else if (ui->busy && ui_elapsed(&ui->busy_since) >= 0.2) {
		snprintf(right, sizeof right, " %s %.1fs %s ",
			 spinner_frames[ui->spin % 10], ui_elapsed(&ui->busy_since),
			 ui_busy_words(ui->busy_what));
		canvas_str_right(&c, 0, right, STYLE(s.color, CA_BOLD));
	} else if (ui->pass[0]) {
		/* The memcheck pass or replay to fault, with its clock. */
		text_fit(right, sizeof right, " %.0fs %s ",
			 ui_elapsed(&ui->pass_since), ui->pass);
		canvas_str_right(&c, 0, right, STYLE(s.color, CA_BOLD));
	} else if (waiting) {
		snprintf(right, sizeof right, "%s", wait);
		canvas_str_right(&c, 0, right, STYLE(s.color, CA_BOLD));
	}
	/* Keep the spinner visible: the left part stops before it. */
	struct canvas left = canvas_sub(&c, 0, 0,
					c.r.w - (int)sanitize_width(right, strlen(right)), 1);
	x = canvas_printf(&left, 0, 0, STYLE(s.color, CA_BOLD), " %s ",
			  st->program[0] ? st->program : "cudbg-tui");
	x = canvas_str(&left, x, 0, state_word(st, buf, sizeof buf), STYLE(s.color, CA_BOLD));
	if (st->reason[0]) {
		x = canvas_str(&left, x, 0, ": ", s);
		x = canvas_str(&left, x, 0, st->reason, s);
	}
	if (st->focus[0]) {
		const char *f = st->focus;
		if (st->focus_short[0] &&
		    x + 4 + (int)sanitize_width(st->focus, strlen(st->focus)) > left.r.w)
			f = st->focus_short;
		x = canvas_str(&left, x, 0, "  │ ", s);
		canvas_str(&left, x, 0, f, s);
	}
}

/* How a tab is written at each squeeze level: "[Title]" for the pane
 * shown, " Title " for the others, then " Title" and titles cut to 4, 3
 * and 2 characters (but never so short that two tabs read the same),
 * until the whole bar fits the area's width. */
enum { TAB_LEVELS = 5 };
static const int tab_cut[TAB_LEVELS] = { 0, 0, 4, 3, 2 };

/* Characters of p's title that tell it from the other tabs of its area
 * (Watch and Warp need three). */
static int tab_unique(const struct ui *ui, const struct pane *p)
{
	int need = 1;

	for (int i = 0; i < ui->npanes; i++) {
		const struct pane *o = &ui->panes[i];
		if (o == p || o->ops->home != p->ops->home)
			continue;
		int n = 0;
		while (p->ops->title[n] && p->ops->title[n] == o->ops->title[n])
			n++;
		if (n + 1 > need)
			need = n + 1;
	}
	return need;
}

static int tab_width(const struct ui *ui, const struct pane *p, bool active, int level)
{
	int w = (int)sanitize_width(p->ops->title, strlen(p->ops->title));

	if (active)
		return w + 2;
	if (tab_cut[level] && w > tab_cut[level]) {
		int u = tab_unique(ui, p);
		w = u > w ? w : u > tab_cut[level] ? u : tab_cut[level];
	}
	return level == 0 ? w + 2 : w + 1;
}

/* The first squeeze level at which the area's tabs fit in w columns. */
static int tab_level(struct ui *ui, int a, int w)
{
	for (int level = 0; level < TAB_LEVELS; level++) {
		int need = 1;
		for (int i = 0; i < ui->npanes; i++) {
			const struct pane *p = &ui->panes[i];
			if ((int)p->ops->home != a || (p->hidden && ui->area_pane[a] != i))
				continue;
			need += tab_width(ui, p, ui->area_pane[a] == i, level);
		}
		if (need <= w)
			return level;
	}
	return TAB_LEVELS - 1;
}

/* The panes offered as tabs in area a, in tab order; returns how many
 * (at most cap) and sets *act to the index of the one shown. */
static int area_tabs(const struct ui *ui, int a, int *tab, int cap, int *act)
{
	int n = 0;

	*act = 0;
	for (int i = 0; i < ui->npanes && n < cap; i++) {
		const struct pane *p = &ui->panes[i];
		if ((int)p->ops->home != a || (p->hidden && ui->area_pane[a] != i))
			continue;
		if (ui->area_pane[a] == i)
			*act = n;
		tab[n++] = i;
	}
	return n;
}

/* When even the shortest tabs do not fit in w columns (after the focus
 * mark), the run of tabs around the shown one that does, with a column
 * for "‹" or "›" on a side where tabs are left out; [*lo, *hi]. */
static void tab_window(struct ui *ui, const int *tab, int n, int act, int level,
		       int w, int *lo, int *hi)
{
	int used = 1 + tab_width(ui, &ui->panes[tab[act]], true, level);

	*lo = *hi = act;
	for (bool grew = true; grew;) {
		grew = false;
		/* the right first: the tabs after the shown one are the next ] */
		for (int side = 0; side < 2; side++) {
			int j = side == 0 ? *hi + 1 : *lo - 1;
			if (j < 0 || j >= n)
				continue;
			int tw = tab_width(ui, &ui->panes[tab[j]], false, level);
			int nlo = side ? j : *lo, nhi = side ? *hi : j;
			int marks = (nlo > 0) + (nhi < n - 1);
			if (used + tw + marks > w)
				continue;
			used += tw;
			*lo = nlo;
			*hi = nhi;
			grew = true;
		}
	}
}

static void draw_title(struct ui *ui, int a, const struct canvas *c)
{
	bool focused = (int)ui->lreq.focus == a;
	struct style ts = STYLE(focused ? UC_TITLE_FOCUS : UC_TITLE, focused ? CA_BOLD : 0);
	int x, level = tab_level(ui, a, c->r.w), tab[64], act;
	int n = area_tabs(ui, a, tab, 64, &act), lo = 0, hi = n - 1;

	for (int i = 0; i < ui->npanes; i++)
		if ((int)ui->panes[i].ops->home == a)
			ui->panes[i].tab_w = 0; /* not drawn: no click lands on it */
	canvas_fill(c, 0, 0, c->r.w, 1, ' ', ts);
	x = canvas_str(c, 0, 0, focused ? "▶" : " ", ts);
	if (level == TAB_LEVELS - 1 && n > 0)
		tab_window(ui, tab, n, act, level, c->r.w, &lo, &hi);
	ui->tab_less_x[a] = ui->tab_more_x[a] = 0;
	if (lo > 0) {
		ui->tab_less_x[a] = c->r.x + x;
		x = canvas_str(c, x, 0, "‹", STYLE(UC_TAB_ACTIVE, CA_BOLD));
	}
	for (int t = lo; t <= hi && t < n; t++) {
		struct pane *p = &ui->panes[tab[t]];
		p->tab_x = c->r.x + x;
		if (t == act) {
			x = canvas_printf(c, x, 0, STYLE(UC_TAB_ACTIVE, CA_BOLD), "[%s]",
					  p->ops->title);
		} else {
			int w = tab_width(ui, p, false, level) - (level == 0 ? 2 : 1);
			struct canvas tabc = canvas_sub(c, x + 1, 0, w, 1);
			canvas_str(&tabc, 0, 0, p->ops->title, ts);
			x += tab_width(ui, p, false, level);
		}
		p->tab_w = c->r.x + x - p->tab_x;
	}
	if (hi < n - 1) {
		ui->tab_more_x[a] = c->r.x + x;
		x = canvas_str(c, x, 0, "›", STYLE(UC_TAB_ACTIVE, CA_BOLD));
	}
	if (n == 0)
		return;
	struct pane *vis = &ui->panes[tab[act]];
	/* Beside a cut tab bar, only a title info that has room to be read. */
	if (vis->ops->title_info && (n == hi - lo + 1 || c->r.w - x > 12)) {
		char info[256] = "";
		vis->ops->title_info(vis, ui, info, sizeof info);
		if (info[0]) {
			x = canvas_str(c, x, 0, " ", ts);
			canvas_str(c, x, 0, info, ts);
		}
	}
}

static void draw_area(struct ui *ui, int a)
{
	struct canvas c = canvas_of(&ui->grid, ui->layout.area[a]);
	struct pane *p = &ui->panes[ui->area_pane[a]];
	struct canvas body = canvas_sub(&c, 0, 1, c.r.w, c.r.h - 1);

	draw_title(ui, a, &c);
	p->rect = body.r;
	if (p->ops->draw && body.r.h > 0)
		p->ops->draw(p, ui, &body);
}

/* Cells of the body not covered by any area are the gaps the layout left
 * between areas: draw them as separator lines. */
static void draw_separators(struct ui *ui)
{
	int top = 1, bottom = ui->grid.h - 1;

	for (int y = top; y < bottom; y++)
		for (int x = 0; x < ui->grid.w; x++)
			if (layout_area_at(&ui->layout, x, y) < 0) {
				struct cell *cell = grid_at(&ui->grid, x, y);
				*cell = (struct cell){ 0x2502, 0, UC_TITLE, 0, 1 };
			}
}

/* The keys that make sense now: stepping while the program lives, the
 * memcheck pass and replay to fault once it ended or in a coredump. */
static const char *key_hints(const struct ui *ui)
{
	if (ui->console_input)
		return " Esc leave console  Enter run  Tab complete  Up/Down history  C-c clear";
	if (ui->status.state == UST_GONE)
		return " ? help  Tab panes  q quit   (the debugger is gone: what it showed stays readable)";
	if (ui->status.state == UST_EXITED)
		return " ? help  M memcheck pass  T replay to fault  r run again  : console  q quit";
	if (ui->status.core)
		return " ? help  T replay to fault  M memcheck pass  Tab panes  : console  q quit";
	return " ? help  c cont  n next  s step  f finish  b break  v code  : console  q quit";
}

static void draw_hints(struct ui *ui)
{
	struct canvas c = canvas_of(&ui->grid, ui->layout.area[AREA_HINTS]);
	const char *hints = key_hints(ui);

	canvas_fill(&c, 0, 0, c.r.w, 1, ' ', STYLE(UC_HINT, 0));
	if (ui->prompt.open) {
		int x = canvas_str(&c, 0, 0, ui->prompt.label, STYLE(UC_HINT, CA_BOLD));
		x = canvas_str(&c, x, 0, ui->prompt.buf, STYLE(UC_HINT, 0));
		canvas_cursor(&c, x, 0);
	} else if (ui->message[0])
		canvas_str(&c, 1, 0, ui->message, STYLE(ui->message_color, CA_BOLD));
	else
		canvas_str(&c, 0, 0, hints, STYLE(UC_HINT, 0));
}

/* A framed box centred on the screen; returns its inner canvas. */
static struct canvas draw_box(struct ui *ui, int w, int h, const char *title)
{
	int x = (ui->grid.w - w) / 2, y = (ui->grid.h - h) / 2;
	struct canvas c = canvas_of(&ui->grid, (struct rect){ x, y, w, h });
	struct style st = STYLE(UC_OVERLAY, 0);

	canvas_fill(&c, 0, 0, w, h, ' ', st);
	canvas_fill(&c, 1, 0, w - 2, 1, 0x2500, st);
	canvas_fill(&c, 1, h - 1, w - 2, 1, 0x2500, st);
	canvas_fill(&c, 0, 1, 1, h - 2, 0x2502, st);
	canvas_fill(&c, w - 1, 1, 1, h - 2, 0x2502, st);
	canvas_fill(&c, 0, 0, 1, 1, 0x250C, st);
	canvas_fill(&c, w - 1, 0, 1, 1, 0x2510, st);
	canvas_fill(&c, 0, h - 1, 1, 1, 0x2514, st);
	canvas_fill(&c, w - 1, h - 1, 1, 1, 0x2518, st);
	canvas_printf(&c, 2, 0, STYLE(UC_OVERLAY, CA_BOLD), " %s ", title);
	return canvas_sub(&c, 2, 1, w - 4, h - 2);
}

static void draw_question(struct ui *ui)
{
	int w = ui->grid.w - 4 < 64 ? ui->grid.w - 4 : 64;
	struct canvas probe = canvas_of(&ui->grid, (struct rect){ 0, 0, w - 4, ui->grid.h });
	int lines = canvas_wrap(&probe, 0, 0, w - 4, ui->ask.text, STYLE(0, 0), false);
	int h = lines + 4;

	if (h > ui->grid.h)
		h = ui->grid.h;
	struct canvas in = draw_box(ui, w, h, "Question");
	canvas_wrap(&in, 0, 0, in.r.w, ui->ask.text, STYLE(UC_OVERLAY, 0), true);
	canvas_str(&in, 0, in.r.h - 1, ui->ask.q_confirms ? "y or q: yes    n or Esc: no"
							 : "y: yes    n or Esc: no",
		   STYLE(UC_OVERLAY, CA_BOLD));
}

/* The help text, line by line: the global keys, then every pane's keys.
 * Calls fn for each line; returns the count. */
static int help_lines(struct ui *ui, void (*fn)(void *, int, const char *, const char *),
		      void *ctx)
{
	int n = 0;

	char keys[64];
	const char *what;

	fn(ctx, n++, "Global keys", NULL);
	for (size_t i = 0; key_help_next(&i, ui->binds, ui->nbinds, keys, sizeof keys, &what);)
		fn(ctx, n++, keys, what);
	for (int i = 0; i < ui->npanes; i++) {
		const struct pane_ops *o = ui->panes[i].ops;
		size_t j = 0;
		if (!pane_help_next(o, &j, keys, sizeof keys, &what))
			continue;
		fn(ctx, n++, "", NULL);
		fn(ctx, n++, o->title, NULL);
		do
			fn(ctx, n++, keys, what);
		while (pane_help_next(o, &j, keys, sizeof keys, &what));
	}
	return n;
}

struct help_draw {
	const struct canvas *c;
	int top;
};

static void help_line_draw(void *ctx, int i, const char *keys, const char *what)
{
	struct help_draw *h = ctx;
	int y = i - h->top;

	if (y < 0 || y >= h->c->r.h)
		return;
	if (!what) {
		canvas_str(h->c, 0, y, keys, STYLE(UC_OVERLAY, CA_BOLD | CA_UNDERLINE));
		return;
	}
	canvas_str(h->c, 2, y, keys, STYLE(UC_OVERLAY, CA_BOLD));
	canvas_str(h->c, 22, y, what, STYLE(UC_OVERLAY, 0));
}

static void help_line_count(void *ctx, int i, const char *keys, const char *what)
{
	(void)ctx; (void)i; (void)keys; (void)what;
}

int ui_help_count(struct ui *ui)
{
	return help_lines(ui, help_line_count, NULL);
}

static void draw_help(struct ui *ui)
{
	int n = ui_help_count(ui);
	int w = ui->grid.w - 2 < 78 ? ui->grid.w - 2 : 78;
	int h = n + 2 < ui->grid.h - 2 ? n + 2 : ui->grid.h - 2;
	struct canvas in;
	struct help_draw hd;

	if (ui->help_top > n - (h - 2))
		ui->help_top = n - (h - 2);
	if (ui->help_top < 0)
		ui->help_top = 0;
	in = draw_box(ui, w, h, "Help: keys (Esc closes, Up/Down/PgDn scroll)");
	hd = (struct help_draw){ &in, ui->help_top };
	help_lines(ui, help_line_draw, &hd);
	if (ui->help_top + in.r.h < n)
		canvas_str_right(&in, in.r.h - 1, "more ↓", STYLE(UC_OVERLAY, CA_BOLD));
}

/* Panes on screen bring their content up to date (pane_ops.prepare)
 * before anything is drawn. */
static void prepare_shown(struct ui *ui)
{
	for (int a = 0; a < AREA__PANES; a++) {
		if (!area_shown_draw(ui, a))
			continue;
		struct pane *p = &ui->panes[ui->area_pane[a]];
		if (p->ops->prepare)
			p->ops->prepare(p, ui);
	}
}

void ui_draw(struct ui *ui)
{
	if (!ui->modal && ui->layout.kind != LAYOUT_TOO_SMALL)
		prepare_shown(ui);
	grid_clear(&ui->grid);
	ui->dirty = false;
	if (ui->modal) {
		ui->modal->draw(ui, ui->modal_ctx);
		return;
	}
	if (ui->layout.kind == LAYOUT_TOO_SMALL) {
		draw_too_small(ui);
		return;
	}
	draw_status(ui);
	for (int a = 0; a < AREA__PANES; a++) {
		if (area_shown_draw(ui, a))
			draw_area(ui, a);
		else if (ui->area_pane[a] >= 0)
			ui->panes[ui->area_pane[a]].rect = (struct rect){ 0, 0, 0, 0 };
	}
	if (ui->layout.kind == LAYOUT_FULL)
		draw_separators(ui);
	draw_hints(ui);
	if (ui->help_open)
		draw_help(ui);
	if (ui->ask.open)
		draw_question(ui);
}
