/* Transcript reading and writing (see include/cudbg/transcript.h). */
#include "cudbg/transcript.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

__attribute__((format(printf, 4, 5)))
static int fail(int code, char *err, size_t cap, const char *fmt, ...)
{
	if (err && cap) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, cap, fmt, ap);
		va_end(ap);
	}
	return code;
}

static const char format_hint[] =
	"not a transcript line (want 'SECONDS TAG TEXT', TAG one of > < E T #)";

/* ---- one line ------------------------------------------------------------ */

static bool is_tag(char c)
{
	return c == '>' || c == '<' || c == 'E' || c == 'T' || c == '#';
}

/* SECONDS: digits with an optional fraction.  Parsed by hand because the
 * line is not NUL ended. */
static size_t parse_seconds(const char *s, size_t len, double *out)
{
	size_t i = 0;
	double v = 0;
	while (i < len && s[i] >= '0' && s[i] <= '9' && i < 15)
		v = v * 10 + (s[i++] - '0');
	if (i == 0)
		return 0;
	if (i < len && s[i] == '.') {
		double scale = 0.1;
		size_t start = ++i;
		while (i < len && s[i] >= '0' && s[i] <= '9' && i - start < 9) {
			v += (s[i++] - '0') * scale;
			scale /= 10;
		}
		if (i == start)
			return 0;
	}
	*out = v;
	return i;
}

int transcript_parse_line(const char *line, size_t len,
			  struct transcript_entry *e)
{
	size_t i = 0;
	while (i < len && line[i] == ' ')
		i++;
	size_t n = parse_seconds(line + i, len - i, &e->t);
	if (n == 0)
		return TRANSCRIPT_EFORMAT;
	i += n;
	if (i + 2 > len || line[i] != ' ' || !is_tag(line[i + 1]))
		return TRANSCRIPT_EFORMAT;
	e->tag = line[i + 1];
	i += 2;
	if (i == len) {          /* "SECONDS TAG" with an empty text */
		e->text = line + i;
		e->len = 0;
		return 0;
	}
	if (line[i] != ' ')
		return TRANSCRIPT_EFORMAT;
	e->text = line + i + 1;
	e->len = len - i - 1;
	return 0;
}

const char *transcript_command_body(const char *cmd, size_t len,
				    size_t *body_len, uint64_t *token)
{
	const char *p = cmd, *end = cmd + len;
	uint64_t tok = 0;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (p < end && *p >= '0' && *p <= '9') {
		tok = tok * 10 + (uint64_t)(*p - '0');
		p++;
	}
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' ||
			   end[-1] == '\r'))
		end--;
	if (token)
		*token = tok;
	if (body_len)
		*body_len = (size_t)(end - p);
	return p;
}

/* ---- limits and cancellation ------------------------------------------ */

/* A record longer than a live session's MI line cap (mi/session.c
 * MAX_MI_LINE) would be dropped by the session's parser anyway; a replay
 * drops it while reading, so a 200 MB console line costs nothing and is
 * not mistaken for "not a debugger" when it comes first. */
#define MAX_RECORD ((size_t)128 << 20)
#define CHUNK ((size_t)1 << 20)

static size_t max_bytes = TRANSCRIPT_MAX_BYTES_DEFAULT;
static volatile sig_atomic_t *cancel_flag;

void transcript_set_max_bytes(size_t max)
{
	max_bytes = max ? max : TRANSCRIPT_MAX_BYTES_DEFAULT;
}

size_t transcript_max_bytes(void)
{
	return max_bytes;
}

void transcript_set_cancel(volatile sig_atomic_t *flag)
{
	cancel_flag = flag;
}

static int cancelled(void)
{
	return cancel_flag ? (int)*cancel_flag : 0;
}

/* ---- input: a plain file, a pipe, or a gzip child ----------------------- */

