/* The source pane: the stopped frame's file with line numbers, the
 * current line, the faulting line when the error PC is elsewhere,
 * breakpoint marks, syntax colours and search.  When there is no source it
 * says so and shows what is known instead. */
#include "cudbg/pystack.h"
#include "tui/dbgpane.h"
#include "tui/keys.h"
#include "tui/sanitize.h"
#include "tui/source.h"
#include "tui/ui.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SRC_CACHE 8

struct src_state {
	struct listview lv;     /* one row per line; cursor = line - 1 */
	struct srcfile *cache[SRC_CACHE]; /* most recent first */
	struct srcfile *f;      /* the file shown, NULL when none */
	struct srcfile *wf;     /* the stopped frame's file, NULL when none */
	long py_line;           /* > 0: f is a Python frame's file (the live
				 * Python stack), this line marked */
	char py_key[1100];      /* the Python frame it was shown for */
	char key[1600];         /* the where it was looked up for */
	bool not_found;         /* the frame has a file we could not find */
	int load_err;           /* errno of a failed load */
	bool centre;            /* bring the cursor into view at the next draw */
	size_t hscroll;
	struct pane_search search;
	/* A file opened by name (pane_source_open), shown instead of the
	 * stopped frame's until the next stop. */
	bool opened;
	unsigned long opened_stops;
};

static int src_init(struct pane *p, struct ui *ui)
{
	(void)ui;
	return listview_state_new(p, sizeof(struct src_state), 20);
}
_Static_assert(offsetof(struct src_state, lv) == 0, "listview_state_new: lv first");

static void src_free(struct pane *p)
{
	struct src_state *s = p->state;

	if (!s)
		return;
	for (int i = 0; i < SRC_CACHE; i++)
		srcfile_free(s->cache[i]);
	free(s);
	p->state = NULL;
}

/* The file at path from the cache (moved to the front) or loaded. */
static struct srcfile *src_get(struct src_state *s, const char *path, int *err)
{
	struct srcfile *f = NULL;
	int i;

	for (i = 0; i < SRC_CACHE; i++)
		if (s->cache[i] && strcmp(s->cache[i]->path, path) == 0) {
			f = s->cache[i];
			break;
		}
	if (!f) {
		f = srcfile_load(path, err);
		if (!f)
			return NULL;
		i = SRC_CACHE - 1;
		srcfile_free(s->cache[i]);
	}
	memmove(&s->cache[1], &s->cache[0], (size_t)i * sizeof(s->cache[0]));
	s->cache[0] = f;
	return f;
}

/* The Python frame to show: the one picked in the Stack pane, else the
 * user's innermost frame when the stopped frame has no source (a PyTorch
 * kernel, libc): the line of the script that launched it. */
static const struct diag_pyf *py_frame(const struct ui *ui, bool have_source)
{
	const struct diag_pystack *ps = ui->pystack;
	if (!ps)
		return NULL;
	if (ui->py_pick > 0 && (size_t)ui->py_pick <= ps->n_frames)
		return &ps->frames[ui->py_pick - 1];
	if (have_source)
		return NULL;
	int u = diag_pystack_user_frame(ps);
	return u >= 0 ? &ps->frames[u] : NULL;
}

/* Shows that Python frame's file with its line marked; false when it
 * cannot be found or read (the stopped frame stays). */
static bool py_follow(struct src_state *s, struct ui *ui, const struct diag_pyf *pf)
{
	char key[sizeof s->py_key], path[4096];
	int err = 0;

	snprintf(key, sizeof key, "%s\n%u", pf->file, pf->line);
	if (source_find(pf->file, pf->file, ui->source_dirs, path, sizeof path) < 0)
		return false;
	struct srcfile *f = src_get(s, path, &err);
	if (!f)
		return false;
	if (strcmp(key, s->py_key) != 0 || s->f != f) {
		strcpy(s->py_key, key);
		s->hscroll = 0;
		s->lv.cursor = pf->line > 0 ? (long)pf->line - 1 : 0;
		s->centre = true;
	}
	s->f = f;
	s->py_line = pf->line;
	s->lv.count = (long)f->nlines;
	return true;
}

