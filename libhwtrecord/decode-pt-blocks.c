/* decode-pt-blocks.c: decoded x86-64 blocks by (start IP, image epoch)
 * (decode-pt-blocks.h).
 *
 * Hot code runs the same blocks millions of times; each is split into
 * instructions once (capstone's lengths, our opcode classes) and then found
 * by a hash lookup.  The cache belongs to one decoder context (one build
 * thread), so it takes no lock.
 */
#include "decode-pt-blocks.h"

#include "x86-class.h"

#include <stdlib.h>
#include <string.h>

/* libipt counts a block's instructions in 16 bits: a block that long ends
 * where its block cache happened to stop, which the walk cannot know. */
#define LIBIPT_BLOCK_LIMIT 0xfff0u

/* The opcode byte of CODE (LEN bytes), after its prefixes. */
static int opcode(const uint8_t *code, size_t len)
{
	size_t i = 0;

	while (i < len && x86_is_prefix(code[i]))
		i++;
	return i < len ? code[i] : -1;
}

/* mov to a control register (0f 22): a TIP.PGD without an IP may bind to
 * one (libipt: pt_insn_changes_cr3); the walk leaves that to libipt. */
static bool is_mov_cr(const uint8_t *code, size_t len)
{
	size_t i = 0;

	while (i < len && x86_is_prefix(code[i]))
		i++;
	return i + 1 < len && code[i] == 0x0f && code[i + 1] == 0x22;
}

/* Instructions libipt takes for far branches that x86-class.c calls
 * "other" (int1, vmcall, vmlaunch, vmresume, uiret): left to libipt. */
static bool far_for_libipt_only(const uint8_t *code, size_t len)
{
	size_t i = 0;

	while (i < len && x86_is_prefix(code[i]))
		i++;
	if (i < len && code[i] == 0xf1)
		return true;
	return i + 2 < len && code[i] == 0x0f && code[i + 1] == 0x01 &&
	       (code[i + 2] == 0xc1 || code[i + 2] == 0xc2 ||
		code[i + 2] == 0xc3 || code[i + 2] == 0xec);
}

/* The target of the direct branch CODE (LEN bytes at IP): false when it is
 * not a direct branch of a form whose displacement we know, or when an
 * operand-size prefix changes its meaning (AMD and Intel disagree). */
static bool direct_target(const uint8_t *code, size_t len, uint64_t ip,
			  uint64_t *target)
{
	size_t i = 0, disp_at, disp_size;
	int64_t disp;
	uint8_t op;

	while (i < len && x86_is_prefix(code[i])) {
		if (code[i] == 0x66)
			return false;
		i++;
	}
	if (i >= len)
		return false;
	op = code[i];
	if ((op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3) || op == 0xeb) {
		disp_at = i + 1;
		disp_size = 1;
	} else if (op == 0xe8 || op == 0xe9) {
		disp_at = i + 1;
		disp_size = 4;
	} else if (op == 0x0f && i + 1 < len && code[i + 1] >= 0x80 &&
		   code[i + 1] <= 0x8f) {
		disp_at = i + 2;
		disp_size = 4;
	} else {
		return false;
	}
	if (disp_at + disp_size != len)
		return false;
	if (disp_size == 1) {
		disp = (int8_t)code[disp_at];
	} else {
		uint32_t u = (uint32_t)code[disp_at] |
			     (uint32_t)code[disp_at + 1] << 8 |
			     (uint32_t)code[disp_at + 2] << 16 |
			     (uint32_t)code[disp_at + 3] << 24;

		disp = (int32_t)u;
	}
	*target = ip + len + (uint64_t)disp;
	return true;
}

/* The block's last instruction, of class C, at IP: how the walk goes on. */
static void set_exit(struct decoded_block *b, enum hwtr_insn_class c,
		     const uint8_t *code, size_t len, uint64_t ip)
{
	b->iclass = (uint8_t)c;
	b->exit = exit_unsure;
	switch (c) {
	case hwtr_ic_cond_jump:
		if (direct_target(code, len, ip, &b->target))
			b->exit = exit_cond;
		break;
	case hwtr_ic_jump:
		if (direct_target(code, len, ip, &b->target))
			b->exit = exit_jump;
		else if (opcode(code, len) == 0xff)
			b->exit = exit_indirect;
		break;
	case hwtr_ic_call:
		if (direct_target(code, len, ip, &b->target)) {
			b->exit = exit_call;
			/* libipt keeps no return address for a call to the
			 * next instruction (position-independent code). */
			b->pushes = b->target != ip + len;
		} else if (opcode(code, len) == 0xff) {
			b->exit = exit_indirect_call;
		}
		break;
	case hwtr_ic_return:
		b->exit = exit_return;
		break;
	case hwtr_ic_far_call:
	case hwtr_ic_far_return:
	case hwtr_ic_far_jump:
		b->exit = exit_indirect;
		break;
	default:
		break;
	}
}

