/* --demo: the recordings, where their data is, and the menu.  See
 * tui/demo.h; the screen side of the loop is in tui/tui.c. */
#include "tui/demo.h"
#include "cudbg/base.h"
#include "tui/keys.h"
#include "tui/ui.h"

#include "cudbg/batch.h"
#include "cudbg/hints.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file that says a directory holds the demo (data/demo/README.md). */
#define DEMO_MARK "demo/README.md"

static const struct demo_entry entries[] = {
	{
		.name = "seed",
		.title = "PyTorch: a class label out of range in cross_entropy",
		.recording = "seed_py.mi.log",
		.report = "seed_py.sanitizer.xml",
		.source = "seed_repro.py",
		.about = "python3 seed_repro.py under cuda-gdb. The labels are "
			 "drawn from 0..5 for a model with 5 outputs, so one "
			 "label equals the class count. The loss kernel's "
			 "device assert stops the GPU (Warp Assert) in "
			 "nll_loss_forward_reduce_cuda_kernel_2d. PyTorch ships "
			 "no device source: the screen shows what the "
			 "assertion text names (Loss.cu:245, the failed "
			 "expression). The sanitizer report of the same run "
			 "names the line of the script that made the call.",
		.greeting = "seed: press r to run the recorded program "
			    "(13 s on the GPU, at once here); q back to the "
			    "menu",
	},
	{
		.name = "assert",
		.title = "CUDA C: a kernel assert() fires",
		.recording = "demo_assert_label.mi.log",
		.report = NULL,
		.source = "assert_label.cu",
		.about = "assert_label.cu checks every label against "
			 "num_classes; the label of element 133 is 10 with 10 "
			 "classes. Thread (5,0,0) of block (1,0,0) fails the "
			 "assert: the program's output has the assertion line, "
			 "the source pane shows line 10. Frame 0 is "
			 "__assert_fail, which has no source; the kernel is "
			 "frame 1 (the Stack tab).",
		.greeting = "assert: press r to run the recorded program; q "
			    "back to the menu",
	},
	{
		.name = "null",
		.title = "A null pointer write: Warp Illegal Address",
		.recording = "demo_null_write.mi.log",
		.report = NULL,
		.source = "null_write.cu",
		.about = "null_write.cu gives element 37 (block 1, thread 5) a "
			 "null weights pointer. The GPU stops with "
			 "CUDA_EXCEPTION_14 at null_write.cu:10, and the error "
			 "PC differs from the PC the warp stopped at. The lane "
			 "in focus is lane 0, not the thread that faulted: a "
			 "warp-level exception does not name the lane. "
			 "compute-sanitizer's memcheck names the exact thread.",
		.greeting = "null: press r to run the recorded program; q back "
			    "to the menu",
	},
	{
		.name = "oob",
		.title = "One past the end, found by memcheck (coredump)",
		.recording = "core_small_oob.mi.log",
		.report = "small_oob.sanitizer.xml",
		.source = "small_oob.cu",
		.about = "small_oob.cu reads in[i + 1] for every i < n, so "
			 "thread 99 reads one float past a 100-float buffer. "
			 "Neither the plain run nor cuda-gdb notices (see "
			 "'quiet'); compute-sanitizer's memcheck reports an "
			 "invalid 4-byte read by thread (99,0,0) and writes a "
			 "GPU coredump. This demo opens that coredump: the "
			 "focus is on the faulting thread at small_oob.cu:7 "
			 "with i = 99 and n = 100.",
		.greeting = "oob: the coredump is open on the faulting thread; "
			    "see its Locals; q back to the menu",
	},
	{
		.name = "quiet",
		.title = "The same read under cuda-gdb alone: nothing stops",
		.recording = "demo_small_oob.mi.log",
		.report = "small_oob.sanitizer.xml",
		.source = "small_oob.cu",
		.about = "small_oob under cuda-gdb without memcheck: the "
			 "kernel reads past the end of its buffer, nothing "
			 "faults (the memory after it is mapped), the program "
			 "prints 'sync: no error' and exits 0. A run that ends "
			 "cleanly gives no reason to look: --memcheck=always "
			 "finds it, and this demo carries that pass's report "
			 "(cudbg-tui --demo --batch quiet prints it).",
		.greeting = "quiet: press r to run the recorded program; q back "
			    "to the menu",
	},
	{
		.name = "refault",
		.title = "Replay to fault: stop thread 99 just before its bad read",
		.recording = "replay_to_fault.mi.log",
		.report = "small_oob.sanitizer.xml",
		.source = "small_oob.cu",
		.about = "The memcheck finding of 'oob' names thread (99,0,0) "
			 "at small_oob.cu:7. Replay to fault (T) reruns the "
			 "program with cuda-gdb stopping at the kernel's entry "
			 "first, then a breakpoint at that line only thread 99 "
			 "of block 0 can hit, so the screen stops there before "
			 "the read: i = 99, n = 100, and in[i + 1] is one past "
			 "the end. The Hints tab lists the finding; Enter on "
			 "it does the same as T.",
		.greeting = "refault: press T to rerun and stop the faulting "
			    "thread before its read; q back to the menu",
	},
	{
		.name = "step",
		.title = "Stepping through a kernel, switching threads",
		.recording = "step_kernel.mi.log",
		.report = NULL,
		.source = "step_kernel.cu",
		.about = "step_kernel.cu with breakpoints on the kernel saxpy2 "
			 "and at line 11. r runs to the breakpoint at line 8; "
			 "n goes to line 9 and s to line 10, with the kernel's "
			 "arguments in Locals; f (finish) is refused in a "
			 "kernel's outermost frame. In the console, cuda block "
			 "(5,0,0) thread (2,0,0) switches the CUDA focus. "
			 "Commands the recording does not hold answer 'not in "
			 "this recording'.",
		.greeting = "step: press r to run to the breakpoint, then n, "
			    "then s; q back to the menu",
	},
};

