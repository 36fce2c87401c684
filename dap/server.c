/* DAP base protocol: Content-Length framing over a pair of descriptors,
 * message dispatch, and the poll loop that serves the client and the
 * debugger session together.  See include/cudbg/dap.h.
 *
 * Framing follows the DAP base protocol: a header block of "Name: value"
 * lines, each ended by CRLF, then an empty line, then exactly
 * Content-Length bytes of UTF-8 JSON.  Anything else is answered with an
 * error response (request_seq 0 when the message never yielded a seq)
 * and skipped; the server never exits on bad input.
 */
#include "cudbg/dap.h"
#include "cudbg/options.h"
#include "dap/dap_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- writing ---- */

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

void dap_send(struct dap *d, struct dj_w *w)
{
	char head[64];
	if (w->j.b.oom || d->out_fd < 0) {
		dj_w_free(w);
		return;
	}
	int hl = snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n",
			  w->j.b.len);
	/* A client that went away: stop serving, no SIGPIPE death. */
	if (write_all(d->out_fd, head, (size_t)hl) < 0 ||
	    write_all(d->out_fd, w->j.b.s, w->j.b.len) < 0) {
		d->out_fd = -1;
		d->quit = true;
	}
	dj_w_free(w);
}

static void msg_begin(struct dj_w *w, struct dap *d, const char *type)
{
	dj_w_init(w);
	dj_w_obj(w);
	dj_w_kint(w, "seq", ++d->seq);
	dj_w_kstr(w, "type", type);
}

void dap_resp_begin(struct dj_w *w, struct dap *d, const struct dj *req)
{
	msg_begin(w, d, "response");
	dj_w_kint(w, "request_seq", dj_int(req, "seq", 0));
	dj_w_kbool(w, "success", true);
	dj_w_kstr(w, "command", dj_str(req, "command", ""));
	dj_w_key(w, "body");
	dj_w_obj(w);
}

void dap_resp_end(struct dap *d, struct dj_w *w)
{
	dj_w_obj_end(w);
	dj_w_obj_end(w);
	dap_send(d, w);
}

void dap_resp_ok(struct dap *d, const struct dj *req)
{
	struct dj_w w;
	dap_resp_begin(&w, d, req);
	dap_resp_end(d, &w);
}

/* vprintf-like: clang's -Wformat-nonliteral wants the attribute to see
 * that fmt is the caller's format (issue 31 item 6) */
__attribute__((format(printf, 4, 0)))
static void resp_error_v(struct dap *d, long long seq, const char *command,
			 const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof msg, fmt, ap);
	struct dj_w w;
	msg_begin(&w, d, "response");
	dj_w_kint(&w, "request_seq", seq);
	dj_w_kbool(&w, "success", false);
	dj_w_kstr(&w, "command", command);
	dj_w_ktext(&w, "message", msg);
	dj_w_key(&w, "body");
	dj_w_obj(&w);
	dj_w_key(&w, "error");
	dj_w_obj(&w);
	dj_w_kint(&w, "id", 1);
	dj_w_ktext(&w, "format", msg);
	dj_w_kbool(&w, "showUser", true);
	dj_w_obj_end(&w);
	dj_w_obj_end(&w);
	dj_w_obj_end(&w);
	dap_send(d, &w);
}

void dap_resp_error(struct dap *d, const struct dj *req, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	resp_error_v(d, dj_int(req, "seq", 0), dj_str(req, "command", ""), fmt,
		     ap);
	va_end(ap);
}

