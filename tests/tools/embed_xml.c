/* embed_xml REC XML: writes REC to stdout with the memcheck pass's XML
 * report kept in it as "sanxml" notes (diag_pass_notes, the recorder's own
 * encoding), right after the pass's "sanitizer" text notes, where a
 * recording made today has them.  For recordings made before the XML was
 * kept (issue 29 item 7): XML is the file the same run wrote beside it.
 * Exit 0; 1 with a one-line message on stderr when REC already holds
 * the XML, has no pass notes, or a file cannot be read; 3 when its pass
 * was stopped early (as its coredump began): such a pass reads no XML,
 * and a recording made today keeps none (diag/diagrun.c). */
#include "cudbg/memcheck.h"
#include "diag/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct out {
	char stamp[32];  /* the time column of the last sanitizer note */
};

static void put_note(void *ctx, const char *note)
{
	const struct out *o = ctx;
	printf("%s # %s\n", o->stamp, note);
}

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "embed_xml: %s: %s\n", path, what);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: embed_xml RECORDING XML > NEW\n");
		return 2;
	}
	size_t rlen, xlen;
	char *rec = diag_read_small_file(argv[1], 1 << 30, &rlen);
	char *xml = diag_read_small_file(argv[2], 1 << 28, &xlen);
	if (!rec)
		return fail("cannot read it", argv[1]);
	if (!xml)
		return fail("cannot read it", argv[2]);
	if (strstr(rec, " # sanxml"))
		return fail("already holds the XML report", argv[1]);
	const char *end = strstr(rec, " # memcheck pass ended");
	const char *eoe = end ? strchr(end, '\n') : NULL;
	if (end && eoe && memmem(end, (size_t)(eoe - end), "stopped", 7)) {
		fail("its pass was stopped early and read no XML: left as it is",
		     argv[1]);
		return 3;
	}
	/* the end of the last "# sanitizer" note's line */
	const char *last = NULL;
	for (const char *p = rec; (p = strstr(p, " # sanitizer")); p++)
		last = p;
	if (!last)
		return fail("no memcheck pass notes in it", argv[1]);
	const char *bol = last;
	while (bol > rec && bol[-1] != '\n')
		bol--;
	const char *eol = strchr(last, '\n');
	size_t at = eol ? (size_t)(eol + 1 - rec) : rlen;
	struct out o;
	snprintf(o.stamp, sizeof o.stamp, "%.*s", (int)(last - bol), bol);
	fwrite(rec, 1, at, stdout);
	diag_pass_notes("sanxml", xml, xlen, put_note, &o);
	fwrite(rec + at, 1, rlen - at, stdout);
	free(rec);
	free(xml);
	return fflush(stdout) == 0 ? 0 : 1;
}
