/* The console pane: the debugger's console transcript and a GNU readline
 * line editor driven through its callback interface from the key loop
 * (as gdb's TUI does).  Curses owns the terminal: readline's signal,
 * SIGWINCH and terminal handling are off, its output goes nowhere, and
 * this pane draws its prompt and line.  Commands go to the debugger as
 * `-interpreter-exec console`; their output comes back as stream records
 * (ui_console_text). */
#include "tui/dbgpane.h"
#include "tui/keys.h"
#include "tui/sanitize.h"
#include "tui/ui.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#define HISTORY_MAX 1000
#define CONSOLE_PROMPT "(gdb) "

struct console_state {
	long scroll;        /* lines scrolled back from the end; 0 follows */
	char *histfile;     /* NULL: no history file */
	char histerr[600];  /* why the history is not kept, "" when it is */
	FILE *devnull;      /* readline's streams: it must never write to the tty */
	enum area back;     /* where Esc returns the focus */
	struct pane_search search;
	long match;         /* the transcript line of the last match, -1 */
};

/* Readline is one per process: these connect its callbacks to the UI. */
static struct ui *rl_ui;
static const char *rl_histfile; /* the console's history file, or NULL */
static int rl_pending = EOF;

static int console_getc(FILE *f)
{
	int c = rl_pending;

	(void)f;
	rl_pending = EOF;
	return c;
}

/* Readline batches typed characters when it thinks more input is
 * waiting on rl_instream (/dev/null here, always "readable"); the only
 * input is the byte being fed. */
static int console_no_input(void)
{
	return 0;
}

static void console_redisplay(void)
{
	if (rl_ui)
		rl_ui->dirty = true;
}

static void console_prep(int meta)
{
	(void)meta; /* curses has the terminal in the mode we need */
}

static void console_deprep(void)
{
}

/* Adds the line to the history and appends it to the file at once, so a
 * crash or a kill keeps it; a failure is said once and the file is left
 * alone from then on. */
static void history_keep(struct ui *ui, const char *line)
{
	add_history(line);
	if (!rl_histfile)
		return;
	int e = append_history(1, rl_histfile);
	if (e == ENOENT)
		e = write_history(rl_histfile); /* the first line */
	if (e != 0) {
		ui_message(ui, UC_ERROR, "console history not saved: %.300s: %s",
			   rl_histfile, strerror(e));
		rl_histfile = NULL;
	}
}

static void console_line(char *line)
{
	struct ui *ui = rl_ui;

	if (!ui) {
		free(line);
		return;
	}
	if (!line) { /* C-d on an empty line: leave the console */
		ui->console_input = false;
		ui->dirty = true;
		return;
	}
	if (*line)
		history_keep(ui, line);
	/* (The controller echoes the command into the transcript.) */
	if (!*line || dpane_console(ui, line) == 1) {
		textlog_flush_line(&ui->console);
		ui_console_text(ui, CONSOLE_PROMPT, strlen(CONSOLE_PROMPT), 'u');
		ui_console_text(ui, line, strlen(line), 'u');
		ui_console_text(ui, "\n", 1, 'u');
		if (*line)
			ui_message(ui, UC_WARN, "no debugger is connected");
	}
	free(line);
}

/* mkdir -p with private modes: each directory made is 0700 (those that
 * exist are left as they are).  0, or an errno with `path` cut at the
 * directory that failed. */
static int make_dirs(char *path)
{
	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return errno;
		if (c == '\0')
			return 0;
		*p = c;
	}
}

/* $CUDBG_HISTORY ("" turns it off), else $XDG_STATE_HOME/cudbg-tui/history,
 * else ~/.local/state/cudbg-tui/history; the directories are made
 * (issue 13: with no ~/.local the history was silently never saved).
 * NULL with a reason in err (or "" when the history is off). */
static char *history_path(char *err, size_t cap)
{
	const char *env = getenv("CUDBG_HISTORY"), *base = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	char dir[4096], *path;
	int e;

	err[0] = '\0';
	if (env)
		return *env ? strdup(env) : NULL;
	if (base && *base)
		snprintf(dir, sizeof dir, "%s/cudbg-tui", base);
	else if (home && *home)
		snprintf(dir, sizeof dir, "%s/.local/state/cudbg-tui", home);
	else
		return NULL;
	if ((e = make_dirs(dir)) != 0) {
		snprintf(err, cap, "console history not saved: cannot make %.400s: "
			 "%s (set CUDBG_HISTORY to a file, or \"\" for none)",
			 dir, strerror(e));
		return NULL;
	}
	if (asprintf(&path, "%s/history", dir) < 0)
		return NULL;
	return path;
}

/* The history file must be a regular file (or not exist yet): a FIFO
 * would block read_history() in open() for good, with a blank screen,
 * and a device is nothing to keep lines in.  Checked without blocking. */