/* An error for a message that has no request to answer (bad framing). */
static void frame_error(struct dap *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void frame_error(struct dap *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	resp_error_v(d, 0, "", fmt, ap);
	va_end(ap);
}

void dap_event_begin(struct dj_w *w, struct dap *d, const char *event)
{
	msg_begin(w, d, "event");
	dj_w_kstr(w, "event", event);
	dj_w_key(w, "body");
	dj_w_obj(w);
}

void dap_event_end(struct dap *d, struct dj_w *w)
{
	dj_w_obj_end(w);
	dj_w_obj_end(w);
	dap_send(d, w);
}

void dap_output(struct dap *d, const char *category, const char *text,
		size_t len)
{
	struct dj_w w;
	dap_event_begin(&w, d, "output");
	dj_w_kstr(&w, "category", category);
	dj_w_key(&w, "output");
	dj_w_textn(&w, text, len);
	dap_event_end(d, &w);
}

void dap_say(struct dap *d, const char *text)
{
	dap_output(d, "console", text, strlen(text));
}

/* ---- reading and framing ---- */

static void in_drop(struct dap *d, size_t n)
{
	if (n > d->in_len)
		n = d->in_len;
	memmove(d->in, d->in + n, d->in_len - n);
	d->in_len -= n;
}

static const char *find_crlf2(const char *p, size_t n)
{
	for (size_t i = 0; i + 3 < n; i++)
		if (p[i] == '\r' && p[i + 1] == '\n' && p[i + 2] == '\r' &&
		    p[i + 3] == '\n')
			return p + i;
	return NULL;
}

/* The Content-Length of a header block (hl bytes, no final CRLFCRLF):
 * >= 0, or -1 with why in msg.  Header names are case-insensitive;
 * other headers (Content-Type) are allowed and ignored. */
static long long header_length(const char *h, size_t hl, char *msg, size_t cap)
{
	long long len = -1;
	size_t i = 0;
	while (i < hl) {
		const char *e = memchr(h + i, '\r', hl - i);
		size_t ll = e ? (size_t)(e - (h + i)) : hl - i;
		const char *line = h + i;
		static const char key[] = "content-length:";
		if (ll >= sizeof key - 1 && strncasecmp(line, key, sizeof key - 1) == 0) {
			size_t k = sizeof key - 1;
			while (k < ll && line[k] == ' ')
				k++;
			if (k == ll) {
				snprintf(msg, cap, "empty Content-Length");
				return -1;
			}
			long long v = 0;
			for (; k < ll; k++) {
				if (line[k] < '0' || line[k] > '9' || v > DAP_MAX_BODY * 10LL) {
					snprintf(msg, cap, "Content-Length is not a "
						 "number");
					return -1;
				}
				v = v * 10 + (line[k] - '0');
			}
			len = v;
		} else if (!memchr(line, ':', ll)) {
			snprintf(msg, cap, "a header line without ':'");
			return -1;
		}
		i += ll + 2;
	}
	if (len < 0)
		snprintf(msg, cap, "no Content-Length header");
	return len;
}

static void handle_message(struct dap *d, const char *body, size_t len)
{
	char err[160];
	struct dj *msg = dj_parse(body, len, err, sizeof err);
	if (!msg) {
		frame_error(d, "the message is not JSON (%s)", err);
		return;
	}
	const char *type = dj_str(msg, "type", NULL);
	const char *command = dj_str(msg, "command", NULL);
	if (msg->type != DJ_OBJ || !type || strcmp(type, "request") != 0 ||
	    !command || dj_int(msg, "seq", -1) < 0) {
		if (type && strcmp(type, "response") == 0) {
			/* answers to our reverse requests: we send none */
		} else {
			frame_error(d, "not a DAP request (needs type "
				    "\"request\", a seq and a command)");
		}
		dj_free(msg);
		return;
	}
	dap_handler h = dap_find_handler(command);
	const struct dj *args = dj_get(msg, "arguments");
	if (!h)
		dap_resp_error(d, msg, "unknown request '%.60s'", command);
	else if (args && args->type != DJ_OBJ)
		dap_resp_error(d, msg, "arguments of '%.60s' are not an object",
			       command);
	else
		h(d, msg, args);
	dj_free(msg);
}

/* Handles every complete message in the buffer. */
static void in_process(struct dap *d)
{
	while (!d->quit) {
		if (d->discard) {
			size_t n = d->discard < d->in_len ? d->discard : d->in_len;
			in_drop(d, n);
			d->discard -= n;
			if (d->discard)
				return;
		}
		const char *end = find_crlf2(d->in, d->in_len);
		if (!end) {
			if (d->in_len > DAP_MAX_HEADER) {
				frame_error(d, "a header block longer than %d "
					    "bytes without an empty line",
					    DAP_MAX_HEADER);
				d->in_len = 0;
			}
			return;
		}
		size_t hl = (size_t)(end - d->in);
		char msg[128];
		long long len = header_length(d->in, hl, msg, sizeof msg);
		if (len < 0) {
			frame_error(d, "bad DAP header: %s", msg);
			in_drop(d, hl + 4);
			continue;
		}
		if (len > DAP_MAX_BODY) {
			frame_error(d, "a message of %lld bytes is over the "
				    "limit of %d bytes; skipped", len,
				    DAP_MAX_BODY);
			in_drop(d, hl + 4);
			d->discard = (size_t)len;
			continue;
		}
		if (d->in_len < hl + 4 + (size_t)len)
			return;
		handle_message(d, d->in + hl + 4, (size_t)len);
		in_drop(d, hl + 4 + (size_t)len);
	}
}

static int in_read(struct dap *d)
{
	if (d->in_cap - d->in_len < 65536) {
		size_t nc = d->in_cap ? d->in_cap * 2 : 131072;
		char *nb = realloc(d->in, nc);
		if (!nb)
			return -1;
		d->in = nb;
		d->in_cap = nc;
	}
	ssize_t r = read(d->in_fd, d->in + d->in_len, d->in_cap - d->in_len);
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (r <= 0)
		return -1;
	d->in_len += (size_t)r;
	return 0;
}

/* ---- the loop ---- */

static void serve(struct dap *d)
{
	while (!d->quit) {
		struct pollfd fds[1 + SESSION_MAX_POLLFDS];
		int n = 1, timeout = 500;
		fds[0] = (struct pollfd){ .fd = d->in_fd, .events = POLLIN };
		struct session *s = d->ctl ? ctl_session(d->ctl) : NULL;
		if (s) {
			n += session_pollfds(s, fds + 1, SESSION_MAX_POLLFDS);
			int st = session_timeout_ms(s);
			if (st >= 0 && st < timeout)
				timeout = st;
		}
		if (poll(fds, (nfds_t)n, timeout) < 0 && errno != EINTR)
			break;
		if (s)
			session_handle(s, fds + 1, n - 1);
		if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (in_read(d) < 0) {
				d->in_eof = true;
				break;
			}
			in_process(d);
		}
		if (d->ctl)
			dap_engine_check(d);
	}
}

