/* The allocation watch and the freed-memory lookup (include/cudbg/
 * model.h: alloc_watch_command, model_alloc_line, ctl_freed_lookup).
 *
 * Why: a kernel, a CUDA graph or a library call that uses a buffer the
 * program already freed faults with a Warp Illegal Address (the driver
 * unmaps the memory), and compute-sanitizer never says "freed": it names
 * the nearest live allocation, 645 MB away in run 5 (tests/gpu/
 * use_after_free.expect).  AddressSanitizer's answer, "freed by ... at
 * prog.cu:29", needs the program's allocations and frees.  gdb's dprintf
 * gives them without a stop reaching the frontend: gdb prints the line
 * and resumes by itself (no *stopped record), so the watch costs one
 * breakpoint trap per call and no round trip.
 *
 * Each dprintf prints one console line, a protocol of ours:
 *   cudbg-alloc a API OUT SIZE RET FP  an allocation: OUT is where the
 *                                      API writes the new pointer
 *   cudbg-alloc f API PTR 0 RET FP     a free of PTR
 * RET is the return address into the caller; FP the same read through
 * the frame pointer (0 when %rbp is no stack address near %rsp), for a
 * function gdb entered past its whole prologue: one with line info, as
 * cuda_runtime.h's cudaMalloc<T> in a -O0 program, where %rsp no longer
 * points at RET.  The lookup asks gdb which of the two follows a call.
 * (A recording made before FP has five fields.)  The new pointer itself is
 * not known at the call (it is written on return), so the lookup reads it
 * at the stop from OUT: the user's variable, which in a use after free
 * still holds the dangling pointer.  Only an exact match with a freed
 * pointer counts, so a stale OUT (a helper's dead frame) makes no claim.
 *
 * A dprintf whose expression fails stops the program and says nothing
 * over MI (gdb 13: no *stopped record), so the expressions read only
 * registers, the stack at $rsp and the code before $pc.  gdb puts a
 * breakpoint on a function without line info after "push %rbp; mov
 * %rsp,%rbp" when the function starts so (amd64_analyze_prologue), and
 * the return address is then one slot higher: the expression looks at
 * the four bytes before $pc to know. */
#include "cudbg/base.h"
#include "cudbg/decode.h"
#include "cudbg/model.h"
#include "mi/ctl_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The device allocation API: its new pointer's address (or the pointer
 * freed) is the first argument, the size the second. */
static const struct alloc_api {
	const char *name;
	bool free;
} apis[] = {
	{ "cudaMalloc", false },     { "cudaMallocManaged", false },
	{ "cudaMallocAsync", false }, { "cuMemAlloc_v2", false },
	{ "cuMemAllocManaged", false }, { "cuMemAllocAsync", false },
	{ "cudaFree", true },        { "cudaFreeAsync", true },
	{ "cuMemFree_v2", true },    { "cuMemFreeAsync", true },
};

#define N_APIS (sizeof apis / sizeof apis[0])

/* The watch's budget: each call costs a breakpoint trap and gdb's MI
 * notices: 0.7 ms a call with gdb 13 on the CI machine (tests/bench/
 * alloc_watch.sh), but 32 ms with cuda-gdb 13 on an H100 (run 30: 2508
 * hits, 81.4 s against 0.9 s bare; run 31: our own run of 100 pairs
 * took 18.7 s against 1.0 s unwatched, the budget of 512 spent), so a
 * program that allocates in a loop would crawl.  128 calls bound that at
 * about 4 s (one cudaMalloc is up to three calls: cuda_runtime.h's typed
 * wrapper, the runtime's function and the driver's; a free two), some
 * 25 allocations and frees: every corpus program uses 3 to 15.  When
 * the log is full the dprintfs are deleted (gdb takes -break-delete
 * while the program runs) and later calls go unseen; the lookup then
 * claims nothing it cannot see. */
#define ALLOC_LOG_MAX 128u

/* How many allocations around the free the lookup reads back. */
#define LOOKBACK 32u

/* The return address at the dprintf's place (see the top). */
#define RET_EXPR                                                          \
	"(*(unsigned int*)($pc-4)==0xe5894855||"                          \
	"*(unsigned int*)($pc-4)==0xec8b4855)?*(long*)($rsp+8):*(long*)$rsp"
/* ...and through the frame pointer, read only where %rbp lies in the
 * 64 KiB above %rsp (stack the thread has used: never a fault, which
 * would stop the program without a word) */
#define RET_FP_EXPR                                                       \
	"((long)$rbp>(long)$rsp&&(long)$rbp-(long)$rsp<0x10000)?"         \
	"*(long*)((long)$rbp+8):0"

