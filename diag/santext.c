/* compute-sanitizer's findings read from its text output, for a memcheck
 * pass that stopped the sanitizer before it wrote its XML report
 * (include/cudbg/sanitizer.h, diag_san_from_text).
 *
 * compute-sanitizer 2025.3 writes the XML only when it exits, after its
 * GPU coredump, while the text of a finding comes through the pipe as
 * soon as the error happens (tests/fixtures/gpu/run17: int_overflow's
 * finding at 0.76 s, its 2 GB coredump until 17.6 s, the XML then).  A
 * finding is a block of lines that start "========= ":
 *
 *   ========= Invalid __global__ write of size 1 bytes
 *   =========     at stamp_records(unsigned char *, int, unsigned char)+0x390 in int_overflow.cu:20
 *   =========     by thread (0,0,0) in block (2048,0,0)
 *   =========     Access to 0x7fac54000000 is out of bounds
 *   =========     and is 2,147,483,648 bytes before the nearest allocation at 0x... of size ...
 *   =========     Saved host backtrace up to driver entry point at kernel launch time
 *   =========         Host Frame: main in int_overflow.cu:28 [0x8d55] in int_overflow
 *   =========
 *
 * Other headers: "Warp assert", "Trace/breakpoint trap" (Imprecise in
 * the XML), "Stack overflow" (kind StackOverflow), "Program hit
 * cudaErrorX (error N) due to "MSG" on CUDA API call to F." (Api).  The
 * text names a function with its parameters ("row_sums(float **, int,
 * float *)"); the XML drops what lies between the first '(' and the last
 * ')' ("row_sums", "at::native:: const [clone .isra.0]"), and so does
 * this reader, so that the rules see the same names either way.  The
 * text gives a source file's base name where the XML gives its path.
 * Lines without the prefix are the program's own output. */
#include "cudbg/sanitizer.h"
#include "diag/internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX "========="
#define SAVED "Saved host backtrace up to driver entry point at "

struct reader {
	struct diag_san *s;
	struct diag_san_record *rec; /* the finding being read, or NULL */
};

/* A copy of [p, p+n) with the parameter lists cut as the XML cuts them. */
static char *func_name(const char *p, size_t n)
{
	const char *open = memchr(p, '(', n);
	const char *close = NULL;
	for (size_t i = n; open && i > 0; i--)
		if (p[i - 1] == ')') {
			close = p + i - 1;
			break;
		}
	if (!open || !close || close < open)
		return diag_strndup(p, n);
	size_t a = (size_t)(open - p), b = n - (size_t)(close + 1 - p);
	char *out = malloc(a + b + 1);
	if (!out)
		return NULL;
	memcpy(out, p, a);
	memcpy(out + a, close + 1, b);
	out[a + b] = '\0';
	return out;
}

/* "FILE:LINE" at the end of [p, end): sets *path and *line. */
static bool file_line(const char *p, const char *end, char **path,
		      unsigned *line)
{
	const char *colon = NULL;
	for (const char *q = end; q > p; q--)
		if (q[-1] == ':') {
			colon = q - 1;
			break;
		}
	if (!colon || colon == p || colon + 1 == end)
		return false;
	unsigned v = 0;
	for (const char *q = colon + 1; q < end; q++) {
		if (!isdigit((unsigned char)*q) || v > 100000000u)
			return false;
		v = v * 10 + (unsigned)(*q - '0');
	}
	*path = diag_strndup(p, (size_t)(colon - p));
	*line = v;
	return *path != NULL;
}

/* The last " in " of [p, end) whose right side is FILE:LINE. */
static const char *last_in(const char *p, const char *end)
{
	for (const char *q = end - 4; q >= p; q--)
		if (memcmp(q, " in ", 4) == 0)
			return q;
	return NULL;
}

/* "FUNC+0xOFF in FILE:LINE", "FUNC+0xOFF", "FUNC in FILE:LINE",
 * "FUNC [0xPC] in MODULE", "FUNC in FILE:LINE [0xPC] in MODULE",
 * " [0xPC] in MODULE": one frame (or a record's <where>). */
