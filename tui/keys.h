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

#endif
