/* recover-bytes.h: what is known of memory bytes, for value recovery
 * (recover.c): a hash map from 8-byte-aligned addresses to eight values
 * and a mask of the ones known.  The same map serves as a set of bytes
 * (the bytes written since a point) with the values left out. */
#ifndef HWTR_RECOVER_BYTES_H
#define HWTR_RECOVER_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct recover_word {
	uint64_t addr;		/* 8-byte aligned; UINT64_MAX: empty slot */
	uint8_t val[8];
	uint8_t known;		/* bit per byte */
};

struct recover_bytes {
	struct recover_word *words;
	size_t n, cap;		/* cap a power of two, or 0 */
};

void recover_bytes_clear(struct recover_bytes *b);
void recover_bytes_free(struct recover_bytes *b);
/* Know bytes [ADDR, ADDR+SIZE) as VAL (NULL: only mark them).  0, or
 * -hwtr_err_nomem. */
int recover_bytes_set(struct recover_bytes *b, uint64_t addr, size_t size,
		      const uint8_t *val);
void recover_bytes_forget(struct recover_bytes *b, uint64_t addr, size_t size);
/* Whether every byte of [ADDR, ADDR+SIZE) is known (into VAL if not NULL). */
bool recover_bytes_get(const struct recover_bytes *b, uint64_t addr,
		       size_t size, uint8_t *val);
/* Whether any byte of [ADDR, ADDR+SIZE) is known. */
bool recover_bytes_any(const struct recover_bytes *b, uint64_t addr,
		       size_t size);

#endif /* HWTR_RECOVER_BYTES_H */