/* Shows the file of ui->where, and puts the cursor on its line. */
static void src_follow(struct src_state *s, struct ui *ui)
{
	const struct ui_where *w = &ui->where;
	char key[sizeof s->key], path[4096];

	if (s->opened && s->opened_stops == ui->stops)
		return;
	if (s->opened) {
		s->opened = false;
		s->key[0] = '\0';
	}
	snprintf(key, sizeof key, "%s\n%s", w->file, w->fullname);
	if (strcmp(key, s->key) != 0) {
		strcpy(s->key, key);
		s->wf = NULL;
		s->not_found = false;
		s->load_err = 0;
		s->hscroll = 0;
		if (w->file[0] || w->fullname[0]) {
			if (source_find(w->file, w->fullname, ui->source_dirs, path, sizeof path) < 0)
				s->not_found = true;
			else
				s->wf = src_get(s, path, &s->load_err);
		}
	}
	s->py_line = 0;
	const struct diag_pyf *pf = py_frame(ui, s->wf != NULL);
	if (pf && py_follow(s, ui, pf))
		return;
	s->py_key[0] = '\0';
	s->f = s->wf;
	s->lv.count = s->f ? (long)s->f->nlines : 0;
	if (s->f && w->line > 0) {
		s->lv.cursor = w->line - 1;
		s->centre = true;
	}
}

static int src_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	if (what & (UCH_STOP | UCH_FRAME | UCH_SOURCE)) {
		struct src_state *s = p->state;
		if (what & UCH_SOURCE)
			s->key[0] = '\0'; /* the directories changed: look again */
		src_follow(s, ui);
		return PR_REDRAW;
	}
	return what & UCH_BREAKPOINTS ? PR_REDRAW : PR_HANDLED;
}

/* 0: no breakpoint on the line, 1: an enabled one, 2: only disabled. */
static int bp_mark(struct ui *ui, const struct srcfile *f, long line)
{
	int mark = 0;
	const char *b = path_base(f->path);

	for (size_t i = 0; i < ui->nbps; i++) {
		const struct ui_bp *bp = &ui->bps[i];
		if (bp->line != line || !bp->file[0] || strcmp(path_base(bp->file), b) != 0)
			continue;
		if (bp->enabled)
			return 1;
		mark = 2;
	}
	return mark;
}

/* Byte offsets to display columns, walking forward (tabs every 8). */
struct colwalk {
	const char *s;
	size_t len, pos, col;
};

static size_t colwalk_to(struct colwalk *cw, size_t byte)
{
	while (cw->pos < byte && cw->pos < cw->len) {
		struct san_glyph g;
		size_t k = sanitize_next(cw->s + cw->pos, cw->len - cw->pos, &g);
		if (g.cls == SAN_TAB)
			cw->col = (cw->col / 8 + 1) * 8;
		else
			cw->col += (size_t)g.width;
		cw->pos += k;
	}
	return cw->col;
}

struct paint {
	const struct canvas *c;
	struct colwalk cw;
	int x, y;
	size_t skip;
};

/* Sets the style of text bytes [a, a+n) of the line being drawn. */
static void paint_range(struct paint *pt, size_t a, size_t n, struct style st)
{
	long ca = (long)colwalk_to(&pt->cw, a) - (long)pt->skip;
	long cb = (long)colwalk_to(&pt->cw, a + n) - (long)pt->skip;

	if (ca < 0)
		ca = 0;
	if (cb > ca)
		canvas_set_style(pt->c, pt->x + (int)ca, pt->y, (int)(cb - ca), st);
}

static void paint_token(void *ctx, size_t start, size_t len, enum syn_class cls)
{
	static const uint8_t colour[] = {
		[SYN_KEYWORD] = UC_KEYWORD, [SYN_TYPE] = UC_TYPE,
		[SYN_STRING] = UC_STRING,   [SYN_COMMENT] = UC_COMMENT,
		[SYN_NUMBER] = UC_NUMBER,   [SYN_PREPROC] = UC_PREPROC,
	};
	paint_range(ctx, start, len, STYLE(colour[cls], cls == SYN_KEYWORD ? CA_BOLD : 0));
}


static void paint_matches(struct paint *pt, const char *l, size_t len, const char *pat)
{
	size_t n = strlen(pat), at = 0;
	const char *m;

	while (n && at < len && (m = pane_text_find(l + at, len - at, pat)) != NULL) {
		size_t off = (size_t)(m - l);
		pt->cw = (struct colwalk){ l, len, 0, 0 };
		paint_range(pt, off, n, STYLE(UC_MATCH, CA_REVERSE));
		at = off + n;
	}
}