/* decoded_block_fill with the code at IP in EPOCH (AVAIL bytes of it) read
 * already. */
static void fill_from(struct decoded_block *b, struct image_set *images,
		      struct isa *isa, uint64_t ip, unsigned epoch,
		      const uint8_t *code, size_t avail)
{
	size_t off = 0;

	memset(b, 0, sizeof(*b));
	b->ip = ip;
	b->epoch = epoch;
	b->exit = exit_unsure;
	if (!code)
		return;
	for (;;) {
		size_t left = avail - off, len;
		enum hwtr_insn_class c;
		uint64_t at = ip + off;

		len = isa_length(isa, hwtr_isa_x86_64, code + off,
				 left < 15 ? left : 15, at);
		if (!len || len > left)
			return;
		c = x86_class(code + off, len);
		if (is_mov_cr(code + off, len))
			b->mov_cr = true;
		if (c == hwtr_ic_unknown || far_for_libipt_only(code + off, len))
			return;
		b->ninsn++;
		b->end_ip = at;
		b->last_size = (uint8_t)len;
		b->iclass = (uint8_t)c;
		if (c != hwtr_ic_other) {
			set_exit(b, c, code + off, len, at);
			return;
		}
		off += len;
		if (b->ninsn >= LIBIPT_BLOCK_LIMIT)
			return;
		if (off == avail) {
			/* The next instruction is in another range of the
			 * view: a block ends there only if it is another
			 * mapping (libipt's section). */
			long here = image_epoch_mapping(images, epoch, ip);
			long next = image_epoch_mapping(images, epoch, ip + off);

			if (next >= 0 && next != here)
				b->exit = exit_fall;
			return;
		}
	}
}

void decoded_block_fill(struct decoded_block *b, struct image_set *images,
			struct isa *isa, uint64_t ip, unsigned epoch)
{
	size_t avail = 0;
	const uint8_t *code = image_epoch_code(images, epoch, ip, &avail);

	fill_from(b, images, isa, ip, epoch, code, avail);
}

/* Fibonacci hashing: the product's top bits.  Its middle bits, taken
 * before, put nearby block addresses into long runs of full slots (on
 * python3 14% of the build went to probing). */
static size_t slot_of(uint64_t ip, unsigned epoch, size_t mask)
{
	uint64_t h = (ip ^ ((uint64_t)epoch << 48)) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> __builtin_clzll(mask));
}

#define POOL_BLOCKS 4096

struct decoded_block_pool {
	struct decoded_block_pool *next;
	size_t used;
	struct decoded_block blocks[POOL_BLOCKS];
};

static struct decoded_block *new_block(struct decoded_blocks *cache)
{
	struct decoded_block_pool *p = cache->pool;

	if (!p || p->used == POOL_BLOCKS) {
		p = malloc(sizeof(*p));
		if (!p)
			return NULL;
		p->next = cache->pool;
		p->used = 0;
		cache->pool = p;
	}
	return &p->blocks[p->used++];
}

static bool grow(struct decoded_blocks *cache)
{
	size_t n = cache->mask ? 2 * (cache->mask + 1) : 4096, i;
	struct decoded_block **slots = calloc(n, sizeof(*slots));

	if (!slots)
		return false;
	for (i = 0; cache->mask && i <= cache->mask; i++) {
		struct decoded_block *b = cache->slots[i];
		size_t k;

		if (!b)
			continue;
		for (k = slot_of(b->ip, b->epoch, n - 1); slots[k];
		     k = (k + 1) & (n - 1))
			;
		slots[k] = b;
	}
	free(cache->slots);
	cache->slots = slots;
	cache->mask = n - 1;
	return true;
}

/* The last block decoded at an IP, whatever its epoch, and the code it was
 * decoded from. */