static bool history_usable(const char *path, char *err, size_t cap)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		return true; /* made on the first line */
	if (fd < 0) {
		snprintf(err, cap, "console history not used: %.400s: %s (set "
			 "CUDBG_HISTORY to a file, or \"\" for none)", path,
			 strerror(errno));
		return false;
	}
	bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	close(fd);
	if (!regular)
		snprintf(err, cap, "console history is not a regular file, not "
			 "used: %.400s (set CUDBG_HISTORY to a file, or \"\" for "
			 "none)", path);
	return regular;
}

/* Opens the history, or says on the status line and in the transcript
 * why it is not kept. */
static void history_open(struct console_state *s, struct ui *ui)
{
	s->histfile = history_path(s->histerr, sizeof s->histerr);
	if (s->histfile && !history_usable(s->histfile, s->histerr,
					   sizeof s->histerr)) {
		free(s->histfile);
		s->histfile = NULL;
	}
	rl_histfile = s->histfile;
	if (s->histfile)
		read_history(s->histfile);
	if (s->histerr[0]) {
		ui_message(ui, UC_ERROR, "%s", s->histerr);
		textlog_append(&ui->console, s->histerr, strlen(s->histerr), 'e');
		textlog_append(&ui->console, "\n", 1, 'e');
	}
}

static int console_init(struct pane *p, struct ui *ui)
{
	struct console_state *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	p->state = s;
	s->match = -1;
	s->devnull = fopen("/dev/null", "r+");
	if (!s->devnull)
		return -1;
	rl_ui = ui;
	rl_readline_name = "cudbg-tui";
	rl_instream = s->devnull;
	rl_outstream = s->devnull;
	rl_catch_signals = 0;
	rl_catch_sigwinch = 0;
	rl_change_environment = 0;
	rl_prep_term_function = console_prep;
	rl_deprep_term_function = console_deprep;
	rl_getc_function = console_getc;
	rl_input_available_hook = console_no_input;
	rl_redisplay_function = console_redisplay;
	rl_inhibit_completion = 1; /* Tab asks the debugger (-complete) */
	rl_callback_handler_install(CONSOLE_PROMPT, console_line);
	rl_variable_bind("enable-bracketed-paste", "off");
	rl_variable_bind("bell-style", "none");
	using_history();
	stifle_history(HISTORY_MAX);
	history_open(s, ui);
	return 0;
}

static void console_free(struct pane *p)
{
	struct console_state *s = p->state;

	if (!s)
		return;
	rl_callback_handler_remove();
	if (s->histfile && rl_histfile)
		history_truncate_file(s->histfile, HISTORY_MAX);
	rl_histfile = NULL;
	/* A line left half edited keeps readline's undo list (the current
	 * one, and one per history entry edited and left): freed here, or
	 * LeakSanitizer reports it (rl_add_undo). */
	rl_free_undo_list();
	rl_clear_history();
	rl_ui = NULL;
	rl_instream = rl_outstream = NULL;
	if (s->devnull)
		fclose(s->devnull);
	free(s->histfile);
	free(s);
	p->state = NULL;
}

static struct style kind_style(uint8_t kind)
{
	switch (kind) {
	case 'u': return STYLE(UC_ACCENT, CA_BOLD);
	case 'l': return STYLE(UC_MUTED, 0);
	case 'e': return STYLE(UC_ERROR, CA_BOLD);
	case 'i': return STYLE(UC_MUTED, 0);
	}
	return STYLE(UC_DEFAULT, 0);
}

/* The input line: prompt and text, scrolled so the cursor shows. */
static void draw_input(struct ui *ui, const struct canvas *c, int y)
{
	const char *prompt = rl_display_prompt ? rl_display_prompt : CONSOLE_PROMPT;
	const char *line = rl_line_buffer ? rl_line_buffer : "";
	size_t point = rl_point > 0 ? (size_t)rl_point : 0, len = strlen(line);
	size_t pw = sanitize_width(prompt, strlen(prompt));
	size_t cw = sanitize_width(line, point < len ? point : len);
	size_t room = c->r.w > (int)pw + 1 ? (size_t)c->r.w - pw - 1 : 1;
	size_t skip = cw >= room ? cw - room + 1 : 0;
	int x;

	x = canvas_str(c, 0, y, prompt, STYLE(UC_ACCENT, CA_BOLD));
	canvas_text_skip(c, x, y, line, len, skip, STYLE(UC_DEFAULT, 0));
	if (ui->console_input)
		canvas_cursor(c, x + (int)(cw - skip), y);
}