static void draw_line(struct pane *p, struct ui *ui, const struct canvas *c,
		      int y, long row, int nw)
{
	struct src_state *s = p->state;
	long line = row + 1;
	size_t len;
	const char *l = srcfile_line(s->f, (size_t)line, &len);
	const struct ui_where *w = &ui->where;
	long cur_line = s->py_line > 0 ? s->py_line : w->line;
	bool cur = !s->opened && line == cur_line,
	     fault = !s->opened && !s->py_line && w->fault_line > 0 &&
		     line == w->fault_line && !cur;
	int bp = bp_mark(ui, s->f, line), tx = 3 + nw;
	bool focused = ui_focus_pane(ui) == p;

	if (bp)
		canvas_str(c, 0, y, bp == 1 ? "●" : "○", STYLE(UC_BREAK, CA_BOLD));
	/* On a device exception the current line is where it failed: it
	 * takes the fault colour (the mark stays ▶). */
	uint8_t cur_colour = ui->status.fault ? UC_FAULT : UC_CURRENT;
	if (cur || fault)
		canvas_str(c, 1, y, cur ? "▶" : "✖", STYLE(cur ? cur_colour : UC_FAULT, CA_BOLD));
	canvas_printf(c, 2, y, STYLE(UC_LINENO, row == s->lv.cursor && focused ? CA_REVERSE : 0),
		      "%*ld", nw, line);
	if (!l)
		return;
	canvas_text_skip(c, tx, y, l, len, s->hscroll, STYLE(UC_DEFAULT, 0));
	if (cur || fault) {
		canvas_set_style(c, tx - 1, y, c->r.w - tx + 1,
				 STYLE(cur ? cur_colour : UC_FAULT, CA_BOLD));
	} else if (s->f->lang != LANG_NONE) {
		struct paint pt = { c, { l, len, 0, 0 }, tx, y, s->hscroll };
		syntax_line(s->f->lang, s->f->state[row], l, len, paint_token, &pt);
	}
	if (s->search.on && s->search.pat[0]) {
		struct paint pt = { c, { l, len, 0, 0 }, tx, y, s->hscroll };
		paint_matches(&pt, l, len, s->search.pat);
	}
}

static void draw_nosource(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct src_state *s = p->state;
	const struct ui_where *w = &ui->where;
	char buf[2048];
	int y = 0;
	struct style st = STYLE(UC_DEFAULT, 0);

	if (!w->file[0] && !w->func[0] && !w->has_pc && !w->assert_loc[0]) {
		const char *msg = "No program is stopped yet: r runs it.";
		switch (ui->status.state) {
		case UST_STARTING: msg = "Starting the debugger…"; break;
		case UST_RUNNING: msg = "The program is running: C-c interrupts it."; break;
		case UST_EXITED: msg = "The program has ended: r runs it again."; break;
		case UST_GONE: msg = "The debugger is gone: see the status line."; break;
		default: break;
		}
		canvas_str(c, 1, 0, msg, STYLE(UC_MUTED, 0));
		return;
	}
	canvas_str(c, 1, y++, "No source for this frame.", STYLE(UC_WARN, CA_BOLD));
	if (w->func[0]) {
		snprintf(buf, sizeof buf, "Function: %s", w->func);
		y += canvas_wrap(c, 1, y, c->r.w - 2, buf, st, true);
	}
	if (w->has_pc) {
		snprintf(buf, sizeof buf, "PC: 0x%llx", (unsigned long long)w->pc);
		y += canvas_wrap(c, 1, y, c->r.w - 2, buf, st, true);
	}
	if (w->has_error_pc && (!w->has_pc || w->error_pc != w->pc)) {
		snprintf(buf, sizeof buf, "Error PC: 0x%llx", (unsigned long long)w->error_pc);
		y += canvas_wrap(c, 1, y, c->r.w - 2, buf, STYLE(UC_FAULT, 0), true);
	}
	if (w->file[0]) {
		if (s->load_err)
			snprintf(buf, sizeof buf, "Source: %s:%d (cannot read it: %s)", w->file,
				 w->line, strerror(s->load_err));
		else
			snprintf(buf, sizeof buf,
				 "Source: %s:%d (not found; add its directory with -d DIR)",
				 w->file, w->line);
		y += canvas_wrap(c, 1, y, c->r.w - 2, buf, st, true);
	} else {
		y += canvas_wrap(c, 1, y, c->r.w - 2,
				 "The debugger has no line information for this code.",
				 STYLE(UC_MUTED, 0), true);
	}
	if (w->assert_loc[0]) {
		snprintf(buf, sizeof buf, "The assertion message names: %s", w->assert_loc);
		y += canvas_wrap(c, 1, y, c->r.w - 2, buf, STYLE(UC_ACCENT, CA_BOLD), true);
	}
	if (w->assert_expr[0]) {
		snprintf(buf, sizeof buf, "Assertion: `%s` failed", w->assert_expr);
		canvas_wrap(c, 1, y, c->r.w - 2, buf, STYLE(UC_ACCENT, 0), true);
	}
}

