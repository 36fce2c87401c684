/* compute-sanitizer XML reports, stream fed through expat.
 *
 * The reader keeps a path of open element names (bounded depth) and the
 * text of the innermost element; at each end tag it stores the text into
 * the record or frame being built, picked by the path.  Elements it does
 * not know are skipped, so newer sanitizer versions with more fields still
 * read.  Observed with compute-sanitizer 2025.3.1.
 */
#include "cudbg/sanitizer.h"
#include "diag/internal.h"

#include <ctype.h>
#include <errno.h>
#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum stack_kind { STK_NONE, STK_HOST, STK_DEVICE };

struct diag_san {
	XML_Parser xp;
	struct diag_san_record *v;
	size_t n, cap;
	bool truncated, failed, finished;
	char error[256];

	const char *path[DIAG_SAN_MAX_DEPTH]; /* interned element names */
	int depth;
	int skip_depth;             /* > 0 inside an ignored subtree */
	struct dbuf text;           /* text of the current element */
	bool text_over;
	struct diag_san_record *rec; /* record being built, NULL outside */
	enum stack_kind stack;
	struct diag_san_frame *frame; /* frame being built */
	int wheres;                 /* <where>s of the record so far: a
				     * race's second one is its other access */
	bool root_seen;
};

static const char *const known_names[] = {
	"ComputeSanitizerOutput", "record", "kind", "level", "who",
	"threadIdx", "blockIdx", "x", "y", "z", "what", "text", "space",
	"size", "direction", "error", "address", "exception", "pc", "api",
	"message", "result", "where", "func", "path", "line", "module",
	"hostStack", "deviceStack", "saveLocation", "frame",
	"hazardType", "hazards", /* racecheck (santools.c) */
	/* racecheck 2025.3 on the H200 (tests/fixtures/gpu/explore,
	 * run1/race_shared.racecheck.sanitizer.xml): <what> holds a <source>
	 * and a <destination> access, each with <direction> and <where>, and
	 * the destination's <count> of hazards. */
	"source", "destination", "count", NULL,
};

/* Names are compared by pointer after interning into the table above;
 * anything else becomes "?" and is ignored. */
static const char *intern(const char *name)
{
	for (size_t i = 0; known_names[i]; i++)
		if (strcmp(known_names[i], name) == 0)
			return known_names[i];
	return "?";
}

static bool at(const struct diag_san *s, int up, const char *name)
{
	int i = s->depth - 1 - up;
	return i >= 0 && strcmp(s->path[i], name) == 0;
}

static void fail(struct diag_san *s, const char *msg)
{
	if (s->failed)
		return;
	s->failed = true;
	snprintf(s->error, sizeof s->error, "line %lu, column %lu: %s",
		 (unsigned long)XML_GetCurrentLineNumber(s->xp),
		 (unsigned long)XML_GetCurrentColumnNumber(s->xp), msg);
	XML_StopParser(s->xp, XML_FALSE);
}

static void record_clear(struct diag_san_record *r)
{
	free(r->kind_text);
	free(r->level);
	free(r->text);
	free(r->space);
	free(r->direction);
	free(r->error);
	free(r->exception);
	free(r->api);
	free(r->message);
	free(r->func);
	free(r->path);
	free(r->save_location);
	free(r->hazard);
	free(r->direction2);
	free(r->func2);
	free(r->path2);
	for (size_t i = 0; i < r->n_host; i++) {
		free(r->host[i].func);
		free(r->host[i].path);
		free(r->host[i].module);
	}
	for (size_t i = 0; i < r->n_device; i++) {
		free(r->device[i].func);
		free(r->device[i].path);
		free(r->device[i].module);
	}
	free(r->host);
	free(r->device);
	memset(r, 0, sizeof *r);
}

