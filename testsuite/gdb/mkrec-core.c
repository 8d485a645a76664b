/* mkrec-core: wrap a core file in a recording without trace, so that the
 * server's core-only paths (registers, memory, threads, libraries) can be
 * checked against GDB reading the same core directly.
 *
 *   mkrec-core OUT.hwtrec EXECUTABLE CORE
 *
 * Thread ids come from the core's NT_PRSTATUS notes (the server's corefile.c). */
#include "corefile.h"

#include <hwtrecord.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	struct hwtr_writer_info info = { .source = "test-core" };
	struct hwtr_end end = { hwtr_end_signaled, 0 };
	struct hwtr_writer *w;
	struct core *core;
	size_t i;

	if (argc != 4) {
		fprintf(stderr, "usage: mkrec-core OUT.hwtrec EXECUTABLE CORE\n");
		return 2;
	}
	if (core_open(argv[3], &core) < 0) {
		fprintf(stderr, "mkrec-core: %s\n", hwtr_last_error());
		return 1;
	}
	info.pid = (int32_t)core->threads[0].tid;
	info.executable = argv[2];
	info.argc = 1;
	info.argv = (const char *const *)&argv[2];
	end.code = core->signal;
	if (hwtr_writer_create(argv[1], &info, &w) < 0)
		goto fail;
	for (i = 0; i < core->nthreads; i++)
		if (hwtr_writer_add_thread(w, core->threads[i].tid, i + 1) < 0)
			goto fail;
	if (hwtr_writer_add_core(w, argv[3]) < 0 || hwtr_writer_finish(w, &end) < 0)
		goto fail;
	hwtr_writer_free(w);
	core_close(core);
	return 0;
fail:
	fprintf(stderr, "mkrec-core: %s\n", hwtr_last_error());
	return 1;
}
