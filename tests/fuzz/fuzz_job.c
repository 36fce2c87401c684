/* Fuzz target: the job table's parsers (diag/job_parse.c): /proc/PID/stat,
 * an environ block, a cmdline block, a coredump file name, a
 * faulthandler dump and a line of a job's stderr (a collective, a
 * launcher's word of a worker's death).  The first
 * byte picks which; every field is read back. */
#include "cudbg/job.h"
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	size_t sum = 0;
	switch (data[0] % 6) {
	case 0: {
		struct job_stat st;
		if (job_parse_stat(text, len, &st) == 0)
			sum += (size_t)st.ppid + (size_t)st.state +
			       (size_t)st.exit_code + (size_t)st.starttime;
		break;
	}
	case 1: {
		struct job_proc p;
		memset(&p, 0, sizeof p);
		if (job_parse_environ(text, len, &p) == 0) {
			sum += p.rank ? strlen(p.rank) + strlen(p.rank_var) : 0;
			sum += p.local_rank ? strlen(p.local_rank) : 0;
		}
		free(p.rank);
		free(p.local_rank);
		break;
	}
	case 2: {
		char *s = job_join_cmdline(text, len);
		sum += s ? strlen(s) : 0;
		free(s);
		break;
	}
	case 4: {
		struct job_proc p;
		memset(&p, 0, sizeof p);
		if (job_parse_pystack(text, len, (len & 1) != 0, &p) == 0 && p.py_user >= 0)
			sum += (size_t)p.py[p.py_user].line;
		sum += (size_t)job_parse_fatal_signal(text, len);
		for (size_t i = 0; i < p.npy; i++) {
			sum += strlen(p.py[i].file) + strlen(p.py[i].func);
			free(p.py[i].file);
			free(p.py[i].func);
		}
		free(p.py);
		break;
	}
	case 5: {
		/* a line of the job's stderr, copied so that a read past its
		 * end is caught */
		char *line = malloc(len ? len : 1);
		if (!line)
			return 0;
		memcpy(line, text, len);
		struct job_collective c;
		struct job_death d;
		if (job_parse_collective(line, len, &c))
			sum += strlen(c.backend) + strlen(c.op) + strlen(c.text) +
			       (size_t)c.rank + (size_t)c.seq +
			       (size_t)c.timeout_ms + (size_t)c.ran_ms;
		if (job_parse_death(line, len, &d))
			sum += (size_t)d.pid + (size_t)d.rank + (size_t)d.status;
		/* the traceback reader over the input's lines, in order */
		static struct job_tb_state st;
		memset(&st, 0, sizeof st);
		for (size_t at = 0; at < len;) {
			const char *nl = memchr(line + at, '\n', len - at);
			size_t n = nl ? (size_t)(nl - (line + at)) : len - at;
			struct job_rank_error e;
			if (job_parse_rank_traceback(&st, line + at, n, &e))
				sum += strlen(e.exception) + strlen(e.file) +
				       strlen(e.func) + (size_t)e.line;
			at += n + 1;
		}
		free(line);
		break;
	}
	default: {
		char *name = malloc(len + 1);
		if (!name)
			return 0;
		memcpy(name, text, len);
		name[len] = '\0';
		sum += (size_t)job_core_pid(name);
		free(name);
		break;
	}
	}
	return (int)(sum & 0);
}
