/* Key and mouse dispatch: overlays first, then the focused pane, then the
 * global keys.  Handlers only change state; the main loop redraws. */
#include "cudbg/config.h"
#include "tui/keys.h"
#include "tui/ui.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static bool program_alive(const struct ui *ui)
{
	return !ui->status.core &&
	       (ui->status.state == UST_RUNNING || ui->status.state == UST_STOPPED);
}

static void do_quit(struct ui *ui)
{
	ui->quit = true;
}

static void do_continue(struct ui *ui)
{
	ui_act(ui, UA_CONTINUE, NULL);
}

static void do_run(struct ui *ui)
{
	ui_act(ui, UA_RUN, NULL);
}

/* A pane's keys: its search, its key table, then its key()
 * function.  While the console's line editor has the keyboard every key
 * is text for it. */
static int pane_key(struct ui *ui, struct pane *p, int key)
{
	int r = PR_IGNORED;

	if (!ui->console_input) {
		r = pane_search_key(p, ui, key);
		if (r == PR_IGNORED)
			r = pane_keys_run(p, ui, key);
	}
	if (r == PR_IGNORED && p->ops->key)
		r = p->ops->key(p, ui, key);
	return r;
}

static int ask_key(struct ui *ui, int key)
{
	/* q q quits: a second q answers the quit question (vim's and
	 * less's habit), rather than cancelling it. */
	if (key == 'y' || key == 'Y' || (key == 'q' && ui->ask.q_confirms)) {
		ui->ask.open = false;
		if (ui->ask.yes)
			ui->ask.yes(ui);
	} else if (key == 'n' || key == 'N' || key == TK_ESC || key == 'q' ||
		   key == TK_CTRL('c')) {
		ui->ask.open = false;
		ui_message(ui, UC_MUTED, "cancelled");
	}
	return PR_REDRAW | (ui->quit ? PR_QUIT : 0);
}

void ui_prompt_open(struct ui *ui, struct pane *p, const char *label,
		    void (*done)(struct ui *, struct pane *, const char *))
{
	struct ui_prompt *pr = &ui->prompt;

	snprintf(pr->label, sizeof pr->label, "%s", label);
	pr->len = 0;
	pr->buf[0] = '\0';
	pr->pane = p;
	pr->done = done;
	pr->open = true;
	ui->dirty = true;
}

/* Removes the last UTF-8 character of the prompt. */
static void prompt_backspace(struct ui_prompt *pr)
{
	while (pr->len > 0) {
		unsigned char c = (unsigned char)pr->buf[--pr->len];
		if ((c & 0xC0) != 0x80)
			break;
	}
	pr->buf[pr->len] = '\0';
}

static int prompt_key(struct ui *ui, int key)
{
	struct ui_prompt *pr = &ui->prompt;

	if (key == TK_ENTER || key == '\n') {
		pr->open = false;
		if (pr->done)
			pr->done(ui, pr->pane, pr->buf);
	} else if (key == TK_ESC || key == TK_CTRL('c') || key == TK_CTRL('g')) {
		pr->open = false;
	} else if (key == TK_BACKSPACE || key == TK_CTRL('h')) {
		prompt_backspace(pr);
	} else if (key == TK_CTRL('u')) {
		pr->len = 0;
		pr->buf[0] = '\0';
	} else if (key >= 32 && key < 256 && key != 127 && pr->len + 1 < sizeof pr->buf) {
		pr->buf[pr->len++] = (char)key;
		pr->buf[pr->len] = '\0';
	}
	return PR_REDRAW;
}

static int help_key(struct ui *ui, int key)
{
	switch (key) {
	case TK_UP: case 'k': ui->help_top--; break;
	case TK_DOWN: case 'j': ui->help_top++; break;
	case TK_PGUP: ui->help_top -= 10; break;
	case TK_PGDN: case ' ': ui->help_top += 10; break;
	case TK_HOME: ui->help_top = 0; break;
	case TK_END: ui->help_top = ui_help_count(ui); break;
	default: ui->help_open = false; break;
	}
	if (ui->help_top < 0)
		ui->help_top = 0;
	return PR_REDRAW;
}

