/* Hangs in the frontends: --timeout turned into an interrupt, and how a
 * replay (which has no clock) stands in for one.  See include/cudbg/hang.h
 * for the summary itself and docs/user-guide.md "Hangs".
 *
 * Code: opts/hang.c (below the frontends: batch and the screen use it).
 */
#ifndef CUDBG_TUI_HANG_H
#define CUDBG_TUI_HANG_H

#include <stdbool.h>

/* (A recording's interrupt of a running program, which a replay stands
 * for --timeout with: diag_run_replay_hang_seconds, read with the
 * replay's other notes in one scan.) */

/* The quiet time after which a replay that recorded an interrupt counts
 * as still running: its records come at once (realtime: at their
 * recorded pace, so the recorded seconds and this). */
int hang_replay_wait_ms(double recorded_seconds, bool realtime);

#endif
