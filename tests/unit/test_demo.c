/* --demo (tui/demo.c): the table and its files, where the data is found,
 * the options a demo runs with, the GPU check, and the menu's keys and
 * clicks on a headless ui. */
#include "tests/harness.h"
#include "cudbg/hints.h"
#include "tui/demo.h"
#include "tui/keys.h"
#include "tui/ui.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool exists(const char *dir, const char *sub, const char *file)
{
	char p[4096];
	struct stat st;
	snprintf(p, sizeof p, "%s/%s/%s", dir, sub, file);
	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

TEST(every_demo_has_its_files)
{
	char data[4096];
	snprintf(data, sizeof data, "%s/data", test_root_dir());
	CHECK(demo_count() >= 5);
	for (size_t i = 0; i < demo_count(); i++) {
		const struct demo_entry *e = demo_get(i);
		CHECK(e && e->name && e->title && e->about && e->greeting);
		CHECK_MSG(exists(data, "demo", e->recording), "%s: no %s",
			  e->name, e->recording);
		CHECK_MSG(!e->report || exists(data, "demo", e->report),
			  "%s: no %s", e->name, e->report);
		CHECK_MSG(exists(data, "examples", e->source), "%s: no %s",
			  e->name, e->source);
		CHECK(demo_find(e->name) == e);
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(demo_get(j)->name, e->name) != 0);
	}
	CHECK(demo_get(demo_count()) == NULL);
	CHECK(demo_find("nope") == NULL);
	CHECK(demo_find(NULL) == NULL);
	/* the classic faults the issue names */
	const char *want[] = { "seed", "assert", "null", "oob", "step" };
	for (size_t i = 0; i < 5; i++)
		CHECK_MSG(demo_find(want[i]), "no demo %s", want[i]);
}

TEST(data_dir_search_order)
{
	char buf[4096], err[1024], exe[4096], data[4096];
	snprintf(exe, sizeof exe, "%s/build", test_root_dir());
	char *real = realpath(test_root_dir(), NULL);
	CHECK(real);
	snprintf(data, sizeof data, "%s/data", real);
	free(real);

	/* a build tree: build/../data */
	unsetenv("CUDBG_DATADIR");
	CHECK_STR(demo_data_dir(exe, buf, sizeof buf, err, sizeof err), data);
	/* the environment wins */
	setenv("CUDBG_DATADIR", data, 1);
	CHECK_STR(demo_data_dir("/nonexistent", buf, sizeof buf, err,
				sizeof err), data);
	/* and a wrong one is an error, not a silent fallback */
	setenv("CUDBG_DATADIR", "/nonexistent/share", 1);
	CHECK(demo_data_dir(exe, buf, sizeof buf, err, sizeof err) == NULL);
	CHECK_MSG(strstr(err, "CUDBG_DATADIR=/nonexistent/share") &&
		  !strchr(err, '\n'), "%s", err);
	/* an empty one is unset */
	setenv("CUDBG_DATADIR", "", 1);
	CHECK_STR(demo_data_dir(exe, buf, sizeof buf, err, sizeof err), data);
	unsetenv("CUDBG_DATADIR");
	/* nowhere: one line naming the places and the fix */
	if (exists(diag_datadir_compiled(), "demo", "README.md"))
		test_skip("the demo is installed in %s", diag_datadir_compiled());
	CHECK(demo_data_dir("/nonexistent/bin", buf, sizeof buf, err,
			    sizeof err) == NULL);
	CHECK_MSG(strstr(err, "not installed") && strstr(err, "make install")
		  && strstr(err, diag_datadir_compiled()) && !strchr(err, '\n'),
		  "%s", err);
}

TEST(run_options)
{
	struct cudbg_options base;
	struct demo_run r;
	char err[512];
	char *argv[] = { (char *)(uintptr_t)"cudbg-tui",
			 (char *)(uintptr_t)"-d", (char *)(uintptr_t)"/mine",
			 (char *)(uintptr_t)"--demo", (char *)(uintptr_t)"oob",
			 NULL };
	CHECK_MSG(options_parse(&base, 5, argv, err, sizeof err) == 0, "%s",
		  err);
	CHECK(base.demo);
	CHECK_STR(base.demo_name, "oob");
	CHECK(base.argv == NULL);
	char data[4096];
	snprintf(data, sizeof data, "%s/data", test_root_dir());
	CHECK(demo_run_init(&r, &base, data, demo_find("oob"), err,
			    sizeof err) == 0);
	CHECK_INT(r.o.backend, SESSION_REPLAY);
	CHECK(strstr(r.o.replay, "/demo/core_small_oob.mi.log"));
	CHECK(strstr(r.o.sanitizer_report, "/demo/small_oob.sanitizer.xml"));
	CHECK_INT(r.o.ndirs, 2);
	CHECK(strstr(r.o.dirs[0], "/examples"));
	CHECK_STR(r.o.dirs[1], "/mine");
	CHECK_STR(r.o.demo_name, "oob");
	demo_run_free(&r);
	demo_run_free(&r); /* twice is harmless */

	/* a demo without a report keeps the user's */
	base.sanitizer_report = "/user.xml";
	CHECK(demo_run_init(&r, &base, data, demo_find("step"), err,
			    sizeof err) == 0);
	CHECK_STR(r.o.sanitizer_report, "/user.xml");
	CHECK(r.report == NULL);
	demo_run_free(&r);

	/* missing data: one line naming the file */
	CHECK(demo_run_init(&r, &base, "/nonexistent", demo_find("step"), err,
			    sizeof err) == -1);
	CHECK_MSG(strstr(err, "/nonexistent/demo/step_kernel.mi.log"), "%s",
		  err);
	options_free(&base);

	char *two[] = { (char *)(uintptr_t)"cudbg-tui",
			(char *)(uintptr_t)"--demo", (char *)(uintptr_t)"a",
			(char *)(uintptr_t)"b", NULL };
	CHECK(options_parse(&base, 4, two, err, sizeof err) == -1);
	CHECK_MSG(strstr(err, "--demo takes one demo name"), "%s", err);
}