/* The first match of the search on a transcript line stands out. */
static void mark_match(const struct canvas *c, int y, const struct textlog_line *l,
		       const char *pat)
{
	const char *m = pane_text_find(l->text, l->len, pat);

	if (!m)
		return;
	size_t off = (size_t)(m - l->text), n = strlen(pat);
	int x = (int)sanitize_width(l->text, off);
	canvas_set_style(c, x, y, (int)sanitize_width(m, n), STYLE(UC_MATCH, CA_REVERSE));
}

static void console_draw(struct pane *p, struct ui *ui, const struct canvas *c)
{
	struct console_state *s = p->state;
	long n = (long)textlog_count(&ui->console), rows = c->r.h - 1;
	long first = n - rows - s->scroll;
	struct textlog_line tmp;

	if (s->scroll > n - rows)
		s->scroll = n - rows > 0 ? n - rows : 0;
	first = n - rows - s->scroll;
	for (long y = 0; y < rows; y++) {
		const struct textlog_line *l;
		if (first + y < 0)
			continue;
		l = textlog_get(&ui->console, (size_t)(first + y), &tmp);
		if (!l)
			continue;
		/* Command echoes stand out (the model's transcript has no
		 * kinds; ours does). */
		uint8_t kind = l->kind;
		if (!kind && l->len >= 6 && memcmp(l->text, CONSOLE_PROMPT, 6) == 0)
			kind = 'u';
		canvas_text(c, 0, (int)y, l->text, l->len, kind_style(kind));
		if (s->search.on)
			mark_match(c, (int)y, l, s->search.pat);
	}
	if (s->scroll)
		canvas_printf(c, c->r.w - 14, 0, STYLE(UC_MUTED, CA_REVERSE), " %ld more ↓ ", s->scroll);
	draw_input(ui, c, c->r.h - 1);
}

static void console_leave(struct ui *ui, struct console_state *s)
{
	struct pane *back;

	ui->console_input = false;
	if (ui->area_pane[s->back] >= 0 && s->back != AREA_CONSOLE) {
		back = &ui->panes[ui->area_pane[s->back]];
		ui_focus(ui, back);
	}
}

static void feed(int byte)
{
	rl_pending = byte;
	rl_callback_read_char();
	rl_pending = EOF;
}

static int console_scroll(struct console_state *s, struct ui *ui, int key, int page)
{
	long n = (long)textlog_count(&ui->console);

	if (key == TK_PGUP)
		s->scroll += page;
	else if (key == TK_PGDN)
		s->scroll -= page;
	if (s->scroll > n)
		s->scroll = n;
	if (s->scroll < 0)
		s->scroll = 0;
	return PR_REDRAW;
}

static void console_completion(void *ctx, const struct dec_complete *done);

/* Keys while the line editor has the keyboard.  Curses keys above 255
 * are mapped onto readline commands here; bytes go to readline. */
static int console_edit_key(struct pane *p, struct ui *ui, int key)
{
	struct console_state *s = p->state;
	int page = p->rect.h > 2 ? p->rect.h - 2 : 1;

	switch (key) {
	case TK_ESC: console_leave(ui, s); return PR_REDRAW;
	case TK_BTAB: return PR_IGNORED;
	case TK_UP: rl_get_previous_history(1, 0); break;
	case TK_DOWN: rl_get_next_history(1, 0); break;
	case TK_LEFT: rl_backward_char(1, 0); break;
	case TK_RIGHT: rl_forward_char(1, 0); break;
	case TK_HOME: rl_beg_of_line(1, 0); break;
	case TK_END: rl_end_of_line(1, 0); break;
	case TK_DELETE: rl_delete(1, 0); break;
	case TK_PGUP: case TK_PGDN: return console_scroll(s, ui, key, page);
	case TK_TAB:
		if (ui->ctl)
			dpane_done(ui, ctl_complete(ui->ctl, rl_line_buffer,
						    console_completion, p));
		else
			ui_message(ui, UC_WARN, "no debugger is connected to complete from");
		break;
	case TK_CTRL('c'):
		/* ^C clears a typed line; on an empty line it interrupts. */
		if (rl_end > 0) {
			rl_replace_line("", 0);
			rl_point = 0;
		} else {
			ui_act(ui, UA_INTERRUPT, NULL);
		}
		break;
	default:
		if (key < 0 || key > 255)
			return PR_HANDLED;
		s->scroll = 0;
		feed(key == '\n' ? '\r' : key);
		break;
	}
	return PR_REDRAW;
}

/* While the line editor has the keyboard every key is its (the key
 * table is not tried then). */
static int console_key(struct pane *p, struct ui *ui, int key)
{
	return ui->console_input ? console_edit_key(p, ui, key) : PR_IGNORED;
}

static int console_start(struct pane *p, struct ui *ui, int key)
{
	(void)p;
	(void)key;
	ui_console_enter(ui);
	return PR_REDRAW;
}

static int console_page(struct pane *p, struct ui *ui, int key)
{
	return console_scroll(p->state, ui, key, p->rect.h > 2 ? p->rect.h - 2 : 1);
}

