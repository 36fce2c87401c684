/* The diagnosis collector: keeps what a fault account needs from the
 * program's terminal, the debugger's stderr and the text of its records
 * (CUDA error lines, notable environment lines), and what the model
 * hands it (diag/model_feed.c: the stop, the exit, stacks, values, a
 * core's story).  It decodes no MI of its own: what the debugger said is
 * decoded once, into the model (mi/).
 */
#include "diag/state.h"
#include "cudbg/hang.h"
#include "cudbg/assertline.h"
#include "cudbg/decode.h"
#include "cudbg/mi.h"
#include "cudbg/sanitizer.h"

#include <ctype.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

static void on_line(void *ctx, const char *s, size_t n);

struct diag *diag_new(void)
{
	struct diag *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->asserts = diag_asserts_new();
	if (!d->asserts) {
		free(d);
		return NULL;
	}
	diag_asserts_set_line_hook(d->asserts, on_line, d);
	diag_focus_clear(&d->stop.focus);
	d->host_user_level = -1;
	return d;
}

void diag_frames_free(struct diag_frame *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].func);
		free(f[i].file);
		free(f[i].fullname);
		free(f[i].from);
	}
	free(f);
}

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static void stop_clear(struct stop_info *s)
{
	free(s->reason);
	free(s->signal_name);
	free(s->signal_meaning);
	free(s->exception_name);
	free(s->message);
	free(s->exc_function);
	free(s->exc_file);
	free(s->frame.func);
	free(s->frame.file);
	free(s->frame.fullname);
	free(s->frame.from);
	memset(s, 0, sizeof *s);
	diag_focus_clear(&s->focus);
}

void diag_free(struct diag *d)
{
	if (!d)
		return;
	diag_fault_reset(d);
	diag_hang_clear(d);
	free(d->scratch);
	free(d->assert_ptrs);
	free(d->finding_ptrs);
	diag_asserts_free(d->asserts);
	for (size_t i = 0; i < d->n_sans; i++)
		if (!d->sans_lent[i])
			diag_san_free(d->sans[i]);
	free(d->sans);
	free(d->sans_lent);
	strv_free(d->argv);
	strv_free(d->envp);
	for (size_t i = 0; i < d->n_src_dirs; i++)
		free(d->src_dirs[i]);
	free(d->src_dirs);
	stop_clear(&d->stop);
	free(d->exit_signal);
	free(d->host_signal_name);
	free(d->host_signal_meaning);
	diag_frames_free(d->frames, d->n_frames);
	diag_frames_free(d->host_frames, d->n_host_frames);
	free(d->core_path);
	free(d->table_kernel);
	for (size_t i = 0; i < d->n_vals; i++) {
		free(d->vals[i].name);
		free(d->vals[i].value);
		free(d->vals[i].type);
	}
	free(d->vals);
	for (size_t i = 0; i < d->n_lines; i++)
		free(d->lines[i]);
	free(d->lines);
	for (size_t i = 0; i < DIAG_TAIL_LINES; i++)
		free(d->tail[i]);
	free(d->error_line);
	diag_pystack_free(&d->pystack);
	free(d->pystack_why);
	free(d->bad_value);
	diag_set_host_access(d, NULL);
	free(d->pass_failed);
	free(d->untrusted);
	free(d->culprit_inst);
	free(d->culprit_why);
	free(d->culprit_lvalue);
	for (size_t i = 0; i < d->n_children; i++)
		free((char *)(uintptr_t)d->children[i].cmd);
	free(d->children);
	free(d->child_events_off);
	for (size_t i = 0; i < sizeof d->freed_strs / sizeof d->freed_strs[0]; i++)
		free(d->freed_strs[i]);
	diag_pytrace_free(&d->pytrace);
	free(d);
}

void diag_set_pystack(struct diag *d, struct diag_pystack *ps,
		      const char *why_not)
{
	diag_pystack_free(&d->pystack);
	d->have_pystack = ps != NULL;
	if (ps) {
		d->pystack = *ps;
		memset(ps, 0, sizeof *ps);
	}
	diag_strset(&d->pystack_why, why_not);
}

void diag_set_bad_value(struct diag *d, const char *text)
{
	diag_strset(&d->bad_value, text);
}