TEST(gpu_check)
{
	char dir[] = "/tmp/cudbg-gpu-XXXXXX", path[320]; /* bin[] and a name */
	if (access("/dev/nvidia0", F_OK) == 0)
		test_skip("this machine has /dev/nvidia0");
	CHECK(mkdtemp(dir));
	unsetenv("CUDA_HOME");
	setenv("PATH", dir, 1);
	CHECK(!demo_gpu_present());
	snprintf(path, sizeof path, "%s/nvidia-smi", dir);
	FILE *f = fopen(path, "w");
	CHECK(f);
	fputs("#!/bin/sh\n", f);
	fclose(f);
	CHECK(!demo_gpu_present()); /* not executable */
	chmod(path, 0755);
	CHECK(demo_gpu_present());
	unlink(path);
	/* cuda-gdb in $CUDA_HOME/bin */
	char bin[300];
	snprintf(bin, sizeof bin, "%s/bin", dir);
	mkdir(bin, 0755);
	snprintf(path, sizeof path, "%s/cuda-gdb", bin);
	f = fopen(path, "w");
	CHECK(f);
	fclose(f);
	chmod(path, 0755);
	CHECK(!demo_gpu_present());
	setenv("CUDA_HOME", dir, 1);
	CHECK(demo_gpu_present());
	unlink(path);
	rmdir(bin);
	rmdir(dir);
}

/* The menu on a ui with no debugger: keys move and choose, a click on a
 * row opens it, q leaves with no choice. */
TEST(menu_keys_and_clicks)
{
	struct ui ui;
	int pick = -1;
	memset(&ui, 0, sizeof ui);
	CHECK(ui_init(&ui) == 0);
	ui_resize(&ui, 100, 30);
	demo_menu_open(&ui, &pick);
	ui_draw(&ui);
	char *d = grid_dump(&ui.grid);
	CHECK(d && strstr(d, "cudbg-tui demo") && strstr(d, "1  seed"));
	free(d);
	ui_key(&ui, TK_DOWN, NULL);
	ui_key(&ui, TK_DOWN, NULL);
	ui_key(&ui, TK_UP, NULL);
	ui_key(&ui, TK_ENTER, NULL);
	CHECK(ui.quit);
	CHECK_INT(pick, 1); /* assert */

	/* back to the menu: the cursor is where it was */
	ui.quit = false;
	demo_menu_open(&ui, &pick);
	CHECK_INT(pick, -1);
	ui_draw(&ui);
	d = grid_dump(&ui.grid);
	CHECK(d && strstr(d, "\xe2\x96\xb6 2  assert"));
	/* a click on the row of "null" */
	int row = 0;
	for (char *p = d; p && (p = strchr(p, '\n')); p++, row++)
		if (strstr(p + 1, "3  null") &&
		    (!strchr(p + 1, '\n') ||
		     strstr(p + 1, "3  null") < strchr(p + 1, '\n')))
			break;
	free(d);
	struct ui_mouse m = { 10, row + 1, 1 };
	ui_key(&ui, TK_MOUSE, &m);
	CHECK(ui.quit);
	CHECK_INT(pick, 2);

	/* digits open, q leaves */
	ui.quit = false;
	demo_menu_open(&ui, &pick);
	ui_key(&ui, '6', NULL);
	CHECK_INT(pick, 5);
	ui.quit = false;
	demo_menu_open(&ui, &pick);
	ui_key(&ui, 'x', NULL);
	CHECK(!ui.quit);
	ui_key(&ui, 'q', NULL);
	CHECK(ui.quit);
	CHECK_INT(pick, -1);
	ui.modal = NULL;
	ui_free(&ui);
}
