/* etm-contexts.h: the context IDs each ETM source of a recording traces.
 *
 * An importer of ETM trace (an OpenCSD snapshot, a cs_etm perf.data) writes
 * one thread per trace source first.  A source whose trace unit traces
 * context IDs (TRCCONFIGR.CID) and whose trace names more than one is then
 * better one thread per context ID (Linux writes the running thread's ID to
 * CONTEXTIDR): this builds the history of the written recording and says
 * which sources that is, so that the importer writes it again that way.
 */
#ifndef HWTREC_ETM_CONTEXTS_H
#define HWTREC_ETM_CONTEXTS_H

#include <stddef.h>
#include <stdint.h>

struct etm_context_ids {
	uint32_t *ids;		/* malloc'ed; NULL when the source stays whole */
	size_t n;
};

/* For each of the N threads TIDS of the recording at PATH: the context IDs
 * its trace names, without the idle context 0, when its trace unit traces
 * them and there are two or more.  0, or -1 with hwtr_last_error(). */
int etm_context_ids(const char *path, const uint32_t *tids, size_t n,
		    struct etm_context_ids *out);
void etm_context_ids_release(struct etm_context_ids *ids, size_t n);

/* Remove the recording written at PATH for learning (NAME.partial). */
void etm_remove_recording(const char *path);

#endif
