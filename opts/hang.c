/* Hangs in the frontends (batch/hang.h). */
#include "opts/hang.h"
#include "cudbg/transcript.h"

#include <stdio.h>
#include <string.h>

struct scan {
	bool running;     /* a run began and no stop followed */
	double run_t;     /* when it began */
	double found;     /* -1 until an interrupt of a running program */
};

static bool starts(const struct transcript_entry *e, const char *w)
{
	size_t n = strlen(w);
	return e->len >= n && memcmp(e->text, w, n) == 0;
}

static int scan_line(void *ctx, const struct transcript_entry *e,
		     size_t full_len)
{
	(void)full_len;
	struct scan *s = ctx;
	if (e->tag == TRANSCRIPT_OUT) {
		/* results and async records may carry a token */
		const struct transcript_entry *p = e;
		size_t i = 0;
		while (i < p->len && p->text[i] >= '0' && p->text[i] <= '9')
			i++;
		struct transcript_entry rest = *p;
		rest.text += i;
		rest.len -= i;
		if ((starts(&rest, "*running") || starts(&rest, "^running")) &&
		    !s->running) {
			s->running = true;
			s->run_t = e->t;
		} else if (starts(&rest, "*stopped")) {
			s->running = false;
		}
		return 0;
	}
	if (e->tag != TRANSCRIPT_CMD || !s->running)
		return 0;
	size_t blen;
	uint64_t tok;
	const char *body = transcript_command_body(e->text, e->len, &blen,
						   &tok);
	if (blen >= 15 && memcmp(body, "-exec-interrupt", 15) == 0) {
		s->found = e->t - s->run_t;
		return 1;
	}
	return 0;
}

double hang_recorded_seconds(const char *transcript)
{
	struct scan s = { .found = -1 };
	char err[256];
	if (!transcript)
		return -1;
	transcript_scan(transcript, 256, scan_line, &s, err, sizeof err);
	return s.found < 0 ? -1 : s.found;
}

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
