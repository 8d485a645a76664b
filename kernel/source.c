/* source.c: what the trace sources share (source.h). */
#include "source.h"

#include <stdio.h>
#include <string.h>

void record_name(const struct record_request *req, pid_t pid, char *out,
		 size_t size)
{
	const char *prog = req->program ? req->program : "process";
	const char *base = strrchr(prog, '/');

	if (req->output)
		snprintf(out, size, "%s", req->output);
	else
		snprintf(out, size, "%s-%d.hwtrec", base ? base + 1 : prog,
			 (int)pid);
}
