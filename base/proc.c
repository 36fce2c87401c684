/* Process ids from untrusted text, and what /proc says of a process:
 * the checks every signal we send goes through (issue 33 item 1). */
#include "cudbg/base.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Linux's PID_MAX_LIMIT on 64-bit: the ceiling when pid_max cannot be
 * read. */
#define PID_CEILING 4194304L

/* Read once: a pid is parsed at every stop (twice a step in the screen),
 * and a pid_max raised later only makes us refuse a pid, never accept a
 * wrong one. */
static long pid_max(void)
{
	static long cached;
	if (cached)
		return cached;
	long v = 0;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 0;
		fclose(f);
	}
	cached = v > 0 && v <= PID_CEILING ? v : PID_CEILING;
	return cached;
}

bool proc_parse_pid(const char *s, pid_t *out)
{
	*out = 0;
	if (!s || !*s)
		return false;
	long v = 0;
	for (const char *p = s; *p; p++) {
		/* eight digits already pass every pid_max Linux allows */
		if (!isdigit((unsigned char)*p) || p - s >= 8)
			return false;
		v = v * 10 + (*p - '0');
	}
	if (v < 1 || v > pid_max())
		return false;
	*out = (pid_t)v;
	return true;
}

bool proc_read(pid_t pid, struct proc_info *out)
{
	if (pid <= 0)
		return false;
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	/* the command name is in parentheses and may hold anything: the
	 * fields start after its last ')' */
	const char *p = strrchr(buf, ')');
	int ppid, pgrp, sid;
	/* fields 3-6, then 7-21 skipped (15), then 22; the copy this
	 * replaces skipped 14 and read itrealvalue, always 0, so its
	 * reused-pid check never told two processes apart */
	if (!p || sscanf(p + 1, " %c %d %d %d %*s %*s %*s %*s %*s %*s %*s "
			 "%*s %*s %*s %*s %*s %*s %*s %*s %llu", &out->state,
			 &ppid, &pgrp, &sid, &out->start) != 5)
		return false;
	out->ppid = ppid;
	out->pgrp = pgrp;
	out->sid = sid;
	return true;
}

bool proc_is_descendant(pid_t pid, pid_t ancestor)
{
	if (pid <= 1 || ancestor <= 0 || pid == ancestor)
		return false;
	struct proc_info pi;
	/* bounded: a parent chain is short, and a race while we walk must
	 * not loop */
	for (int depth = 0; depth < 256 && proc_read(pid, &pi); depth++) {
		if (pi.ppid == ancestor)
			return true;
		if (pi.ppid <= 1)
			return false;
		pid = pi.ppid;
	}
	return false;
}

bool proc_is_same(pid_t pid, unsigned long long start)
{
	struct proc_info pi;
	return proc_read(pid, &pi) && pi.state != 'Z' && pi.start == start;
}

double proc_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
