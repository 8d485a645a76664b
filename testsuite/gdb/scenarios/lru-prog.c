/* lru-prog.c: a value scenario's program (values-lru*.scn): an LRU cache
 * of 48 entries over 200 keys, a chained hash table and a doubly linked
 * recency list over a static pool of entries, fed 1000 requests from a
 * linear congruential generator (some 260,000 instructions of main's own,
 * so that values far back lie many of the data log's restart points before
 * the end), the statistics copied by value into a global at request 100,
 * a histogram of chain lengths, and a peek at a key never requested whose
 * miss returns NULL and is read through (SIGSEGV) two calls below main.
 * Static, not PIE, like values-prog.
 */
#include <stddef.h>

#define CAPACITY 48
#define NBUCKETS 31
#define KEYS 200
#define REQUESTS 1000

struct entry {
	unsigned key;
	int value;
	unsigned hits;
	struct entry *prev, *next; /* recency: head most recent */
	struct entry *hnext;	   /* hash chain */
};

struct cache {
	struct entry *buckets[NBUCKETS];
	struct entry *head, *tail;
	struct entry *free_list;
	int size;
};

struct stats {
	unsigned long requests;
	unsigned hits, misses, evictions;
	unsigned chain_hist[8];
};

static struct entry g_pool[CAPACITY];
static struct cache g_cache;
static struct stats g_stats;
static struct stats g_early;
static unsigned g_seed = 12345;

static unsigned next_key(void)
{
	g_seed = g_seed * 1103515245u + 12345u;
	return (g_seed >> 16) % KEYS; /* L:next_key */
}

static void list_unlink(struct cache *c, struct entry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		c->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		c->tail = e->prev;
}

static void list_push_front(struct cache *c, struct entry *e)
{
	e->prev = NULL;
	e->next = c->head;
	if (c->head)
		c->head->prev = e;
	c->head = e;
	if (!c->tail)
		c->tail = e;
}

static void hash_remove(struct cache *c, struct entry *e)
{
	struct entry **link = &c->buckets[e->key % NBUCKETS];

	while (*link != e)
		link = &(*link)->hnext;
	*link = e->hnext; /* L:hash_remove */
}

static struct entry *cache_find(struct cache *c, unsigned key)
{
	struct entry *e = c->buckets[key % NBUCKETS];
	unsigned chain = 0;

	while (e && e->key != key) {
		e = e->hnext;
		chain++;
	}
	g_stats.chain_hist[chain < 7 ? chain : 7]++; /* L:chain */
	return e;
}

static struct entry *cache_get(struct cache *c, unsigned key, int fill,
			       unsigned req_no)
{
	struct entry *e = cache_find(c, key);

	g_stats.requests = req_no + 1;
	if (e) {
		g_stats.hits++;
		e->hits++;
		list_unlink(c, e);
		list_push_front(c, e); /* L:hit */
		return e;
	}
	g_stats.misses++;
	if (!fill)
		return NULL;
	if (c->free_list) {
		e = c->free_list;
		c->free_list = e->next;
		c->size++;
	} else {
		e = c->tail; /* L:evict */
		list_unlink(c, e);
		hash_remove(c, e);
		g_stats.evictions++;
	}
	e->key = key;
	e->value = (int) (key * key) - 1000;
	e->hits = 0;
	e->hnext = c->buckets[key % NBUCKETS];
	c->buckets[key % NBUCKETS] = e;
	list_push_front(c, e);
	return e;
}

static int report(const struct entry *e)
{
	return e->value + (int) e->hits; /* L:crash */
}

int main(void)
{
	unsigned req;
	long total = 0;
	int i;

	for (i = 0; i < CAPACITY; i++) {
		g_pool[i].next = g_cache.free_list;
		g_cache.free_list = &g_pool[i];
	}
	for (req = 0; req < REQUESTS; req++) {
		struct entry *e = cache_get(&g_cache, next_key(), 1, req);

		total += e->value; /* L:request */
		if (req == 100)
			g_early = g_stats; /* L:snapshot */
	}
	total += report(cache_get(&g_cache, KEYS + 7, 0, req)); /* L:peek */
	return (int) total;
}