static void on_start(void *ctx, const XML_Char *name, const XML_Char **attrs)
{
	struct diag_san *s = ctx;
	(void)attrs;
	if (s->depth >= DIAG_SAN_MAX_DEPTH) {
		fail(s, "elements nested too deep");
		return;
	}
	const char *n = intern(name);
	s->path[s->depth++] = n;
	s->text.len = 0;
	if (s->text.s)
		s->text.s[0] = '\0';
	s->text_over = false;
	if (s->skip_depth) {
		s->skip_depth++;
		return;
	}
	if (s->depth == 1) {
		if (n != known_names[0])
			fail(s, "not a compute-sanitizer report "
				"(root element is not ComputeSanitizerOutput)");
		s->root_seen = true;
		return;
	}
	if (s->depth == 2 && strcmp(n, "record") == 0) {
		if (s->n >= DIAG_SAN_MAX_RECORDS) {
			s->truncated = true;
			s->skip_depth = 1;
			return;
		}
		if (s->n == s->cap) {
			size_t cap = s->cap ? s->cap * 2 : 8;
			void *v = realloc(s->v, cap * sizeof *s->v);
			if (!v) {
				fail(s, "out of memory");
				return;
			}
			s->v = v;
			s->cap = cap;
		}
		s->rec = &s->v[s->n++];
		memset(s->rec, 0, sizeof *s->rec);
		s->wheres = 0;
		s->rec->kind = DIAG_SAN_OTHER;
		s->rec->result = 0;
		return;
	}
	if (!s->rec)
		return;
	if (strcmp(n, "where") == 0 && s->depth == 3)
		s->wheres++;
	if (strcmp(n, "hostStack") == 0 && s->depth == 3)
		s->stack = STK_HOST;
	else if (strcmp(n, "deviceStack") == 0 && s->depth == 3)
		s->stack = STK_DEVICE;
	else if (strcmp(n, "frame") == 0 && s->stack != STK_NONE &&
		 s->depth == 4) {
		struct diag_san_frame **fv =
			s->stack == STK_HOST ? &s->rec->host : &s->rec->device;
		size_t *nf = s->stack == STK_HOST ? &s->rec->n_host
						   : &s->rec->n_device;
		if (*nf >= DIAG_SAN_MAX_FRAMES) {
			s->truncated = true;
			s->skip_depth = 1;
			return;
		}
		/* Capacity 4, then doubling at each power of two. */
		if (*nf == 0 || (*nf >= 4 && (*nf & (*nf - 1)) == 0)) {
			size_t cap = *nf ? *nf * 2 : 4;
			void *v = realloc(*fv, cap * sizeof **fv);
			if (!v) {
				fail(s, "out of memory");
				return;
			}
			*fv = v;
		}
		s->frame = &(*fv)[(*nf)++];
		memset(s->frame, 0, sizeof *s->frame);
	}
}

static void on_text(void *ctx, const XML_Char *t, int len)
{
	struct diag_san *s = ctx;
	if (s->skip_depth || s->text_over || len <= 0)
		return;
	if (s->text.len + (size_t)len > DIAG_SAN_MAX_TEXT) {
		s->text_over = true;
		s->truncated = true;
		return;
	}
	dbuf_put(&s->text, t, (size_t)len);
	if (s->text.oom)
		fail(s, "out of memory");
}

/* The element's text with surrounding white space removed. */
static char *text_copy(struct diag_san *s)
{
	const char *t = s->text.s ? s->text.s : "";
	size_t n = s->text.len;
	while (n && isspace((unsigned char)*t))
		t++, n--;
	while (n && isspace((unsigned char)t[n - 1]))
		n--;
	char *c = diag_strndup(t, n);
	if (!c)
		fail(s, "out of memory");
	return c;
}

static void set_str(struct diag_san *s, char **dst)
{
	char *c = text_copy(s);
	if (!c)
		return;
	free(*dst);
	*dst = c;
}

static const char *scan_dec(const char *p, const char *end, uint64_t *v);

/* A number in the XML: decimal or 0x hex, and a decimal with thousands
 * separators as the tool's text has them. */
static bool xml_number(const char *c, uint64_t *v)
{
	size_t n = strlen(c);
	return diag_parse_u64(c, v) || (n && scan_dec(c, c + n, v) == c + n);
}

static void set_u64(struct diag_san *s, uint64_t *dst, bool *has)
{
	char *c = text_copy(s);
	uint64_t v;
	if (c && xml_number(c, &v)) {
		*dst = v;
		if (has)
			*has = true;
	}
	free(c);
}