static int digits(size_t n)
{
	int d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

static void src_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct src_state *s = p->state;
	int nw;

	if (!s->f) {
		draw_nosource(p, ui, c);
		return;
	}
	s->lv.count = (long)s->f->nlines;
	if (s->centre) {
		/* A new stop: centre the line unless it is already in view. */
		if (s->lv.cursor < s->lv.top || s->lv.cursor >= s->lv.top + c->r.h)
			s->lv.top = s->lv.cursor - c->r.h / 2;
		s->centre = false;
	}
	listview_fit(&s->lv, c->r.h);
	nw = digits(s->f->nlines);
	if (nw < 3)
		nw = 3;
	for (int y = 0; y < c->r.h && s->lv.top + y < s->lv.count; y++)
		draw_line(p, ui, c, y, s->lv.top + y, nw);
}

static struct pane_search *src_search(struct pane *p)
{
	return &((struct src_state *)p->state)->search;
}

/* Lines of the file shown; -1 without one (/ is then not taken). */
static long src_rows(struct pane *p, struct ui *ui)
{
	struct src_state *s = p->state;

	(void)ui;
	return s->f ? (long)s->f->nlines : -1;
}

static long src_cursor(struct pane *p, struct ui *ui)
{
	(void)ui;
	return ((struct src_state *)p->state)->lv.cursor;
}

static const char *src_text(struct pane *p, struct ui *ui, long row, size_t *len,
			    struct textlog_line *tmp)
{
	struct src_state *s = p->state;

	(void)ui;
	(void)tmp;
	return srcfile_line(s->f, (size_t)row + 1, len);
}

static void src_select(struct pane *p, struct ui *ui, long row)
{
	(void)ui;
	listview_select(&((struct src_state *)p->state)->lv, row);
}

static const struct pane_search_ops src_search_ops = {
	src_search, src_rows, src_cursor, src_text, src_select,
};

/* "file:line" for the cursor line, as the debugger named the file. */
static void cursor_location(struct src_state *s, struct ui *ui, char *buf, size_t cap)
{
	const char *name = s->opened ? s->f->path
			 : ui->where.fullname[0] ? ui->where.fullname
			 : ui->where.file[0]       ? ui->where.file
						   : s->f->path;
	snprintf(buf, cap, "%s:%ld", name, s->lv.cursor + 1);
}

static int src_toggle_break(struct src_state *s, struct ui *ui)
{
	const char *name;

	if (!s->f || s->lv.cursor < 0) {
		ui_message(ui, UC_WARN, "no source line here to put a breakpoint on");
		return PR_REDRAW;
	}
	if (!ui->ctl) {
		ui_message(ui, UC_WARN, "no debugger is connected");
		return PR_REDRAW;
	}
	name = s->opened ? s->f->path
	     : ui->where.fullname[0] ? ui->where.fullname : ui->where.file[0] ? ui->where.file : s->f->path;
	return dpane_done(ui, ctl_break_toggle(ui->ctl, name, (int)s->lv.cursor + 1));
}

int pane_source_open(struct ui *ui, const char *file, int line)
{
	struct pane *p = ui_pane(ui, "source");
	struct src_state *s = p ? p->state : NULL;
	char path[4096];
	int err = 0;

	if (!s)
		return -1;
	if (source_find(file, "", ui->source_dirs, path, sizeof path) < 0) {
		ui_message(ui, UC_WARN, "%s: not found here (add its directory with -d DIR)",
			   file);
		return -1;
	}
	struct srcfile *f = src_get(s, path, &err);
	if (!f) {
		ui_message(ui, UC_WARN, "%s: cannot read it: %s", path, strerror(err));
		return -1;
	}
	s->f = f;
	s->opened = true;
	s->opened_stops = ui->stops;
	s->hscroll = 0;
	s->lv.count = (long)f->nlines;
	s->lv.cursor = line > 0 && (size_t)line <= f->nlines ? line - 1 : 0;
	s->centre = true;
	ui_focus(ui, p);
	return 0;
}

/* o: opens another file, FILE or FILE:LINE. */
static void open_done(struct ui *ui, struct pane *p, const char *text)
{
	char file[1024];
	int line = 0;
	const char *colon = strrchr(text, ':');

	(void)p;
	if (!text[0])
		return;
	if (colon && colon[1] >= '0' && colon[1] <= '9' &&
	    strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
		snprintf(file, sizeof file, "%.*s", (int)(colon - text), text);
		line = atoi(colon + 1);
	} else {
		snprintf(file, sizeof file, "%s", text);
	}
	pane_source_open(ui, file, line);
}

