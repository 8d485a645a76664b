/* decode-pt.h: Intel PT with libipt's block decoder (decoder.h), internal.
 *
 * The walk turns libipt's blocks, events and errors into the decoder items
 * of decoder.h.  A packet scan lists the PSBs first (the chunk starts, and
 * the TSC of each for the image's time windows).
 */
#ifndef HWTR_DECODE_PT_H
#define HWTR_DECODE_PT_H

#include "decoder.h"

#include <intel-pt.h>

/* A PSB found by scanning packets, and what its PSB+ said. */
struct psb_info {
	uint64_t offset;
	uint64_t tsc;
	uint64_t fup_ip;
	bool has_tsc, has_fup, has_mode_exec;
};

struct psb_scan {
	struct psb_info *psbs;
	size_t count, cap;
	uint64_t first_sync;	/* offset of the first PSB, or size */
	uint64_t last_tsc;	/* the stream's last TSC packet, any place */
	bool has_last_tsc;
	bool truncated;		/* the stream ends inside a packet */
	uint64_t truncated_at;	/* offset of that packet */
	struct decoder_loss *losses;	/* the stream's, sorted by offset */
	size_t nlosses;
	/* The stream is a read-only file mapping: the scan, which reads it
	 * all, gives back the pages it has passed. */
	bool file_mapped;
};

/* Fill a libipt configuration for BYTES from the manifest's PT settings
 * (CPU, errata via pt_cpu_errata, TSC/CTC ratio, MTC frequency). */
void intel_pt_config_from_recording(struct pt_config *config,
			            const struct hwtr_pt_config *pt,
			            const uint8_t *bytes, size_t size);

/* Scan packets from START for PSBs; skips garbage by resynchronising, and
 * at each of the NLOSSES losses (sorted by offset; copied) continues at the
 * first PSB at or after it: no packet is read across a loss. */
int psb_scan_stream(const struct pt_config *config, uint64_t start,
		    const struct decoder_loss *losses, size_t nlosses,
		    bool file_mapped, struct psb_scan *scan);
/* The stream grew (CONFIG: its new bytes; LOSSES: all of them): keep the
 * PSBs before KEEP, a PSB of the scan, and scan on from it.  *WINDOWS: the
 * first PSB with a TSC at or after KEEP is not the one it was (so the time
 * window of a chunk before KEEP may have changed).  -hwtr_err_notfound when
 * KEEP is not a PSB of the scan. */
int psb_scan_extend(const struct pt_config *config,
		    const struct decoder_loss *losses, size_t nlosses,
		    uint64_t keep, struct psb_scan *scan, bool *windows);
void psb_scan_release(struct psb_scan *scan);
/* Index of the first PSB after OFFSET; the PSB at exactly OFFSET, or NULL. */
size_t psb_scan_index_after(const struct psb_scan *scan, uint64_t offset);
const struct psb_info *psb_scan_find(const struct psb_scan *scan,
				     uint64_t offset);

#endif
