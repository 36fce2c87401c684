/* ttycheck: judges the bytes a program wrote to its terminal (captured by
 * ptyrun) for the escape-safety tests.
 *
 *   ttycheck FILE [+TEXT]... [-TEXT]...
 *
 * Fails (exit 1, one line per problem) when the bytes
 *   - are not valid UTF-8, or encode a C1 control (U+0080..U+009F) or a
 *     bidirectional control (U+061C, U+200E/F, U+202A..E, U+2066..9);
 *   - hold a C0 control other than those curses itself writes (BS, TAB,
 *     LF, CR, ESC), or DEL;
 *   - start an escape sequence curses never writes: OSC (ESC ]), DCS
 *     (ESC P), APC (ESC _), PM (ESC ^), SOS (ESC X), RIS (ESC c), or a
 *     CSI that asks the terminal to answer (device status, attributes);
 *   - lack any +TEXT, or hold any -TEXT (both take \e \a \xHH escapes).
 * TEXT arguments name what a test planted: +RED-TAG proves the line was
 * drawn, -'\e[31mRED-TAG' that its escape did not pass. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int problems;

static void bad(size_t at, const char *what)
{
	if (problems++ < 20)
		printf("ttycheck: byte %zu: %s\n", at, what);
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
		if (*s == 'e') {
			d[n++] = 27;
			s++;
		} else if (*s == 'a') {
			d[n++] = 7;
			s++;
		} else if (*s == 'x' && s[1] && s[2]) {
			char hex[3] = { s[1], s[2], 0 };
			d[n++] = (char)strtol(hex, NULL, 16);
			s += 3;
		} else {
			d[n++] = *s++;
		}
	}
	return n;
}

/* Length of the UTF-8 sequence at b (0 when invalid); its code point. */
static size_t utf8(const unsigned char *b, size_t len, unsigned *cp)
{
	unsigned c = b[0], v, min;
	size_t n;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2; v = c & 0x1F; min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3; v = c & 0x0F; min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4; v = c & 0x07; min = 0x10000;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((b[i] & 0xC0) != 0x80)
			return 0;
		v = v << 6 | (b[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	*cp = v;
	return n;
}

/* A CSI at b[0] (ESC [): complain when it is one that makes the terminal
 * answer (DSR "n", DA "c", window reports "t" with 11..21). */
static void check_csi(const unsigned char *b, size_t len, size_t at)
{
	size_t i = 2;
	while (i < len && b[i] >= 0x20 && b[i] <= 0x3F)
		i++;
	if (i >= len)
		return;
	if (b[i] == 'n' || b[i] == 'c')
		bad(at, "a CSI that asks the terminal to answer");
	if (b[i] == 't' && i > 2 && b[2] >= '1' && b[2] <= '2' && i > 3 &&
	    b[3] >= '0' && b[3] <= '9' && !(b[2] == '2' && b[3] == '2') &&
	    !(b[2] == '2' && b[3] == '3'))
		bad(at, "a CSI window report request");
}

static void check_bytes(const unsigned char *b, size_t len)
{
	for (size_t i = 0; i < len;) {
		unsigned cp;
		size_t n = utf8(b + i, len - i, &cp);
		if (n == 0) {
			bad(i, "invalid UTF-8");
			i++;
			continue;
		}
		if (cp == 27 && i + 1 < len) {
			if (strchr("]P_^Xc", b[i + 1]))
				bad(i, "an escape sequence curses never writes "
				    "(OSC, DCS, APC, PM, SOS or RIS)");
			if (b[i + 1] == '[')
				check_csi(b + i, len - i, i);
		} else if ((cp < 0x20 && !strchr("\b\t\n\r", (int)cp)) ||
			   cp == 0x7F) {
			bad(i, "a raw control character");
		} else if (cp >= 0x80 && cp <= 0x9F) {
			bad(i, "a C1 control");
		} else if (cp == 0x61C || cp == 0x200E || cp == 0x200F ||
			   (cp >= 0x202A && cp <= 0x202E) ||
			   (cp >= 0x2066 && cp <= 0x2069)) {
			bad(i, "a bidirectional control");
		}
		i += n;
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: ttycheck FILE [+TEXT]... [-TEXT]...\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	size_t cap = 1 << 20, len = 0;
	unsigned char *b = malloc(cap);
	size_t n;
	while (b && (n = fread(b + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap)
			b = realloc(b, cap *= 2);
	}
	fclose(f);
	if (!b)
		return 2;
	check_bytes(b, len);
	for (int i = 2; i < argc; i++) {
		char *t = malloc(strlen(argv[i]) + 1);
		size_t tl = unescape(argv[i] + 1, t);
		int has = tl && memmem(b, len, t, tl) != NULL;
		if (argv[i][0] == '+' && !has) {
			printf("ttycheck: '%s' never reached the screen\n",
			       argv[i] + 1);
			problems++;
		} else if (argv[i][0] == '-' && has) {
			printf("ttycheck: '%s' reached the terminal raw\n",
			       argv[i] + 1);
			problems++;
		}
		free(t);
	}
	free(b);
	if (problems)
		printf("ttycheck: %d problem(s) in %s (%zu bytes)\n", problems,
		       argv[1], len);
	return problems ? 1 : 0;
}
