/* The rules file: loading and validation.  Format in docs/hints.md:
 *
 *   # comment
 *   [rule-id]
 *   key = value
 *     continuation lines start with white space
 *
 * Every error names FILE:LINE and what is wrong; the first error stops
 * the load (a half-loaded knowledge base would give wrong advice).
 */
#include "diag/rules.h"
#include "cudbg/pystack.h"
#include "diag/internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const diag_match_key_names[MK_COUNT] = {
	"exception", "assert", "kernel", "sanitizer", "output", "op", "file",
};

static const char *const placeholders[] = {
	"kind", "program", "command",
	"exception", "exception.signal", "exception.code", "exception.explain",
	"exception.message", "exception.scope",
	"kernel", "kernel.full",
	"block", "thread", "lane", "warp", "sm", "device", "grid",
	"location", "location.source", "caller", "caller.source",
	"recursion.func", "recursion.depth", "file", "line", "func",
	"access.address", "access.expr", "access.base", "access.base_value",
	"access.index", "access.index_value", "access.offset",
	"pc.error", "pc.stop",
	"assert.expr", "assert.file", "assert.line", "assert.location",
	"assert.kernel", "assert.count", "assert.total", "assert.blocks",
	"assert.threads", "assert.first",
	"san.kind", "san.error", "san.text", "san.address", "san.size",
	"san.direction", "san.space", "san.thread", "san.block",
	"san.location", "san.distance", "san.side", "san.alloc",
	"san.alloc_size", "san.count", "san.api", "san.message",
	"san.same", "san.same_threads", "san.same_blocks", "san.failed",
	"san.hazard", "san.hazards", "san.direction2", "san.location2",
	"python.line", "python.file", "python.func", "python.source",
	"python.call", "python.call_func", "python.call_source",
	"python.exception", "python.start_error",
	"python.value", "python.rerun",
	"ptr.var", "ptr.value", "ptr.address", "ptr.offset",
	"ovf.var", "ovf.value", "ovf.type", "ovf.line",
	"ovf.wrapped", "ovf.true", "ovf.elem", "ovf.expr",
	"freed.address", "freed.base", "freed.size", "freed.offset",
	"freed.alloc", "freed.alloc_api", "freed.free", "freed.free_api",
	"child.pid", "child.signal", "child.command", "child.unheard",
	"op", "op.user", "sync.call", "core", "exit.code", "exit.signal",
	"exit.how",
	"output.error", "output.match",
	"hang.seconds", "hang.summary", "hang.where", "hang.source",
	"hang.spin", "hang.spin.where", "hang.barrier", "hang.barrier.where",
	"hang.barrier.source", "hang.barrier.block", "hang.barrier.threads",
	"hang.block_size", "hang.threads", "hang.blocks", "hang.places",
	NULL,
};

const char *const *diag_placeholders(void)
{
	return placeholders;
}

static bool known_placeholder(const char *s, size_t n)
{
	for (size_t i = 0; placeholders[i]; i++)
		if (strlen(placeholders[i]) == n &&
		    memcmp(placeholders[i], s, n) == 0)
			return true;
	return false;
}

/* An expression for -data-evaluate-expression: identifiers, members,
 * indexing, arithmetic.  No quotes, braces or '|' (the alternative
 * separator), so it cannot break the MI command it is put into. */
static bool eval_expr_ok(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!(isalnum(c) || strchr("_.[]()->+*/% $", c)))
			return false;
	}
	return true;
}

