/* ptyrun: runs a command on a fresh pty, keeps every byte it writes to the
 * terminal, and plays a list of actions against it (the hardening tests in
 * tests/sh/faults.sh and tests/sh/escapes.sh use it; no libutil, no
 * python).
 *
 *   ptyrun [-s COLSxROWS] [-o OUT] [-e ERR] [-t SECS] [-a ACTION]... -- CMD ARGS
 *
 *   -o OUT    every byte written to the pty goes to OUT
 *   -e ERR    the command's stderr goes to ERR instead of the pty
 *   -t SECS   overall limit (default 30): then the command is killed and
 *             ptyrun exits 124
 * Actions, in order (BYTES take \e \r \n \t \\ \xHH):
 *   wait=TEXT     until TEXT appears in the output written since the
 *                 previous wait/rtt ended (fails at the limit)
 *   send=BYTES    write BYTES to the terminal (keys)
 *   sleep=MS      let time pass, reading output
 *   kill=SIG      send SIG (TERM, HUP, INT, KILL, WINCH or a number)
 *   size=CxR      resize the terminal (the kernel sends SIGWINCH)
 *   storm=MS      resize between two sizes every 10 ms for MS ms, then
 *                 back to the -s size (100 resizes a second)
 *   rtt=BYTES|TEXT  send BYTES, print "rtt_ms=N" when TEXT comes back
 *   rss           print "rss_kb=N hwm_kb=N" of the command
 *   idle=MS       until no output came for MS ms (for a settled screen)
 *   killcomm=NAME[:SIG]  SIGKILL (or SIG) to every process called NAME
 *                 that carries our HARDEN_MARK (a descendant, even in
 *                 another session)
 * At the end it waits for the command to exit and prints
 *   status=exit:N | status=signal:N
 *   termios=icanon:B,echo:B       the pty's modes after the exit
 *   restored=1 | restored=0 WHY   alternate screen left, cursor shown,
 *                                 mouse off: judged from the bytes
 * Exit status: 0, or 3 when an action failed, 124 at the limit. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static int master = -1;
static pid_t child = -1;
static int child_status;
static int child_done;
static FILE *out;
static double deadline;
static int cols0 = 80, rows0 = 24;

/* What came since the last mark (waits search here), and the whole tail
 * that judges the terminal's restoration. */
static char *since;
static size_t since_len, since_cap;
static char tail[1 << 16];
static size_t tail_len;
/* Positions (byte counts) of the last switches seen, for "restored". */
static unsigned long long total, last_smcup, last_rmcup, last_civis,
	last_cnorm, last_mouse_on, last_mouse_off;
static char carry[16];
static size_t carry_len;
static double last_output;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void mark_switches(const char *b, size_t n)
{
	/* Sequences may be split across reads: search carry+b. */
	static const struct { const char *seq; unsigned long long *at; } sw[] = {
		{ "\033[?1049h", &last_smcup }, { "\033[?1049l", &last_rmcup },
		{ "\033[?25l", &last_civis }, { "\033[?25h", &last_cnorm },
		{ "\033[?1000h", &last_mouse_on }, { "\033[?1000l", &last_mouse_off },
	};
	char *buf = malloc(carry_len + n);
	if (!buf)
		return;
	memcpy(buf, carry, carry_len);
	memcpy(buf + carry_len, b, n);
	size_t len = carry_len + n;
	unsigned long long base = total - carry_len;
	for (size_t k = 0; k < sizeof sw / sizeof sw[0]; k++) {
		size_t sl = strlen(sw[k].seq);
		for (size_t i = 0; i + sl <= len; i++)
			if (buf[i] == '\033' && memcmp(buf + i, sw[k].seq, sl) == 0)
				*sw[k].at = base + i + 1;
	}
	carry_len = len < sizeof carry ? len : sizeof carry;
	memcpy(carry, buf + len - carry_len, carry_len);
	free(buf);
}