void diag_set_host_access(struct diag *d, const struct diag_host_access *a)
{
	struct diag_host_access *h = &d->host_access;
	free(h->expr);
	free(h->base);
	free(h->index);
	*h = (struct diag_host_access){ 0 };
	d->have_host_access = a != NULL;
	if (!a)
		return;
	*h = *a;
	h->expr = h->base = h->index = NULL;
	diag_strset(&h->expr, a->expr);
	diag_strset(&h->base, a->base);
	diag_strset(&h->index, a->index);
	/* (a copy that failed leaves that part unsaid) */
	h->has_base = a->has_base && h->base;
	h->has_index = a->has_index && h->index;
}

void diag_set_pass_failed(struct diag *d, const char *why)
{
	diag_strset(&d->pass_failed, why);
	d->set_flags[DIAG_F_SANITIZER_FAILED] = why != NULL;
}

void diag_focus_clear(struct diag_focus *f)
{
	memset(f, 0, sizeof *f);
	f->device = f->sm = f->warp = f->lane = f->kernel = -1;
	f->grid = -1;
}

static char **strv_copy(char *const *v)
{
	size_t n = 0;
	while (v[n])
		n++;
	char **c = calloc(n + 1, sizeof *c);
	if (!c)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!(c[i] = strdup(v[i]))) {
			strv_free(c);
			return NULL;
		}
	return c;
}

int diag_set_program(struct diag *d, char *const argv[], char *const envp[])
{
	char **a = argv ? strv_copy(argv) : NULL;
	char **e = envp ? strv_copy(envp) : NULL;
	if ((argv && !a) || (envp && !e)) {
		strv_free(a);
		strv_free(e);
		return DIAG_ENOMEM;
	}
	strv_free(d->argv);
	strv_free(d->envp);
	d->argv = a;
	d->envp = e;
	return DIAG_OK;
}