/* Areas in Tab order that the layout shows. */
static void focus_cycle(struct ui *ui, int dir)
{
	int a = (int)ui->lreq.focus;

	for (int i = 0; i < AREA__PANES; i++) {
		a = (a + dir + AREA__PANES) % AREA__PANES;
		if (ui->area_pane[a] < 0)
			continue;
		if (ui->layout.kind == LAYOUT_SINGLE) {
			/* One area at a time: Tab walks every area (SASS
			 * only when the code mode shows it). */
			if ((a == AREA_SASS && ui->lreq.code == CODE_SOURCE) ||
			    (a == AREA_SOURCE && ui->lreq.code == CODE_SASS))
				continue;
		} else if (ui->layout.area[a].w == 0) {
			continue;
		}
		ui->lreq.focus = (enum area)a;
		ui_resize(ui, ui->lreq.cols, ui->lreq.rows);
		return;
	}
}

/* The previous/next pane of the focused area. */
static void tab_cycle(struct ui *ui, int dir)
{
	int a = (int)ui->lreq.focus, cur = ui->area_pane[a];

	if (cur < 0)
		return;
	for (int i = 1; i <= ui->npanes; i++) {
		int j = (cur + dir * i + ui->npanes * 2) % ui->npanes;
		struct pane *p = &ui->panes[j];
		if ((int)p->ops->home == a && !p->hidden) {
			ui->area_pane[a] = j;
			ui_changed(ui, UCH_LAYOUT);
			return;
		}
	}
}

void ui_console_enter(struct ui *ui)
{
	struct pane *p = ui_pane(ui, "console");

	if (!p)
		return;
	ui_focus(ui, p);
	ui->console_input = true;
}

static int key_continue(struct ui *ui)
{
	if (ui->status.fault) {
		ui_ask(ui, do_continue,
		       "The program is stopped on a device exception (%s). "
		       "cuda-gdb lets it run on after a continue and the error is "
		       "lost. Continue anyway?",
		       ui->status.reason[0] ? ui->status.reason : "fault");
		return PR_REDRAW;
	}
	ui_act(ui, UA_CONTINUE, NULL);
	return PR_REDRAW;
}

int ui_quit(struct ui *ui)
{
	if (program_alive(ui)) {
		ui_ask(ui, do_quit, "The program is still alive. Quit, and kill it?");
		ui->ask.q_confirms = true;
		return PR_REDRAW;
	}
	ui->quit = true;
	return PR_QUIT;
}

static int key_run(struct ui *ui)
{
	if (program_alive(ui)) {
		ui_ask(ui, do_run, "Restart the program from the beginning?");
		return PR_REDRAW;
	}
	ui_act(ui, UA_RUN, NULL);
	return PR_REDRAW;
}

static void do_memcheck(struct ui *ui)
{
	ui_act(ui, UA_MEMCHECK, NULL);
}

static void do_to_fault(struct ui *ui)
{
	ui_act(ui, UA_TO_FAULT, ui->to_fault_arg[0] ? ui->to_fault_arg : NULL);
}

/* M: the memcheck pass.  Its coredump replaces this session when it
 * finds an error, so a live program is only given up with a yes. */
void ui_memcheck(struct ui *ui)
{
	if (program_alive(ui) && !ui->pass[0]) {
		ui_ask(ui, do_memcheck, "Run the program again under compute-sanitizer "
		       "memcheck? If it finds an error, its coredump replaces this "
		       "session.");
		return;
	}
	ui_act(ui, UA_MEMCHECK, NULL);
}

void ui_to_fault(struct ui *ui, const char *finding)
{
	snprintf(ui->to_fault_arg, sizeof ui->to_fault_arg, "%s", finding ? finding : "");
	if (program_alive(ui)) {
		ui_ask(ui, do_to_fault, "Rerun the program and stop the faulting thread "
		       "before its bad access? This session ends.");
		return;
	}
	do_to_fault(ui);
}

static int key_breakpoint(struct ui *ui)
{
	struct pane *p = ui_focus_pane(ui);

	if (p && strcmp(p->ops->name, "sass") == 0 && pane_key(ui, p, 'b'))
		return PR_REDRAW;
	p = ui_pane(ui, "source");
	if (p)
		pane_key(ui, p, 'b');
	return PR_REDRAW;
}