static void got(const char *b, size_t n)
{
	if (out)
		fwrite(b, 1, n, out);
	if (since_len + n > since_cap) {
		size_t cap = since_cap ? since_cap : 65536;
		while (cap < since_len + n)
			cap *= 2;
		if (cap > (64u << 20)) { /* keep the newest 32 MB */
			size_t keep = 32u << 20;
			if (since_len > keep) {
				memmove(since, since + since_len - keep, keep);
				since_len = keep;
			}
			cap = keep + n + 1;
		}
		since = realloc(since, cap);
		if (!since) {
			fprintf(stderr, "ptyrun: out of memory\n");
			exit(2);
		}
		since_cap = cap;
	}
	memcpy(since + since_len, b, n);
	since_len += n;
	mark_switches(b, n); /* positions count from the old total */
	total += n;
	if (n >= sizeof tail) {
		memcpy(tail, b + n - sizeof tail, sizeof tail);
		tail_len = sizeof tail;
	} else {
		size_t keep = tail_len + n > sizeof tail ? sizeof tail - n : tail_len;
		memmove(tail, tail + tail_len - keep, keep);
		memcpy(tail + keep, b, n);
		tail_len = keep + n;
	}
	last_output = now();
}

static void reap(void)
{
	if (child_done)
		return;
	int st;
	pid_t r = waitpid(child, &st, WNOHANG);
	if (r == child) {
		child_done = 1;
		child_status = st;
	}
}

/* Reads whatever is there for up to ms; returns after the first batch. */
static void pump(int ms)
{
	struct pollfd p = { master, POLLIN, 0 };
	if (poll(&p, 1, ms) > 0) {
		char buf[65536];
		for (int i = 0; i < 64; i++) {
			ssize_t n = read(master, buf, sizeof buf);
			if (n > 0) {
				got(buf, (size_t)n);
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				break;
			/* EIO: every slave fd is closed */
			if (child_done || n == 0 || errno == EIO) {
				reap();
				if (!child_done)
					usleep(1000);
			}
			break;
		}
	}
	reap();
}

static int left_ms(void)
{
	double l = deadline - now();
	return l <= 0 ? 0 : (int)(l * 1000) + 1;
}

static size_t unescape(const char *s, char *d)
{
	size_t n = 0;
	while (*s) {
		if (*s != '\\' || !s[1]) {
			d[n++] = *s++;
			continue;
		}
		s++;
		switch (*s) {
		case 'e': d[n++] = 27; s++; break;
		case 'r': d[n++] = '\r'; s++; break;
		case 'n': d[n++] = '\n'; s++; break;
		case 't': d[n++] = '\t'; s++; break;
		case 'x': {
			char hex[3] = { s[1], s[1] ? s[2] : 0, 0 };
			d[n++] = (char)strtol(hex, NULL, 16);
			s += 1 + strlen(hex);
			break;
		}
		default: d[n++] = *s++; break;
		}
	}
	return n;
}

static void send_bytes(const char *spec)
{
	char *b = malloc(strlen(spec) + 1);
	size_t n = unescape(spec, b);
	size_t off = 0;
	while (off < n && left_ms() > 0) {
		ssize_t w = write(master, b + off, n - off);
		if (w > 0)
			off += (size_t)w;
		else
			pump(5);
	}
	free(b);
}

static int wait_text(const char *text, double until)
{
	char *t = malloc(strlen(text) + 1);
	size_t n = unescape(text, t);
	int ok = 0;
	for (;;) {
		if (n <= since_len && memmem(since, since_len, t, n)) {
			ok = 1;
			break;
		}
		double l = until - now();
		if (l <= 0 || (child_done && !ok))
			break;
		pump(l > 0.05 ? 50 : (int)(l * 1000) + 1);
	}
	free(t);
	since_len = 0;
	return ok;
}

static void set_size(int c, int r)
{
	struct winsize ws = { .ws_row = (unsigned short)r, .ws_col = (unsigned short)c };
	ioctl(master, TIOCSWINSZ, &ws);
}

static int signum(const char *s)
{
	static const struct { const char *n; int s; } names[] = {
		{ "TERM", SIGTERM }, { "HUP", SIGHUP }, { "INT", SIGINT },
		{ "KILL", SIGKILL }, { "WINCH", SIGWINCH }, { "QUIT", SIGQUIT },
		{ "SEGV", SIGSEGV }, { "USR1", SIGUSR1 },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(s, names[i].n) == 0)
			return names[i].s;
	return atoi(s);
}

static void print_rss(void)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)child);
	FILE *f = fopen(path, "r");
	long rss = -1, hwm = -1;
	while (f && fgets(line, sizeof line, f)) {
		sscanf(line, "VmRSS: %ld", &rss);
		sscanf(line, "VmHWM: %ld", &hwm);
	}
	if (f)
		fclose(f);
	printf("rss_kb=%ld hwm_kb=%ld\n", rss, hwm);
	fflush(stdout);
}

