/* Hangs in the frontends: --timeout turned into an interrupt, and how a
 * replay (which has no clock) stands in for one.  See include/cudbg/hang.h
 * for the summary itself and docs/user-guide.md "Hangs".
 *
 * Code: opts/hang.c (below the frontends: batch and the screen use it).
 */
#ifndef CUDBG_TUI_HANG_H
#define CUDBG_TUI_HANG_H

#include <stdbool.h>

/* In a recording: the seconds between the start of the program's last
 * run and a recorded -exec-interrupt while it was still running (no
 * *stopped in between), or -1 when the recording holds no such
 * interrupt.  A replay has no clock: this recorded interrupt is what
 * --timeout stands for (the replay interrupts where the recording did
 * and reports the recorded time). */
double hang_recorded_seconds(const char *transcript);

/* The quiet time after which a replay that recorded an interrupt counts
 * as still running: its records come at once (realtime: at their
 * recorded pace, so the recorded seconds and this). */
int hang_replay_wait_ms(double recorded_seconds, bool realtime);

#endif