const char *diag_template_check(const char *t)
{
	for (const char *p = t; *p; p++) {
		if (*p == '}') {
			if (p[1] == '}') {
				p++;
				continue;
			}
			return "a '}' without '{' (write '}}' for a brace)";
		}
		if (*p != '{')
			continue;
		if (p[1] == '{') {
			p++;
			continue;
		}
		const char *end = strchr(p, '}');
		if (!end)
			return "a '{' without '}' (write '{{' for a brace)";
		const char *name = p + 1;
		size_t n = (size_t)(end - name);
		if (n > 5 && strncmp(name, "eval:", 5) == 0) {
			const char *a = name + 5;
			while (a < end) {
				const char *bar = memchr(a, '|', (size_t)(end - a));
				const char *e = bar ? bar : end;
				if (!eval_expr_ok(a, (size_t)(e - a)))
					return "a bad expression in {eval:...} "
					       "(letters, digits, _ . [ ] ( ) -> "
					       "+ * / % only; alternatives "
					       "separated by |)";
				a = e + 1;
			}
		} else if (!known_placeholder(name, n)) {
			return "an unknown placeholder (see docs/hints.md)";
		}
		p = end;
	}
	return NULL;
}

/* ---- loading ----------------------------------------------------------- */

struct loader {
	const char *name;
	struct diag_rules *r;
	struct rule *cur;
	char *err;
	size_t errcap;
	unsigned line;     /* of the key being committed */
	char key[32];
	struct dbuf val;
	bool have_key;
};

static int lerr(struct loader *L, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int lerr(struct loader *L, unsigned line, const char *fmt, ...)
{
	char msg[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(L->err, L->errcap, "%s:%u: %s", L->name, line, msg);
	return DIAG_ESYNTAX;
}

static void rule_clear(struct rule *r)
{
	free(r->id);
	free(r->title);
	free(r->what);
	free(r->why);
	for (int k = 0; k < MK_COUNT; k++) {
		for (size_t i = 0; i < r->match[k].n; i++)
			free(r->match[k].v[i]);
		free(r->match[k].v);
	}
	for (size_t i = 0; i < r->n_evidence; i++)
		free(r->evidence[i]);
	free(r->evidence);
	for (size_t i = 0; i < r->n_steps; i++)
		free(r->steps[i].text);
	free(r->steps);
	for (size_t i = 0; i < r->n_instead_of; i++)
		free(r->instead_of[i]);
	free(r->instead_of);
	free(r->value);
}

static bool push_str(char ***v, size_t *n, char *s)
{
	if (!s)
		return false;
	void *nv = realloc(*v, (*n + 1) * sizeof **v);
	if (!nv) {
		free(s);
		return false;
	}
	*v = nv;
	(*v)[(*n)++] = s;
	return true;
}

void diag_rules_free(struct diag_rules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		rule_clear(&r->v[i]);
	free(r->v);
	for (size_t i = 0; i < r->n_evals; i++)
		free(r->evals[i]);
	free(r->evals);
	free(r);
}

static bool add_eval(struct diag_rules *r, const char *s, size_t n)
{
	for (size_t i = 0; i < r->n_evals; i++)
		if (strlen(r->evals[i]) == n && memcmp(r->evals[i], s, n) == 0)
			return true;
	return push_str(&r->evals, &r->n_evals, diag_strndup(s, n));
}

/* Every {eval:A|B} alternative of a (checked) template. */
static bool collect_evals(struct diag_rules *r, const char *t)
{
	for (const char *p = strstr(t, "{eval:"); p; p = strstr(p, "{eval:")) {
		const char *a = p + 6, *end = strchr(a, '}');
		if (!end)
			break;
		while (a < end) {
			const char *bar = memchr(a, '|', (size_t)(end - a));
			const char *e = bar ? bar : end;
			if (!add_eval(r, a, (size_t)(e - a)))
				return false;
			a = e + 1;
		}
		p = end;
	}
	return true;
}

static bool collect_all_evals(struct diag_rules *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct rule *u = &r->v[i];
		bool ok = collect_evals(r, u->title) && collect_evals(r, u->what) &&
			  (!u->why || collect_evals(r, u->why));
		for (size_t j = 0; ok && j < u->n_evidence; j++)
			ok = collect_evals(r, u->evidence[j]);
		for (size_t j = 0; ok && j < u->n_steps; j++)
			ok = collect_evals(r, u->steps[j].text);
		if (!ok)
			return false;
	}
	return true;
}


static int set_text(struct loader *L, char **dst, const char *v)
{
	if (*dst)
		return lerr(L, L->line, "'%s' given twice in [%s]", L->key,
			    L->cur->id);
	const char *bad = diag_template_check(v);
	if (bad)
		return lerr(L, L->line, "%s: %s", L->key, bad);
	return (*dst = strdup(v)) ? DIAG_OK : DIAG_ENOMEM;
}

static int set_facts(struct loader *L, bool *set, const char *v)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", v);
	int count = 0;
	for (char *tok = strtok(buf, " ,\t"); tok; tok = strtok(NULL, " ,\t")) {
		int f = diag_flag_lookup(tok);
		if (f < 0)
			return lerr(L, L->line, "unknown fact '%s' in '%s' "
				    "(see docs/hints.md for the list)", tok,
				    L->key);
		set[f] = true;
		count++;
	}
	if (!count)
		return lerr(L, L->line, "'%s' names no fact", L->key);
	return DIAG_OK;
}