/* ': a pane by name ("hints", "Lanes", a prefix: "reg"), shown and
 * focused wherever it lives. */
static void jump_done(struct ui *ui, struct pane *unused, const char *text)
{
	size_t n = strlen(text);

	(void)unused;
	while (n && text[n - 1] == ' ')
		n--;
	if (!n)
		return;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < ui->npanes; i++) {
			struct pane *p = &ui->panes[i];
			const char *name = pass ? p->ops->title : p->ops->name;
			if (strncasecmp(name, text, n) == 0) {
				ui_focus(ui, p);
				return;
			}
		}
	ui_message(ui, UC_WARN, "no pane named '%.*s' (? lists them)", (int)n, text);
}

/* The handlers of the global key actions (tui/keys.def): act_ID. */
static int act_quit(struct ui *ui) { return ui_quit(ui); }

static int act_help(struct ui *ui)
{
	ui->help_open = true;
	ui->help_top = 0;
	return PR_REDRAW;
}

static int act_next_area(struct ui *ui) { focus_cycle(ui, 1); return PR_REDRAW; }
static int act_prev_area(struct ui *ui) { focus_cycle(ui, -1); return PR_REDRAW; }
static int act_next_tab(struct ui *ui) { tab_cycle(ui, 1); return PR_REDRAW; }
static int act_prev_tab(struct ui *ui) { tab_cycle(ui, -1); return PR_REDRAW; }

static int act_jump(struct ui *ui)
{
	ui_prompt_open(ui, NULL, "pane: ", jump_done);
	return PR_REDRAW;
}

static int act_code(struct ui *ui)
{
	ui_set_code_mode(ui, (enum code_mode)((ui->lreq.code + 1) % 3));
	return PR_REDRAW;
}

static int act_zoom(struct ui *ui)
{
	ui->lreq.zoom = !ui->lreq.zoom;
	ui_resize(ui, ui->lreq.cols, ui->lreq.rows);
	return PR_REDRAW;
}

static int act_console(struct ui *ui) { ui_console_enter(ui); return PR_REDRAW; }
static int act_continue(struct ui *ui) { return key_continue(ui); }

/* A step action, as a step key asks for it. */
static int act_step_kind(struct ui *ui, enum ui_action a)
{
	ui_act(ui, a, NULL);
	return PR_REDRAW;
}

static int act_next(struct ui *ui) { return act_step_kind(ui, UA_NEXT); }
static int act_step(struct ui *ui) { return act_step_kind(ui, UA_STEP); }
static int act_finish(struct ui *ui) { return act_step_kind(ui, UA_FINISH); }
static int act_until(struct ui *ui) { return act_step_kind(ui, UA_UNTIL); }
static int act_interrupt(struct ui *ui) { return act_step_kind(ui, UA_INTERRUPT); }
static int act_sanitizer_tool(struct ui *ui) { return act_step_kind(ui, UA_SAN_TOOL); }
static int act_run(struct ui *ui) { return key_run(ui); }
static int act_break(struct ui *ui) { return key_breakpoint(ui); }
static int act_memcheck(struct ui *ui) { ui_memcheck(ui); return PR_REDRAW; }
static int act_replay_to_fault(struct ui *ui) { ui_to_fault(ui, NULL); return PR_REDRAW; }
static int act_escape(struct ui *ui) { (void)ui; return PR_HANDLED; }

static int act_repaint(struct ui *ui)
{
	ui->repaint = true;
	return PR_REDRAW;
}

/* The loop suspends between keys, with the terminal restored (as vim
 * and less do on C-z): raw mode takes C-z as a key, not as SIGTSTP. */
static int act_suspend(struct ui *ui)
{
	ui->suspend = true;
	return PR_REDRAW;
}

/* Said, so that a later n is not taken for a search's next match: it
 * steps the program. */
static int act_no_search(struct ui *ui)
{
	ui_message(ui, UC_WARN, "no search here: / searches in Source, Hints, "
		   "Console and Program output (' jumps to a pane)");
	return PR_REDRAW;
}

static int (*const act_handler[KA__COUNT])(struct ui *) = {
#define KEY_ACTION(id, name, key, alt, cgdb, help) [KA_##id] = act_##id,
#define KEY_NOTE(keys, help)
#include "tui/keys.def"
#undef KEY_ACTION
#undef KEY_NOTE
};