static void set_uint(struct diag_san *s, unsigned *dst)
{
	uint64_t v = 0;
	set_u64(s, &v, NULL);
	if (v <= 0xffffffffu)
		*dst = (unsigned)v;
}

static void set_axis(struct diag_san *s, struct diag_dim3 *d, const char *n)
{
	unsigned v = 0;
	set_uint(s, &v);
	if (n[0] == 'x')
		d->x = v;
	else if (n[0] == 'y')
		d->y = v;
	else
		d->z = v;
}

static enum diag_san_kind kind_of(const char *t)
{
	if (strcasecmp(t, "Precise") == 0)
		return DIAG_SAN_PRECISE;
	if (strcasecmp(t, "Imprecise") == 0)
		return DIAG_SAN_IMPRECISE;
	if (strcasecmp(t, "Api") == 0)
		return DIAG_SAN_API;
	if (diag_ci_strstr(t, "leak"))
		return DIAG_SAN_LEAK;
	return DIAG_SAN_OTHER;
}

static void end_frame_field(struct diag_san *s, const char *n)
{
	struct diag_san_frame *f = s->frame;
	if (strcmp(n, "func") == 0)
		set_str(s, &f->func);
	else if (strcmp(n, "path") == 0)
		set_str(s, &f->path);
	else if (strcmp(n, "line") == 0)
		set_uint(s, &f->line);
	else if (strcmp(n, "pc") == 0)
		set_u64(s, &f->pc, &f->has_pc);
	else if (strcmp(n, "module") == 0)
		set_str(s, &f->module);
}

static void end_what_field(struct diag_san *s, const char *n)
{
	struct diag_san_record *r = s->rec;
	if (strcmp(n, "text") == 0)
		set_str(s, &r->text);
	else if (strcmp(n, "space") == 0)
		set_str(s, &r->space);
	else if (strcmp(n, "size") == 0)
		set_uint(s, &r->size);
	else if (strcmp(n, "direction") == 0)
		set_str(s, &r->direction);
	else if (strcmp(n, "error") == 0)
		set_str(s, &r->error);
	else if (strcmp(n, "exception") == 0)
		set_str(s, &r->exception);
	else if (strcmp(n, "api") == 0)
		set_str(s, &r->api);
	else if (strcmp(n, "message") == 0)
		set_str(s, &r->message);
	else if (strcmp(n, "address") == 0)
		set_u64(s, &r->address, &r->has_address);
	else if (strcmp(n, "hazardType") == 0)
		set_str(s, &r->hazard);
	else if (strcmp(n, "hazards") == 0) {
		uint64_t v = 0;
		set_u64(s, &v, NULL);
		r->hazards = (unsigned long)v;
	} else if (strcmp(n, "result") == 0) {
		uint64_t v = 0;
		set_u64(s, &v, NULL);
		r->result = (long)(v & 0x7fffffff);
	}
}

/* A racecheck access: what/source or what/destination, with its
 * direction, its where (func, path, line, pc) and, for the destination,
 * the count of hazards.  The source is the record's first access. */
static void end_race_access(struct diag_san *s, const char *n)
{
	struct diag_san_record *r = s->rec;
	bool in_where = s->depth == 6 && at(s, 1, "where");
	bool second = in_where ? at(s, 2, "destination")
			       : at(s, 1, "destination");
	if (s->depth == 5 && strcmp(n, "direction") == 0)
		set_str(s, second ? &r->direction2 : &r->direction);
	else if (s->depth == 5 && second && strcmp(n, "count") == 0) {
		uint64_t v = 0;
		set_u64(s, &v, NULL);
		r->hazards = (unsigned long)v;
	} else if (in_where && strcmp(n, "func") == 0)
		set_str(s, second ? &r->func2 : &r->func);
	else if (in_where && strcmp(n, "path") == 0)
		set_str(s, second ? &r->path2 : &r->path);
	else if (in_where && strcmp(n, "line") == 0)
		set_uint(s, second ? &r->line2 : &r->line);
	else if (in_where && strcmp(n, "pc") == 0)
		set_u64(s, second ? &r->pc2 : &r->pc,
			second ? &r->has_pc2 : &r->has_pc);
}

