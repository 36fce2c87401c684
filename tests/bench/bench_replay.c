/* Replay memory: a big recording replayed through the real binary
 * (`cudbg-tui --batch --replay FILE`), peak RSS of its biggest process
 * (the frontend or the forked fake debugger) against the recording's
 * size, plain and gzipped, in the same run.  The recording is a real
 * one (tests/fixtures/h200_null_write.mi.log) with LINES console records of
 * 68 bytes put in the answer to its -exec-run (a program that chatters
 * between ^running and the fault's *stopped); the replay must still
 * reach the fault.
 *
 * Usage: bench_replay [BIN [LINES]]
 *   BIN    the binary (default $CUDBG_BIN, else build/cudbg-tui); give an
 *          older build to measure before a change
 *   LINES  console records to add (default 3500000: a 238 MB file)
 * The files go to $TMPDIR (else /tmp) and are removed.
 * Prints: measure=NAME value=X unit=MB ref=Y ratio=R */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "tests/bench/util.h"

/* One line of the filler: 68 bytes with its newline. */
static const char filler[] =
	"   0.200 < ~\"0123456789abcdef0123456789abcdef0123456789ab\\n\"\n";

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0, k;
	char *buf = malloc(cap);
	while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	fclose(f);
	*len = n;
	return buf;
}

/* Writes the fixture with `lines` filler lines after its ^running, to
 * a plain file (gz NULL) or through zlib. */
static int write_recording(const char *fix, size_t flen, size_t lines,
			   FILE *plain, gzFile gz)
{
	const char *run = strstr(fix, "< 9^running\n");
	if (!run)
		return -1;
	size_t head = (size_t)(strchr(run, '\n') + 1 - fix);
	size_t fl = sizeof filler - 1;
	if (plain) {
		fwrite(fix, 1, head, plain);
		for (size_t i = 0; i < lines; i++)
			fwrite(filler, 1, fl, plain);
		fwrite(fix + head, 1, flen - head, plain);
		return ferror(plain) ? -1 : 0;
	}
	gzwrite(gz, fix, (unsigned)head);
	for (size_t i = 0; i < lines; i++)
		gzwrite(gz, filler, (unsigned)fl);
	gzwrite(gz, fix + head, (unsigned)(flen - head));
	return 0;
}

struct result {
	long peak_kb;   /* biggest process of the replay */
	int status;     /* cudbg-tui's exit status */
	bool fault;     /* the report names the fault */
	double secs;
};

/* Runs BIN --batch --replay FILE in a child of a child, so that the
 * child's RUSAGE_CHILDREN covers exactly that run (the frontend and its
 * fake debugger, the biggest of them). */
static struct result measure(const char *bin, const char *file)
{
	struct result r = { .peak_kb = -1, .status = -1 };
	char out[4096];
	snprintf(out, sizeof out, "%s.out", file);
	int p[2];
	if (pipe(p) < 0)
		return r;
	double t0 = bench_now();
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		pid_t c = fork();
		if (c == 0) {
			int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			dup2(fd, 1);
			int nul = open("/dev/null", O_RDWR);
			dup2(nul, 2);
			dup2(nul, 0);
			execl(bin, bin, "--batch", "--replay", file,
			      (char *)NULL);
			_exit(127);
		}
		int st = 0;
		while (waitpid(c, &st, 0) < 0 && errno == EINTR)
			;
		struct rusage ru;
		getrusage(RUSAGE_CHILDREN, &ru);
		long v[2] = { ru.ru_maxrss,
			      WIFEXITED(st) ? WEXITSTATUS(st) : -1 };
		if (write(p[1], v, sizeof v) != (ssize_t)sizeof v)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	long v[2];
	if (pid > 0 && read(p[0], v, sizeof v) == (ssize_t)sizeof v) {
		r.peak_kb = v[0];
		r.status = (int)v[1];
	}
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	r.secs = bench_now() - t0;
	size_t n = 0;
	char *rep = read_all(out, &n);
	r.fault = rep && memmem(rep, n, "Warp Illegal Address", 20);
	free(rep);
	unlink(out);
	return r;
}

static void report(const char *name, const struct result *r, double ref_mb,
		   const char *what)
{
	printf("measure=%s value=%.1f unit=MB ref=%.1f ratio=%.2f (peak RSS "
	       "of the biggest process against %s; %.1f s, exit %d%s)\n",
	       name, (double)r->peak_kb / 1e3, ref_mb,
	       (double)r->peak_kb / 1e3 / ref_mb, what, r->secs, r->status,
	       r->fault ? "" : ", FAULT NOT REACHED");
}

int main(int argc, char **argv)
{
	const char *bin = argc > 1 ? argv[1] : getenv("CUDBG_BIN");
	if (!bin || !*bin)
		bin = "build/cudbg-tui";
	size_t lines = argc > 2 ? strtoul(argv[2], NULL, 10) : 3500000;
	const char *root = getenv("CUDBG_ROOT");
	char fixp[4096];
	snprintf(fixp, sizeof fixp, "%s/tests/fixtures/h200_null_write.mi.log",
		 root && *root ? root : ".");
	size_t flen = 0;
	char *fix = read_all(fixp, &flen);
	if (!fix) {
		fprintf(stderr, "bench_replay: cannot read %s (set "
			"CUDBG_ROOT)\n", fixp);
		return 2;
	}
	const char *dir = getenv("TMPDIR");
	char plain[4096], gzp[4096 + 4]; /* plain and ".gz" */
	snprintf(plain, sizeof plain, "%s/bench-replay-%d.mi.log",
		 dir && *dir ? dir : "/tmp", (int)getpid());
	snprintf(gzp, sizeof gzp, "%s.gz", plain);
	FILE *f = fopen(plain, "wb");
	gzFile gz = gzopen(gzp, "wb1");
	int rc = f && gz ? write_recording(fix, flen, lines, f, NULL) : -1;
	if (rc == 0)
		rc = write_recording(fix, flen, lines, NULL, gz);
	if (f && fclose(f) != 0)
		rc = -1;
	if (gz && gzclose(gz) != Z_OK)
		rc = -1;
	free(fix);
	struct stat sp, sg;
	if (rc || stat(plain, &sp) || stat(gzp, &sg)) {
		fprintf(stderr, "bench_replay: cannot write %s\n", plain);
		unlink(plain);
		unlink(gzp);
		return 2;
	}
	double mb = (double)sp.st_size / 1e6;
	struct result a = measure(bin, plain);
	struct result b = measure(bin, gzp);
	unlink(plain);
	unlink(gzp);
	report("replay_peak_rss", &a, mb, "the file");
	char what[128];
	snprintf(what, sizeof what, "the decompressed size; %.1f MB on disk",
		 (double)sg.st_size / 1e6);
	report("replay_gz_peak_rss", &b, mb, what);
	return a.fault && b.fault ? 0 : 1;
}