static int console_line_scroll(struct pane *p, struct ui *ui, int key)
{
	return console_scroll(p->state, ui, key == TK_UP ? TK_PGUP : TK_PGDN, 1);
}

static int console_on_change(struct pane *p, struct ui *ui, unsigned what)
{
	struct console_state *s = p->state;

	/* Entering the console remembers where to return to on Esc. */
	if ((what & UCH_LAYOUT) && ui->lreq.focus != AREA_CONSOLE)
		s->back = ui->lreq.focus;
	return PR_HANDLED;
}

/* The controller's answer to Tab: the completed line and the matches
 * (shown in the console when there are several). */
static void console_completion(void *ctx, const struct dec_complete *done)
{
	struct ui *ui = rl_ui;
	const char *completion = done->completion;
	const char *const *matches = done->matches;
	size_t n = done->n;

	(void)ctx;
	if (!ui)
		return;
	if (completion && rl_line_buffer && strcmp(completion, rl_line_buffer) != 0) {
		rl_replace_line(completion, 0);
		rl_point = rl_end;
	}
	if (n == 0) {
		ui_message(ui, UC_MUTED, "no completions");
	} else if (n > 1) {
		textlog_flush_line(&ui->console);
		for (size_t i = 0; i < n; i++) {
			ui_console_text(ui, matches[i], strlen(matches[i]), 'i');
			ui_console_text(ui, "\n", 1, 'i');
		}
	}
	ui->dirty = true;
}

static struct pane_search *console_search(struct pane *p)
{
	return &((struct console_state *)p->state)->search;
}

static long console_rows(struct pane *p, struct ui *ui)
{
	(void)p;
	return (long)textlog_count(&ui->console);
}

/* A search goes on from the last match, else from the bottom line shown. */
static long console_cursor(struct pane *p, struct ui *ui)
{
	struct console_state *s = p->state;
	long n = (long)textlog_count(&ui->console);

	if (s->search.on && s->match >= 0 && s->match < n)
		return s->match;
	return n - 1 - s->scroll;
}

static const char *console_text(struct pane *p, struct ui *ui, long row, size_t *len,
				struct textlog_line *tmp)
{
	(void)p;
	return pane_textlog_row(&ui->console, row, len, tmp);
}

/* Scrolls the transcript so that the match shows, in the middle when it
 * was out of view. */
static void console_select(struct pane *p, struct ui *ui, long row)
{
	struct console_state *s = p->state;
	long n = (long)textlog_count(&ui->console);
	long rows = p->rect.h > 1 ? p->rect.h - 1 : 1, first = n - rows - s->scroll;

	s->match = row;
	if (row >= first && row < first + rows)
		return;
	s->scroll = n - rows - (row - rows / 2);
	if (s->scroll > n)
		s->scroll = n;
	if (s->scroll < 0)
		s->scroll = 0;
}

static const struct pane_search_ops console_search_ops = {
	console_search, console_rows, console_cursor, console_text, console_select,
};

/* The search and the line of its match (the dumps show no colours). */
static void console_title(struct pane *p, struct ui *ui, char *buf, size_t cap)
{
	struct console_state *s = p->state;

	if (s->search.on && s->match >= 0)
		snprintf(buf, cap, "/%s  line %ld of %zu", s->search.pat, s->match + 1,
			 textlog_count(&ui->console));
	else if (s->search.on)
		snprintf(buf, cap, "/%s", s->search.pat);
}

/* The rows with no handler are the line editor's keys (console_edit_key
 * and readline): only while typing, when this table is not tried. */
static const struct pane_key console_keys[] = {
	{ ':', 'i', console_start, ":  i  Enter", "start typing a debugger command" },
	{ TK_ENTER, TK_NONE, console_start, NULL, NULL },
	{ TK_PGUP, TK_PGDN, console_page, NULL, "scroll the transcript" },
	{ TK_UP, TK_DOWN, console_line_scroll, NULL,
	  "scroll a line; while typing: the history" },
	{ TK_NONE, TK_NONE, NULL, "Esc", "while typing: leave the console" },
	{ TK_NONE, TK_NONE, NULL, "Tab", "while typing: complete (asks the debugger)" },
	{ TK_NONE, TK_NONE, NULL, "C-r", "while typing: search the history" },
	{ TK_NONE, TK_NONE, NULL, "C-c",
	  "while typing: clear the line; on an empty line interrupt" },
	PANE_KEYS_END,
};

const struct pane_ops pane_console_ops = {
	.name = "console",
	.title = "Console",
	.home = AREA_CONSOLE,
	.init = console_init,
	.draw = console_draw,
	.key = console_key,
	.on_change = console_on_change,
	.free = console_free,
	.title_info = console_title,
	.keys = console_keys,
	.search = &console_search_ops,
};