static int add_patterns(struct loader *L, struct patterns *p, const char *v)
{
	const char *s = v;
	for (;;) {
		const char *bar = strstr(s, " | ");
		size_t n = bar ? (size_t)(bar - s) : strlen(s);
		while (n && s[n - 1] == ' ')
			n--;
		while (n && *s == ' ')
			s++, n--;
		if (n == 0)
			return lerr(L, L->line, "an empty pattern in '%s'",
				    L->key);
		if (s[n - 1] == '\\' && (n < 2 || s[n - 2] != '\\'))
			return lerr(L, L->line, "a pattern ends in a lone "
				    "backslash in '%s'", L->key);
		if (!push_str(&p->v, &p->n, diag_strndup(s, n)))
			return DIAG_ENOMEM;
		if (!bar)
			break;
		s = bar + 3;
	}
	return DIAG_OK;
}

static int add_step(struct loader *L, enum diag_step_kind kind,
		    const char *v)
{
	struct rule *r = L->cur;
	struct rule_step st = {.kind = kind};
	if (kind == DIAG_STEP_KEY) {
		const char *colon = strchr(v, ':');
		if (!colon)
			return lerr(L, L->line, "'key' needs 'ACTION: text'");
		size_t n = (size_t)(colon - v);
		int found = -1;
		for (int a = 0; a < DIAG_ACT_COUNT; a++)
			if (strlen(diag_action_name(a)) == n &&
			    strncmp(diag_action_name(a), v, n) == 0)
				found = a;
		if (found < 0)
			return lerr(L, L->line, "unknown action '%.*s' (see "
				    "docs/hints.md for the list)", (int)n, v);
		st.action = (enum diag_action)found;
		v = colon + 1;
		while (*v == ' ')
			v++;
	}
	if (!*v)
		return lerr(L, L->line, "'%s' has no text", L->key);
	const char *bad = diag_template_check(v);
	if (bad)
		return lerr(L, L->line, "%s: %s", L->key, bad);
	void *nv = realloc(r->steps, (r->n_steps + 1) * sizeof *r->steps);
	if (!nv)
		return DIAG_ENOMEM;
	r->steps = nv;
	if (!(st.text = strdup(v)))
		return DIAG_ENOMEM;
	r->steps[r->n_steps++] = st;
	return DIAG_OK;
}

static int set_priority(struct loader *L, const char *v)
{
	char *end;
	errno = 0;
	long p = strtol(v, &end, 10);
	if (errno || *end || end == v || p < -1000 || p > 1000)
		return lerr(L, L->line, "priority must be a whole number from "
			    "-1000 to 1000, not '%s'", v);
	L->cur->priority = (int)p;
	return DIAG_OK;
}

static bool id_ok(const char *s, size_t n);

