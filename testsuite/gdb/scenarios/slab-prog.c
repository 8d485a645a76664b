/* slab-prog.c: a value scenario's program (values-slab*.scn): a fixed-size
 * object pool of the kind kernels and servers carry.  A static arena of
 * 96 slots, a free bitmap of 64-bit words searched with
 * __builtin_ctzll (tzcnt/bsf), a slot's index from pointer arithmetic,
 * objects with a header of bitfields and a flexible array member, a
 * generation counter per slot to catch stale handles, a struct of two
 * 32-bit fields returned by value in rax (a handle), and a release of a
 * handle twice: the pool's check finds the slot already free and calls
 * abort() (SIGABRT) two calls below main.  Static, not PIE, like
 * values-prog.
 */
#include <stdint.h>
#include <stdlib.h>

#define POOL_SLOTS 96
#define SLOT_BYTES 48
#define MAP_WORDS ((POOL_SLOTS + 63) / 64)

struct object {
	unsigned int type : 4;
	unsigned int pinned : 1;
	unsigned int refs : 11;
	unsigned short nbytes;
	unsigned char data[];
};

struct handle {
	uint32_t index;
	uint32_t gen;
};

struct pool {
	uint64_t free_map[MAP_WORDS]; /* a set bit: the slot is free */
	uint32_t gen[POOL_SLOTS];
	unsigned live;
	unsigned high_water;
	_Alignas(16) unsigned char arena[POOL_SLOTS][SLOT_BYTES];
};

static struct pool g_pool;
static int g_failures;

static void pool_init(struct pool *p)
{
	unsigned i;

	for (i = 0; i < POOL_SLOTS; i++)
		p->free_map[i / 64] |= 1ULL << (i % 64);
}

static int find_free(const struct pool *p)
{
	unsigned w;

	for (w = 0; w < MAP_WORDS; w++)
		if (p->free_map[w] != 0)
			return (int) (w * 64 + __builtin_ctzll(p->free_map[w])); /* L:ctz */
	return -1;
}

static struct handle pool_get(struct pool *p, unsigned type, unsigned n)
{
	struct handle h = { UINT32_MAX, 0 };
	struct object *o;
	int slot = find_free(p);
	unsigned i;

	if (slot < 0) {
		g_failures++;
		return h;
	}
	p->free_map[slot / 64] &= ~(1ULL << (slot % 64));
	o = (struct object *) p->arena[slot];
	o->type = type;
	o->pinned = type == 3;
	o->refs = 1;
	o->nbytes = (unsigned short) n;
	for (i = 0; i < n; i++)
		o->data[i] = (unsigned char) (slot + i * 7); /* L:fill */
	p->live++;
	if (p->live > p->high_water)
		p->high_water = p->live;
	h.index = (uint32_t) slot;
	h.gen = ++p->gen[slot];
	return h; /* L:got */
}

static struct object *pool_at(struct pool *p, struct handle h)
{
	if (h.index >= POOL_SLOTS || p->gen[h.index] != h.gen)
		return NULL;
	return (struct object *) p->arena[h.index];
}

static unsigned slot_of(const struct pool *p, const struct object *o)
{
	return (unsigned) (((const unsigned char *) o - &p->arena[0][0]) /
			   SLOT_BYTES); /* L:slot_of */
}

static void pool_put(struct pool *p, struct handle h)
{
	uint64_t bit = 1ULL << (h.index % 64);

	if (p->free_map[h.index / 64] & bit) {
		g_failures++; /* L:double_put */
		abort(); /* L:abort */
	}
	p->free_map[h.index / 64] |= bit; /* L:put */
	p->live--;
}

static unsigned checksum(const struct object *o)
{
	unsigned sum = o->type, i;

	for (i = 0; i < o->nbytes; i++)
		sum = (sum << 3 | sum >> 29) ^ o->data[i]; /* L:checksum */
	return sum;
}

int main(void)
{
	struct handle hs[70];
	struct handle kept;
	struct object *o;
	unsigned total = 0, i;

	pool_init(&g_pool);
	for (i = 0; i < 70; i++)
		hs[i] = pool_get(&g_pool, i % 5, 4 + i % 9); /* L:alloc */
	for (i = 0; i < 70; i += 3)
		pool_put(&g_pool, hs[i]); /* L:free_some */
	kept = hs[0];
	for (i = 0; i < 5; i++) {
		hs[i] = pool_get(&g_pool, 3, 20); /* L:realloc */
		o = pool_at(&g_pool, hs[i]);
		total += checksum(o) + slot_of(&g_pool, o);
	}
	o = pool_at(&g_pool, kept); /* L:lookup_kept */
	total += o == NULL; /* L:stale */
	pool_put(&g_pool, hs[67]);
	pool_put(&g_pool, hs[68]);
	pool_put(&g_pool, hs[67]); /* L:twice */
	return (int) total;
}