static void end_record_field(struct diag_san *s, const char *n)
{
	struct diag_san_record *r = s->rec;
	if (s->depth == 3 && strcmp(n, "kind") == 0) {
		set_str(s, &r->kind_text);
		if (r->kind_text)
			r->kind = kind_of(r->kind_text);
	} else if (s->depth == 3 && strcmp(n, "level") == 0) {
		set_str(s, &r->level);
	} else if (s->depth == 5 && at(s, 2, "who") &&
		   (n[0] == 'x' || n[0] == 'y' || n[0] == 'z') && !n[1]) {
		r->has_who = true;
		set_axis(s, at(s, 1, "threadIdx") ? &r->thread : &r->block, n);
	} else if (s->depth == 4 && at(s, 1, "what")) {
		end_what_field(s, n);
	} else if (s->depth == 4 && at(s, 1, "where") && s->wheres > 1) {
		if (strcmp(n, "func") == 0) /* a race's other access */
			set_str(s, &r->func2);
		else if (strcmp(n, "path") == 0)
			set_str(s, &r->path2);
		else if (strcmp(n, "line") == 0)
			set_uint(s, &r->line2);
		else if (strcmp(n, "pc") == 0)
			set_u64(s, &r->pc2, &r->has_pc2);
	} else if (s->depth == 4 && at(s, 1, "where")) {
		if (strcmp(n, "func") == 0)
			set_str(s, &r->func);
		else if (strcmp(n, "path") == 0)
			set_str(s, &r->path);
		else if (strcmp(n, "line") == 0)
			set_uint(s, &r->line);
		else if (strcmp(n, "pc") == 0)
			set_u64(s, &r->pc, &r->has_pc);
	} else if (s->depth >= 5 && (at(s, 1, "source") || at(s, 2, "source") ||
				     at(s, 1, "destination") ||
				     at(s, 2, "destination"))) {
		end_race_access(s, n);
	} else if (s->depth == 4 && at(s, 1, "hostStack") &&
		   strcmp(n, "saveLocation") == 0) {
		set_str(s, &r->save_location);
	} else if (s->depth == 5 && s->frame && at(s, 1, "frame")) {
		end_frame_field(s, n);
	}
}

static void finish_frame(struct diag_san_frame *f)
{
	size_t n = f->path ? strlen(f->path) : 0;
	f->python = !f->module && n > 3 && strcmp(f->path + n - 3, ".py") == 0;
}

static void on_end(void *ctx, const XML_Char *name)
{
	struct diag_san *s = ctx;
	(void)name;
	if (s->depth <= 0)
		return;
	const char *n = s->path[s->depth - 1];
	if (s->skip_depth) {
		s->skip_depth--;
	} else if (s->rec) {
		if (s->depth == 2) {
			diag_san_classify(s->rec);
			s->rec = NULL;
		} else if (s->depth == 3 && (strcmp(n, "hostStack") == 0 ||
					       strcmp(n, "deviceStack") == 0)) {
			s->stack = STK_NONE;
		} else if (s->depth == 4 && strcmp(n, "frame") == 0 &&
			   s->frame) {
			finish_frame(s->frame);
			s->frame = NULL;
		} else {
			end_record_field(s, n);
		}
	}
	s->depth--;
	s->text.len = 0;
}

/* A report never has a DTD; refusing one rules out entity expansion. */
static void on_doctype(void *ctx, const XML_Char *name, const XML_Char *sys,
		       const XML_Char *pub, int has_internal)
{
	(void)name, (void)sys, (void)pub, (void)has_internal;
	fail(ctx, "a DOCTYPE is not allowed in a sanitizer report");
}

static void on_entity(void *ctx, const XML_Char *name, int param,
		      const XML_Char *value, int value_len,
		      const XML_Char *base, const XML_Char *sys,
		      const XML_Char *pub, const XML_Char *notation)
{
	(void)name, (void)param, (void)value, (void)value_len, (void)base;
	(void)sys, (void)pub, (void)notation;
	fail(ctx, "entity declarations are not allowed");
}

