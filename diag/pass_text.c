/* The memcheck pass's text output, and its XML report, kept in a
 * recording as "#" notes
 * (include/cudbg/memcheck.h, docs/transcript-format.md).  The live pass
 * reads compute-sanitizer's text ("N bytes after the nearest allocation
 * at 0x.. of size 400 bytes", the program's own device-assert message);
 * the XML report lacks it, so without the notes a replay with
 * --sanitizer-report diagnosed less than the run it recorded.
 *
 * Encoding, one note per line of the text:
 *   sanitizer| LINE    a line that ended in '\n'
 *   sanitizer+ REST    more of the line before (a note holds at most
 *                      about 1 KB: session_note's buffer)
 *   sanitizer= LINE    the text's last line, which had no '\n'
 * LINE escapes '\\' as "\\\\", control bytes and a note's trailing space
 * as "\xHH", so a note is one transcript line and nothing is trimmed.
 * The XML report goes the same way under "sanxml" (sanxml| LINE ...): a
 * recording is then the whole session, and its replay names what the
 * XML alone gives (a Python program's script line, issue 29 item 7). */
#include "cudbg/memcheck.h"
#include "cudbg/session.h"
#include "cudbg/transcript.h"
#include "diag/internal.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Raw bytes per note: escaped at most 4x, well inside session_note's
 * 1024-byte buffer with the prefix. */
#define PIECE 200

static void note_line(diag_pass_note_fn emit, void *ctx, const char *pre,
		      const char *p, size_t n, bool ended)
{
	struct dbuf b = {0};
	size_t off = 0;
	do {
		size_t k = n - off > PIECE ? PIECE : n - off;
		bool first = off == 0;
		b.len = 0;
		dbuf_put(&b, "", 0);
		note_escape(&b, p + off, k);
		if (b.oom)
			break;
		char tag = !first ? '+' : ended ? '|' : '=';
		char *note = NULL;
		if (asprintf(&note, "%s%c %s", pre, tag, b.s) >= 0) {
			emit(ctx, note);
			free(note);
		}
		off += k;
	} while (off < n);
	dbuf_free(&b);
}

void diag_pass_notes(const char *pre, const char *text, size_t len,
		     diag_pass_note_fn emit, void *ctx)
{
	size_t i = 0;
	while (text && i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		note_line(emit, ctx, pre, text + i, n, nl != NULL);
		i += n + (nl != NULL);
	}
}

static void to_session(void *ctx, const char *note)
{
	session_note(ctx, "%s", note);
}

void diag_pass_text_note(struct session *s, const char *text, size_t len)
{
	if (s)
		diag_pass_notes("sanitizer", text, len, to_session, s);
}

void diag_pass_xml_note(struct session *s, const char *xml, size_t len)
{
	if (s)
		diag_pass_notes("sanxml", xml, len, to_session, s);
}

struct reader {
	const char *pre; /* "sanitizer" or "sanxml" */
	struct dbuf text;
	bool open_line; /* the last note's line still wants its '\n' */
	bool any;
};

static int on_entry(void *ctx, const struct transcript_entry *e,
		    size_t full_len)
{
	struct reader *r = ctx;
	size_t pl = strlen(r->pre);
	if (e->tag != TRANSCRIPT_NOTE || e->len < pl + 1 ||
	    memcmp(e->text, r->pre, pl) != 0)
		return 0;
	char tag = e->text[pl];
	if (tag != '|' && tag != '+' && tag != '=')
		return 0;
	size_t skip = pl + 1 + (e->len > pl + 1 && e->text[pl + 1] == ' ');
	size_t n = (full_len < e->len ? full_len : e->len) - skip;
	if (tag != '+' && r->open_line)
		dbuf_putc(&r->text, '\n');
	note_unescape(&r->text, e->text + skip, n);
	if (tag != '+')
		r->open_line = tag == '|';
	r->any = true;
	return 0;
}

struct readers {
	struct reader *v;
	size_t n;
};

static int on_entries(void *ctx, const struct transcript_entry *e,
		      size_t full_len)
{
	struct readers *rs = ctx;
	for (size_t i = 0; i < rs->n; i++)
		on_entry(&rs->v[i], e, full_len);
	return 0;
}

/* A reader's text once the scan is over: malloc'd, NULL when it found no
 * note (or out of memory: said in err). */