#define NENTRIES (sizeof entries / sizeof entries[0])

size_t demo_count(void)
{
	return NENTRIES;
}

const struct demo_entry *demo_get(size_t i)
{
	return i < NENTRIES ? &entries[i] : NULL;
}

const struct demo_entry *demo_find(const char *name)
{
	for (size_t i = 0; name && i < NENTRIES; i++)
		if (strcmp(entries[i].name, name) == 0)
			return &entries[i];
	return NULL;
}

/* ---- data ---------------------------------------------------------------- */

/* The directory as an absolute path without "..", for messages and the
 * program name in reports. */
static const char *found(const char *dir, char *buf, size_t cap)
{
	char *real = realpath(dir, NULL);
	snprintf(buf, cap, "%s", real ? real : dir);
	free(real);
	return buf;
}

static bool has_demo(const char *dir)
{
	char path[4096];
	struct stat st;
	if (snprintf(path, sizeof path, "%s/%s", dir, DEMO_MARK) >=
	    (int)sizeof path)
		return false;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const char *demo_data_dir(const char *exe_dir, char *buf, size_t cap,
			  char *err, size_t errcap)
{
	const char *env = diag_datadir_env();
	char self[4096], tree[4096];
	if (env) {
		if (has_demo(env))
			return found(env, buf, cap);
		snprintf(err, errcap, "the demo is not in CUDBG_DATADIR=%s (no "
			 "%s there); unset it or point it at the directory "
			 "that holds demo/", env, DEMO_MARK);
		return NULL;
	}
	if (diag_data_dir(exe_dir, DEMO_MARK, tree, sizeof tree))
		return found(tree, buf, cap);
	if (!exe_dir)
		exe_dir = diag_exe_dir(self, sizeof self);
	snprintf(err, errcap, "the demo recordings are not installed (no %s "
		 "in %s/../data or %s); run 'make install', or set "
		 "CUDBG_DATADIR to the directory that holds demo/",
		 DEMO_MARK, exe_dir ? exe_dir : "the binary's directory",
		 diag_datadir_compiled());
	return NULL;
}

static char *join(const char *dir, const char *sub, const char *file)
{
	size_t n = strlen(dir) + strlen(sub) + strlen(file) + 3;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s/%s%s%s", dir, sub, *file ? "/" : "", file);
	return s;
}

int demo_run_init(struct demo_run *r, const struct cudbg_options *base,
		  const char *datadir, const struct demo_entry *e, char *err,
		  size_t cap)
{
	memset(r, 0, sizeof *r);
	r->o = *base;
	r->o.dirs = NULL; /* replaced below; base's array stays base's */
	r->replay = join(datadir, "demo", e->recording);
	r->report = e->report ? join(datadir, "demo", e->report) : NULL;
	r->examples = join(datadir, "examples", "");
	const char **dirs = malloc((base->ndirs + 1) * sizeof *dirs);
	if (!r->replay || !r->examples || (e->report && !r->report) || !dirs) {
		free(dirs);
		demo_run_free(r);
		snprintf(err, cap, "out of memory");
		return -1;
	}
	if (access(r->replay, R_OK) != 0) {
		snprintf(err, cap, "demo '%s': cannot read %s: %s; reinstall "
			 "the data (make install)", e->name, r->replay,
			 strerror(errno));
		free(dirs);
		demo_run_free(r);
		return -1;
	}
	/* The examples first: the recordings name /src/examples/FILE. */
	dirs[0] = r->examples;
	for (size_t i = 0; i < base->ndirs; i++)
		dirs[i + 1] = base->dirs[i];
	r->o.dirs = dirs;
	r->o.ndirs = base->ndirs + 1;
	/* the options' own arrays stay with base */
	r->o.breaks = base->breaks;
	r->o.mi_exec = NULL;
	r->o.nmi_exec = 0;
	r->o.backend = SESSION_REPLAY;
	r->o.replay = r->replay;
	r->o.demo = true;
	r->o.demo_name = e->name;
	if (!base->sanitizer_report)
		r->o.sanitizer_report = r->report;
	return 0;
}

void demo_run_free(struct demo_run *r)
{
	if (!r)
		return;
	free(r->o.dirs);
	r->o.dirs = NULL;
	free(r->replay);
	free(r->report);
	free(r->examples);
	r->replay = r->report = r->examples = NULL;
}

/* ---- the machine --------------------------------------------------------- */

static bool on_path(const char *name, const char *path)
{
	char buf[4096];
	while (path && *path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		/* an empty PATH entry means the current directory */
		if (snprintf(buf, sizeof buf, "%.*s/%s", n ? (int)n : 1,
			     n ? path : ".", name) < (int)sizeof buf &&
		    access(buf, X_OK) == 0)
			return true;
		path = colon ? colon + 1 : NULL;
	}
	return false;
}

bool demo_gpu_present(void)
{
	const char *home = getenv("CUDA_HOME");
	char bin[4096];
	if (access("/dev/nvidia0", F_OK) == 0)
		return true;
	if (on_path("nvidia-smi", getenv("PATH")) ||
	    on_path("cuda-gdb", getenv("PATH")))
		return true;
	if (home && *home && snprintf(bin, sizeof bin, "%s/bin", home) <
				     (int)sizeof bin)
		return on_path("cuda-gdb", bin);
	return false;
}

/* ---- batch ---------------------------------------------------------------- */

static void list_names(char *buf, size_t cap)
{
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < NENTRIES && o < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? ", " : "",
				      entries[i].name);
}

