/* decoder.c: the decoders by trace format (decoder.h). */
#include "decoder.h"

#include <string.h>

const struct decoder_ops *decoder_for_format(const char *trace_format)
{
	static const struct {
		const char *format;
		const struct decoder_ops *ops;
	} decoders[] = {
		{ "intel-pt", &decoder_intel_pt },
		{ "etm4", &decoder_etm },
		{ "ete", &decoder_etm },	/* ETE: the trace unit says so too */
	};
	size_t i;

	for (i = 0; trace_format && i < sizeof(decoders) / sizeof(decoders[0]); i++)
		if (!strcmp(decoders[i].format, trace_format))
			return decoders[i].ops;
	return NULL;
}

void walk_item_lost(struct walk_item *item, uint64_t offset, const char *reason)
{
	memset(item, 0, sizeof(*item));
	item->kind = walk_gap;
	item->gap = gap_lost;
	item->offset = offset;
	item->reason = reason;
}