/* "a, b c": rule ids, checked once the whole file is read. */
static int set_instead_of(struct loader *L, struct rule *r, const char *v)
{
	r->instead_line = L->line;
	const char *p = v;
	while (*p) {
		while (*p == ' ' || *p == ',')
			p++;
		size_t n = strcspn(p, " ,");
		if (!n)
			break;
		if (!id_ok(p, n))
			return lerr(L, L->line, "instead-of: bad rule id '%.*s'",
				    (int)(n > 80 ? 80 : n), p);
		if (!push_str(&r->instead_of, &r->n_instead_of, strndup(p, n)))
			return DIAG_ENOMEM;
		p += n;
	}
	return DIAG_OK;
}

static int commit(struct loader *L)
{
	if (!L->have_key)
		return DIAG_OK;
	L->have_key = false;
	struct rule *r = L->cur;
	const char *k = L->key, *v = L->val.s ? L->val.s : "";
	if (L->val.oom)
		return DIAG_ENOMEM;
	if (!*v)
		return lerr(L, L->line, "'%s' has no value", k);
	for (int m = 0; m < MK_COUNT; m++)
		if (strcmp(k, diag_match_key_names[m]) == 0)
			return add_patterns(L, &r->match[m], v);
	if (strcmp(k, "title") == 0)
		return set_text(L, &r->title, v);
	if (strcmp(k, "what") == 0)
		return set_text(L, &r->what, v);
	if (strcmp(k, "why") == 0)
		return set_text(L, &r->why, v);
	if (strcmp(k, "priority") == 0)
		return set_priority(L, v);
	if (strcmp(k, "when") == 0)
		return set_facts(L, r->when, v);
	if (strcmp(k, "unless") == 0)
		return set_facts(L, r->unless, v);
	if (strcmp(k, "instead-of") == 0)
		return set_instead_of(L, r, v);
	if (strcmp(k, "value") == 0) {
		if (diag_pybad_kind_named(v) == DIAG_PYBAD_NONE)
			return lerr(L, L->line, "value: '%s' is no kind of bad "
				    "value (index, class, prob, range01)", v);
		return set_text(L, &r->value, v);
	}
	if (strcmp(k, "evidence") == 0) {
		const char *bad = diag_template_check(v);
		if (bad)
			return lerr(L, L->line, "evidence: %s", bad);
		return push_str(&r->evidence, &r->n_evidence, strdup(v))
			       ? DIAG_OK : DIAG_ENOMEM;
	}
	if (strcmp(k, "step") == 0)
		return add_step(L, DIAG_STEP_TEXT, v);
	if (strcmp(k, "key") == 0)
		return add_step(L, DIAG_STEP_KEY, v);
	if (strcmp(k, "run") == 0)
		return add_step(L, DIAG_STEP_RUN, v);
	if (strcmp(k, "gdb") == 0)
		return add_step(L, DIAG_STEP_GDB, v);
	return lerr(L, L->line, "unknown key '%s' (keys: title, priority, "
		    "when, unless, instead-of, value, exception, assert, "
		    "kernel, sanitizer, output, op, file, what, why, evidence, "
		    "step, key, run, gdb)", k);
}

static int finish_rule(struct loader *L)
{
	struct rule *r = L->cur;
	if (!r)
		return DIAG_OK;
	if (!r->title)
		return lerr(L, r->line, "rule [%s] has no title", r->id);
	if (!r->what)
		return lerr(L, r->line, "rule [%s] has no 'what'", r->id);
	bool cond = false;
	for (int f = 0; f < DIAG_F_COUNT; f++)
		cond |= r->when[f];
	for (int m = 0; m < MK_COUNT; m++)
		cond |= r->match[m].n > 0;
	if (!cond)
		return lerr(L, r->line, "rule [%s] has no match condition "
			    "(when, exception, assert, kernel, sanitizer, "
			    "output, op or file)", r->id);
	return DIAG_OK;
}

static bool id_ok(const char *s, size_t n)
{
	if (n == 0 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '-' ||
		      s[i] == '_' || s[i] == '.'))
			return false;
	return true;
}