const char *diag_env_get(const struct diag *d, const char *name)
{
	char *const *env = d->envp ? d->envp : environ;
	size_t n = strlen(name);
	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

int diag_add_source_dir(struct diag *d, const char *dir)
{
	void *v = realloc(d->src_dirs, (d->n_src_dirs + 1) * sizeof(char *));
	if (!v)
		return DIAG_ENOMEM;
	d->src_dirs = v;
	if (!(d->src_dirs[d->n_src_dirs] = strdup(dir)))
		return DIAG_ENOMEM;
	d->n_src_dirs++;
	return DIAG_OK;
}

/* ---- program and debugger text ------------------------------------------ */

/* Messages the CUDA runtime and PyTorch print for device-side failures
 * (cudaGetErrorString texts and PyTorch's wrappers). */
static const char *const cuda_errors[] = {
	"device-side assert triggered",
	"an illegal memory access was encountered",
	"misaligned address",
	"unspecified launch failure",
	"an illegal instruction was encountered",
	"invalid program counter",
	"operation not supported on global/shared address space",
	"the launch timed out and was terminated",
	"too many resources requested for launch",
	"no kernel image is available for execution",
	"CUDA driver version is insufficient",
	"no CUDA-capable device is detected",
	"CUDA-capable device(s) is/are busy or unavailable",
	"hardware stack error",
	"uncorrectable ECC error",
	"CUDA error",
	"cudaError",
	"CUBLAS_STATUS_",
	"CUDNN_STATUS_",
	"AcceleratorError",
	NULL,
};

/* Words that make a line worth keeping for rules' `output` patterns. */
static const char *const notable[] = {
	"error", "Error", "ERROR", "CUDA", "cuda", "dtype", "scalar type",
	"Assertion", "warning", "failed", "Traceback", "libcudadebugger",
	"minimal", "driver", "out of memory",
	/* a child process died (rule job-child-failed): torch.multiprocessing
	 * ("process 1 terminated with signal SIGABRT"), a DataLoader worker,
	 * Open MPI's mpirun ("exited on signal"), MPICH ("BAD TERMINATION") */
	"terminated with", "DataLoader worker", "exited on signal",
	"BAD TERMINATION", NULL,
};

/* Text recognised as an environment problem, whoever printed it. */
static void scan_environment(struct diag *d, const char *l)
{
	if (diag_ci_strstr(l, "libcudadebugger") &&
	    (diag_ci_strstr(l, "not found") || diag_ci_strstr(l, "cannot") ||
	     diag_ci_strstr(l, "could not") || diag_ci_strstr(l, "failed") ||
	     diag_ci_strstr(l, "no such file") || diag_ci_strstr(l, "missing")))
		d->set_flags[DIAG_F_CUDADEBUGGER_MISSING] = true;
	if (diag_ci_strstr(l, "cuda-gdb-minimal"))
		d->set_flags[DIAG_F_MINIMAL_DEBUGGER] = true;
	if (strstr(l, "no CUDA-capable device is detected") ||
	    strstr(l, "Found no NVIDIA driver") ||
	    strstr(l, "cudaErrorNoDevice"))
		d->set_flags[DIAG_F_NO_GPU] = true;
	if (strstr(l, "no kernel image is available"))
		d->set_flags[DIAG_F_NO_KERNEL_IMAGE] = true;
	if (strstr(l, "driver version is insufficient") ||
	    strstr(l, "cudaErrorInsufficientDriver") ||
	    diag_ci_strstr(l, "driver is too old"))
		d->set_flags[DIAG_F_DRIVER_TOO_OLD] = true;
}

bool diag_is_cuda_error_text(const char *l)
{
	/* "sync: no error" and friends are fine, and so is compute-
	 * sanitizer's own text: its "=========     Host Frame: void
	 * transform<__nv_dl_wrapper_t<__nv_dl_tag<cudaError (*)(float*,
	 * int), ...>" (a lambda's type, lambda_assert on the H200) is no
	 * error the program printed. */
	if (strstr(l, "no error") || strncmp(l, "=========", 9) == 0)
		return false;
	for (size_t i = 0; cuda_errors[i]; i++)
		if (strstr(l, cuda_errors[i]))
			return true;
	return false;
}

static void keep_line(struct diag *d, const char *s, size_t n)
{
	if (n > 1000)
		n = 1000;
	char *l = diag_strndup(s, n);
	if (!l)
		return;
	bool is_err = diag_is_cuda_error_text(l);
	bool keep = is_err;
	for (size_t i = 0; !keep && notable[i]; i++)
		if (strstr(l, notable[i]))
			keep = true;
	scan_environment(d, l);
	if (is_err && !d->error_line)
		d->error_line = strdup(l);
	if (!keep || d->n_lines >= DIAG_MAX_LINES) {
		free(l);
		return;
	}
	if ((d->n_lines & (d->n_lines - 1)) == 0) {
		void *v = realloc(d->lines, (d->n_lines ? d->n_lines * 2 : 1) *
						    sizeof(char *));
		if (!v) {
			free(l);
			return;
		}
		d->lines = v;
	}
	d->lines[d->n_lines++] = l;
}

/* Every line of the program's output: the rules' notable lines and the
 * last Python traceback (diag/pytrace.c). */
static void tail_push(struct diag *d, const char *s, size_t n)
{
	size_t k = (size_t)(d->tail_seen % DIAG_TAIL_LINES);
	free(d->tail[k]);
	d->tail[k] = diag_strndup(s, n > DIAG_TAIL_WIDTH ? DIAG_TAIL_WIDTH : n);
	d->tail_seen++;
}

static void on_line(void *ctx, const char *s, size_t n)
{
	struct diag *d = ctx;
	/* a program that colours its output for the terminal (pytest,
	 * Python 3.13's tracebacks): its text, as it reads (any other
	 * control sequence stays, for the report to show escaped) */
	char *plain = memchr(s, 0x1b, n) ? diag_strndup(s, n) : NULL;
	if (plain) {
		n = text_strip_colours(plain, n);
		s = plain;
	}
	if (!d->feeding_pass)
		tail_push(d, s, n);
	keep_line(d, s, n);
	diag_pytrace_line(&d->pytrace, s, n);
	free(plain);
}

void diag_on_program_output(struct diag *d, const char *buf, size_t len)
{
	diag_asserts_feed(d->asserts, buf, len);
}

void diag_on_pass_output(struct diag *d, const char *buf, size_t len)
{
	/* (a live run's unfinished last line, joined with the pass's first,
	 * is the pass's: lines are handed on whole) */
	d->feeding_pass = true;
	diag_asserts_feed(d->asserts, buf, len);
	d->feeding_pass = false;
}

/* Splits text into lines for keep_line (debugger stderr and streams). */
static void scan_text(struct diag *d, const char *s, size_t len)
{
	while (len) {
		const char *nl = memchr(s, '\n', len);
		size_t n = nl ? (size_t)(nl - s) : len;
		if (n)
			keep_line(d, s, n);
		if (!nl)
			break;
		s += n + 1;
		len -= n + 1;
	}
}

void diag_on_debugger_stderr(struct diag *d, const char *buf, size_t len)
{
	scan_text(d, buf, len);
}

void diag_on_exit(struct diag *d, bool signalled, int code_or_signal)
{
	diag_asserts_finish(d->asserts);
	d->exited = true;
	d->exit_signalled = signalled;
	d->exit_code = signalled ? -1 : code_or_signal;
	if (signalled) {
		char name[32];
		snprintf(name, sizeof name, "signal %d", code_or_signal);
		diag_strset(&d->exit_signal, name);
	}
}

static int add_san(struct diag *d, struct diag_san *report, bool lent)
{
	void *v = realloc(d->sans, (d->n_sans + 1) * sizeof *d->sans);
	if (v)
		d->sans = v;
	void *l = realloc(d->sans_lent, (d->n_sans + 1) * sizeof *d->sans_lent);
	if (l)
		d->sans_lent = l;
	if (!v || !l)
		return DIAG_ENOMEM;
	d->sans[d->n_sans] = report;
	d->sans_lent[d->n_sans++] = lent;
	return DIAG_OK;
}

int diag_add_sanitizer(struct diag *d, struct diag_san *report)
{
	if (!report)
		return DIAG_OK;
	int rc = add_san(d, report, false);
	if (rc < 0)
		diag_san_free(report);
	return rc;
}

int diag_lend_sanitizer(struct diag *d, const struct diag_san *report)
{
	/* Only read from here on (the analysis takes const records). */
	return report ? add_san(d, (struct diag_san *)(uintptr_t)report, true)
		      : DIAG_OK;
}

void diag_unlend_sanitizer(struct diag *d, const struct diag_san *report)
{
	size_t k = 0;
	for (size_t i = 0; i < d->n_sans; i++) {
		if (d->sans_lent[i] && d->sans[i] == report)
			continue;
		d->sans[k] = d->sans[i];
		d->sans_lent[k++] = d->sans_lent[i];
	}
	d->n_sans = k;
}

int diag_set_child_events_off(struct diag *d, const char *why)
{
	char *copy = why ? diag_strdup(why) : NULL;
	if (why && !copy)
		return DIAG_ENOMEM;
	free(d->child_events_off);
	d->child_events_off = copy;
	return DIAG_OK;
}

int diag_add_child_death(struct diag *d, long pid, int sig, const char *cmd)
{
	for (size_t i = 0; i < d->n_children; i++)
		if (d->children[i].pid == pid)
			return DIAG_OK;
	struct diag_child_death *v = realloc(d->children,
					     (d->n_children + 1) * sizeof *v);
	if (!v)
		return DIAG_ENOMEM;
	d->children = v;
	char *c = diag_strdup(cmd ? cmd : "");
	if (!c)
		return DIAG_ENOMEM;
	/* a fault before any SIGKILL: the hints name the first death, and
	 * a fault says more than a kill (which has no word of why) */
	size_t at = d->n_children;
	while (sig != SIGKILL && at > 0 && v[at - 1].sig == SIGKILL)
		at--;
	memmove(&v[at + 1], &v[at], (d->n_children - at) * sizeof *v);
	v[at] = (struct diag_child_death){ .pid = pid, .sig = sig, .cmd = c };
	d->n_children++;
	return DIAG_OK;
}

void diag_set_flag(struct diag *d, enum diag_flag f, bool on)
{
	if ((unsigned)f < DIAG_F_COUNT)
		d->set_flags[f] = on;
}

void diag_note_untrusted(struct diag *d, const char *name)
{
	size_t n = strlen(name), have = d->untrusted ? strlen(d->untrusted) : 0;
	for (const char *p = d->untrusted; p && (p = strstr(p, name)); p += n)
		if ((p == d->untrusted || p[-1] == ' ') &&
		    (p[n] == ',' || p[n] == '\0'))
			return; /* named already */
	if (have > 400)
		return; /* a note, not a listing */
	char *s = realloc(d->untrusted, have + n + 3);
	if (!s)
		return;
	snprintf(s + have, n + 3, "%s%s", have ? ", " : "", name);
	d->untrusted = s;
}

int diag_value_put(struct diag *d, const char *name, const char *value,
		   int frame)
{
	for (size_t i = 0; i < d->n_vals; i++)
		if (strcmp(d->vals[i].name, name) == 0) {
			/* The kernel's own frame wins over frame 0's. */
			if (frame >= 0 && d->vals[i].frame > frame)
				return DIAG_OK;
			d->vals[i].frame = frame;
			return diag_strset(&d->vals[i].value, value) ? DIAG_OK
								 : DIAG_ENOMEM;
		}
	if (d->n_vals >= DIAG_MAX_VALUES)
		return DIAG_ELIMIT;
	if (d->n_vals == d->cap_vals) {
		size_t cap = d->cap_vals ? d->cap_vals * 2 : 16;
		void *v = realloc(d->vals, cap * sizeof *d->vals);
		if (!v)
			return DIAG_ENOMEM;
		d->vals = v;
		d->cap_vals = cap;
	}
	struct named_value *nv = &d->vals[d->n_vals];
	nv->name = strdup(name);
	nv->value = strdup(value);
	nv->frame = frame;
	nv->type = NULL;
	if (!nv->name || !nv->value) {
		free(nv->name);
		free(nv->value);
		return DIAG_ENOMEM;
	}
	d->n_vals++;
	return DIAG_OK;
}

void diag_value_type(struct diag *d, const char *name, const char *type)
{
	for (size_t i = 0; type && i < d->n_vals; i++)
		if (strcmp(d->vals[i].name, name) == 0) {
			diag_strset(&d->vals[i].type, type);
			return;
		}
}

int diag_set_value(struct diag *d, const char *expr, const char *value)
{
	return diag_value_put(d, expr, value, 1 << 20);
}

/* ---- MI records -------------------------------------------------------- */

/* Takes a stack (ownership of v).  Device frames replace nothing once a
 * fault's stack is known: a user walking other threads must not change
 * the account; the first host stack with more than one frame is the
 * launching one. */
static void frames_offer_one(struct diag *d, struct diag_frame *v, size_t n);

/* A stack that mixes device and host frames (a replay answering with
 * another recorded stack) is split: device frames are the device stack,
 * the others the host one. */
void diag_frames_offer(struct diag *d, struct diag_frame *v, size_t n)
{
	size_t dev = 0;
	for (size_t i = 0; i < n; i++)
		dev += v[i].device;
	if (dev == 0 || dev == n) {
		frames_offer_one(d, v, n);
		return;
	}
	struct diag_frame *a = calloc(dev, sizeof *a);
	struct diag_frame *b = calloc(n - dev, sizeof *b);
	if (!a || !b) {
		free(a);
		free(b);
		diag_frames_free(v, n);
		return;
	}
	size_t ia = 0, ib = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].device)
			a[ia++] = v[i];
		else
			b[ib++] = v[i];
	}
	free(v); /* the strings moved */
	frames_offer_one(d, a, ia);
	frames_offer_one(d, b, ib);
}

