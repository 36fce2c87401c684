/* The program the hardening tests run under the debugger:
 *   harden_prog args A B...     prints each argument as "argN=[...]"
 *   harden_prog hostile [exit]  prints terminal attacks, then waits (or
 *                               exits with status 1)
 *   harden_prog flood BYTES SECS  writes BYTES (or for SECS seconds,
 *                               whichever ends first) to its terminal,
 *                               then "flood-done N" and waits
 *   harden_prog exit N          exits at once with status N
 *   harden_prog signal N        kills itself with signal N
 *   harden_prog sleep           prints "harden-sleeping", creates the file
 *                               $HARDEN_READY (if set) and naps 60 s
 *   harden_prog family          forks a child that ignores SIGHUP, prints
 *                               "harden-family PID" and naps 60 s (both)
 *   harden_prog wide N          prints "wide-start", N euro signs (3 bytes
 *                               each) on one line, then "wide-done", naps */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap(int secs)
{
	for (int i = 0; i < secs * 10; i++)
		usleep(100000);
}

/* Each attack is followed by a tag the test looks for: the tag must show
 * up on the screen while the raw sequence before it must not. */
static const char hostile[] =
	"ATK1-\033[31mRED-TAG\033[0m\n"                 /* CSI colour */
	"ATK2-\033]0;PWNED-TITLE\007OSC-TAG\n"          /* OSC title */
	"ATK3-\033]52;c;cHduZWQ=\033\\CLIP-TAG\n"       /* OSC 52 clipboard */
	"ATK4-\033[6nDSR-TAG\n"                         /* cursor report */
	"ATK5-\033P1$qm\033\\DCS-TAG\n"                 /* DCS */
	"ATK6-\2331;1HC1CSI-TAG\n"                      /* raw 8-bit CSI */
	"ATK7-\302\2332JC1UTF-TAG\n"                    /* U+009B CSI */
	"ATK8-\342\200\256BIDI-TAG\342\200\254\n"       /* RLO ... PDF */
	"ATK9-\342\201\246ISO-TAG\342\201\251\n"        /* LRI ... PDI */
	"ATKA-\377\376\300\257BADUTF-TAG\n"             /* invalid UTF-8 */
	"ATKB-\033[?1049lALTSCR-TAG\n"                  /* leave alt screen */
	"ATKC-\033[2J\033[HCLEAR-TAG\r\n"               /* clear screen */
	"ATKD-\a\b\x7f\x0e\x0f" "CTRL-TAG\n"           /* C0, DEL, SO/SI */
	"ATKE-\033cRESET-TAG\n"                         /* RIS */
	"k.cu:7: k: block: [0,0,0], thread: [1,0,0] Assertion `x\033]0;ASSERT-TITLE\007"
	" > 0 \342\200\256ASSERT-BIDI` failed.\n"
	"HOSTILE-END\n";

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	/* HARDEN_NOHUP: outlive the hangup of the terminal, so only an
	 * explicit kill ends the program. */
	if (getenv("HARDEN_NOHUP"))
		signal(SIGHUP, SIG_IGN);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	if (!strcmp(argv[1], "args")) {
		/* $HARDEN_ARGS_OUT gets the same lines, for tests that do not
		 * see the terminal. */
		const char *to = getenv("HARDEN_ARGS_OUT");
		FILE *f = to ? fopen(to, "w") : NULL;
		for (int i = 2; i < argc; i++) {
			printf("arg%d=[%s]\n", i - 1, argv[i]);
			if (f)
				fprintf(f, "arg%d=[%s]\n", i - 1, argv[i]);
		}
		printf("argc=%d\n", argc - 2);
		if (f) {
			fprintf(f, "argc=%d\n", argc - 2);
			fclose(f);
		}
		return 0;
	}
	if (!strcmp(argv[1], "hostile")) {
		/* Line by line with a pause, so each one is drawn. */
		for (const char *p = hostile; *p;) {
			const char *nl = strchr(p, '\n');
			fwrite(p, 1, (size_t)(nl - p + 1), stdout);
			fflush(stdout);
			p = nl + 1;
			usleep(argc > 2 ? 1000 : 150000);
		}
		if (argc > 2)
			return 1;
		nap(60);
		return 0;
	}
	if (!strcmp(argv[1], "flood") && argc >= 4) {
		long long want = atoll(argv[2]), done = 0;
		double until = now() + atof(argv[3]);
		static char line[4096];
		for (size_t i = 0; i + 1 < sizeof line; i++)
			line[i] = (char)('a' + i % 26);
		line[sizeof line - 1] = '\n';
		while (done < want && now() < until) {
			size_t n = sizeof line;
			if ((long long)n > want - done)
				n = (size_t)(want - done);
			fwrite(line, 1, n, stdout);
			done += (long long)n;
		}
		printf("\nflood-done %lld\n", done);
		fflush(stdout);
		nap(60);
		return 0;
	}
	if (!strcmp(argv[1], "exit") && argc >= 3)
		return atoi(argv[2]);
	if (!strcmp(argv[1], "signal") && argc >= 3) {
		fflush(stdout);
		signal(atoi(argv[2]), SIG_DFL);
		raise(atoi(argv[2]));
		return 99;
	}
	if (!strcmp(argv[1], "family")) {
		pid_t kid = fork();
		if (kid == 0) {
			signal(SIGHUP, SIG_IGN);
			nap(60);
			_exit(0);
		}
		printf("harden-family %ld\n", (long)kid);
		fflush(stdout);
		nap(60);
		return 0;
	}
	if (!strcmp(argv[1], "wide") && argc >= 3) {
		/* 4096 is no multiple of 3: a byte cut at the output
		 * pane's line limit falls inside a character. */
		printf("wide-start\n");
		for (long i = atol(argv[2]); i > 0; i--)
			fputs("\342\202\254", stdout);
		printf("\nwide-done\n");
		fflush(stdout);
		nap(60);
		return 0;
	}
	if (!strcmp(argv[1], "sleep")) {
		printf("harden-sleeping\n");
		fflush(stdout);
		/* HARDEN_READY=FILE: tells a test that does not see the
		 * terminal that the program runs. */
		const char *ready = getenv("HARDEN_READY");
		if (ready)
			fclose(fopen(ready, "w"));
		nap(60);
		return 0;
	}
	return 2;
}