static int start_rule(struct loader *L, const char *s, size_t n,
		      unsigned line)
{
	int rc = finish_rule(L);
	if (rc < 0)
		return rc;
	if (!id_ok(s, n))
		return lerr(L, line, "bad rule id '[%.*s]' (letters, digits, "
			    "- _ . up to 64)", (int)(n > 80 ? 80 : n), s);
	for (size_t i = 0; i < L->r->n; i++)
		if (strlen(L->r->v[i].id) == n &&
		    memcmp(L->r->v[i].id, s, n) == 0)
			return lerr(L, line, "duplicate rule id [%.*s] (first "
				    "at line %u)", (int)n, s, L->r->v[i].line);
	if (L->r->n >= DIAG_RULES_MAX)
		return lerr(L, line, "more than %d rules", DIAG_RULES_MAX);
	void *v = realloc(L->r->v, (L->r->n + 1) * sizeof *L->r->v);
	if (!v)
		return DIAG_ENOMEM;
	L->r->v = v;
	L->cur = &L->r->v[L->r->n++];
	memset(L->cur, 0, sizeof *L->cur);
	L->cur->line = line;
	L->cur->priority = 50;
	return (L->cur->id = diag_strndup(s, n)) ? DIAG_OK : DIAG_ENOMEM;
}

static int key_line(struct loader *L, const char *s, size_t n,
		    unsigned line)
{
	const char *eq = memchr(s, '=', n);
	if (!eq)
		return lerr(L, line, "expected 'key = value', '[rule-id]' or "
			    "an indented continuation");
	if (!L->cur)
		return lerr(L, line, "a key before the first [rule-id]");
	size_t kn = (size_t)(eq - s);
	while (kn && (s[kn - 1] == ' ' || s[kn - 1] == '\t'))
		kn--;
	if (kn == 0 || kn >= sizeof L->key)
		return lerr(L, line, "bad key");
	memcpy(L->key, s, kn);
	L->key[kn] = '\0';
	const char *v = eq + 1, *end = s + n;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	L->val.len = 0;
	dbuf_put(&L->val, v, (size_t)(end - v));
	L->line = line;
	L->have_key = true;
	return DIAG_OK;
}

static int one_line(struct loader *L, const char *s, size_t n, unsigned line)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 && s[i] != '\t')
			return lerr(L, line, "a control character");
	size_t lead = 0;
	while (lead < n && (s[lead] == ' ' || s[lead] == '\t'))
		lead++;
	if (lead == n || s[lead] == '#')
		return DIAG_OK; /* blank or comment */
	if (lead > 0) {
		if (!L->have_key)
			return lerr(L, line, "an indented line continues "
				    "nothing");
		dbuf_putc(&L->val, ' ');
		dbuf_put(&L->val, s + lead, n - lead);
		return DIAG_OK;
	}
	int rc = commit(L);
	if (rc < 0)
		return rc;
	if (s[0] == '[') {
		if (s[n - 1] != ']')
			return lerr(L, line, "a '[' line must end in ']'");
		return start_rule(L, s + 1, n - 2, line);
	}
	return key_line(L, s, n, line);
}

static bool rule_exists(const struct diag_rules *r, const char *id)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i].id, id) == 0)
			return true;
	return false;
}

/* Every instead-of names a rule of the file, not the rule itself. */
static int check_instead_of(struct loader *L)
{
	for (size_t i = 0; i < L->r->n; i++) {
		const struct rule *r = &L->r->v[i];
		for (size_t k = 0; k < r->n_instead_of; k++)
			if (!rule_exists(L->r, r->instead_of[k]) ||
			    strcmp(r->instead_of[k], r->id) == 0)
				return lerr(L, r->instead_line, "instead-of: "
					    "[%s] names no other rule '%s'",
					    r->id, r->instead_of[k]);
	}
	return DIAG_OK;
}

