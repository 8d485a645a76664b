/* end-memory.c: the end state's memory, the recording's ELF core
 * (end-memory.h), read through core-memory.c, the one core reader the
 * library and the server share. */
#include "end-memory.h"
#include "core-memory.h"
#include "error.h"

#include <hwtrecord.h>

#include <stdlib.h>

struct end_memory {
	struct hwtr_core_memory *core;	/* NULL: no core */
};

int end_memory_open(const struct hwtr_recording *recording,
		    struct end_memory **out)
{
	const struct hwtr_recording_info *info = hwtr_recording_info(recording);
	struct end_memory *em = calloc(1, sizeof(*em));
	char *path;
	int err;

	*out = NULL;
	if (!em)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if (info->core) {
		path = hwtr_path_join(hwtr_recording_path(recording),
				      info->core);
		if (!path) {
			end_memory_close(em);
			return -hwtr_err_nomem;
		}
		err = hwtr_core_memory_open(path, &em->core);
		free(path);
		if (err) {
			end_memory_close(em);
			return err;
		}
	}
	*out = em;
	return 0;
}

void end_memory_close(struct end_memory *em)
{
	if (!em)
		return;
	hwtr_core_memory_close(em->core);
	free(em);
}

int end_memory_read(struct end_memory *em, uint64_t addr, uint8_t *buf,
		    uint8_t *known, size_t size)
{
	return em->core ? core_memory_read_known(em->core, addr, buf, known,
						 size)
			: 0;
}