static void read_frame(const char *p, const char *end, char **func,
		       char **path, unsigned *line, uint64_t *pc,
		       bool *has_pc, char **module)
{
	const char *br = NULL;
	for (const char *q = end; q > p; q--)
		if (q[-1] == '[' && end - q > 2 && q[0] == '0' && q[1] == 'x') {
			br = q - 1;
			break;
		}
	if (br) { /* "[0xPC] in MODULE" */
		const char *close = memchr(br, ']', (size_t)(end - br));
		if (close) {
			char *hex = diag_strndup(br + 1, (size_t)(close - br - 1));
			*has_pc = hex && diag_parse_u64(hex, pc);
			free(hex);
			if (module && end - close > 4 &&
			    memcmp(close + 1, " in ", 4) == 0)
				*module = diag_strndup(close + 5,
						       (size_t)(end - close - 5));
		}
		end = br;
		while (end > p && end[-1] == ' ')
			end--;
	}
	const char *in = last_in(p, end);
	if (in && file_line(in + 4, end, path, line))
		end = in;
	const char *plus = NULL;
	for (const char *q = end - 3; q >= p; q--)
		if (memcmp(q, "+0x", 3) == 0) {
			plus = q;
			break;
		}
	if (plus && !*has_pc) {
		char *hex = diag_strndup(plus + 1, (size_t)(end - plus - 1));
		*has_pc = hex && diag_parse_u64(hex, pc);
		free(hex);
		if (*has_pc)
			end = plus;
	}
	while (p < end && *p == ' ')
		p++;
	if (end > p)
		*func = func_name(p, (size_t)(end - p));
}

/* [p, end) into buf as a string, cut to its size: sscanf needs a NUL,
 * and the text need not have one there (a fuzz input ran past it,
 * valgrind). */
static void copy_cut(char *buf, size_t cap, const char *p, const char *end)
{
	size_t n = (size_t)(end - p) < cap - 1 ? (size_t)(end - p) : cap - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
}

/* "Invalid __global__ write of size 1 bytes" */
static void read_invalid(struct diag_san_record *r, const char *p,
			 const char *end)
{
	char buf[160];
	copy_cut(buf, sizeof buf, p, end);
	char space[64], dir[32];
	unsigned size;
	r->kind = DIAG_SAN_PRECISE;
	if (sscanf(buf, "Invalid %63s %31s of size %u bytes", space, dir,
		   &size) == 3) {
		r->space = diag_strdup(space);
		r->direction = diag_strdup(dir);
		r->size = size;
	}
	r->text = diag_strndup(p, (size_t)(end - p));
}

/* Program hit cudaErrorInvalidValue (error 1) due to "invalid argument"
 * on CUDA API call to cudaLaunchKernel. */
static void read_api(struct diag_san_record *r, const char *p,
		     const char *end)
{
	r->kind = DIAG_SAN_API;
	r->text = diag_strndup(p, (size_t)(end - p));
	const char *e = p + 12;
	const char *sp = memchr(e, ' ', (size_t)(end - e));
	if (!sp)
		return;
	r->error = diag_strndup(e, (size_t)(sp - e));
	char buf[48]; /* " (error 1)" */
	copy_cut(buf, sizeof buf, sp, end);
	long v;
	if (sscanf(buf, " (error %ld)", &v) == 1)
		r->result = v;
	const char *q1 = memchr(sp, '"', (size_t)(end - sp));
	const char *q2 = q1 ? memchr(q1 + 1, '"', (size_t)(end - q1 - 1)) : NULL;
	if (q2)
		r->message = diag_strndup(q1 + 1, (size_t)(q2 - q1 - 1));
	static const char to[] = "on CUDA API call to ";
	const char *t = q2 ? q2 : sp;
	for (; t + sizeof to - 1 <= end; t++)
		if (memcmp(t, to, sizeof to - 1) == 0) {
			const char *a = t + sizeof to - 1, *b = end;
			while (b > a && (b[-1] == '.' || b[-1] == ' '))
				b--;
			r->api = diag_strndup(a, (size_t)(b - a));
			break;
		}
}

static void start_record(struct reader *rd, const char *p, const char *end)
{
	struct diag_san_record *r = diag_san_push(rd->s);
	rd->rec = r;
	if (!r)
		return;
	r->level = diag_strdup("Error");
	if (text_starts(p, (size_t)(end - p), "Invalid ")) {
		read_invalid(r, p, end);
	} else if (text_starts(p, (size_t)(end - p), "Program hit ")) {
		read_api(r, p, end);
	} else if (text_starts(p, (size_t)(end - p), "Stack overflow")) {
		r->kind_text = diag_strdup("StackOverflow");
		r->text = diag_strndup(p, (size_t)(end - p));
	} else {
		r->kind = DIAG_SAN_IMPRECISE;
		r->exception = diag_strndup(p, (size_t)(end - p));
	}
	if (!r->kind_text)
		r->kind_text = diag_strdup(diag_san_kind_name(r->kind));
}