struct decoded_block_code {
	struct decoded_block *block;	/* NULL: a free slot */
	const uint8_t *code;
	size_t avail;
};

static struct decoded_block_code *by_ip_slot(struct decoded_blocks *cache,
					     uint64_t ip)
{
	struct decoded_block_code *e;
	size_t k;

	for (k = slot_of(ip, 0, cache->by_ip_mask);
	     (e = &cache->by_ip[k])->block && e->block->ip != ip;
	     k = (k + 1) & cache->by_ip_mask)
		;
	return e;
}

static bool by_ip_grow(struct decoded_blocks *cache)
{
	size_t n = cache->by_ip_mask ? 2 * (cache->by_ip_mask + 1) : 4096, i;
	struct decoded_block_code *old = cache->by_ip;
	size_t old_n = cache->by_ip_mask ? cache->by_ip_mask + 1 : 0;

	if (!(cache->by_ip = calloc(n, sizeof(*cache->by_ip)))) {
		cache->by_ip = old;
		return false;
	}
	cache->by_ip_mask = n - 1;
	for (i = 0; i < old_n; i++)
		if (old[i].block)
			*by_ip_slot(cache, old[i].block->ip) = old[i];
	free(old);
	return true;
}

/* Whether OLD, decoded from E's code, is what fill_from would make of
 * CODE (AVAIL bytes): the same bytes, and a block that ends before them
 * (where it reaches their end, whether it ends there depends on the
 * epoch's next mapping). */
static bool same_decode(const struct decoded_block_code *e,
			const uint8_t *code, size_t avail)
{
	const struct decoded_block *old = e->block;

	return e->code == code && e->avail == avail &&
	       !(old->ninsn && old->end_ip + old->last_size == old->ip + avail);
}

/* Decode the block at IP in EPOCH into B, or copy it from the block of
 * another epoch that reads the same code. */
static bool decode(struct decoded_blocks *cache, struct decoded_block *b,
		   struct image_set *images, struct isa *isa, uint64_t ip,
		   unsigned epoch)
{
	struct decoded_block_code *e;
	size_t avail = 0;
	const uint8_t *code = image_epoch_code(images, epoch, ip, &avail);

	if (!code) {
		fill_from(b, images, isa, ip, epoch, code, avail);
		return true;
	}
	if ((cache->by_ip_count + 1) * 2 > cache->by_ip_mask + 1 &&
	    !by_ip_grow(cache))
		return false;
	e = by_ip_slot(cache, ip);
	if (e->block && same_decode(e, code, avail)) {
		*b = *e->block;
		b->epoch = epoch;
		b->next[0] = b->next[1] = NULL;
		b->pass_chunk = 0;
		b->pass_fn_known = false;	/* another epoch's symbols */
		cache->copies++;
	} else {
		fill_from(b, images, isa, ip, epoch, code, avail);
	}
	if (!e->block)
		cache->by_ip_count++;
	*e = (struct decoded_block_code){ .block = b, .code = code,
					  .avail = avail };
	return true;
}

struct decoded_block *decoded_blocks_get(struct decoded_blocks *cache,
					 struct image_set *images,
					 struct isa *isa, uint64_t ip,
					 unsigned epoch)
{
	struct decoded_block *b;
	size_t k;

	if (cache->mask) {
		for (k = slot_of(ip, epoch, cache->mask); (b = cache->slots[k]);
		     k = (k + 1) & cache->mask) {
			if (b->ip == ip && b->epoch == epoch) {
				cache->hits++;
				return b;
			}
		}
	}
	cache->misses++;
	if ((cache->count + 1) * 2 > cache->mask + 1 && !grow(cache))
		return NULL;
	if (!(b = new_block(cache)))
		return NULL;
	for (k = slot_of(ip, epoch, cache->mask); cache->slots[k];
	     k = (k + 1) & cache->mask)
		;
	if (!decode(cache, b, images, isa, ip, epoch))
		return NULL;
	cache->slots[k] = b;
	cache->count++;
	return b;
}

void decoded_blocks_release(struct decoded_blocks *cache)
{
	while (cache->pool) {
		struct decoded_block_pool *p = cache->pool;

		cache->pool = p->next;
		free(p);
	}
	free(cache->slots);
	free(cache->by_ip);
	memset(cache, 0, sizeof(*cache));
}
