/* Fuzz target: the transcript reader and the replay engine.  Any bytes
 * must give either an error message or a transcript that the engine can
 * answer commands from, without crashing. */
#include "cudbg/transcript.h"
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

static void sink(void *ctx, char tag, const char *text, size_t len,
		 bool more, double t)
{
	size_t *n = ctx;
	(void)t;
	(void)more;
	/* Touch the first and last byte so a bad pointer shows. */
	*n += len + (size_t)tag;
	if (len)
		*n += (unsigned char)text[0] + (unsigned char)text[len - 1];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct transcript *t;
	char err[256];
	if (transcript_parse((const char *)data, size, "fuzz", &t, err,
			     sizeof err) != 0)
		return 0;
	/* Ask it every recorded command twice (in order, then again: the
	 * lookups), plus commands it does not hold. */
	size_t ncmd = 0, n_rec = transcript_count(t);
	for (size_t i = 0; i < n_rec; i++)
		ncmd += transcript_tag(t, i) == '>';
	char **cmds = ncmd ? calloc(ncmd, sizeof *cmds) : NULL;
	size_t *lens = ncmd ? malloc(ncmd * sizeof *lens) : NULL;
	if (ncmd && (!cmds || !lens)) {
		free(cmds);
		free(lens);
		transcript_free(t);
		return 0;
	}
	/* Texts are valid until the next read: the commands are copied. */
	size_t k = 0;
	for (size_t i = 0; i < n_rec; i++) {
		struct transcript_entry e;
		if (transcript_tag(t, i) != '>' || transcript_get(t, i, &e))
			continue;
		cmds[k] = malloc(e.len ? e.len : 1);
		if (!cmds[k])
			continue;
		memcpy(cmds[k], e.text, e.len);
		lens[k++] = e.len;
	}
	ncmd = k;
	struct replay *r = replay_new(t); /* owns t */
	if (r) {
		size_t n = 0;
		replay_banner(r, sink, &n);
		for (int round = 0; round < 2; round++)
			for (k = 0; k < ncmd; k++)
				n += replay_ends_running(r, replay_answer(
					r, cmds[k], lens[k], sink, &n));
		replay_answer(r, "7-inferior-tty-set /dev/null", 28, sink, &n);
		replay_answer(r, "8-no-such", 9, sink, &n);
		replay_answer(r, "9-gdb-exit", 10, sink, &n);
		replay_free(r);
	}
	for (k = 0; k < ncmd; k++)
		free(cmds[k]);
	free(cmds);
	free(lens);
	return 0;
}