int demo_batch(const struct cudbg_options *o)
{
	char names[256], err[1024], dir[4096];
	const struct demo_entry *e = demo_find(o->demo_name);
	list_names(names, sizeof names);
	if (!e) {
		if (o->demo_name)
			fprintf(stderr, "cudbg-tui: no demo named '%.64s'; "
				"the demos are %s\n", o->demo_name, names);
		else
			fprintf(stderr, "cudbg-tui: --demo --batch needs a "
				"demo name: %s\n", names);
		return 2;
	}
	if (!demo_data_dir(NULL, dir, sizeof dir, err, sizeof err)) {
		text_write_line(stderr, "cudbg-tui: ", err);
		return 2;
	}
	struct demo_run r;
	if (demo_run_init(&r, o, dir, e, err, sizeof err) < 0) {
		text_write_line(stderr, "cudbg-tui: ", err);
		return 2;
	}
	int rc = batch_main(&r.o);
	demo_run_free(&r);
	return rc;
}

/* ---- the menu -------------------------------------------------------------- */

struct menu {
	int cursor;
	int *pick;
	int first_row; /* screen row of the first entry, for clicks */
};

static struct menu menu_state;

static void menu_draw(struct ui *ui, void *ctx)
{
	struct menu *m = ctx;
	struct canvas c = canvas_of(&ui->grid, (struct rect){ 0, 0, ui->grid.w,
							       ui->grid.h });
	int y = 0, w = c.r.w;

	canvas_fill(&c, 0, 0, w, 1, ' ', STYLE(UC_STATUS, 0));
	canvas_str(&c, 0, 0, " cudbg-tui demo: recorded cuda-gdb sessions, "
		   "no GPU needed", STYLE(UC_STATUS, CA_BOLD));
	y = 2;
	y += canvas_wrap(&c, 1, y, w - 2, "Each entry replays a real "
			 "cuda-gdb session recorded on an H200, with its "
			 "source. Choose one:", STYLE(UC_DEFAULT, 0), true);
	y++;
	m->first_row = y;
	for (int i = 0; i < (int)NENTRIES && y < c.r.h - 1; i++, y++) {
		bool sel = i == m->cursor;
		struct style st = sel ? STYLE(UC_CURSOR, CA_BOLD)
				      : STYLE(UC_DEFAULT, 0);
		if (sel)
			canvas_fill(&c, 0, y, w, 1, ' ', st);
		canvas_printf(&c, 1, y, st, "%s %d  %-7s %s",
			      sel ? "\xe2\x96\xb6" : " ", i + 1,
			      entries[i].name, entries[i].title);
	}
	y++;
	if (y < c.r.h - 1) {
		const struct demo_entry *e = &entries[m->cursor];
		struct canvas about = canvas_sub(&c, 0, 0, w, c.r.h - 1);
		canvas_printf(&about, 1, y++, STYLE(UC_ACCENT, CA_BOLD),
			      "%s (source: %s)", e->name, e->source);
		y += canvas_wrap(&about, 3, y, w - 4, e->about,
				 STYLE(UC_DEFAULT, 0), true);
		canvas_wrap(&about, 1, y + 1, w - 2, "In the debugger screen: "
			    "r runs the recording, ? lists every key, q "
			    "comes back here.", STYLE(UC_MUTED, 0), true);
	}
	canvas_fill(&c, 0, c.r.h - 1, w, 1, ' ', STYLE(UC_HINT, 0));
	canvas_printf(&c, 0, c.r.h - 1, STYLE(UC_HINT, 0), " Enter open  "
		      "Up/Down choose  1-%d open  click open  q quit",
		      (int)NENTRIES);
}

