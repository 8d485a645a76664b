/* decoder.c: the decoders by trace format (decoder.h). */
#include "decoder.h"

#include <string.h>

const struct decoder_ops *decoder_for_format(const char *trace_format)
{
	static const struct decoder_ops *const decoders[] = {
		&decoder_intel_pt,
	};
	size_t i;

	for (i = 0; trace_format && i < sizeof(decoders) / sizeof(decoders[0]); i++)
		if (!strcmp(decoders[i]->name, trace_format))
			return decoders[i];
	return NULL;
}