struct diag_san *diag_san_new(void)
{
	struct diag_san *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->xp = XML_ParserCreate("UTF-8");
	if (!s->xp) {
		free(s);
		return NULL;
	}
	XML_SetUserData(s->xp, s);
	XML_SetElementHandler(s->xp, on_start, on_end);
	XML_SetCharacterDataHandler(s->xp, on_text);
	XML_SetStartDoctypeDeclHandler(s->xp, on_doctype);
	XML_SetEntityDeclHandler(s->xp, on_entity);
	return s;
}

void diag_san_free(struct diag_san *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		record_clear(&s->v[i]);
	free(s->v);
	dbuf_free(&s->text);
	if (s->xp)
		XML_ParserFree(s->xp);
	free(s);
}

static int check_status(struct diag_san *s, enum XML_Status st)
{
	if (s->failed)
		return DIAG_ESYNTAX;
	if (st == XML_STATUS_ERROR) {
		fail(s, XML_ErrorString(XML_GetErrorCode(s->xp)));
		return DIAG_ESYNTAX;
	}
	return DIAG_OK;
}

int diag_san_feed(struct diag_san *s, const char *buf, size_t len)
{
	if (s->failed)
		return DIAG_ESYNTAX;
	if (s->finished)
		return DIAG_ESTATE;
	while (len) {
		int n = len > (1u << 30) ? (1 << 30) : (int)len;
		int rc = check_status(s, XML_Parse(s->xp, buf, n, XML_FALSE));
		if (rc < 0)
			return rc;
		buf += n;
		len -= (size_t)n;
	}
	return DIAG_OK;
}

int diag_san_finish(struct diag_san *s)
{
	if (s->failed)
		return DIAG_ESYNTAX;
	if (s->finished)
		return DIAG_OK;
	s->finished = true;
	int rc = check_status(s, XML_Parse(s->xp, "", 0, XML_TRUE));
	if (rc == 0 && !s->root_seen) {
		fail(s, "empty report");
		rc = DIAG_ESYNTAX;
	}
	/* A record cut by a parse error is dropped whole, so every record
	 * handed out was closed properly. */
	if (rc < 0 && s->rec) {
		record_clear(s->rec);
		s->n--;
		s->rec = NULL;
	}
	return rc;
}

int diag_san_load_file(const char *path, struct diag_san **out, char *err,
		       size_t errcap)
{
	*out = NULL;
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errcap, "%s: cannot open the sanitizer report: %s",
			 path, strerror(errno));
		return DIAG_ENOTFOUND;
	}
	struct diag_san *s = diag_san_new();
	if (!s) {
		fclose(f);
		snprintf(err, errcap, "%s: out of memory", path);
		return DIAG_ENOMEM;
	}
	char buf[65536];
	size_t n;
	int rc = DIAG_OK;
	while (rc == DIAG_OK && (n = fread(buf, 1, sizeof buf, f)) > 0)
		rc = diag_san_feed(s, buf, n);
	if (rc == DIAG_OK && ferror(f)) {
		snprintf(err, errcap, "%s: read error", path);
		rc = DIAG_EIO;
	} else {
		if (rc == DIAG_OK)
			rc = diag_san_finish(s);
		if (rc < 0)
			snprintf(err, errcap,
				 "%s: not a valid compute-sanitizer XML report "
				 "(%s); make one with --xml --save FILE",
				 path, s->error);
	}
	fclose(f);
	if (rc < 0) {
		diag_san_free(s);
		return rc;
	}
	*out = s;
	return DIAG_OK;
}

const char *diag_san_error(const struct diag_san *s)
{
	return s->error;
}

bool diag_san_truncated(const struct diag_san *s)
{
	return s->truncated;
}

/* ---- records made by hand (diag/santext.c) ------------------------------ */

struct diag_san_record *diag_san_push(struct diag_san *s)
{
	if (!s || s->rec || s->n >= DIAG_SAN_MAX_RECORDS) {
		if (s && !s->rec)
			s->truncated = true;
		return NULL;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		void *v = realloc(s->v, cap * sizeof *s->v);
		if (!v)
			return NULL;
		s->v = v;
		s->cap = cap;
	}
	struct diag_san_record *r = &s->v[s->n++];
	memset(r, 0, sizeof *r);
	r->kind = DIAG_SAN_OTHER;
	return r;
}