static int menu_choose(struct ui *ui, struct menu *m, int i)
{
	if (i < 0 || i >= (int)NENTRIES)
		return PR_HANDLED;
	m->cursor = i;
	*m->pick = i;
	ui->quit = true;
	return PR_QUIT;
}

static int menu_key(struct ui *ui, void *ctx, int key,
		    const struct ui_mouse *mo)
{
	struct menu *m = ctx;
	int n = (int)NENTRIES;

	switch (key) {
	case TK_UP: case 'k':
		m->cursor = (m->cursor + n - 1) % n;
		return PR_REDRAW;
	case TK_DOWN: case 'j': case TK_TAB:
		m->cursor = (m->cursor + 1) % n;
		return PR_REDRAW;
	case TK_HOME: m->cursor = 0; return PR_REDRAW;
	case TK_END: m->cursor = n - 1; return PR_REDRAW;
	case TK_ENTER: case '\n': case ' ':
		return menu_choose(ui, m, m->cursor);
	case 'q': case TK_ESC: case TK_CTRL('c'):
		*m->pick = -1;
		ui->quit = true;
		return PR_QUIT;
	case TK_MOUSE:
		if (!mo)
			return PR_IGNORED;
		if (mo->button == 4 || mo->button == 5)
			return menu_key(ui, ctx, mo->button == 4 ? TK_UP
								  : TK_DOWN,
					NULL);
		return menu_choose(ui, m, mo->y - m->first_row);
	}
	if (key >= '1' && key < '1' + n)
		return menu_choose(ui, m, key - '1');
	return PR_IGNORED;
}

static const struct ui_modal menu_modal = {
	.draw = menu_draw,
	.key = menu_key,
};

void demo_menu_open(struct ui *ui, int *pick)
{
	/* The cursor stays where it was when the menu comes back. */
	struct menu *m = &menu_state;
	if (*pick >= 0 && *pick < (int)NENTRIES)
		m->cursor = *pick;
	m->pick = pick;
	*pick = -1;
	ui->modal = &menu_modal;
	ui->modal_ctx = m;
	ui->dirty = true;
}
