/* etm-contexts.h: the context IDs each ETM source of an import traces.
 *
 * An importer of ETM trace (an OpenCSD snapshot, a cs_etm perf.data) writes
 * one thread per trace source, or, for a source whose trace unit traces
 * context IDs (TRCCONFIGR.CID) and whose trace names more than one, one
 * thread per context ID (Linux writes the running thread's ID to
 * CONTEXTIDR).  This says which sources those are and their IDs, from the
 * trace the importer holds before it writes anything (one scan of the
 * packets each, hwtr_etm_context_ids), so that the recording is written
 * once.
 */
#ifndef HWTREC_ETM_CONTEXTS_H
#define HWTREC_ETM_CONTEXTS_H

#include <hwtrecord.h>

#include <stddef.h>
#include <stdint.h>

/* One source's trace as the recording will hold it. */
struct etm_source_trace {
	const struct hwtr_etm_config *etm;
	const uint8_t *stream;	/* the stream it writes to (may be shared) */
	size_t size;
	const uint64_t *losses;	/* stream offsets where trace was lost */
	size_t nlosses;
};

struct etm_context_ids {
	uint32_t *ids;		/* malloc'ed; NULL when the source stays whole */
	size_t n;
};

/* For each of the N SOURCES: the context IDs its trace names, without the
 * idle context 0, when its trace unit traces them and there are two or
 * more (0 counted).  0, or a negative hwtr_error with hwtr_last_error(). */
int etm_context_ids(const struct etm_source_trace *sources, size_t n,
		    struct etm_context_ids *out);
void etm_context_ids_release(struct etm_context_ids *ids, size_t n);

/* Remove a recording directory an import was writing. */
void etm_remove_recording(const char *path);

#endif
