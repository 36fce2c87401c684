/* Transcript reading and writing (see include/cudbg/transcript.h). */
#include "cudbg/transcript.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zlib.h>

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

/* ---- input: a plain file, a pipe, or a .gz read through zlib ------------ */

struct source {
	int fd;
	gzFile gz;     /* a .gz file, read through zlib, or NULL */
	char back[2];  /* bytes read to test a pipe for gzip magic */
	size_t nback;
	size_t total;  /* bytes read so far (decompressed) */
	bool seekable; /* a plain regular file: its size is known, and it
			* can be read where it is (no copy) */
	size_t size;
	int why;       /* TRANSCRIPT_ETOOBIG / ECANCEL / EOPEN (zlib) after a
			* read of -1 */
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
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
 * which is refused (a compressed stream could be inflated as it comes,
 * but the .gz file itself is the better input: it is read without the
 * copy a pipe needs). */
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

/* A .gz file: zlib reads it from the descriptor (a file named .gz that
 * holds plain text is read as it is: zlib passes it through). */
static int open_gz(struct source *src, int fd, const char *path, char *err,
		   size_t cap)
{
	src->gz = gzdopen(fd, "rb");
	if (!src->gz) {
		close(fd);
		return fail(TRANSCRIPT_ENOMEM, err, cap, "%s: out of memory "
			    "opening it", path);
	}
	gzbuffer(src->gz, 1 << 18);
	return 0;
}

static int source_open(struct source *src, const char *path, char *err,
		       size_t cap)
{
	*src = (struct source){ .fd = -1 };
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
	if (gz)
		return open_gz(src, fd, path, err, cap);
	src->fd = fd;
	src->seekable = true;
	src->size = (size_t)st.st_size;
	return 0;
}

/* zlib's message without the "<fd:3>: " it puts in front (the file
 * was opened by descriptor; the caller names it). */
static const char *zlib_message(gzFile gz, int *zerr)
{
	const char *msg = gzerror(gz, zerr);
	if (!msg || !*msg)
		return "error";
	if (strncmp(msg, "<fd:", 4) == 0 && strstr(msg, ": "))
		msg = strstr(msg, ": ") + 2;
	return msg;
}

static int gz_damaged(const char *path, const char *msg, char *err,
		      size_t cap)
{
	return fail(TRANSCRIPT_EOPEN, err, cap, "%s: cannot decompress it "
		    "(zlib: %s); the .gz file is damaged: copy or record it "
		    "again", path, msg);
}

/* A .gz that ended: zlib tells whether the stream was whole
 * (Z_BUF_ERROR: it stopped in the middle of a member). */
static int gz_check_end(gzFile gz, const char *path, char *err, size_t cap)
{
	int zerr = Z_OK;
	const char *msg = zlib_message(gz, &zerr);
	if (zerr == Z_BUF_ERROR)
		return fail(TRANSCRIPT_ETRUNC, err, cap, "%s: the compressed "
			    "transcript is cut short (zlib: %s); copy or record "
			    "it again", path, msg);
	if (zerr != Z_OK)
		return gz_damaged(path, msg, err, cap);
	return 0;
}

/* Closes what is still open.  `early`: the reader stopped before EOF
 * (how a .gz ended does not count then). */
static int source_close(struct source *src, const char *path, bool early,
			char *err, size_t cap)
{
	int rc = 0;
	if (src->gz) {
		if (!early)
			rc = gz_check_end(src->gz, path, err, cap);
		gzclose_r(src->gz);
		src->gz = NULL;
	}
	if (src->fd >= 0)
		close(src->fd);
	src->fd = -1;
	return rc;
}

/* One read from zlib; a decompression error is reported by read_failed. */
static ssize_t gz_read(struct source *src, char *buf, size_t len)
{
	if (len > (size_t)1 << 30)
		len = (size_t)1 << 30;
	int n = gzread(src->gz, buf, (unsigned)len);
	if (n < 0) {
		src->why = TRANSCRIPT_EOPEN;
		return -1;
	}
	return n;
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
		if (src->gz) {
			n = gz_read(src, buf, len);
			break;
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
	if (src->why == TRANSCRIPT_EOPEN && src->gz) {
		int zerr = Z_OK;
		const char *msg = zlib_message(src->gz, &zerr);
		if (zerr == Z_ERRNO)
			return fail(TRANSCRIPT_EOPEN, err, cap, "%s: read "
				    "failed: %s", path, strerror(e));
		return gz_damaged(path, msg, err, cap);
	}
	return fail(TRANSCRIPT_EOPEN, err, cap, "%s: read failed: %s", path,
		    strerror(e));
}

/* ---- whole file, indexed ------------------------------------------------- */

static bool blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

/* One record of the index: 16 bytes, whatever its text holds.  The time
 * is kept in milliseconds (the recorder writes 3 decimals; a replay
 * only waits by it).  The line number is not kept per record: record i
 * is on line i + 1 unless blank lines came before it, and the few
 * records where the count jumps are listed apart (struct jump). */
struct trec {
	uint64_t off;       /* its TEXT in the backing bytes (or in notes) */
	uint32_t len : 28;  /* at most MAX_RECORD (2^27) */
	uint32_t tag : 3;   /* index in tags[] */
	uint32_t note : 1;  /* text in t->notes: a dropped line's note */
	uint32_t ms;        /* SECONDS * 1000, saturates at 49 days */
};

_Static_assert(sizeof(struct trec) == 16, "an index record is 16 bytes");

static const char tags[] = "><ET#";

/* From record `rec` on, record i is on line `line` + (i - rec). */
struct jump {
	size_t rec;
	unsigned long line;
};

struct transcript {
	struct trec *rec;
	size_t n, cap;
	struct jump *jumps;
	size_t njumps, jcap;
	int fd;           /* the bytes: a file read with pread, or -1 */
	char *mem;        /* or these (transcript_parse) */
	size_t mem_len;
	char *notes;      /* texts of the notes that replace dropped lines */
	size_t notes_len, notes_cap;
	char *win;        /* read window: bytes [win_off, win_off+win_len) */
	size_t win_cap, win_len;
	uint64_t win_off;
	char *name;       /* the path it came from, for messages */
};

/* The loader indexes bytes as they come.  A line that lies inside one
 * chunk is parsed where it is; one that spans chunks is gathered in
 * lb (at most MAX_RECORD bytes: a longer one is dropped as it comes). */
struct loader {
	struct transcript *t;
	transcript_each_fn fn;
	void *ctx;
	char *lb;
	size_t lb_len, lb_cap;
	uint64_t pos;         /* offset of the next byte fed */
	uint64_t line_off;    /* offset of the current line */
	size_t line_total;    /* bytes of the current line so far */
	bool dropping;        /* it passed MAX_RECORD */
	unsigned long lineno; /* lines ended so far */
	size_t outs;
	size_t max_records;
};

/* Line numbers: a jump where record n's line is not the count's. */
static int note_line(struct transcript *t, unsigned long line)
{
	unsigned long want = t->njumps
		? t->jumps[t->njumps - 1].line + (t->n - t->jumps[t->njumps - 1].rec)
		: t->n + 1;
	if (line == want)
		return 0;
	if (t->njumps == t->jcap) {
		size_t ncap = t->jcap ? t->jcap * 2 : 16;
		void *nj = realloc(t->jumps, ncap * sizeof *t->jumps);
		if (!nj)
			return -1;
		t->jumps = nj;
		t->jcap = ncap;
	}
	t->jumps[t->njumps++] = (struct jump){ t->n, line };
	return 0;
}

static unsigned long line_of(const struct transcript *t, size_t i)
{
	size_t lo = 0, hi = t->njumps;
	while (lo < hi) { /* the first jump after record i */
		size_t mid = (lo + hi) / 2;
		if (t->jumps[mid].rec <= i)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return i + 1;
	return t->jumps[lo - 1].line + (i - t->jumps[lo - 1].rec);
}

static unsigned tag_code(char tag)
{
	return (unsigned)(strchr(tags, tag) - tags);
}

static int add_rec(struct loader *ld, const struct trec *r,
		   unsigned long line, char *err, size_t cap)
{
	struct transcript *t = ld->t;
	if (t->n + t->njumps >= ld->max_records)
		return fail(TRANSCRIPT_ETOOBIG, err, cap, "%s: over %zu "
			    "million records, more than cudbg-tui replays "
			    "(CUDBG_REPLAY_MAX_MB raises the limit)", t->name,
			    ld->max_records / 1000000);
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 1024;
		void *nr = realloc(t->rec, ncap * sizeof *t->rec);
		if (!nr)
			return fail(TRANSCRIPT_ENOMEM, err, cap, "%s: out of "
				    "memory indexing it", t->name);
		t->rec = nr;
		t->cap = ncap;
	}
	if (note_line(t, line))
		return fail(TRANSCRIPT_ENOMEM, err, cap, "%s: out of memory "
			    "indexing it", t->name);
	t->rec[t->n++] = *r;
	ld->outs += tags[r->tag] == '<';
	return 0;
}

static uint32_t to_ms(double t)
{
	double ms = t * 1000 + 0.5;
	return ms >= 4294967295.0 ? UINT32_MAX : (uint32_t)ms;
}

static int each_failed(struct loader *ld, char *err, size_t cap)
{
	return fail(TRANSCRIPT_ENOMEM, err, cap, "out of memory reading %s",
		    ld->t->name);
}

/* A whole line (no newline) of `len` bytes starting at ld->line_off. */
static int take_line(struct loader *ld, const char *s, size_t len, char *err,
		     size_t cap)
{
	ld->lineno++;
	if (blank(s, len))
		return 0;
	struct transcript_entry e;
	if (transcript_parse_line(s, len, &e))
		return fail(TRANSCRIPT_EFORMAT, err, cap, "%s:%lu: %s",
			    ld->t->name, ld->lineno, format_hint);
	e.line = ld->lineno;
	struct trec r = { .off = ld->line_off + (uint64_t)(e.text - s),
			  .len = (uint32_t)e.len, .ms = to_ms(e.t),
			  .tag = tag_code(e.tag) & 7 };
	int rc = add_rec(ld, &r, e.line, err, cap);
	if (rc == 0 && ld->fn && ld->fn(ld->ctx, &e))
		rc = each_failed(ld, err, cap);
	return rc;
}

/* A line over MAX_RECORD ended: a '#' note takes its place (kept in
 * memory, the file is not changed). */
static int take_note(struct loader *ld, char *err, size_t cap)
{
	struct transcript *t = ld->t;
	ld->lineno++;
	char note[160];
	int k = snprintf(note, sizeof note, "cudbg-tui: line %lu (%zu bytes) "
			 "left out: longer than the %zu MB an MI record may "
			 "be", ld->lineno, ld->line_total, MAX_RECORD >> 20);
	if (t->notes_cap - t->notes_len < (size_t)k) {
		size_t ncap = t->notes_cap ? t->notes_cap * 2 : 1024;
		char *nn = realloc(t->notes, ncap);
		if (!nn)
			return each_failed(ld, err, cap);
		t->notes = nn;
		t->notes_cap = ncap;
	}
	memcpy(t->notes + t->notes_len, note, (size_t)k);
	struct trec r = { .off = t->notes_len, .len = (uint32_t)k,
			  .tag = tag_code('#') & 7, .note = 1 };
	t->notes_len += (size_t)k;
	int rc = add_rec(ld, &r, ld->lineno, err, cap);
	struct transcript_entry e = { .tag = '#', .text = note,
				      .len = (size_t)k, .line = ld->lineno };
	if (rc == 0 && ld->fn && ld->fn(ld->ctx, &e))
		rc = each_failed(ld, err, cap);
	return rc;
}

/* An over-long line's head (SECONDS TAG) must still be a transcript
 * line's: garbage is refused, not dropped.  `s` holds its first bytes. */
static int check_head(struct loader *ld, const char *s, size_t len,
		      char *err, size_t cap)
{
	struct transcript_entry e;
	if (transcript_parse_line(s, len < 64 ? len : 64, &e))
		return fail(TRANSCRIPT_EFORMAT, err, cap, "%s:%lu: %s",
			    ld->t->name, ld->lineno + 1, format_hint);
	return 0;
}

/* The current line passes MAX_RECORD with the k bytes at p: its head is
 * checked, its bytes go, the rest of it is skipped as it comes. */
static int start_dropping(struct loader *ld, const char *p, size_t k,
			  char *err, size_t cap)
{
	char head[64];
	size_t h = ld->lb_len < sizeof head ? ld->lb_len : sizeof head;
	memcpy(head, ld->lb, h);
	size_t more = sizeof head - h < k ? sizeof head - h : k;
	memcpy(head + h, p, more);
	ld->dropping = true;
	ld->lb_len = 0;
	free(ld->lb);  /* up to 128 MB: not kept for the next lines */
	ld->lb = NULL;
	ld->lb_cap = 0;
	return check_head(ld, head, h + more, err, cap);
}

/* k more bytes of a line that spans chunks. */
/* Of a line that spans reads, only its first bytes are kept: the index
 * needs its head (time, tag) and its length, not a copy of a 58 MB line
 * (issue 32 item 3). */
#define GATHER_HEAD ((size_t)64 << 10)

static int gather(struct loader *ld, const char *p, size_t k, char *err,
		  size_t cap)
{
	ld->line_total += k;
	if (ld->dropping)
		return 0;
	if (ld->line_total > MAX_RECORD)
		return start_dropping(ld, p, k, err, cap);
	if (ld->lb_len >= GATHER_HEAD)
		return 0;
	if (k > GATHER_HEAD - ld->lb_len)
		k = GATHER_HEAD - ld->lb_len;
	if (ld->lb_cap - ld->lb_len < k) {
		size_t ncap = ld->lb_cap ? ld->lb_cap : 4096;
		while (ncap - ld->lb_len < k)
			ncap *= 2;
		char *nb = realloc(ld->lb, ncap);
		if (!nb)
			return fail(TRANSCRIPT_ENOMEM, err, cap, "%s: out of "
				    "memory reading it", ld->t->name);
		ld->lb = nb;
		ld->lb_cap = ncap;
	}
	memcpy(ld->lb + ld->lb_len, p, k);
	ld->lb_len += k;
	return 0;
}

/* A gathered line longer than what was kept of it: indexed from its
 * head and its length; fn sees the head's text. */
static int take_long_line(struct loader *ld, char *err, size_t cap)
{
	ld->lineno++;
	struct transcript_entry e;
	if (transcript_parse_line(ld->lb, ld->lb_len, &e))
		return fail(TRANSCRIPT_EFORMAT, err, cap, "%s:%lu: %s",
			    ld->t->name, ld->lineno, format_hint);
	size_t head = (size_t)(e.text - ld->lb);
	e.line = ld->lineno;
	struct trec r = { .off = ld->line_off + head,
			  .len = (uint32_t)(ld->line_total - head),
			  .ms = to_ms(e.t), .tag = tag_code(e.tag) & 7 };
	int rc = add_rec(ld, &r, e.line, err, cap);
	if (rc == 0 && ld->fn && ld->fn(ld->ctx, &e))
		rc = each_failed(ld, err, cap);
	return rc;
}

/* The line being gathered ends. */
static int end_gathered(struct loader *ld, char *err, size_t cap)
{
	int rc = ld->dropping ? take_note(ld, err, cap)
		 : ld->line_total > ld->lb_len ? take_long_line(ld, err, cap)
		 : take_line(ld, ld->lb, ld->lb_len, err, cap);
	ld->dropping = false;
	ld->lb_len = 0;
	if (ld->lb_cap > ((size_t)1 << 20)) { /* a long line went by */
		free(ld->lb);
		ld->lb = NULL;
		ld->lb_cap = 0;
	}
	return rc;
}

/* Indexes the n bytes at p, the next ones of the file. */
static int feed(struct loader *ld, const char *p, size_t n, char *err,
		size_t cap)
{
	const char *end = p + n;
	int rc = 0;
	while (rc == 0 && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t k = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (nl && ld->line_total == 0 && k <= MAX_RECORD)
			rc = take_line(ld, p, k, err, cap);
		else if (nl && ld->line_total == 0) {
			rc = check_head(ld, p, k, err, cap);
			ld->line_total = k;
			if (rc == 0)
				rc = take_note(ld, err, cap);
		} else {
			rc = gather(ld, p, k, err, cap);
			if (rc == 0 && nl)
				rc = end_gathered(ld, err, cap);
		}
		ld->pos += k + (nl != NULL);
		if (nl) {
			ld->line_off = ld->pos;
			ld->line_total = 0;
		}
		p += k + (nl != NULL);
	}
	return rc;
}

/* After the last byte: a line without an end, or no output at all. */
static int finish_load(struct loader *ld, char *err, size_t cap)
{
	struct transcript *t = ld->t;
	if (ld->line_total > 0)
		return fail(TRANSCRIPT_ETRUNC, err, cap, "%s:%lu: the "
			    "transcript is cut short (its last line has no "
			    "end)", t->name, ld->lineno + 1);
	if (ld->outs == 0)
		return fail(TRANSCRIPT_EEMPTY, err, cap, "%s: no debugger output "
			    "in it (no '<' lines); is it a transcript?",
			    t->name);
	/* The index stops growing: give back its slack. */
	if (t->n && t->n < t->cap) {
		void *nr = realloc(t->rec, t->n * sizeof *t->rec);
		if (nr) {
			t->rec = nr;
			t->cap = t->n;
		}
	}
	return 0;
}

/* A private file for the bytes of a .gz or a pipe, which cannot be read
 * again where they are: unlinked at once, so it is gone when the last
 * descriptor closes (exit, crash or kill alike). */
static int private_copy(const char *path, char *err, size_t cap)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	char tmpl[4096];
	snprintf(tmpl, sizeof tmpl, "%s/cudbg-replay-XXXXXX", dir);
	int fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0)
		return fail(TRANSCRIPT_EOPEN, err, cap, "%s: cannot make a "
			    "temporary file in %s to read it from: %s (set "
			    "TMPDIR to a writable directory)", path, dir,
			    strerror(errno));
	unlink(tmpl);
	return fd;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int copy_failed(const char *path, char *err, size_t cap)
{
	const char *dir = getenv("TMPDIR");
	return fail(TRANSCRIPT_EOPEN, err, cap, "%s: cannot keep its "
		    "decompressed bytes in %s: %s (set TMPDIR to a directory "
		    "with room)", path, dir && *dir ? dir : "/tmp",
		    strerror(errno));
}

/* Reads the whole source in chunks, copying it to copy_fd (>= 0) as it
 * goes, and indexes it. */
static int load_source(struct loader *ld, struct source *src, int copy_fd,
		       char *err, size_t cap)
{
	struct transcript *t = ld->t;
	if (src->seekable && src->size > max_bytes) {
		src->why = TRANSCRIPT_ETOOBIG;
		return read_failed(src, t->name, 0, err, cap);
	}
	char *chunk = malloc(CHUNK);
	if (!chunk)
		return fail(TRANSCRIPT_ENOMEM, err, cap, "%s: out of memory "
			    "reading it", t->name);
	int rc = 0;
	for (;;) {
		ssize_t n = source_read(src, chunk, CHUNK);
		if (n < 0)
			rc = read_failed(src, t->name, errno, err, cap);
		if (n <= 0)
			break;
		if (copy_fd >= 0 && write_all(copy_fd, chunk, (size_t)n)) {
			rc = copy_failed(t->name, err, cap);
			break;
		}
		rc = feed(ld, chunk, (size_t)n, err, cap);
		if (rc)
			break;
	}
	free(chunk);
	return rc;
}

static struct transcript *new_transcript(const char *name)
{
	struct transcript *t = calloc(1, sizeof *t);
	if (t && !(t->name = strdup(name))) {
		free(t);
		t = NULL;
	}
	if (t)
		t->fd = -1;
	return t;
}

static void init_loader(struct loader *ld, struct transcript *t,
			transcript_each_fn fn, void *ctx)
{
	*ld = (struct loader){ .t = t, .fn = fn, .ctx = ctx };
	ld->max_records = max_bytes / 2 / sizeof(struct trec);
}

int transcript_load_each(const char *path, struct transcript **out,
			 transcript_each_fn fn, void *ctx, char *err,
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
	int copy_fd = -1;
	if (!src.seekable) {
		copy_fd = private_copy(path, err, cap);
		rc = copy_fd < 0 ? copy_fd : 0;
	}
	struct loader ld;
	init_loader(&ld, t, fn, ctx);
	if (rc == 0)
		rc = load_source(&ld, &src, copy_fd, err, cap);
	free(ld.lb);
	if (src.seekable) { /* read where it is from now on */
		t->fd = src.fd;
		src.fd = -1;
	} else {
		t->fd = copy_fd;
	}
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

int transcript_load(const char *path, struct transcript **out, char *err,
		    size_t cap)
{
	return transcript_load_each(path, out, NULL, NULL, err, cap);
}

int transcript_parse(const char *buf, size_t len, const char *name,
		     struct transcript **out, char *err, size_t cap)
{
	*out = NULL;
	struct transcript *t = new_transcript(name);
	if (!t || !(t->mem = malloc(len ? len : 1))) {
		transcript_free(t);
		return fail(TRANSCRIPT_ENOMEM, err, cap, "out of memory");
	}
	if (len)
		memcpy(t->mem, buf, len);
	t->mem_len = len;
	struct loader ld;
	init_loader(&ld, t, NULL, NULL);
	int rc = feed(&ld, t->mem, len, err, cap);
	free(ld.lb);
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
	if (t->fd >= 0)
		close(t->fd);
	free(t->rec);
	free(t->jumps);
	free(t->mem);
	free(t->notes);
	free(t->win);
	free(t->name);
	free(t);
}

/* ---- reading records back ---------------------------------------------- */

/* Bytes read at a time when a record is not in the window: records read
 * in order (a command's answer, the replay's first pass) then cost one
 * pread per window. */
#define WINDOW ((size_t)256 << 10)

size_t transcript_count(const struct transcript *t)
{
	return t->n;
}

const char *transcript_name(const struct transcript *t)
{
	return t->name;
}

int transcript_fd(const struct transcript *t)
{
	return t->fd;
}

char transcript_tag(const struct transcript *t, size_t i)
{
	return i < t->n ? tags[t->rec[i].tag] : 0;
}

static ssize_t pread_full(int fd, char *buf, size_t len, uint64_t off)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got,
				  (off_t)(off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* Makes the window hold [off, off + len): a fresh read of at least
 * WINDOW bytes.  A window grown for one big record shrinks back. */
static int refill(struct transcript *t, uint64_t off, size_t len)
{
	size_t want = len > WINDOW ? len : WINDOW;
	if (t->win_cap < want || (t->win_cap > WINDOW && want == WINDOW)) {
		free(t->win);
		t->win_len = t->win_cap = 0;
		t->win = malloc(want);
		if (!t->win)
			return TRANSCRIPT_ENOMEM;
		t->win_cap = want;
	}
	ssize_t n = pread_full(t->fd, t->win, want, off);
	t->win_off = off;
	t->win_len = n > 0 ? (size_t)n : 0;
	return t->win_len >= len ? 0 : TRANSCRIPT_EOPEN;
}

int transcript_peek_at(struct transcript *t, size_t i, size_t off,
		       size_t max, struct transcript_entry *e)
{
	const struct trec *r = &t->rec[i];
	size_t left = off < r->len ? r->len - off : 0;
	size_t len = left < max ? left : max;
	uint64_t at = r->off + off;
	*e = (struct transcript_entry){ .t = r->ms / 1000.0,
					.tag = tags[r->tag], .text = "",
					.len = len, .line = line_of(t, i) };
	if (r->note) {
		e->text = t->notes + at;
		return 0;
	}
	if (t->mem) {
		e->text = t->mem + at;
		return 0;
	}
	if (at < t->win_off || at + len > t->win_off + t->win_len) {
		int rc = refill(t, at, len);
		if (rc) {
			e->len = 0;
			return rc;
		}
	}
	e->text = t->win + (at - t->win_off);
	return 0;
}

int transcript_peek(struct transcript *t, size_t i, size_t max,
		    struct transcript_entry *e)
{
	return transcript_peek_at(t, i, 0, max, e);
}

size_t transcript_len(const struct transcript *t, size_t i)
{
	return t->rec[i].len;
}

int transcript_get(struct transcript *t, size_t i, struct transcript_entry *e)
{
	return transcript_peek(t, i, SIZE_MAX, e);
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