struct source {
	int fd;
	pid_t gz;      /* gzip -dc child, or 0 */
	int gz_err;    /* its stderr */
	char back[2];  /* bytes read to test a pipe for gzip magic */
	size_t nback;
	size_t total;  /* bytes read so far (decompressed) */
	bool seekable; /* a regular file: its size is known */
	size_t size;
	int why;       /* TRANSCRIPT_ETOOBIG / ECANCEL after a read of -1 */
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int spawn_gzip(struct source *src, const char *path, char *err,
		      size_t cap)
{
	int out[2], er[2];
	if (pipe2(out, O_CLOEXEC) < 0)
		return fail(TRANSCRIPT_EOPEN, err, cap, "%s: pipe: %s", path,
			    strerror(errno));
	if (pipe2(er, O_CLOEXEC) < 0) {
		close(out[0]);
		close(out[1]);
		return fail(TRANSCRIPT_EOPEN, err, cap, "%s: pipe: %s", path,
			    strerror(errno));
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, er[1], 2);
	char a0[] = "gzip", a1[] = "-dc", a2[] = "--";
	char *argv[] = { a0, a1, a2, (char *)(uintptr_t)path, NULL };
	int rc = posix_spawnp(&src->gz, "gzip", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	close(er[1]);
	if (rc != 0) {
		src->gz = 0;
		close(out[0]);
		close(er[0]);
		return fail(TRANSCRIPT_EOPEN, err, cap, "%s: cannot run gzip "
			    "to read it: %s (install gzip)", path,
			    strerror(rc));
	}
	src->fd = out[0];
	src->gz_err = er[0];
	return 0;
}

/* What the file is, when it cannot be a transcript: a directory, a
 * terminal or a device (/dev/zero would be read forever). */
static int check_kind(int fd, const struct stat *st, const char *path,
		      char *err, size_t cap)
{
	if (S_ISDIR(st->st_mode))
		return fail(TRANSCRIPT_EOPEN, err, cap, "%s: is a directory, "
			    "not a transcript", path);
	if (isatty(fd))
		return fail(TRANSCRIPT_EOPEN, err, cap, "%s: is a terminal, "
			    "not a transcript; give a recording (--record "
			    "FILE) or pipe one in", path);
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		return fail(TRANSCRIPT_EOPEN, err, cap, "%s: is a device, not "
			    "a transcript; give a recording (--record FILE)",
			    path);
	return 0;
}

/* A pipe is read once, as it comes: its first two bytes tell gzip data,
 * which cannot be handed to gzip by name (they are already read). */
static int open_pipe(struct source *src, int fd, const char *path,
		     char *err, size_t cap)
{
	ssize_t n = 0;
	while (src->nback < 2) {
		do
			n = read(fd, src->back + src->nback, 2 - src->nback);
		while (n < 0 && errno == EINTR && !cancelled());
		if (n <= 0)
			break;
		src->nback += (size_t)n;
	}
	if (n < 0) {
		int e = errno;
		close(fd);
		if (cancelled())
			return fail(TRANSCRIPT_ECANCEL, err, cap, "%s: reading "
				    "stopped by signal %d", path, cancelled());
		return fail(TRANSCRIPT_EOPEN, err, cap, "%s: read failed: %s",
			    path, strerror(e));
	}
	if (ends_with(path, ".gz") || (src->nback == 2 &&
	    (unsigned char)src->back[0] == 0x1f &&
	    (unsigned char)src->back[1] == 0x8b)) {
		close(fd);
		return fail(TRANSCRIPT_EOPEN, err, cap, "%s: compressed data "
			    "through a pipe; give the .gz file itself, or "
			    "pipe it through 'gzip -dc'", path);
	}
	src->fd = fd;
	return 0;
}

static int source_open(struct source *src, const char *path, char *err,
		       size_t cap)
{
	*src = (struct source){ .fd = -1, .gz_err = -1 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(TRANSCRIPT_EOPEN, err, cap, "cannot open transcript "
			    "%s: %s", path, strerror(errno));
	struct stat st;
	int rc = fstat(fd, &st) < 0
		 ? fail(TRANSCRIPT_EOPEN, err, cap, "%s: %s", path,
			strerror(errno))
		 : check_kind(fd, &st, path, err, cap);
	if (rc) {
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode))
		return open_pipe(src, fd, path, err, cap);
	unsigned char magic[2] = { 0, 0 };
	ssize_t n = pread(fd, magic, 2, 0);
	/* gzip data is recognised by its magic bytes too, whatever the
	 * name says. */
	bool gz = ends_with(path, ".gz") ||
		  (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b);
	if (!gz) {
		src->fd = fd;
		src->seekable = true;
		src->size = (size_t)st.st_size;
		return 0;
	}
	close(fd);
	return spawn_gzip(src, path, err, cap);
}

/* Closes; for gzip, checks how it ended.  `early`: the reader stopped
 * before EOF (gzip is killed, its status does not count). */
static int source_close(struct source *src, const char *path, bool early,
			char *err, size_t cap)
{
	if (src->fd >= 0)
		close(src->fd);
	src->fd = -1;
	if (!src->gz)
		return 0;
	if (early)
		kill(src->gz, SIGTERM); /* before reading its stderr: a gzip
					 * still writing would never close it */
	char buf[256] = "";
	ssize_t n = read(src->gz_err, buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = 0;
	char *msg = buf + strspn(buf, "\n "); /* gzip may start with \n */
	char *nl = strchr(msg, '\n');
	if (nl)
		*nl = 0;
	close(src->gz_err);
	int st = 0;
	while (waitpid(src->gz, &st, 0) < 0 && errno == EINTR)
		;
	src->gz = 0;
	if (early)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		return fail(TRANSCRIPT_EOPEN, err, cap, "%s: gzip not found; "
			    "install gzip to read compressed transcripts",
			    path);
	if (strstr(msg, "unexpected end of file"))
		return fail(TRANSCRIPT_ETRUNC, err, cap, "%s: the compressed "
			    "transcript is cut short (gzip: unexpected end of "
			    "file)", path);
	return fail(TRANSCRIPT_EOPEN, err, cap, "%s: cannot decompress it: %s",
		    path, msg[0] ? msg : "gzip failed");
}

/* Reads some bytes.  Waits in poll, which a signal always interrupts
 * (read on a pipe restarts under SA_RESTART), so a termination request
 * (transcript_set_cancel) ends even a wait on a silent pipe.  Returns -1
 * with src->why set when cancelled or over the size limit. */
static ssize_t source_read(struct source *src, char *buf, size_t len)
{
	if (src->nback) {
		size_t k = src->nback < len ? src->nback : len;
		memcpy(buf, src->back, k);
		memmove(src->back, src->back + k, src->nback - k);
		src->nback -= k;
		src->total += k;
		return (ssize_t)k;
	}
	ssize_t n;
	for (;;) {
		if (cancelled()) {
			src->why = TRANSCRIPT_ECANCEL;
			return -1;
		}
		if (src->total > max_bytes) {
			src->why = TRANSCRIPT_ETOOBIG;
			return -1;
		}
		struct pollfd pfd = { .fd = src->fd, .events = POLLIN };
		if (!src->seekable && poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		n = read(src->fd, buf, len);
		if (n >= 0 || errno != EINTR)
			break;
	}
	if (n > 0)
		src->total += (size_t)n;
	if (n > 0 && src->total > max_bytes) {
		src->why = TRANSCRIPT_ETOOBIG;
		return -1;
	}
	return n;
}

/* The message for a failed source_read. */
static int read_failed(const struct source *src, const char *path, int e,
		       char *err, size_t cap)
{
	if (src->why == TRANSCRIPT_ECANCEL)
		return fail(TRANSCRIPT_ECANCEL, err, cap, "%s: reading it "
			    "stopped by signal %d", path, cancelled());
	if (src->why == TRANSCRIPT_ETOOBIG)
		return fail(TRANSCRIPT_ETOOBIG, err, cap, "%s: over %zu MB%s, "
			    "more than cudbg-tui replays (CUDBG_REPLAY_MAX_MB "
			    "raises the limit)", path, max_bytes >> 20,
			    src->gz ? " once decompressed" : "");
	return fail(TRANSCRIPT_EOPEN, err, cap, "%s: read failed: %s", path,
		    strerror(e));
}

/* ---- whole file, line by line -------------------------------------------- */

static bool blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

/* The loader keeps the lines it takes in t->buf, one after another, and
 * indexes each as it ends.  Entries hold offsets into the buffer while it
 * may still move (realloc) and pointers once it is complete. */
struct loader {
	struct transcript *t;
	size_t cap;           /* of t->buf */
	size_t ecap;          /* of t->e */
	size_t line_start;    /* offset of the current line in t->buf */
	size_t dropped_len;   /* bytes of an over-long line being dropped */
	bool dropping;
	unsigned long lineno;
	size_t outs;
};

static int add_entry(struct loader *ld, const struct transcript_entry *e,
		     char *err, size_t cap)
{
	struct transcript *t = ld->t;
	if (t->n == ld->ecap) {
		size_t ncap = ld->ecap ? ld->ecap * 2 : 256;
		void *ne = realloc(t->e, ncap * sizeof *t->e);
		if (!ne)
			return fail(TRANSCRIPT_ENOMEM, err, cap, "%s: out of "
				    "memory", t->name);
		t->e = ne;
		ld->ecap = ncap;
	}
	t->e[t->n++] = *e;
	ld->outs += e->tag == '<';
	return 0;
}

/* A complete line at [ld->line_start, nl) of t->buf. */
static int take_line(struct loader *ld, size_t nl, char *err, size_t cap)
{
	struct transcript *t = ld->t;
	const char *p = t->buf + ld->line_start;
	size_t len = nl - ld->line_start;
	ld->lineno++;
	if (blank(p, len))
		return 0;
	struct transcript_entry e;
	if (transcript_parse_line(p, len, &e))
		return fail(TRANSCRIPT_EFORMAT, err, cap, "%s:%lu: %s", t->name,
			    ld->lineno, format_hint);
	e.line = ld->lineno;
	e.text = (const char *)(uintptr_t)(size_t)(e.text - t->buf);
	return add_entry(ld, &e, err, cap);
}

/* Room kept free behind the bytes read, for the note that replaces a
 * dropped line. */
#define SPARE 256

/* Checks the head of an over-long line (its SECONDS and TAG) in place. */
static int check_head(struct loader *ld, size_t len, char *err, size_t cap)
{
	struct transcript_entry e;
	if (transcript_parse_line(ld->t->buf + ld->line_start,
				  len < 64 ? len : 64, &e))
		return fail(TRANSCRIPT_EFORMAT, err, cap, "%s:%lu: %s",
			    ld->t->name, ld->lineno + 1, format_hint);
	return 0;
}

/* The current line passed MAX_RECORD before its end: its bytes go, and
 * the rest of it is skipped as it comes. */
static int start_dropping(struct loader *ld, char *err, size_t cap)
{
	struct transcript *t = ld->t;
	size_t len = t->buf_len - ld->line_start;
	int rc = check_head(ld, len, err, cap);
	if (rc)
		return rc;
	ld->dropping = true;
	ld->dropped_len = len;
	t->buf_len = ld->line_start;
	return 0;
}

/* The over-long line ends at `nl` (its newline; [nl + 1, *end) are the
 * next bytes): a '#' note takes its place, the next bytes follow it. */
static int replace_with_note(struct loader *ld, size_t nl, size_t *end,
			     char *err, size_t cap)
{
	struct transcript *t = ld->t;
	char note[160];
	int k = snprintf(note, sizeof note, "0 # cudbg-tui: line %lu (%zu "
			 "bytes) left out: longer than the %zu MB an MI "
			 "record may be", ld->lineno + 1, ld->dropped_len,
			 MAX_RECORD >> 20);
	size_t rest = *end - (nl + 1);
	char *at = t->buf + ld->line_start;
	memmove(at + k + 1, t->buf + nl + 1, rest); /* SPARE holds it */
	memcpy(at, note, (size_t)k);
	at[k] = '\n';
	ld->dropping = false;
	*end = ld->line_start + (size_t)k + 1 + rest;
	int rc = take_line(ld, ld->line_start + (size_t)k, err, cap);
	ld->line_start += (size_t)k + 1;
	t->buf_len = ld->line_start;
	return rc;
}

/* Indexes the n bytes just appended at t->buf + t->buf_len. */
static int feed(struct loader *ld, size_t n, char *err, size_t cap)
{
	struct transcript *t = ld->t;
	size_t pos = t->buf_len, end = t->buf_len + n;
	int rc = 0;
	while (rc == 0 && pos < end) {
		char *nlp = memchr(t->buf + pos, '\n', end - pos);
		size_t upto = nlp ? (size_t)(nlp - t->buf) : end;
		if (ld->dropping)
			ld->dropped_len += upto - pos;
		if (!nlp) {
			t->buf_len = ld->dropping ? ld->line_start : end;
			if (!ld->dropping && end - ld->line_start > MAX_RECORD)
				rc = start_dropping(ld, err, cap);
			return rc;
		}
		if (!ld->dropping && upto - ld->line_start > MAX_RECORD) {
			ld->dropped_len = upto - ld->line_start;
			rc = check_head(ld, ld->dropped_len, err, cap);
			ld->dropping = rc == 0;
		}
		if (rc == 0 && ld->dropping) {
			rc = replace_with_note(ld, upto, &end, err, cap);
			pos = ld->line_start;
			continue;
		}
		if (rc == 0)
			rc = take_line(ld, upto, err, cap);
		pos = upto + 1;
		ld->line_start = pos;
		t->buf_len = pos;
	}
	return rc;
}

/* Entries point into the buffer once it no longer moves. */
static void fix_pointers(struct transcript *t)
{
	for (size_t i = 0; i < t->n; i++)
		t->e[i].text = t->buf + (size_t)(uintptr_t)t->e[i].text;
}

/* After the last byte: a line without an end, or no output at all. */
static int finish_load(struct loader *ld, char *err, size_t cap)
{
	struct transcript *t = ld->t;
	if (ld->dropping || t->buf_len > ld->line_start)
		return fail(TRANSCRIPT_ETRUNC, err, cap, "%s:%lu: the "
			    "transcript is cut short (its last line has no "
			    "end)", t->name, ld->lineno + 1);
	fix_pointers(t);
	if (ld->outs == 0)
		return fail(TRANSCRIPT_EEMPTY, err, cap, "%s: no debugger output "
			    "in it (no '<' lines); is it a transcript?",
			    t->name);
	return 0;
}

/* Makes room for `want` more bytes (plus SPARE) behind t->buf_len. */
static int grow(struct loader *ld, size_t want)
{
	struct transcript *t = ld->t;
	if (ld->cap - t->buf_len >= want + SPARE)
		return 0;
	size_t ncap = ld->cap ? ld->cap : want + SPARE;
	while (ncap - t->buf_len < want + SPARE)
		ncap *= 2;
	char *nb = realloc(t->buf, ncap);
	if (!nb)
		return -1;
	t->buf = nb;
	ld->cap = ncap;
	return 0;
}

static int load_source(struct loader *ld, struct source *src, char *err,
		       size_t cap)
{
	struct transcript *t = ld->t;
	if (src->seekable && src->size > max_bytes) {
		src->why = TRANSCRIPT_ETOOBIG;
		return read_failed(src, t->name, 0, err, cap);
	}
	/* A regular file's size is known: one allocation, with a little
	 * room to see its end (a doubling buffer would peak at twice the
	 * file).  A pipe grows by doubling (realloc moves big blocks by
	 * remapping, not copying). */
	if (grow(ld, src->seekable ? src->size + 4096 : CHUNK))
		return fail(TRANSCRIPT_ENOMEM, err, cap, "%s: out of memory "
			    "reading it", t->name);
	for (;;) {
		size_t avail = ld->cap - t->buf_len - SPARE;
		if (avail < (src->seekable ? 1 : 4096)) {
			if (grow(ld, CHUNK))
				return fail(TRANSCRIPT_ENOMEM, err, cap, "%s: out "
					    "of memory reading it", t->name);
			avail = ld->cap - t->buf_len - SPARE;
		}
		if (avail > CHUNK * 16) /* a flag check every 16 MB */
			avail = CHUNK * 16;
		ssize_t n = source_read(src, t->buf + t->buf_len, avail);
		if (n < 0)
			return read_failed(src, t->name, errno, err, cap);
		if (n == 0)
			return 0;
		int rc = feed(ld, (size_t)n, err, cap);
		if (rc)
			return rc;
	}
}

static struct transcript *new_transcript(const char *name)
{
	struct transcript *t = calloc(1, sizeof *t);
	if (t && !(t->name = strdup(name))) {
		free(t);
		t = NULL;
	}
	return t;
}

int transcript_load(const char *path, struct transcript **out, char *err,
		    size_t cap)
{
	*out = NULL;
	struct transcript *t = new_transcript(path);
	if (!t)
		return fail(TRANSCRIPT_ENOMEM, err, cap, "out of memory");
	struct source src;
	int rc = source_open(&src, path, err, cap);
	if (rc) {
		transcript_free(t);
		return rc;
	}
	struct loader ld = { .t = t };
	rc = load_source(&ld, &src, err, cap);
	int crc = source_close(&src, path, rc != 0, err, cap);
	if (rc == 0)
		rc = crc;
	if (rc == 0)
		rc = finish_load(&ld, err, cap);
	if (rc) {
		transcript_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

int transcript_parse(const char *buf, size_t len, const char *name,
		     struct transcript **out, char *err, size_t cap)
{
	*out = NULL;
	struct transcript *t = new_transcript(name);
	struct loader ld = { .t = t };
	if (!t || grow(&ld, len ? len : 1)) {
		transcript_free(t);
		return fail(TRANSCRIPT_ENOMEM, err, cap, "out of memory");
	}
	if (len)
		memcpy(t->buf, buf, len);
	int rc = feed(&ld, len, err, cap);
	if (rc == 0)
		rc = finish_load(&ld, err, cap);
	if (rc) {
		transcript_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void transcript_free(struct transcript *t)
{
	if (!t)
		return;
	free(t->e);
	free(t->buf);
	free(t->name);
	free(t);
}

/* ---- streaming ----------------------------------------------------------- */

struct scanner {
	char *pre;          /* the first bytes of the current line */
	size_t pre_len, pre_cap;
	size_t total;       /* bytes of the current line so far */
	unsigned long line;
	size_t outs;
};

static int scan_end_line(struct scanner *sc, const char *path, size_t keep,
			 int (*fn)(void *, const struct transcript_entry *,
				   size_t),
			 void *ctx, char *err, size_t cap)
{
	struct transcript_entry e;
	sc->line++;
	size_t total = sc->total;
	sc->total = sc->pre_len = 0;
	if (total <= sc->pre_cap && blank(sc->pre, total))
		return 0;
	size_t stored = total < sc->pre_cap ? total : sc->pre_cap;
	if (transcript_parse_line(sc->pre, stored, &e))
		return fail(TRANSCRIPT_EFORMAT, err, cap, "%s:%lu: %s", path,
			    sc->line, format_hint);
	size_t head = (size_t)(e.text - sc->pre);
	size_t full = total - head;
	if (e.len > keep)
		e.len = keep;
	e.line = sc->line;
	sc->outs += e.tag == '<';
	return fn ? fn(ctx, &e, full) : 0;
}

static void scan_take(struct scanner *sc, const char *s, size_t n)
{
	if (sc->pre_len < sc->pre_cap) {
		size_t room = sc->pre_cap - sc->pre_len;
		size_t k = n < room ? n : room;
		memcpy(sc->pre + sc->pre_len, s, k);
		sc->pre_len += k;
	}
	sc->total += n;
}

int transcript_scan(const char *path, size_t keep,
		    int (*fn)(void *ctx, const struct transcript_entry *e,
			      size_t full_len),
		    void *ctx, char *err, size_t cap)
{
	struct source src;
	int rc = source_open(&src, path, err, cap);
	if (rc)
		return rc;
	struct scanner sc = { .pre_cap = keep + 64 };
	sc.pre = malloc(sc.pre_cap);
	char *chunk = malloc(1 << 16);
	ssize_t n = 0;
	rc = (!sc.pre || !chunk) ? fail(TRANSCRIPT_ENOMEM, err, cap,
					"out of memory") : 0;
	while (rc == 0 && (n = source_read(&src, chunk, 1 << 16)) > 0) {
		const char *p = chunk, *end = chunk + n;
		while (rc == 0 && p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t take = nl ? (size_t)(nl - p) : (size_t)(end - p);
			scan_take(&sc, p, take);
			if (!nl)
				break;
			rc = scan_end_line(&sc, path, keep, fn, ctx, err, cap);
			p = nl + 1;
		}
	}
	if (rc == 0 && n < 0)
		rc = read_failed(&src, path, errno, err, cap);
	int crc = source_close(&src, path, rc != 0, err, cap);
	if (rc == 0 && crc)
		rc = crc;
	if (rc == 0 && sc.total > 0)
		rc = fail(TRANSCRIPT_ETRUNC, err, cap, "%s:%lu: the transcript "
			  "is cut short (its last line has no end)", path,
			  sc.line + 1);
	if (rc == 0 && sc.outs == 0)
		rc = fail(TRANSCRIPT_EEMPTY, err, cap, "%s: no debugger output "
			  "in it (no '<' lines); is it a transcript?", path);
	free(sc.pre);
	free(chunk);
	return rc;
}

/* ---- writer -------------------------------------------------------------- */

struct transcript_writer {
	int fd;
	bool failed;
	off_t line_at; /* where the line being written in pieces starts */
};

struct transcript_writer *transcript_writer_open(const char *path, bool force,
						 char *err, size_t cap)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_APPEND |
		    (force ? O_TRUNC : O_EXCL);
	int fd = open(path, flags, 0666);
	if (fd < 0) {
		if (errno == EEXIST)
			fail(0, err, cap, "%s exists; choose another file for "
			     "--record, or add --force to overwrite it", path);
		else
			fail(0, err, cap, "cannot write the recording %s: %s",
			     path, strerror(errno));
		return NULL;
	}
	struct transcript_writer *w = calloc(1, sizeof *w);
	if (!w) {
		close(fd);
		fail(0, err, cap, "out of memory");
		return NULL;
	}
	w->fd = fd;
	return w;
}

/* One writev per line so the file never holds half a line from us
 * (unless the disk fills). */
static int write_iov(int fd, struct iovec *iov, int cnt)
{
	while (cnt > 0) {
		ssize_t n = writev(fd, iov, cnt);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		while (cnt > 0 && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

/* A write failed part way (a full disk, `ulimit -f`): the file is cut
 * back to the end of its last whole line, so it stays readable; errno
 * stays the write's own. */
static void cut_back(struct transcript_writer *w, off_t at)
{
	int e = errno;

	w->failed = true;
	if (at >= 0) {
		int r = ftruncate(w->fd, at);
		(void)r; /* /dev/full, a pipe: nothing to cut */
	}
	errno = e;
}

int transcript_write(struct transcript_writer *w, double t, char tag,
		     const char *text, size_t len)
{
	if (!w || w->failed)
		return TRANSCRIPT_EWRITE;
	const char *nl = memchr(text, '\n', len);
	if (nl)
		len = (size_t)(nl - text);
	char head[48];
	int hn = snprintf(head, sizeof head, "%8.3f %c ", t < 0 ? 0 : t, tag);
	struct iovec iov[3] = {
		{ head, (size_t)hn },
		{ (void *)(uintptr_t)text, len },
		{ (char[]){ '\n' }, 1 },
	};
	off_t at = lseek(w->fd, 0, SEEK_CUR);
	if (write_iov(w->fd, iov, 3) < 0) {
		cut_back(w, at);
		return TRANSCRIPT_EWRITE;
	}
	return 0;
}

int transcript_write_piece(struct transcript_writer *w, double t, char tag,
			   const char *text, size_t len, unsigned piece)
{
	if (!w || w->failed)
		return TRANSCRIPT_EWRITE;
	const char *nl = memchr(text, '\n', len);
	if (nl)
		len = (size_t)(nl - text);
	char head[48];
	int hn = (piece & 1) ? snprintf(head, sizeof head, "%8.3f %c ",
					t < 0 ? 0 : t, tag) : 0;
	struct iovec iov[3] = {
		{ head, (size_t)hn },
		{ (void *)(uintptr_t)text, len },
		{ (char[]){ '\n' }, (piece & 2) ? 1u : 0u },
	};
	if (piece & 1)
		w->line_at = lseek(w->fd, 0, SEEK_CUR);
	if (write_iov(w->fd, iov, 3) < 0) {
		cut_back(w, w->line_at);
		return TRANSCRIPT_EWRITE;
	}
	return 0;
}

void transcript_writer_close(struct transcript_writer *w)
{
	if (!w)
		return;
	close(w->fd);
	free(w);
}
