/* etm-seeds.h: the ETM fuzzers' seeds (etm-seeds.c), written by make-seeds. */
#ifndef ETM_SEEDS_H
#define ETM_SEEDS_H

#include <stddef.h>

/* Writes BYTES as OUTDIR/SUB/NAME. */
typedef void (*seed_writer)(const char *sub, const char *name, const void *bytes,
			    size_t size);

/* seeds-etm/ and seeds-snapshot/. */
void etm_seeds(seed_writer write);

#endif
