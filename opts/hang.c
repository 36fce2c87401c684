/* Hangs in the frontends (batch/hang.h). */
#include "opts/hang.h"

#include <stdio.h>
#include <string.h>

int hang_replay_wait_ms(double recorded_seconds, bool realtime)
{
	int quiet = 1500;
	if (realtime && recorded_seconds > 0)
		return (int)(recorded_seconds * 1000) + quiet;
	/* batch and the screen end this wait as soon as the run is
	 * answered (batch.c replay_hang, tui/glue_hang.c): this is only the
	 * bound for a replay that never answers it */
	return quiet;
}