struct diag_san_frame *diag_san_push_frame(struct diag_san_record *r,
					   bool host)
{
	struct diag_san_frame **fv = host ? &r->host : &r->device;
	size_t *nf = host ? &r->n_host : &r->n_device;
	if (*nf >= DIAG_SAN_MAX_FRAMES)
		return NULL;
	if (*nf == 0 || (*nf >= 4 && (*nf & (*nf - 1)) == 0)) {
		size_t cap = *nf ? *nf * 2 : 4;
		void *v = realloc(*fv, cap * sizeof **fv);
		if (!v)
			return NULL;
		*fv = v;
	}
	struct diag_san_frame *f = &(*fv)[(*nf)++];
	memset(f, 0, sizeof *f);
	return f;
}

void diag_san_frame_done(struct diag_san_frame *f)
{
	finish_frame(f);
}

size_t diag_san_count(const struct diag_san *s)
{
	return s ? s->n - (s->rec ? 1 : 0) : 0;
}

const struct diag_san_record *diag_san_get(const struct diag_san *s, size_t i)
{
	return s && i < diag_san_count(s) ? &s->v[i] : NULL;
}

size_t diag_san_errors(const struct diag_san *s)
{
	size_t n = 0;
	for (size_t i = 0; i < diag_san_count(s); i++)
		if (s->v[i].kind != DIAG_SAN_OTHER ||
		    (s->v[i].level && strcasecmp(s->v[i].level, "Error") == 0))
			n++;
	return n;
}

const char *diag_san_kind_name(enum diag_san_kind k)
{
	switch (k) {
	case DIAG_SAN_PRECISE: return "Precise";
	case DIAG_SAN_IMPRECISE: return "Imprecise";
	case DIAG_SAN_API: return "Api";
	case DIAG_SAN_LEAK: return "Leak";
	case DIAG_SAN_RACE: return "Race";
	case DIAG_SAN_UNINIT: return "Uninitialized";
	case DIAG_SAN_SYNC: return "Sync";
	case DIAG_SAN_OTHER: break;
	}
	return "Other";
}

/* ---- text output ------------------------------------------------------- */