static int global_key(struct ui *ui, int key)
{
	int a = key_action_of(key);

	return a < 0 ? PR_IGNORED : act_handler[a](ui);
}

static int title_click(struct ui *ui, int a, int x)
{
	/* the marks of a cut tab bar: the tab before or after the run shown */
	if (x && (x == ui->tab_less_x[a] || x == ui->tab_more_x[a])) {
		if ((int)ui->lreq.focus != a)
			ui_focus(ui, &ui->panes[ui->area_pane[a]]);
		tab_cycle(ui, x == ui->tab_less_x[a] ? -1 : 1);
		return PR_REDRAW;
	}
	for (int i = 0; i < ui->npanes; i++) {
		struct pane *p = &ui->panes[i];
		if ((int)p->ops->home == a && p->tab_w > 0 && x >= p->tab_x &&
		    x < p->tab_x + p->tab_w) {
			ui_focus(ui, p);
			return PR_REDRAW;
		}
	}
	return PR_REDRAW;
}

static int mouse_key(struct ui *ui, const struct ui_mouse *m)
{
	int a = layout_area_at(&ui->layout, m->x, m->y);
	struct pane *p;

	if (a < 0 || a >= AREA__PANES || ui->area_pane[a] < 0)
		return PR_IGNORED;
	p = &ui->panes[ui->area_pane[a]];
	if (ui->lreq.focus != (enum area)a) {
		ui->console_input = false;
		ui_focus(ui, p);
	}
	if (m->button == 4 || m->button == 5) {
		int k = m->button == 4 ? TK_UP : TK_DOWN;
		for (int i = 0; i < 3; i++)
			pane_key(ui, p, k);
		return PR_REDRAW;
	}
	if (m->y == ui->layout.area[a].y)
		return title_click(ui, a, m->x);
	if (a == AREA_CONSOLE)
		ui->console_input = true;
	if (p->ops->click)
		p->ops->click(p, ui, m->x - p->rect.x, m->y - p->rect.y);
	return PR_REDRAW;
}

static int ui_key_dispatch(struct ui *ui, int key, const struct ui_mouse *m);


/* The config file's bindings (the last one for a key wins); not while
 * typing in the console, whose keys are text. */
static int bound_key(const struct ui *ui, int key)
{
	if (ui->console_input)
		return TK_NONE;
	for (size_t i = ui->nbinds; i-- > 0;)
		if (ui->binds[i].key == key)
			return ui->binds[i].does;
	return TK_NONE;
}

int ui_key(struct ui *ui, int key, const struct ui_mouse *m)
{
	int r = ui_key_dispatch(ui, key, m);

	if (r & (PR_REDRAW | PR_QUIT))
		ui->dirty = true;
	return r;
}

static int ui_key_dispatch(struct ui *ui, int key, const struct ui_mouse *m)
{
	struct pane *p;
	int r;

	/* Below the minimum size only the message shows, so no question or
	 * overlay can be answered: q quits at once, as the message says. */
	if (ui->layout.kind == LAYOUT_TOO_SMALL) {
		if (key != 'q')
			return PR_IGNORED;
		ui->quit = true;
		return PR_QUIT;
	}
	if (ui->modal)
		return ui->modal->key(ui, ui->modal_ctx, key, m);
	if (ui->ask.open)
		return ask_key(ui, key);
	if (ui->help_open)
		return help_key(ui, key);
	if (ui->prompt.open && key != TK_MOUSE && key != TK_RESIZE)
		return prompt_key(ui, key);
	if (ui->message[0]) {
		ui->message[0] = '\0';
		ui->dirty = true;
	}
	if (key == TK_MOUSE)
		return m ? mouse_key(ui, m) : PR_IGNORED;
	r = bound_key(ui, key);
	if (r != TK_NONE)
		return global_key(ui, r) | (ui->quit ? PR_QUIT : 0);
	p = ui_focus_pane(ui);
	r = p ? pane_key(ui, p, key) : PR_IGNORED;
	if (r != PR_IGNORED)
		return r | (ui->quit ? PR_QUIT : 0);
	r = global_key(ui, key);
	return r | (ui->quit ? PR_QUIT : 0);
}
