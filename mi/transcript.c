/* Transcript reading and writing (see include/cudbg/transcript.h). */
#include "cudbg/transcript.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* ---- input: a plain file or a gzip child -------------------------------- */

struct source {
	int fd;
	pid_t gz;      /* gzip -dc child, or 0 */
	int gz_err;    /* its stderr */
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

static int source_open(struct source *src, const char *path, char *err,
		       size_t cap)
{
	*src = (struct source){ .fd = -1, .gz_err = -1 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(TRANSCRIPT_EOPEN, err, cap, "cannot open transcript "
			    "%s: %s", path, strerror(errno));
	unsigned char magic[2] = { 0, 0 };
	ssize_t n = pread(fd, magic, 2, 0);
	/* gzip data is recognised by its magic bytes too, whatever the
	 * name says. */
	bool gz = ends_with(path, ".gz") ||
		  (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b);
	if (!gz) {
		src->fd = fd;
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
	if (!src->gz)
		return 0;
	char buf[256] = "";
	ssize_t n = read(src->gz_err, buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = 0;
	char *msg = buf + strspn(buf, "\n "); /* gzip may start with \n */
	char *nl = strchr(msg, '\n');
	if (nl)
		*nl = 0;
	close(src->gz_err);
	if (early)
		kill(src->gz, SIGTERM);
	int st = 0;
	while (waitpid(src->gz, &st, 0) < 0 && errno == EINTR)
		;
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

static ssize_t source_read(struct source *src, char *buf, size_t len)
{
	ssize_t n;
	do
		n = read(src->fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

/* ---- whole file ---------------------------------------------------------- */

static int read_all(const char *path, char **out, size_t *out_len, char *err,
		    size_t cap)
{
	struct source src;
	int rc = source_open(&src, path, err, cap);
	if (rc)
		return rc;
	size_t len = 0, bcap = 1 << 16;
	char *buf = malloc(bcap);
	ssize_t n = 0;
	while (buf) {
		if (len == bcap) {
			char *nb = realloc(buf, bcap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			bcap *= 2;
		}
		n = source_read(&src, buf + len, bcap - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	int saved = errno;
	rc = source_close(&src, path, buf == NULL || n < 0, err, cap);
	if (!buf)
		return fail(TRANSCRIPT_ENOMEM, err, cap, "%s: out of memory "
			    "reading it", path);
	if (n < 0) {
		free(buf);
		return fail(TRANSCRIPT_EOPEN, err, cap, "%s: read failed: %s",
			    path, strerror(saved));
	}
	if (rc) {
		free(buf);
		return rc;
	}
	*out = buf;
	*out_len = len;
	return 0;
}

static bool blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

/* Splits t->buf into entries. */
static int index_lines(struct transcript *t, char *err, size_t cap)
{
	size_t ecap = 0, outs = 0;
	unsigned long lineno = 0;
	const char *p = t->buf, *end = t->buf + t->buf_len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		lineno++;
		if (!nl)
			return fail(TRANSCRIPT_ETRUNC, err, cap, "%s:%lu: the "
				    "transcript is cut short (its last line "
				    "has no end)", t->name, lineno);
		if (!blank(p, len)) {
			if (t->n == ecap) {
				ecap = ecap ? ecap * 2 : 256;
				void *ne = realloc(t->e, ecap * sizeof *t->e);
				if (!ne)
					return fail(TRANSCRIPT_ENOMEM, err, cap,
						    "%s: out of memory", t->name);
				t->e = ne;
			}
			struct transcript_entry *e = &t->e[t->n];
			if (transcript_parse_line(p, len, e))
				return fail(TRANSCRIPT_EFORMAT, err, cap,
					    "%s:%lu: %s", t->name, lineno,
					    format_hint);
			e->line = lineno;
			outs += e->tag == '<';
			t->n++;
		}
		p = nl + 1;
	}
	if (outs == 0)
		return fail(TRANSCRIPT_EEMPTY, err, cap, "%s: no debugger output "
			    "in it (no '<' lines); is it a transcript?",
			    t->name);
	return 0;
}

static int adopt(char *buf, size_t len, const char *name,
		 struct transcript **out, char *err, size_t cap)
{
	struct transcript *t = calloc(1, sizeof *t);
	char *nm = strdup(name);
	if (!t || !nm) {
		free(t);
		free(nm);
		free(buf);
		return fail(TRANSCRIPT_ENOMEM, err, cap, "out of memory");
	}
	t->buf = buf;
	t->buf_len = len;
	t->name = nm;
	int rc = index_lines(t, err, cap);
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
	char *buf = NULL;
	size_t len = 0;
	*out = NULL;
	int rc = read_all(path, &buf, &len, err, cap);
	if (rc)
		return rc;
	return adopt(buf, len, path, out, err, cap);
}

int transcript_parse(const char *buf, size_t len, const char *name,
		     struct transcript **out, char *err, size_t cap)
{
	*out = NULL;
	char *copy = malloc(len ? len : 1);
	if (!copy)
		return fail(TRANSCRIPT_ENOMEM, err, cap, "out of memory");
	if (len)
		memcpy(copy, buf, len);
	return adopt(copy, len, name, out, err, cap);
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
		rc = fail(TRANSCRIPT_EOPEN, err, cap, "%s: read failed: %s",
			  path, strerror(errno));
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