/* Reads "0x..." at p; returns the end or NULL. */
static const char *scan_hex(const char *p, const char *end, uint64_t *v)
{
	if (end - p < 3 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return NULL;
	p += 2;
	uint64_t x = 0;
	const char *start = p;
	while (p < end && isxdigit((unsigned char)*p) && p - start < 16) {
		int c = tolower((unsigned char)*p);
		x = x * 16 + (uint64_t)(isdigit(c) ? c - '0' : c - 'a' + 10);
		p++;
	}
	if (p == start)
		return NULL;
	*v = x;
	return p;
}

/* Whether p (before end) is a thousands separator: a comma after a digit
 * with exactly three digits behind it. */
static bool group_comma(const char *start, const char *p, const char *end)
{
	return *p == ',' && p > start && isdigit((unsigned char)p[-1]) &&
	       end - p >= 4 && isdigit((unsigned char)p[1]) &&
	       isdigit((unsigned char)p[2]) && isdigit((unsigned char)p[3]) &&
	       (end - p == 4 || !isdigit((unsigned char)p[4]));
}

/* A decimal, with or without thousands separators: compute-sanitizer
 * 2025.3 writes "4,185,984 bytes before the nearest allocation ... of
 * size 4,194,304 bytes" (docs/tool-quirks.md). */
static const char *scan_dec(const char *p, const char *end, uint64_t *v)
{
	uint64_t x = 0;
	int digits = 0;
	const char *start = p;
	while (p < end && digits < 19) {
		if (isdigit((unsigned char)*p)) {
			x = x * 10 + (uint64_t)(*p++ - '0');
			digits++;
		} else if (group_comma(start, p, end)) {
			p++;
		} else {
			break;
		}
	}
	if (!digits)
		return NULL;
	*v = x;
	return p;
}

/* The start of the number that ends at end, separators included. */
static const char *number_start(const char *lo, const char *end)
{
	const char *q = end;
	while (q > lo && (isdigit((unsigned char)q[-1]) ||
			  (q - 1 > lo && group_comma(lo, q - 1, end))))
		q--;
	return q;
}

static const char *find_in(const char *p, const char *end, const char *pat)
{
	size_t n = strlen(pat);
	for (; p + n <= end; p++)
		if (memcmp(p, pat, n) == 0)
			return p;
	return NULL;
}

static struct diag_san_record *precise_at(struct diag_san *s, uint64_t addr)
{
	for (size_t i = 0; i < diag_san_count(s); i++)
		if (s->v[i].kind == DIAG_SAN_PRECISE && s->v[i].has_address &&
		    s->v[i].address == addr && !s->v[i].has_alloc)
			return &s->v[i];
	return NULL;
}

/* The Precise record of thread T in block B still without an allocation:
 * the text of one pass joined to a report of another run of the same
 * program (CI replays a pass recording with the XML of an earlier run),
 * where device addresses differ but the failing threads do not. */
static struct diag_san_record *precise_of(struct diag_san *s,
					  struct diag_dim3 t,
					  struct diag_dim3 b)
{
	for (size_t i = 0; i < diag_san_count(s); i++) {
		struct diag_san_record *r = &s->v[i];
		if (r->kind == DIAG_SAN_PRECISE && r->has_who && !r->has_alloc &&
		    r->thread.x == t.x && r->thread.y == t.y &&
		    r->thread.z == t.z && r->block.x == b.x &&
		    r->block.y == b.y && r->block.z == b.z)
			return r;
	}
	return NULL;
}

bool diag_san_scan_who(const char *p, const char *end, struct diag_dim3 *t,
		       struct diag_dim3 *b)
{
	char buf[96];
	size_t n = (size_t)(end - p) < sizeof buf - 1 ? (size_t)(end - p)
						       : sizeof buf - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return sscanf(buf, "by thread (%u,%u,%u) in block (%u,%u,%u)", &t->x,
		      &t->y, &t->z, &b->x, &b->y, &b->z) == 6;
}

/* "... 0xADDR is out of bounds ... and is N bytes after|before the nearest
 * allocation at 0xA of size M bytes": the two halves may be on separate
 * lines ("=========     Address 0x.. is out of bounds" then "=========
 * and is ..."), so the scan runs over the whole text. */
int diag_san_add_text(struct diag_san *s, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	int done = 0;
	uint64_t last_addr = 0;
	bool have_addr = false, have_who = false;
	struct diag_dim3 who_t = { 0 }, who_b = { 0 };
	while (p < end) {
		const char *oob = find_in(p, end, " is out of bounds");
		const char *near = find_in(p, end, " bytes ");
		const char *by = find_in(p, end, "by thread (");
		if (by && (!oob || by < oob) && (!near || by < near)) {
			have_who = diag_san_scan_who(by, end, &who_t, &who_b);
			p = by + 11;
			continue;
		}
		if (oob && (!near || oob < near)) {
			/* Scan back to the 0x that starts the address. */
			const char *q = oob;
			while (q > p && !isspace((unsigned char)q[-1]))
				q--;
			have_addr = scan_hex(q, oob, &last_addr) != NULL;
			p = oob + 17;
			continue;
		}
		if (!near)
			break;
		/* "and is N bytes after the nearest allocation at 0x.. of
		 * size M bytes" */
		const char *q = number_start(p, near);
		uint64_t dist, alloc, size;
		const char *r = near + 7;
		size_t rn = (size_t)(end - r);
		bool after = text_starts(r, rn, "after the nearest allocation at ");
		bool before = text_starts(r, rn,
					  "before the nearest allocation at ");
		p = near + 7;
		if (!(after || before) || scan_dec(q, near, &dist) != near)
			continue;
		r += after ? 32 : 33;
		r = scan_hex(r, end, &alloc);
		if (!r || !text_starts(r, (size_t)(end - r), " of size ") ||
		    !scan_dec(r + 9, end, &size))
			continue;
		struct diag_san_record *rec =
			have_addr ? precise_at(s, last_addr) : NULL;
		if (!rec && have_who)
			rec = precise_of(s, who_t, who_b);
		if (rec) {
			rec->has_alloc = true;
			rec->alloc_address = alloc;
			rec->alloc_size = size;
			rec->distance = after ? (long long)dist : -(long long)dist;
			done++;
		}
		have_addr = have_who = false;
	}
	return done;
}
