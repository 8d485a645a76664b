/* values-lines.c: which bytes each chunk of the data log writes, by 64-byte
 * line (values-lines.h). */
#include "values-lines.h"

#include "error.h"

#include <stdlib.h>
#include <string.h>

/* The bits of line LINE's bytes that [ADDR, ADDR+LEN) covers. */
static uint64_t line_mask(uint64_t line, uint64_t addr, uint64_t len)
{
	uint64_t base = line << VALUES_LINE_SHIFT;
	uint64_t lo = addr > base ? addr : base;
	uint64_t end = addr + len, hi = end < base + 64 ? end : base + 64;
	uint64_t n = hi - lo;

	return (n >= 64 ? ~0ull : ((1ull << n) - 1)) << (lo - base);
}

static struct values_line_bits *pool_at(const struct values_lines *l,
					size_t i)
{
	return (struct values_line_bits *)l->pool.bytes + i;
}

void values_lines_init(struct values_lines *l, const char *dir)
{
	memset(l, 0, sizeof(*l));
	spill_init(&l->pool, dir);
}

static size_t slot_of(uint64_t line, size_t cap)
{
	return (size_t)((line * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

static int grow_building(struct values_lines *l)
{
	size_t cap = l->cap_building ? 2 * l->cap_building : 256, i;
	struct values_line_bits *old = l->building, *table;

	table = calloc(cap, sizeof(*table));
	if (!table)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (i = 0; i < l->cap_building; i++) {
		size_t s;

		if (!old[i].line)
			continue;
		for (s = slot_of(old[i].line, cap); table[s].line;
		     s = (s + 1) & (cap - 1))
			;
		table[s] = old[i];
	}
	free(old);
	l->building = table;
	l->cap_building = cap;
	return 0;
}

int values_lines_note(struct values_lines *l, uint64_t addr, uint64_t len)
{
	uint64_t line, last;
	int err;

	if (len == 0)
		return 0;
	last = (addr + len - 1) >> VALUES_LINE_SHIFT;
	for (line = addr >> VALUES_LINE_SHIFT; line <= last; line++) {
		uint64_t key = line + 1;	/* 0: an empty slot */
		size_t s;

		if (2 * (l->nbuilding + 1) > l->cap_building &&
		    (err = grow_building(l)))
			return err;
		for (s = slot_of(key, l->cap_building);
		     l->building[s].line && l->building[s].line != key;
		     s = (s + 1) & (l->cap_building - 1))
			;
		if (!l->building[s].line) {
			l->building[s].line = key;
			l->nbuilding++;
		}
		l->building[s].mask |= line_mask(line, addr, len);
	}
	return 0;
}

static int by_line(const void *a, const void *b)
{
	const struct values_line_bits *x = a, *y = b;

	return (x->line > y->line) - (x->line < y->line);
}

int values_lines_finish(struct values_lines *l, size_t *first, size_t *count)
{
	size_t i, n = 0;

	*first = l->npool;
	*count = 0;
	if (!l->nbuilding)
		return 0;
	if (!spill_reserve(&l->pool, (l->npool + l->nbuilding) *
					 sizeof(struct values_line_bits)))
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (i = 0; i < l->cap_building; i++) {
		if (!l->building[i].line)
			continue;
		*pool_at(l, l->npool + n) = (struct values_line_bits){
			l->building[i].line - 1, l->building[i].mask };
		n++;
	}
	qsort(pool_at(l, l->npool), n, sizeof(struct values_line_bits),
	      by_line);
	l->npool += n;
	*count = n;
	/* Written: the pages go back to the file as the pass goes on. */
	spill_written(&l->pool, l->npool * sizeof(struct values_line_bits));
	/* A chunk touches tens of lines: a table that one chunk grew large
	 * is let go rather than cleared whole after every later chunk. */
	if (l->cap_building > 4096) {
		free(l->building);
		l->building = NULL;
		l->cap_building = 0;
	} else {
		memset(l->building, 0, l->cap_building * sizeof(*l->building));
	}
	l->nbuilding = 0;
	return 0;
}

bool values_lines_touch(const struct values_lines *l, size_t first,
			size_t count, uint64_t addr, uint64_t size,
			const uint8_t *open)
{
	const struct values_line_bits *lines = pool_at(l, first);
	uint64_t from = addr >> VALUES_LINE_SHIFT;
	uint64_t last = (addr + size - 1) >> VALUES_LINE_SHIFT;
	size_t lo = 0, hi = count;

	if (size == 0)
		return false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lines[mid].line < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < count && lines[lo].line <= last; lo++) {
		uint64_t line = lines[lo].line, base, want, b, end;

		want = line_mask(line, addr, size) & lines[lo].mask;
		if (!want)
			continue;
		if (!open)
			return true;
		base = line << VALUES_LINE_SHIFT;
		end = base + 64;
		for (b = base > addr ? base : addr; b < end && b < addr + size; b++)
			if (((want >> (b - base)) & 1) && open[b - addr])
				return true;
	}
	return false;
}

void values_lines_release(struct values_lines *l)
{
	spill_release(&l->pool, l->npool * sizeof(struct values_line_bits));
}

void values_lines_free(struct values_lines *l)
{
	const char *dir = l->pool.dir;

	if (l->pool.bytes)	/* else perhaps never initialised */
		spill_free(&l->pool);
	free(l->building);
	values_lines_init(l, dir);
}
