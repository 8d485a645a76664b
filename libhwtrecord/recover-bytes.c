/* recover-bytes.c: known memory bytes for value recovery (see
 * recover-bytes.h).  Open addressing with linear probing; a forgotten word
 * keeps its slot with no byte known (words are never removed, the map is
 * cleared as a whole). */
#include "recover-bytes.h"

#include "error.h"

#include <stdlib.h>
#include <string.h>

#define EMPTY UINT64_MAX

static size_t hash(uint64_t addr, size_t cap)
{
	return (size_t)((addr >> 3) * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
}

static struct recover_word *find(const struct recover_bytes *b, uint64_t addr)
{
	size_t i;

	if (!b->cap)
		return NULL;
	for (i = hash(addr, b->cap);; i = (i + 1) & (b->cap - 1)) {
		if (b->words[i].addr == addr)
			return &b->words[i];
		if (b->words[i].addr == EMPTY)
			return NULL;
	}
}

static int grow(struct recover_bytes *b)
{
	size_t cap = b->cap ? 2 * b->cap : 1024, i, j;
	struct recover_word *w = malloc(cap * sizeof(*w));

	if (!w)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (i = 0; i < cap; i++)
		w[i].addr = EMPTY;
	for (i = 0; i < b->cap; i++) {
		if (b->words[i].addr == EMPTY)
			continue;
		for (j = hash(b->words[i].addr, cap); w[j].addr != EMPTY;
		     j = (j + 1) & (cap - 1))
			;
		w[j] = b->words[i];
	}
	free(b->words);
	b->words = w;
	b->cap = cap;
	return 0;
}

static struct recover_word *insert(struct recover_bytes *b, uint64_t addr)
{
	struct recover_word *w = find(b, addr);
	size_t i;

	if (w)
		return w;
	if (2 * (b->n + 1) > b->cap && grow(b))
		return NULL;
	for (i = hash(addr, b->cap); b->words[i].addr != EMPTY;
	     i = (i + 1) & (b->cap - 1))
		;
	b->words[i].addr = addr;
	b->words[i].known = 0;
	b->n++;
	return &b->words[i];
}

void recover_bytes_free(struct recover_bytes *b);

void recover_bytes_clear(struct recover_bytes *b)
{
	size_t i;

	if (!b->n)
		return;
	if (b->cap > 1024) {
		/* Cleared often (at every barrier): cost what was used. */
		recover_bytes_free(b);
		return;
	}
	for (i = 0; i < b->cap; i++)
		b->words[i].addr = EMPTY;
	b->n = 0;
}

void recover_bytes_free(struct recover_bytes *b)
{
	free(b->words);
	memset(b, 0, sizeof(*b));
}

int recover_bytes_set(struct recover_bytes *b, uint64_t addr, size_t size,
		      const uint8_t *val)
{
	size_t i;

	for (i = 0; i < size; i++) {
		uint64_t a = addr + i;
		struct recover_word *w = insert(b, a & ~7ull);

		if (!w)
			return -hwtr_err_nomem;
		w->known |= (uint8_t)(1u << (a & 7));
		w->val[a & 7] = val ? val[i] : 0;
	}
	return 0;
}

void recover_bytes_forget(struct recover_bytes *b, uint64_t addr, size_t size)
{
	size_t i;

	for (i = 0; i < size; i++) {
		uint64_t a = addr + i;
		struct recover_word *w = find(b, a & ~7ull);

		if (w)
			w->known &= (uint8_t)~(1u << (a & 7));
	}
}

bool recover_bytes_get(const struct recover_bytes *b, uint64_t addr,
		       size_t size, uint8_t *val)
{
	size_t i;

	for (i = 0; i < size; i++) {
		uint64_t a = addr + i;
		const struct recover_word *w = find(b, a & ~7ull);

		if (!w || !(w->known >> (a & 7) & 1))
			return false;
		if (val)
			val[i] = w->val[a & 7];
	}
	return true;
}

bool recover_bytes_any(const struct recover_bytes *b, uint64_t addr,
		       size_t size)
{
	size_t i;

	for (i = 0; i < size; i++) {
		uint64_t a = addr + i;
		const struct recover_word *w = find(b, a & ~7ull);

		if (w && (w->known >> (a & 7) & 1))
			return true;
	}
	return false;
}