/* --dap-port: one client on 127.0.0.1 (never another interface: the
 * adapter runs programs for whoever connects).  Port 0 picks a free one;
 * the port is said on stderr either way. */
static int listen_once(int port)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		return -1;
	int one = 1;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t al = sizeof a;
	if (bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 1) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &al) < 0) {
		int e = errno;
		close(s);
		errno = e;
		return -1;
	}
	fprintf(stderr, "cudbg-tui: DAP server listening on 127.0.0.1:%d\n",
		ntohs(a.sin_port));
	int c;
	do
		c = accept(s, NULL, NULL);
	while (c < 0 && errno == EINTR);
	int e = errno;
	close(s);
	errno = e;
	return c;
}

int dap_main(const struct cudbg_options *o)
{
	struct dap d;
	memset(&d, 0, sizeof d);
	d.cli = o;
	d.entry_bkpt = -1;
	d.in_fd = 0;
	d.out_fd = 1;
	signal(SIGPIPE, SIG_IGN);
	if (o->dap_listen) {
		int c = listen_once(o->dap_port);
		if (c < 0) {
			fprintf(stderr, "cudbg-tui: --dap-port %d: cannot listen "
				"on 127.0.0.1 (%s); pick a free port or 0\n",
				o->dap_port, strerror(errno));
			return 2;
		}
		d.in_fd = d.out_fd = c;
	}
	serve(&d);
	dap_free_session(&d);
	free(d.in);
	if (o->dap_listen && d.in_fd >= 0)
		close(d.in_fd);
	return 0;
}
