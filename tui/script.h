/* Test scripts, in the style of tig's test hooks: keys and commands from a
 * file drive the real UI (headless), and screen dumps come out.
 *
 * One step per line:
 *   # comment, or an empty line
 *   KEYS               typed as written; <Name> for special keys (see
 *                      tk_parse: <Enter> <Esc> <Down> <F5> <C-c> <Lt>...)
 *   :type TEXT         TEXT typed literally (spaces included)
 *   :wait-stop         until a new stop (since the last wait) and idle
 *   :wait-idle         until no command is in flight
 *   :wait-state NAME   until the state is starting/running/stopped/exited/gone
 *   :wait-text TEXT    until TEXT is on the screen
 *   :resize COLS ROWS  the terminal changes size
 *   :click X Y         a left click at screen cell (X, Y)
 *   :dump FILE         writes the screen as text (relative paths under
 *                      $CUDBG_TEST_DUMP_DIR when set)
 *   :mask-hex          later dumps show addresses (0x and 4+ hex digits)
 *                      as 0x… so they do not depend on the build
 *   :mask PREFIX       later dumps show digits right after PREFIX as N
 *                      ("process " for pids), blanks of that line squeezed
 *   :assert-text TEXT  fails unless TEXT is on the screen now
 *   :assert-no-text TEXT  fails when TEXT is on the screen now
 *   :mark-diagnoses    remembers how many analyses the screen has run
 *   :assert-diagnoses N  fails unless N analyses ran since the mark
 *                      (view actions run none: tests/screens/
 *                      hints_views_compute_nothing.script)
 *   :focus PANE        focuses the pane of that name (tui/panes/panes.def)
 *   :quit              ends the run now (without asking)
 * Waits are on events with a bound ($CUDBG_TEST_WAIT seconds, default 30);
 * a wait that runs out fails the script and dumps the screen to stderr. */
#ifndef CUDBG_TUI_SCRIPT_H
#define CUDBG_TUI_SCRIPT_H

#include <stddef.h>

struct loop;
struct script;

enum script_status {
	SCRIPT_RUN,  /* more steps to run now */
	SCRIPT_WAIT, /* waiting for an event */
	SCRIPT_DONE,
	SCRIPT_FAIL,
};

/* Returns NULL with a message in err on failure. */
struct script *script_load(const char *path, char *err, size_t cap);
void script_free(struct script *s); /* accepts NULL */

/* Runs steps until one has to wait, or the end. */
enum script_status script_run(struct script *s, struct loop *L);
/* Milliseconds until the current wait runs out, -1 when not waiting. */
int script_timeout_ms(const struct script *s);
/* Why it failed. */
const char *script_error(const struct script *s);

#endif