/* Headers that are not findings. */
static bool not_a_finding(const char *p, const char *end)
{
	static const char *const skip[] = {
		"COMPUTE-SANITIZER", "ERROR SUMMARY", "LEAK SUMMARY",
		"Generating coredump file", "It can be loaded",
		"cuda-gdb ", "Target application returned", "Leaked ",
	};
	for (size_t i = 0; i < sizeof skip / sizeof *skip; i++)
		if (text_starts(p, (size_t)(end - p), skip[i]))
			return true;
	return !isupper((unsigned char)*p);
}

/* "Access to 0xADDR is out of bounds" */
static void read_access(struct diag_san_record *r, const char *p,
			const char *end)
{
	const char *a = memchr(p, '0', (size_t)(end - p));
	const char *b = a;
	while (b && b < end && *b != ' ')
		b++;
	char *hex = a ? diag_strndup(a, (size_t)(b - a)) : NULL;
	r->has_address = hex && diag_parse_u64(hex, &r->address);
	free(hex);
	if (b && end - b > 4 && memcmp(b, " is ", 4) == 0) {
		const char *e = end;
		while (e > b + 4 && e[-1] == '.')
			e--;
		free(r->error);
		r->error = diag_strndup(b + 4, (size_t)(e - b - 4));
		if (r->text && r->error) {
			struct dbuf t = {0};
			dbuf_printf(&t, "%s is %s", r->text, r->error);
			if (!t.oom) {
				free(r->text);
				r->text = dbuf_take(&t);
			}
			dbuf_free(&t);
		}
	}
}

static void detail_line(struct reader *rd, const char *p, const char *end)
{
	struct diag_san_record *r = rd->rec;
	if (text_starts(p, (size_t)(end - p), "at ") && !r->func && !r->path &&
	    !r->has_pc) {
		read_frame(p + 3, end, &r->func, &r->path, &r->line, &r->pc,
			   &r->has_pc, NULL);
	} else if (text_starts(p, (size_t)(end - p), "by thread (")) {
		r->has_who = diag_san_scan_who(p, end, &r->thread, &r->block);
	} else if ((text_starts(p, (size_t)(end - p), "Access to 0x") ||
		    text_starts(p, (size_t)(end - p), "Address 0x")) && !r->has_address &&
		   !r->error) {
		read_access(r, p, end);
	} else if (text_starts(p, (size_t)(end - p), SAVED)) {
		const char *a = p + sizeof SAVED - 1;
		free(r->save_location);
		r->save_location = diag_strndup(a, (size_t)(end - a));
	} else if (text_starts(p, (size_t)(end - p), "Host Frame:") ||
		   text_starts(p, (size_t)(end - p), "Device Frame:")) {
		bool host = *p == 'H';
		struct diag_san_frame *f = diag_san_push_frame(r, host);
		if (!f)
			return;
		const char *a = p + (host ? 11 : 13);
		read_frame(a, end, &f->func, &f->path, &f->line, &f->pc,
			   &f->has_pc, &f->module);
		diag_san_frame_done(f);
	}
}

/* One line, without its newline: a finding's header, a detail of the
 * finding being read, or its end (the prefix alone). */
static void line(struct reader *rd, const char *p, const char *end)
{
	if (!text_starts(p, (size_t)(end - p), PREFIX))
		return; /* the program's own output */
	p += sizeof PREFIX - 1;
	while (end > p && (end[-1] == '\r' || end[-1] == ' '))
		end--;
	if (p == end) {
		rd->rec = NULL;
		return;
	}
	if (*p != ' ')
		return;
	p++;
	if (*p != ' ') {
		rd->rec = NULL;
		if (!not_a_finding(p, end))
			start_record(rd, p, end);
		return;
	}
	while (p < end && *p == ' ')
		p++;
	if (rd->rec)
		detail_line(rd, p, end);
}

struct diag_san *diag_san_from_text(const char *text, size_t len)
{
	struct reader rd = { .s = diag_san_new() };
	if (!rd.s)
		return NULL;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		line(&rd, p, e);
		p = e + (nl != NULL);
	}
	diag_san_add_text(rd.s, text, len);
	return rd.s;
}