/* Processes named comm whose environment holds our HARDEN_MARK. */
static int kill_comm(const char *spec)
{
	const char *mark = getenv("HARDEN_MARK");
	char comm[64], want[256], path[64], buf[65536];
	int sig = SIGKILL, hits = 0;
	const char *colon = strchr(spec, ':');
	snprintf(comm, sizeof comm, "%.*s", colon ? (int)(colon - spec) : 63, spec);
	if (colon)
		sig = signum(colon + 1);
	if (!mark)
		return 0;
	int wl = snprintf(want, sizeof want, "HARDEN_MARK=%s", mark) + 1;
	DIR *d = opendir("/proc");
	struct dirent *de;
	while (d && (de = readdir(d))) {
		pid_t p = (pid_t)atoi(de->d_name);
		if (p <= 1)
			continue;
		snprintf(path, sizeof path, "/proc/%d/comm", (int)p);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		char name[64] = "";
		if (!fgets(name, sizeof name, f))
			name[0] = 0;
		fclose(f);
		name[strcspn(name, "\n")] = 0;
		if (strcmp(name, comm) != 0)
			continue;
		snprintf(path, sizeof path, "/proc/%d/environ", (int)p);
		int fd = open(path, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
		if (fd >= 0)
			close(fd);
		if (n > 0 && memmem(buf, (size_t)n, want, (size_t)wl)) {
			kill(p, sig);
			hits++;
		}
	}
	if (d)
		closedir(d);
	return hits;
}

static int act(const char *a)
{
	const char *eq = strchr(a, '=');
	const char *v = eq ? eq + 1 : "";
	size_t kl = eq ? (size_t)(eq - a) : strlen(a);
	if (kl == 4 && !strncmp(a, "wait", 4)) {
		if (!wait_text(v, deadline)) {
			printf("fail: no '%s' on the terminal\n", v);
			return -1;
		}
	} else if (kl == 4 && !strncmp(a, "send", 4)) {
		send_bytes(v);
	} else if (kl == 5 && !strncmp(a, "sleep", 5)) {
		double until = now() + atoi(v) / 1000.0;
		while (now() < until)
			pump((int)((until - now()) * 1000) + 1);
	} else if (kl == 4 && !strncmp(a, "idle", 4)) {
		double quiet = atoi(v) / 1000.0;
		while (now() - last_output < quiet && left_ms() > 0)
			pump(10);
	} else if (kl == 4 && !strncmp(a, "kill", 4)) {
		kill(child, signum(v));
	} else if (kl == 4 && !strncmp(a, "size", 4)) {
		int c, r;
		if (sscanf(v, "%dx%d", &c, &r) == 2)
			set_size(c, r);
	} else if (kl == 5 && !strncmp(a, "storm", 5)) {
		double until = now() + atoi(v) / 1000.0;
		int flip = 0, n = 0;
		while (now() < until && !child_done) {
			flip = !flip;
			set_size(flip ? cols0 + 17 : cols0 - 9, flip ? rows0 + 7 : rows0 - 5);
			n++;
			pump(10);
		}
		set_size(cols0, rows0);
		printf("resizes=%d\n", n + 1);
	} else if (kl == 3 && !strncmp(a, "rtt", 3)) {
		const char *bar = strchr(v, '|');
		if (!bar)
			return -1;
		char *keys = strndup(v, (size_t)(bar - v));
		since_len = 0;
		double t0 = now();
		send_bytes(keys);
		free(keys);
		if (!wait_text(bar + 1, deadline)) {
			printf("fail: no '%s' after the keys\n", bar + 1);
			return -1;
		}
		printf("rtt_ms=%.1f\n", (now() - t0) * 1000);
	} else if (kl == 8 && !strncmp(a, "killcomm", 8)) {
		if (kill_comm(v) == 0) {
			printf("fail: no process '%s' to kill\n", v);
			return -1;
		}
	} else if (kl == 3 && !strncmp(a, "rss", 3)) {
		print_rss();
	} else {
		printf("fail: unknown action '%s'\n", a);
		return -1;
	}
	fflush(stdout);
	return 0;
}

static void judge_restored(void)
{
	const char *why = NULL;
	if (last_smcup && last_rmcup < last_smcup)
		why = "the alternate screen was not left";
	else if (last_civis && last_cnorm < last_civis)
		why = "the cursor was left hidden";
	else if (last_mouse_on && last_mouse_off < last_mouse_on)
		why = "mouse reporting was left on";
	printf(why ? "restored=0 %s\n" : "restored=1\n", why);
}

int main(int argc, char **argv)
{
	const char *outp = NULL, *errp = NULL;
	const char *acts[256];
	int nacts = 0, limit = 30, opt;
	while ((opt = getopt(argc, argv, "+s:o:e:t:a:")) != -1) {
		switch (opt) {
		case 's': sscanf(optarg, "%dx%d", &cols0, &rows0); break;
		case 'o': outp = optarg; break;
		case 'e': errp = optarg; break;
		case 't': limit = atoi(optarg); break;
		case 'a':
			if (nacts < 256)
				acts[nacts++] = optarg;
			break;
		default:
			fprintf(stderr, "usage: ptyrun [-s CxR] [-o OUT] [-e ERR] "
				"[-t SECS] [-a ACTION]... -- CMD ARGS\n");
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "ptyrun: no command\n");
		return 2;
	}
	if (outp && !(out = fopen(outp, "w"))) {
		perror(outp);
		return 2;
	}
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master)) {
		perror("ptyrun: pty");
		return 2;
	}
	char *sname = ptsname(master);
	set_size(cols0, rows0);
	struct termios cooked;
	int slave = open(sname, O_RDWR | O_NOCTTY);
	tcgetattr(slave, &cooked);
	cooked.c_lflag |= ICANON | ECHO | ISIG;
	tcsetattr(slave, TCSANOW, &cooked);
	close(slave);
	deadline = now() + limit;
	child = fork();
	if (child == 0) {
		setsid();
		int s = open(sname, O_RDWR); /* our controlling terminal */
		if (s < 0)
			_exit(126);
		ioctl(s, TIOCSCTTY, 0);
		dup2(s, 0);
		dup2(s, 1);
		if (errp) {
			int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			dup2(e >= 0 ? e : s, 2);
		} else {
			dup2(s, 2);
		}
		if (s > 2)
			close(s);
		close(master);
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
	int failed = 0;
	for (int i = 0; i < nacts && !failed && left_ms() > 0; i++)
		failed = act(acts[i]) < 0;
	while (!child_done && left_ms() > 0)
		pump(left_ms() < 50 ? left_ms() : 50);
	int rc = failed ? 3 : 0;
	if (!child_done) {
		printf("timeout: the command did not end within %d s\n", limit);
		kill(child, SIGKILL);
		waitpid(child, &child_status, 0);
		child_done = 1;
		rc = 124;
	}
	/* What the last writes left. */
	for (int i = 0; i < 5; i++)
		pump(1);
	if (WIFSIGNALED(child_status))
		printf("status=signal:%d\n", WTERMSIG(child_status));
	else
		printf("status=exit:%d\n", WEXITSTATUS(child_status));
	struct termios t;
	if (tcgetattr(master, &t) == 0)
		printf("termios=icanon:%d,echo:%d\n", !!(t.c_lflag & ICANON),
		       !!(t.c_lflag & ECHO));
	judge_restored();
	printf("bytes=%llu\n", total);
	if (out)
		fclose(out);
	return rc;
}