/* g: goes to a line of the file shown. */
static void line_done(struct ui *ui, struct pane *p, const char *text)
{
	struct src_state *s = p->state;
	long n = strtol(text, NULL, 10);

	if (!s->f || n < 1 || (size_t)n > s->f->nlines) {
		ui_message(ui, UC_WARN, "no line '%s' here", text);
		return;
	}
	listview_select(&s->lv, n - 1);
	s->centre = true;
}

static int src_open(struct pane *p, struct ui *ui, int key)
{
	(void)key;
	ui_prompt_open(ui, p, "open file[:line]: ", open_done);
	return PR_REDRAW;
}

static int src_goto(struct pane *p, struct ui *ui, int key)
{
	struct src_state *s = p->state;

	(void)key;
	if (!s->f)
		return PR_IGNORED;
	ui_prompt_open(ui, p, "go to line: ", line_done);
	return PR_REDRAW;
}

static int src_break(struct pane *p, struct ui *ui, int key)
{
	(void)key;
	return src_toggle_break(p->state, ui);
}

static int src_until(struct pane *p, struct ui *ui, int key)
{
	struct src_state *s = p->state;
	char loc[1200];

	(void)key;
	if (!s->f || s->lv.cursor + 1 == ui->where.line)
		return PR_IGNORED;
	cursor_location(s, ui, loc, sizeof loc);
	ui_act(ui, UA_UNTIL, loc);
	return PR_REDRAW;
}

static int src_current(struct pane *p, struct ui *ui, int key)
{
	struct src_state *s = p->state;

	(void)key;
	if (s->f && ui->where.line > 0) {
		s->lv.cursor = ui->where.line - 1;
		s->centre = true;
	}
	return PR_REDRAW;
}

static int src_sideways(struct pane *p, struct ui *ui, int key)
{
	(void)ui;
	return listview_hscroll(&((struct src_state *)p->state)->hscroll, key);
}

/* The list keys, when there is a file. */
static int src_key(struct pane *p, struct ui *ui, int key)
{
	struct src_state *s = p->state;

	(void)ui;
	return s->f ? listview_key(&s->lv, key) : PR_IGNORED;
}

static int src_click(struct pane *p, struct ui *ui, int x, int y)
{
	struct src_state *s = p->state;

	if (!s->f || listview_click(&s->lv, y) == PR_IGNORED)
		return PR_IGNORED;
	if (x == 0) /* the breakpoint column */
		src_toggle_break(s, ui);
	return PR_REDRAW;
}

static void src_title(struct pane *p, struct ui *ui, char *buf, size_t cap)
{
	struct src_state *s = p->state;
	const struct ui_where *w = &ui->where;
	size_t n;

	buf[0] = '\0';
	if (s->f)
		snprintf(buf, cap, "%s:%ld%s%s%s", path_base(s->f->path), s->lv.cursor + 1,
			 s->py_line <= 0 ? "" : ui->py_pick > 0 ? "  Python frame"
					    : "  Python: the line that launched it",
			 s->search.on ? "  /" : "", s->search.on ? s->search.pat : "");
	/* The exception's own PC, when the warp stopped elsewhere. */
	n = strlen(buf);
	if (w->has_error_pc && (!w->has_pc || w->error_pc != w->pc))
		snprintf(buf + n, cap - n, "%s✖ error PC 0x%llx (stopped at 0x%llx)%s",
			 n ? "  " : "", (unsigned long long)w->error_pc,
			 (unsigned long long)w->pc,
			 w->fault_line > 0 ? ", line marked ✖" : "");
}

static const struct pane_key src_keys[] = {
	{ 'g', TK_NONE, src_goto, NULL, "go to a line" },
	{ 'o', TK_NONE, src_open, NULL,
	  "open another file (FILE or FILE:LINE; the next stop comes back)" },
	{ 'b', TK_NONE, src_break, "b  click gutter",
	  "toggle a breakpoint on the cursor line" },
	{ 'u', TK_NONE, src_until, NULL, "run until the cursor line" },
	{ '.', TK_NONE, src_current, NULL, "back to the current line" },
	{ TK_LEFT, TK_RIGHT, src_sideways, NULL, "scroll sideways" },
	PANE_KEYS_END,
};

const struct pane_ops pane_source_ops = {
	.name = "source",
	.title = "Source",
	.home = AREA_SOURCE,
	.init = src_init,
	.draw = src_draw,
	.key = src_key,
	.click = src_click,
	.on_change = src_on_change,
	.title_info = src_title,
	.free = src_free,
	.keys = src_keys,
	.search = &src_search_ops,
};