size_t alloc_watch_api_count(void)
{
	return N_APIS;
}

const char *alloc_watch_api_name(size_t i)
{
	return i < N_APIS ? apis[i].name : NULL;
}

bool alloc_watch_supported(void)
{
#if defined(__x86_64__)
	return true;
#else
	return false;
#endif
}

char *alloc_watch_command(size_t i)
{
	if (i >= N_APIS)
		return NULL;
	const struct alloc_api *a = &apis[i];
	char *cmd = NULL;
	int n = a->free
		? asprintf(&cmd, "-dprintf-insert -f %s \"" ALLOC_WATCH_LINE
			   "f %s %%#lx 0 %%#lx %%#lx\\n\" \"$rdi\" \"" RET_EXPR
			   "\" \"" RET_FP_EXPR "\"", a->name, a->name)
		: asprintf(&cmd, "-dprintf-insert -f %s \"" ALLOC_WATCH_LINE
			   "a %s %%#lx %%lu %%#lx %%#lx\\n\" \"$rdi\" \"$rsi\" \""
			   RET_EXPR "\" \"" RET_FP_EXPR "\"", a->name, a->name);
	return n < 0 ? NULL : cmd;
}

/* ---- the log ------------------------------------------------------------ */

static int api_index(const char *name, size_t len)
{
	for (size_t i = 0; i < N_APIS; i++)
		if (strlen(apis[i].name) == len &&
		    memcmp(apis[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

static bool parse_event(const char *line, struct model_alloc_event *ev)
{
	char kind, name[40];
	unsigned long long addr, size, ret, ret_fp = 0;
	int got = sscanf(line, ALLOC_WATCH_LINE "%c %39s %llx %llu %llx %llx",
			 &kind, name, &addr, &size, &ret, &ret_fp);
	if (got < 5 || (kind != 'a' && kind != 'f'))
		return false;
	int api = api_index(name, strlen(name));
	if (api < 0 || apis[api].free != (kind == 'f'))
		return false;
	*ev = (struct model_alloc_event){ .addr = addr, .size = size,
					  .ret = ret, .ret_fp = ret_fp,
					  .free = kind == 'f',
					  .api = (unsigned char)api };
	return true;
}

static void log_event(struct model_allocs *l, const struct model_alloc_event *ev)
{
	if (l->n == ALLOC_LOG_MAX) {
		l->dropped++;
		return;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		struct model_alloc_event *v = realloc(l->ev, cap * sizeof *v);
		if (!v) {
			l->dropped++;
			return;
		}
		l->ev = v;
		l->cap = cap;
	}
	l->ev[l->n++] = *ev;
}

bool model_alloc_line(struct dbg_model *m, const char *t, size_t n)
{
	size_t pre = strlen(ALLOC_WATCH_LINE);
	if (n < pre || memcmp(t, ALLOC_WATCH_LINE, pre) != 0)
		return false;
	/* one record may hold several lines; each is a short one */
	while (n >= pre && memcmp(t, ALLOC_WATCH_LINE, pre) == 0) {
		const char *nl = memchr(t, '\n', n);
		size_t len = nl ? (size_t)(nl - t) : n;
		char line[160];
		struct model_alloc_event ev;
		if (len < sizeof line) {
			memcpy(line, t, len);
			line[len] = '\0';
			if (parse_event(line, &ev))
				log_event(&m->allocs, &ev);
		}
		if (!nl)
			break;
		n -= len + 1;
		t = nl + 1;
	}
	return true;
}

void model_alloc_watch_bkpt(struct dbg_model *m, int number)
{
	struct model_allocs *l = &m->allocs;
	for (size_t i = 0; i < l->nbkpts; i++)
		if (l->bkpts[i] == number)
			return;
	if (number > 0 && l->nbkpts < sizeof l->bkpts / sizeof l->bkpts[0])
		l->bkpts[l->nbkpts++] = number;
}

void ctl_alloc_watch_budget(struct dbg_ctl *c)
{
	struct model_allocs *l = &c->m.allocs;
	if (l->n < ALLOC_LOG_MAX || l->ended || !l->nbkpts)
		return;
	l->ended = true;
	char cmd[16 * 12 + 16] = "-break-delete";
	size_t len = strlen(cmd);
	for (size_t i = 0; i < l->nbkpts; i++)
		len += (size_t)snprintf(cmd + len, sizeof cmd - len, " %d",
					l->bkpts[i]);
	ctl_sendf(c, NULL, false, "%s", cmd);
}

static void site_free(struct model_alloc_site *s)
{
	free(s->func);
	free(s->file);
	*s = (struct model_alloc_site){ 0 };
}

void model_freed_clear(struct dbg_model *m)
{
	site_free(&m->freed.alloc);
	site_free(&m->freed.free);
	for (size_t s = 0; s < 2; s++)
		for (size_t i = 0; i < m->freed.ntries[s]; i++) {
			free(m->freed.tries[s][i].func);
			free(m->freed.tries[s][i].file);
		}
	m->freed = (struct model_freed){ 0 };
}

void model_allocs_free(struct dbg_model *m)
{
	model_freed_clear(m);
	free(m->allocs.ev);
	m->allocs.ev = NULL;
	m->allocs.n = m->allocs.cap = m->allocs.dropped = 0;
	/* (the dprintfs stay for a new run, unless they were deleted) */
}

/* ---- the lookup --------------------------------------------------------- */

/* The lookup's candidates: the bad addresses of this stop. */
struct lookup {
	uint64_t *addrs; /* room for one more: si_addr */
	size_t n;
	bool siginfo;    /* read the host signal's si_addr first */
};

static bool stale(struct dbg_ctl *c)
{
	return c->m.freed.state != MODEL_FREED_BUSY;
}

static void lookup_done(struct dbg_ctl *c)
{
	c->m.freed.state = MODEL_FREED_DONE;
	c->m.changes |= MODEL_CH_FREED;
}

/* The API's pointers are host memory and its callers host code: at a
 * device stop each command names the host thread, and the CUDA focus
 * stays (docs/tool-quirks.md, "Reading host memory without a call"). */
static const char *host_opt(const struct dbg_ctl *c)
{
	return c->m.focus.valid ? "--thread 1 " : "";
}

static bool answered_value(const struct session_reply *r, uint64_t *v)
{
	if (r->kind != SESSION_REPLY_DONE || !r->rec)
		return false;
	const char *s = dec_value(r->rec->results);
	char *end;
	/* "0x7ffff7ccb044", or with a type before it: take the number */
	const char *hex = s ? strstr(s, "0x") : NULL;
	if (!hex)
		hex = s;
	if (!hex)
		return false;
	unsigned long long x = strtoull(hex, &end, 0);
	if (end == hex)
		return false;
	*v = x;
	return true;
}

/* Each site from its tries: the first that follows a call, the
 * outermost; else the first gdb could place at all. */
static void choose_sites(struct dbg_ctl *c)
{
	struct model_freed *f = &c->m.freed;
	struct model_alloc_site *sites[2] = { &f->alloc, &f->free };
	for (size_t s = 0; s < 2; s++) {
		struct model_site_try *pick = NULL;
		for (size_t i = 0; i < f->ntries[s] && !pick; i++)
			if (f->tries[s][i].call && f->tries[s][i].func)
				pick = &f->tries[s][i];
		for (size_t i = 0; i < f->ntries[s] && !pick; i++)
			if (f->tries[s][i].func)
				pick = &f->tries[s][i];
		if (!pick && f->ntries[s])
			pick = &f->tries[s][0];
		if (!pick)
			continue;
		/* (the site takes the try's strings) */
		sites[s]->api = apis[pick->api].name;
		sites[s]->ret = pick->ret;
		sites[s]->func = pick->func;
		sites[s]->file = pick->file;
		sites[s]->line = pick->line;
		pick->func = pick->file = NULL;
	}
	lookup_done(c);
}

/* What gdb said of the instruction before one try's return address:
 * its function and line, and whether it is a call (a return address
 * read from the wrong slot follows none). */
static void try_lined(struct dbg_ctl *c, struct ctl_op *op,
		      const struct session_reply *r)
{
	struct model_freed *f = &c->m.freed;
	if (stale(c))
		return;
	struct model_site_try *t =
		&f->tries[op->index / MODEL_SITE_TRIES][op->index % MODEL_SITE_TRIES];
	struct dec_disasm d = { 0 };
	if (r->kind == SESSION_REPLY_DONE && r->rec &&
	    dec_disasm_decode(r->rec->results, &d) == 0) {
		const struct dec_insn *best = NULL;
		for (size_t i = 0; i < d.n; i++)
			if (d.v[i].addr < t->ret &&
			    (!best || d.v[i].addr > best->addr))
				best = &d.v[i];
		if (best && best->func)
			t->func = strdup(best->func);
		if (best && best->line > 0 && (best->fullname || best->file)) {
			t->file = strdup(best->fullname ? best->fullname
							: best->file);
			t->line = best->line;
		}
		t->call = best && best->inst &&
			  text_starts(best->inst, strlen(best->inst), "call");
	}
	dec_disasm_free(&d);
	if (--f->pending == 0)
		choose_sites(c);
}

static void ask_lines(struct dbg_ctl *c)
{
	struct model_freed *f = &c->m.freed;
	f->pending = 0;
	for (size_t s = 0; s < 2; s++)
		for (size_t i = 0; i < f->ntries[s]; i++) {
			struct ctl_op *op = ctl_op_new(c, try_lined, false);
			char cmd[96];
			if (!op)
				continue;
			f->pending++;
			op->index = s * MODEL_SITE_TRIES + i;
			snprintf(cmd, sizeof cmd, "-data-disassemble %s-a 0x%"
				 PRIx64 " -- 1", host_opt(c),
				 f->tries[s][i].ret - 1);
			ctl_send_op(c, op, 0, cmd);
		}
	if (f->pending == 0)
		choose_sites(c);
}

/* One more return address to try for a site (each once). */
static void add_try(struct model_freed *f, size_t site, uint64_t ret,
		    unsigned char api)
{
	if (!ret || f->ntries[site] == MODEL_SITE_TRIES)
		return;
	for (size_t i = 0; i < f->ntries[site]; i++)
		if (f->tries[site][i].ret == ret)
			return;
	f->tries[site][f->ntries[site]++] =
		(struct model_site_try){ .ret = ret, .api = api };
}

/* The events one call of the program made, ending at `last`: the API
 * it called and each one that API called in turn, one after the other
 * in the log, all of the same pointer (KEY: the pointer an allocation
 * gave, read back; the pointer a free freed).  Each is tried, the
 * outermost first, by its return address and then its frame pointer's. */
static void add_tries(struct model_freed *f, size_t site, size_t last,
		      const struct model_allocs *l, uint64_t key)
{
	bool is_free = l->ev[last].free;
	size_t k = last;
	while (k > 0 && l->ev[k - 1].free == is_free &&
	       (is_free ? l->ev[k - 1].addr : l->ev[k - 1].ptr) == key)
		k--;
	for (; k <= last; k++) {
		add_try(f, site, l->ev[k].ret, l->ev[k].api);
		add_try(f, site, l->ev[k].ret_fp, l->ev[k].api);
	}
}

/* All pointers read back: a freed allocation over addr and none given
 * out over it since; else a live one over it. */
static void pointers_read(struct dbg_ctl *c)
{
	struct model_freed *f = &c->m.freed;
	const struct model_alloc_event *ev = c->m.allocs.ev;
	f->found = f->has_free && f->size && f->addr >= f->base &&
		   f->addr - f->base < f->size &&
		   !(f->live && f->live_ev > f->free_ev);
	if (f->found) {
		add_tries(f, 0, f->alloc_ev, &c->m.allocs, f->base);
		add_tries(f, 1, f->free_ev, &c->m.allocs, ev[f->free_ev].addr);
	} else if (f->live) {
		f->in_live = true;
		f->base = f->live_base;
		f->size = ev[f->live_ev].size;
		add_tries(f, 0, f->live_ev, &c->m.allocs, f->live_base);
	} else {
		lookup_done(c);
		return;
	}
	ask_lines(c);
}

/* One allocation's pointer, read where the API wrote it. */
static void pointer_read(struct dbg_ctl *c, struct ctl_op *op,
			 const struct session_reply *r)
{
	struct model_freed *f = &c->m.freed;
	if (stale(c))
		return;
	struct model_alloc_event *ev = &c->m.allocs.ev[op->index];
	uint64_t freed = f->has_free ? c->m.allocs.ev[f->free_ev].addr : 0;
	uint64_t p;
	if (answered_value(r, &p) && p) {
		ev->ptr = p;
		if (f->has_free && op->index < f->free_ev && p == freed &&
		    (!f->size || op->index > f->alloc_ev)) {
			/* the latest allocation before the free that gave
			 * this pointer */
			f->base = p;
			f->size = ev->size;
			f->alloc_ev = op->index;
		} else if (p != freed && p <= f->addr && f->addr - p < ev->size &&
			   (!f->live || op->index > f->live_ev)) {
			f->live = true; /* an allocation over addr, not freed */
			f->live_ev = op->index;
			f->live_base = p;
		}
	}
	if (--f->pending == 0)
		pointers_read(c);
}

/* The free of the nearest freed pointer at or below one of the
 * addresses (the latest such free); false when none lies within 1 TiB
 * below. */
static bool nearest_free(const struct model_allocs *l, const struct lookup *lk,
			 size_t *ev_out, uint64_t *addr_out)
{
	bool found = false;
	uint64_t best_gap = 0;
	for (size_t a = 0; a < lk->n; a++)
		for (size_t i = 0; i < l->n; i++) {
			const struct model_alloc_event *e = &l->ev[i];
			uint64_t A = lk->addrs[a];
			if (!e->free || e->addr == 0 || e->addr > A ||
			    A - e->addr >= (1ull << 40))
				continue;
			uint64_t gap = A - e->addr;
			if (!found || gap < best_gap ||
			    (gap == best_gap && i > *ev_out)) {
				found = true;
				best_gap = gap;
				*ev_out = i;
				*addr_out = A;
			}
		}
	return found;
}

static void ask_pointer(struct dbg_ctl *c, size_t i)
{
	struct ctl_op *op = ctl_op_new(c, pointer_read, false);
	char cmd[96];
	if (!op)
		return;
	op->index = i;
	c->m.freed.pending++;
	snprintf(cmd, sizeof cmd, "-data-evaluate-expression %s"
		 "\"*(unsigned long*)0x%" PRIx64 "\"", host_opt(c),
		 c->m.allocs.ev[i].addr);
	ctl_send_op(c, op, 0, cmd);
}

/* Reads back the pointers of the allocations around the chosen free. */
static void lookup_start(struct dbg_ctl *c, struct lookup *lk)
{
	struct model_freed *f = &c->m.freed;
	const struct model_allocs *l = &c->m.allocs;
	f->has_free = nearest_free(l, lk, &f->free_ev, &f->addr);
	if (!f->has_free) {
		/* no free below: whether a live allocation holds the first
		 * address (a host crash in device memory) */
		if (lk->n == 0) {
			lookup_done(c);
			return;
		}
		f->addr = lk->addrs[0];
		f->free_ev = l->n;
	}
	unsigned before = 0, after = 0;
	for (size_t i = f->free_ev; i-- > 0 && before < LOOKBACK;)
		if (!l->ev[i].free) {
			ask_pointer(c, i);
			before++;
		}
	for (size_t i = f->free_ev + 1; i < l->n && after < LOOKBACK; i++)
		if (!l->ev[i].free) {
			ask_pointer(c, i);
			after++;
		}
	if (f->pending == 0)
		lookup_done(c);
}

static void lookup_free(struct lookup *lk)
{
	if (lk) {
		free(lk->addrs);
		free(lk);
	}
}

/* The host signal's si_addr joins the candidates. */
static void siginfo_read(struct dbg_ctl *c, struct ctl_op *op,
			 const struct session_reply *r)
{
	struct lookup *lk = op->user;
	uint64_t a;
	if (!stale(c)) {
		if (answered_value(r, &a) && a)
			lk->addrs[lk->n++] = a;
		lookup_start(c, lk);
	}
	lookup_free(lk);
}

int ctl_freed_lookup(struct dbg_ctl *c, const uint64_t *addrs, size_t n,
		     bool siginfo)
{
	if (c->m.allocs.n == 0 || c->m.state != MODEL_STOPPED)
		return CTL_ESTATE;
	if (n == 0 && !siginfo)
		return CTL_EINVAL;
	struct lookup *lk = calloc(1, sizeof *lk);
	uint64_t *v = lk ? malloc((n + 1) * sizeof *v) : NULL;
	if (!v) {
		free(lk);
		return MI_ENOMEM;
	}
	if (n)
		memcpy(v, addrs, n * sizeof *v);
	lk->addrs = v;
	lk->n = n;
	lk->siginfo = siginfo;
	model_freed_clear(&c->m);
	c->m.freed.state = MODEL_FREED_BUSY;
	c->m.changes |= MODEL_CH_FREED;
	/* Past the budget the calls went unseen: memory freed and given out
	 * again since would be put on the wrong call.  No claim (the
	 * diagnosis says the watch was cut). */
	if (c->m.allocs.ended) {
		lookup_free(lk);
		lookup_done(c);
		return 0;
	}
	/* a host crash: its si_addr first (the signalled thread is the
	 * selected one) */
	struct ctl_op *op = siginfo ? ctl_op_new(c, siginfo_read, false) : NULL;
	if (op) {
		op->user = lk;
		int64_t tok = ctl_send_op(c, op, 0, "-data-evaluate-expression "
					  "$_siginfo._sifields._sigfault.si_addr");
		if (tok < 0) { /* (the op is gone with its answer) */
			lookup_free(lk);
			lookup_done(c);
			return (int)tok;
		}
		return 0;
	}
	lookup_start(c, lk);
	lookup_free(lk);
	return 0;
}