int diag_rules_load_buf(const char *name, const char *buf, size_t len,
			struct diag_rules **out, char *err, size_t errcap)
{
	struct loader L = {.name = name, .err = err, .errcap = errcap};
	*out = NULL;
	if (errcap)
		err[0] = '\0';
	if (len > DIAG_RULES_MAX_BYTES) {
		snprintf(err, errcap, "%s: larger than %d bytes", name,
			 DIAG_RULES_MAX_BYTES);
		return DIAG_ELIMIT;
	}
	if (memchr(buf, '\0', len)) {
		snprintf(err, errcap, "%s: a NUL byte: not a text file", name);
		return DIAG_ESYNTAX;
	}
	if (!(L.r = calloc(1, sizeof *L.r)))
		return DIAG_ENOMEM;
	int rc = DIAG_OK;
	unsigned line = 0;
	const char *p = buf, *end = buf + len;
	while (rc == DIAG_OK && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		rc = one_line(&L, p, n, ++line);
		p += n + 1;
	}
	if (rc == DIAG_OK)
		rc = commit(&L);
	if (rc == DIAG_OK)
		rc = finish_rule(&L);
	if (rc == DIAG_OK && L.r->n == 0) {
		snprintf(err, errcap, "%s: no rules", name);
		rc = DIAG_ESYNTAX;
	}
	if (rc == DIAG_OK)
		rc = check_instead_of(&L);
	if (rc == DIAG_OK && !collect_all_evals(L.r))
		rc = DIAG_ENOMEM;
	if (rc == DIAG_ENOMEM && errcap && !err[0])
		snprintf(err, errcap, "%s: out of memory", name);
	dbuf_free(&L.val);
	if (rc < 0) {
		diag_rules_free(L.r);
		return rc;
	}
	*out = L.r;
	return DIAG_OK;
}

int diag_rules_load_file(const char *path, struct diag_rules **out,
			 char *err, size_t errcap)
{
	size_t len;
	*out = NULL;
	errno = 0;
	char *buf = diag_read_small_file(path, DIAG_RULES_MAX_BYTES, &len);
	if (!buf) {
		snprintf(err, errcap, "%s: cannot read the hints file: %s",
			 path, errno ? strerror(errno) : "too large");
		return errno == ENOENT ? DIAG_ENOTFOUND : DIAG_EIO;
	}
	int rc = diag_rules_load_buf(path, buf, len, out, err, errcap);
	free(buf);
	return rc;
}

const char *diag_rules_default_path(const char *exe_dir, char *buf,
				    size_t cap)
{
	const char *env = getenv("CUDBG_HINTS");
	if (env && *env) {
		snprintf(buf, cap, "%s", env);
		return buf;
	}
	char dir[4096];
	if (diag_data_dir(exe_dir, "hints.rules", dir, sizeof dir))
		snprintf(buf, cap, "%s/hints.rules", dir);
	else if (diag_datadir_env())
		snprintf(buf, cap, "%s/hints.rules", diag_datadir_env());
	else
		snprintf(buf, cap, "%s/hints.rules", diag_datadir_compiled());
	return buf;
}

size_t diag_rules_count(const struct diag_rules *r)
{
	return r ? r->n : 0;
}

const char *diag_rules_id(const struct diag_rules *r, size_t i)
{
	return r && i < r->n ? r->v[i].id : NULL;
}

static const char *const action_names[] = {
#define DIAG_ACTION_NAME(e, name, text) name,
	DIAG_ACTIONS(DIAG_ACTION_NAME)
#undef DIAG_ACTION_NAME
};

static const char *const action_texts[] = {
#define DIAG_ACTION_TEXT(e, name, text) text,
	DIAG_ACTIONS(DIAG_ACTION_TEXT)
#undef DIAG_ACTION_TEXT
};

const char *diag_action_name(enum diag_action a)
{
	return (unsigned)a < DIAG_ACT_COUNT ? action_names[a] : "?";
}

const char *diag_action_text(enum diag_action a)
{
	return (unsigned)a < DIAG_ACT_COUNT ? action_texts[a] : "?";
}