static char *reader_take(struct reader *r, const char *path, size_t *len,
			 char *err, size_t cap)
{
	*len = 0;
	if (!r->any) {
		dbuf_free(&r->text);
		return NULL;
	}
	if (r->open_line)
		dbuf_putc(&r->text, '\n');
	if (r->text.oom) {
		dbuf_free(&r->text);
		snprintf(err, cap, "%s: out of memory reading its %s notes",
			 path, r->pre);
		return NULL;
	}
	*len = r->text.len;
	return dbuf_take(&r->text);
}

/* One line, formatted, as PRE's note in s's recording (no-op when s is
 * NULL or it could not be formatted). */
static void recording_note(struct session *s, const char *pre,
			   const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void recording_note(struct session *s, const char *pre,
			   const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (s && n > 0)
		diag_pass_notes(pre, line, (size_t)n, to_session, s);
	if (n >= 0)
		free(line);
}

void diag_child_death_note(struct session *s, long pid, int sig,
			   const char *cmd)
{
	recording_note(s, "childdeath", "%ld %d %s\n", pid, sig, cmd ? cmd : "");
}


void diag_child_events_note(struct session *s, const char *why)
{
	recording_note(s, "childevents", "%s\n", why);
}

void diag_interrupt_note(struct session *s, int sig)
{
	recording_note(s, "interrupt", "%d\n", sig);
}

struct ended {
	char *out;
	size_t cap;
	bool found;
	int status;     /* DIAG_PASS_EXIT_NOTE's, 0 when none */
};

static bool note_starts(const struct transcript_entry *e, const char *pre,
			size_t n)
{
	return e->tag == TRANSCRIPT_NOTE && e->len >= n &&
	       memcmp(e->text, pre, n) == 0;
}

static int on_ended(void *ctx, const struct transcript_entry *e,
		    size_t full_len)
{
	struct ended *x = ctx;
	static const char pre[] = "memcheck pass ended after ";
	static const char ex[] = DIAG_PASS_EXIT_NOTE;
	(void)full_len;
	if (!x->found && note_starts(e, pre, sizeof pre - 1)) {
		size_t n = e->len < x->cap - 1 ? e->len : x->cap - 1;
		memcpy(x->out, e->text, n);
		x->out[n] = '\0';
		x->found = true;
	} else if (x->found && !x->status && note_starts(e, ex, sizeof ex - 1)) {
		int v = 0;
		for (size_t i = sizeof ex - 1; i < e->len && v < 1000 &&
		     e->text[i] >= '0' && e->text[i] <= '9'; i++)
			v = v * 10 + (e->text[i] - '0');
		x->status = v;
	}
	return 0;
}

/* "program| WORD" notes, one word each (mi/session_start.c). */
struct words {
	char **v;
	size_t n;
	bool oom;
};

static int on_program(void *ctx, const struct transcript_entry *e,
		      size_t full_len)
{
	static const char pre[] = "program| ";
	struct words *w = ctx;
	if (!note_starts(e, pre, sizeof pre - 1) || w->oom)
		return 0;
	if (full_len > e->len || w->n >= 4096) {
		w->oom = true; /* a word cut short: no command, not a wrong one */
		return 0;
	}
	struct dbuf b = {0};
	note_unescape(&b, e->text + sizeof pre - 1, e->len - (sizeof pre - 1));
	char *word = dbuf_take(&b);
	char **v = word ? realloc(w->v, (w->n + 2) * sizeof *v) : NULL;
	if (!v) {
		free(word);
		w->oom = true;
		return 0;
	}
	w->v = v;
	v[w->n++] = word;
	v[w->n] = NULL;
	return 0;
}

/* A recorded interrupt of a running program (diag_replay_notes's
 * hang_seconds): a run begins with "*running" or "^running" (after any
 * token), a "*stopped" ends it, and the first -exec-interrupt sent while
 * one runs is the hang the recording stands for. */
struct hang_scan {
	bool running;     /* a run began and no stop followed */
	double run_t;     /* when it began */
	double found;     /* -1 until an interrupt of a running program */
};

static void on_hang(struct hang_scan *h, const struct transcript_entry *e)
{
	if (h->found >= 0)
		return;
	if (e->tag == TRANSCRIPT_OUT) {
		/* results and async records may carry a token */
		size_t i = 0;
		while (i < e->len && e->text[i] >= '0' && e->text[i] <= '9')
			i++;
		const char *rest = e->text + i;
		size_t n = e->len - i;
		if ((text_starts(rest, n, "*running") ||
		     text_starts(rest, n, "^running")) && !h->running) {
			h->running = true;
			h->run_t = e->t;
		} else if (text_starts(rest, n, "*stopped")) {
			h->running = false;
		}
		return;
	}
	if (e->tag != TRANSCRIPT_CMD || !h->running)
		return;
	size_t blen;
	uint64_t tok;
	const char *body = transcript_command_body(e->text, e->len, &blen,
						   &tok);
	if (blen >= 15 && memcmp(body, "-exec-interrupt", 15) == 0)
		h->found = e->t - h->run_t;
}

/* Every note a replay reads, in one scan of the recording: four readers
 * of PRE| notes, the program's words, the pass's end and a hang's
 * interrupt. */
struct replay_scan {
	struct readers rs;
	struct words w;
	struct ended x;
	struct hang_scan h;
};

static int on_replay_entry(void *ctx, const struct transcript_entry *e,
			   size_t full_len)
{
	struct replay_scan *s = ctx;
	on_entries(&s->rs, e, full_len);
	on_program(&s->w, e, full_len);
	on_ended(&s->x, e, full_len);
	on_hang(&s->h, e);
	return 0;
}

int diag_replay_notes_read(const char *path, struct diag_replay_notes *n,
			   char *err, size_t cap)
{
	static const char *const pres[] = { "sanitizer", "sanxml",
					    "childdeath", "childevents",
					    "interrupt" };
	enum { N_PRES = sizeof pres / sizeof pres[0] };
	struct reader v[N_PRES] = { 0 };
	struct replay_scan s = { .rs = { v, N_PRES }, .h = { .found = -1 } };
	struct stat st;
	memset(n, 0, sizeof *n);
	n->hang_seconds = -1;
	s.x = (struct ended){ n->ended_note, sizeof n->ended_note, false, 0 };
	if (cap)
		err[0] = '\0';
	/* A pipe or a FIFO is the replay's own input: reading it here would
	 * take its bytes from the replay (such a replay goes without the
	 * notes). */
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	for (size_t i = 0; i < N_PRES; i++)
		v[i].pre = pres[i];
	/* (64 KiB of each entry: a program's word is kept whole up to it) */
	if (transcript_scan(path, 65536, on_replay_entry, &s, err, cap) < 0) {
		for (size_t i = 0; i < N_PRES; i++)
			dbuf_free(&v[i].text);
		diag_recorded_program_free(s.w.v);
		return -1;
	}
	size_t len;
	n->pass_text = reader_take(&v[0], path, &n->pass_len, err, cap);
	n->pass_xml = reader_take(&v[1], path, &n->xml_len, err, cap);
	n->child_deaths = reader_take(&v[2], path, &len, err, cap);
	n->child_events = reader_take(&v[3], path, &len, err, cap);
	char *sig = reader_take(&v[4], path, &len, err, cap);
	n->interrupt_signal = sig ? atoi(sig) : 0;
	free(sig);
	if (s.w.oom || !s.w.n)
		diag_recorded_program_free(s.w.v);
	else
		n->program = s.w.v;
	n->ended = s.x.found;
	n->ended_status = s.x.status;
	n->hang_seconds = s.h.found;
	if (!n->ended)
		n->ended_note[0] = '\0';
	return cap && err[0] ? -1 : 0;
}

void diag_replay_notes_free(struct diag_replay_notes *n)
{
	free(n->pass_text);
	free(n->pass_xml);
	free(n->child_deaths);
	free(n->child_events);
	diag_recorded_program_free(n->program);
	memset(n, 0, sizeof *n);
	n->hang_seconds = -1;
}

void diag_recorded_program_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

char *diag_pass_text_read(const char *path, size_t *len, char *err,
			  size_t cap)
{
	struct diag_replay_notes n;
	char *text = NULL;
	*len = 0;
	if (diag_replay_notes_read(path, &n, err, cap) == 0) {
		text = n.pass_text;
		*len = n.pass_len;
		n.pass_text = NULL;
	}
	diag_replay_notes_free(&n);
	return text;
}
