/* block-functions.c: the function of each instruction of a block (see the
 * header).  Cheap in the usual case: a block that ends inside its first
 * instruction's function range (or inside a run of addresses that has no
 * function) is in one function; only others are split into instructions by
 * their lengths and looked up one by one. */
#include "block-functions.h"

#include <string.h>

static uint32_t fresh(struct fn_memo *m, const struct hwtr_symbolizer *s,
		      fn_lookup_fn lookup, void *ctx, uint64_t ip, unsigned epoch)
{
	m->fn = lookup(ctx, epoch, ip);
	m->epoch = epoch;
	symbolizer_function_range(s, m->fn, &m->start, &m->end);
	return m->fn;
}

uint32_t fn_memo_at(struct fn_memo *m, const struct hwtr_symbolizer *s,
		    fn_lookup_fn lookup, void *ctx, uint64_t ip, unsigned epoch)
{
	uint32_t fn;

	if (!fn_memo_known(m, ip, epoch, &fn))
		return fresh(m, s, lookup, ctx, ip, epoch);
	if (!fn) {
		m->fn = 0;
		m->epoch = epoch;
		m->start = m->end = 0;	/* function 0's range */
	}
	return fn;
}

/* With no function at IP (looked up): whether every address from IP to
 * END is without one too.  A lookup finds the last function starting at or
 * before the address, if the address is inside it: up to the next start
 * in the same mapping, that is the one IP found, which IP is past. */
static bool none_up_to(struct fn_memo *m, const struct hwtr_symbolizer *s,
		       struct image_set *images, unsigned epoch, uint64_t ip,
		       uint64_t end)
{
	if (!fn_memo_in_none(m, ip, epoch)) {
		size_t avail = 0;
		uint64_t next = symbolizer_next_start(s, epoch, ip);
		uint64_t mapped = image_epoch_code(images, epoch, ip, &avail)
					  ? ip + avail : ip + 1;

		m->none_valid = true;
		m->none_epoch = epoch;
		m->none_begin = ip;
		m->none_end = next < mapped ? next : mapped;
	}
	return end < m->none_end;
}

static uint32_t uncached(void *ctx, unsigned epoch, uint64_t ip)
{
	return symbolizer_function_uncached(ctx, epoch, ip);
}

/* The length of the instruction at IP, or 0. */
static size_t length_at(struct image_set *images, struct isa *isa,
			const struct decoder_block *b, uint64_t ip)
{
	size_t fixed = isa_fixed_length((enum hwtr_isa)b->isa), avail = 0;
	const uint8_t *code;
	uint8_t buf[16];

	if (fixed)
		return fixed;
	code = image_epoch_code(images, b->epoch, ip, &avail);
	if (code && avail < isa_max_length((enum hwtr_isa)b->isa)) {
		/* An instruction may run on into the next mapping. */
		avail = image_epoch_read(images, b->epoch, ip, buf, sizeof(buf));
		code = buf;
	}
	return code ? isa_length(isa, (enum hwtr_isa)b->isa, code, avail, ip) : 0;
}

uint32_t fn_block_split_slow(struct fn_memo *memo,
			     const struct hwtr_symbolizer *s,
			     struct image_set *images, struct isa *isa,
			     const struct decoder_block *b, uint64_t *last_ip,
			     uint64_t *split_ip)
{
	struct fn_memo m;
	uint64_t ip = b->ip, prev = b->ip;
	uint32_t i;

	*last_ip = b->end_ip;
	*split_ip = 0;
	/* Without a function, the run of addresses without one is noted
	 * (none_up_to) even for a block of one instruction: fn_memo_at then
	 * answers the next blocks there without a lookup. */
	if (memo->fn ? b->ninsn <= 1 || (b->end_ip >= memo->start &&
					 b->end_ip < memo->end)
		     : none_up_to(memo, s, images, b->epoch, b->ip, b->end_ip) ||
			       b->ninsn <= 1)
		return b->ninsn;
	m = *memo;
	for (i = 1; i < b->ninsn; i++) {
		size_t len = length_at(images, isa, b, ip);

		if (!len)
			return b->ninsn;	/* cannot tell: whole */
		prev = ip;
		ip += len;
		if (fn_memo_at(&m, s, uncached, (void *)s, ip, b->epoch) != memo->fn) {
			*last_ip = prev;
			*split_ip = ip;
			return i;
		}
	}
	return b->ninsn;
}