static void frames_offer_one(struct diag *d, struct diag_frame *v, size_t n)
{
	bool device = n && v[0].device;
	if (device && d->stop.have && !d->frames) {
		d->frames = v;
		d->n_frames = n;
	} else if (!device && n > 1 &&
		   (!d->host_frames || !d->host_frames_final ||
		    d->host_frames_stop == d->model_stop)) {
		diag_frames_free(d->host_frames, d->n_host_frames);
		d->host_frames = v;
		d->n_host_frames = n;
		d->host_frames_final = d->stop.have || d->host_signal;
		d->host_frames_stop = d->model_stop;
	} else {
		diag_frames_free(v, n);
	}
}

void diag_lanes_offer(struct diag *d, int with_exc, bool focus_has_exc)
{
	if (!d->stop.have || d->lanes_seen)
		return;
	d->lanes_seen = true;
	d->lanes_with_exc = with_exc;
	d->focus_lane_has_exc = focus_has_exc;
}

void diag_on_record(struct diag *d, const struct mi_record *rec)
{
	const char *msg;
	if (!rec)
		return;
	switch (rec->kind) {
	case MI_REC_RESULT:
		if (strcmp(rec->klass, "error") == 0 &&
			 (msg = dec_error_msg(rec->results)))
			scan_text(d, msg, strlen(msg));
		break;
	case MI_REC_CONSOLE:
	case MI_REC_LOG:
	case MI_REC_TARGET:
		scan_text(d, rec->text, rec->text_len);
		break;
	default:
		break;
	}
}
