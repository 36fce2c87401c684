/* Key codes the panes see, independent of curses.
 * Bytes 0..255 are themselves (UTF-8 text arrives as single bytes; the
 * console feeds them to readline); named keys are TK_* above 255. */
#ifndef CUDBG_TUI_KEYS_H
#define CUDBG_TUI_KEYS_H

#include <stddef.h>

#define TK_CTRL(c) ((c) & 0x1f)
#define TK_ESC 27
#define TK_ENTER '\r'
#define TK_TAB '\t'
#define TK_BACKSPACE 127

enum {
	TK_NONE = -1,
	TK_UP = 0x100,
	TK_DOWN,
	TK_LEFT,
	TK_RIGHT,
	TK_HOME,
	TK_END,
	TK_PGUP,
	TK_PGDN,
	TK_INSERT,
	TK_DELETE,
	TK_BTAB,   /* Shift-Tab */
	TK_RESIZE, /* the backend saw the terminal change size */
	TK_MOUSE,  /* a mouse event: see struct ui_mouse */
	TK_F0 = 0x140, /* TK_F(n) for F1..F24 */
	TK__MAX = TK_F0 + 25,
};
#define TK_F(n) (TK_F0 + (n))

/* Writes a readable name for key ("n", "<C-c>", "<F5>", "<PgDn>") into
 * buf; returns buf. */
const char *tk_name(int key, char *buf, size_t cap);

/* Parses one key at *s in script notation: a plain character (a UTF-8
 * byte), or "<Name>" (<Enter> <Esc> <Tab> <S-Tab> <Up> <Down> <Left>
 * <Right> <Home> <End> <PgUp> <PgDn> <Del> <BS> <Space> <Lt> <C-x> <F1>..
 * <F12>).  Advances *s; returns the key, or TK_NONE for an unknown name
 * (then *s points at the bad name). */
int tk_parse(const char **s);

/* A key as the help and the documents write it: "n", "C-c", "F5",
 * "S-F11" (F13..F24 are xterm's Shift-F1..F12), "Tab", "Space". */
const char *tk_label(int key, char *buf, size_t cap);

/* The global key actions, one per KEY_ACTION row of tui/keys.def. */
enum key_action {
#define KEY_ACTION(id, name, key, alt, cgdb, help) KA_##id,
#define KEY_NOTE(keys, help)
#include "tui/keys.def"
#undef KEY_ACTION
#undef KEY_NOTE
	KA__COUNT
};

/* A row of tui/keys.def: an action (action >= 0) or a help note
 * (action -1, keys set). */
struct key_row {
	int action;       /* enum key_action, or -1 for a note */
	const char *name; /* config name, or NULL */
	int key, alt;     /* default keys, TK_NONE when none */
	int cgdb;         /* the `keys cgdb` key, TK_NONE when none */
	const char *keys; /* a note's keys, else NULL */
	const char *help; /* NULL: not listed; "": listed with the next row */
};
/* Every row of tui/keys.def in order; key_nrows of them. */
extern const struct key_row key_rows[];
extern const size_t key_nrows;

/* The action a key does by default, or -1. */
int key_action_of(int key);
struct config_bind;

/* The global keys' help lines in order: *i starts at 0; writes the keys
 * ("c  F5", "Tab  S-Tab") into keys and the line into *what; returns 0
 * past the last.  With the config file's binds (n of them, later ones
 * winning) the keys are those in force: a default key bound to another
 * action is left out, a key bound to the row's action is added. */
int key_help_next(size_t *i, const struct config_bind *binds, size_t n,
		  char *keys, size_t cap, const char **what);

#endif
