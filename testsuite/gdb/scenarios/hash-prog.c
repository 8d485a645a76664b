/* hash-prog.c: a value scenario's program (values-hash*.scn): a word
 * count in a chained hash table (strdup'd keys, a hash function through a
 * pointer, the buckets rehashed into a larger calloc'd array as it fills),
 * a binary search tree over the entries built and walked by recursion
 * with a visitor callback, a purge that unlinks and frees the entries seen
 * once, and a double free: a "recent entry" cache still points to an entry
 * the purge freed, and releasing the cache frees it again, which glibc's
 * malloc finds and ends with abort() (SIGABRT).  Static, not PIE, like
 * values-prog.
 */
#include <stdlib.h>
#include <string.h>

struct entry {
	char *key;
	int count;
	unsigned hash;
	struct entry *next;
};

struct table {
	struct entry **buckets;
	size_t nbuckets;
	size_t size;
	unsigned (*hash)(const char *);
	unsigned grows;
};

struct tnode {
	const struct entry *entry;
	struct tnode *left;
	struct tnode *right;
};

struct summary {
	int words;
	int total;
	char longest[16];
};

static const char *const g_words[] = {
	"pear", "apple", "fig", "kiwi", "apple", "plum", "fig", "date",
	"lime", "pear", "apple", "grape", "kiwi", "fig", "lemon",
};

static struct table *g_table;
static struct entry *g_recent; /* the last entry added: a cache */
static struct tnode *g_tree;
static struct summary g_summary;
static unsigned g_freed;

static unsigned hash_fnv(const char *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static struct table *table_new(size_t nbuckets)
{
	struct table *t = malloc(sizeof(*t));

	t->buckets = calloc(nbuckets, sizeof(*t->buckets));
	t->nbuckets = nbuckets;
	t->size = 0;
	t->hash = hash_fnv;
	t->grows = 0;
	return t;
}

static struct entry *table_find(const struct table *t, const char *key,
				unsigned hash)
{
	struct entry *e = t->buckets[hash % t->nbuckets];

	while (e && strcmp(e->key, key) != 0)
		e = e->next;
	return e; /* L:found */
}

static void table_grow(struct table *t)
{
	size_t n = t->nbuckets * 2;
	struct entry **buckets = calloc(n, sizeof(*buckets));

	for (size_t i = 0; i < t->nbuckets; i++) {
		struct entry *e = t->buckets[i];

		while (e) {
			struct entry *next = e->next;

			e->next = buckets[e->hash % n];
			buckets[e->hash % n] = e; /* L:rehashed */
			e = next;
		}
	}
	free(t->buckets);
	t->buckets = buckets;
	t->nbuckets = n;
	t->grows++;
}

static struct entry *table_add(struct table *t, const char *key)
{
	unsigned hash = t->hash(key);
	struct entry *e = table_find(t, key, hash);

	if (!e) {
		e = malloc(sizeof(*e));
		e->key = strdup(key);
		e->count = 0;
		e->hash = hash;
		e->next = t->buckets[hash % t->nbuckets];
		t->buckets[hash % t->nbuckets] = e;
		if (++t->size > t->nbuckets * 3 / 4)
			table_grow(t);
	}
	e->count++;
	g_recent = e; /* L:cached */
	return e;
}

static int table_remove(struct table *t, const char *key)
{
	struct entry **link = &t->buckets[t->hash(key) % t->nbuckets];

	while (*link && strcmp((*link)->key, key) != 0)
		link = &(*link)->next;
	if (!*link)
		return 0;
	struct entry *gone = *link;

	*link = gone->next;
	free(gone->key); /* L:freed */
	free(gone);
	t->size--;
	g_freed++;
	return 1;
}

static struct tnode *tree_insert(struct tnode *node, const struct entry *e)
{
	if (!node) {
		node = calloc(1, sizeof(*node));
		node->entry = e;
		return node; /* L:leaf */
	}
	if (strcmp(e->key, node->entry->key) < 0)
		node->left = tree_insert(node->left, e);
	else
		node->right = tree_insert(node->right, e);
	return node;
}

static void tree_walk(const struct tnode *node,
		      void (*visit)(const struct entry *, void *), void *arg)
{
	if (!node)
		return;
	tree_walk(node->left, visit, arg);
	visit(node->entry, arg); /* L:visit */
	tree_walk(node->right, visit, arg);
}

static int tree_height(const struct tnode *node)
{
	int left = 0, right = 0;

	if (!node)
		return 0;
	left = tree_height(node->left);
	right = tree_height(node->right);
	return 1 + (left > right ? left : right); /* L:height */
}

static void summarise(const struct entry *e, void *arg)
{
	struct summary *s = arg;

	s->words++;
	s->total += e->count;
	if (strlen(e->key) > strlen(s->longest))
		strcpy(s->longest, e->key); /* L:longer */
}

/* Frees the entries seen once; returns how many. */
static int purge_singles(struct table *t)
{
	const char *singles[8] = { 0 };
	int n = 0;

	for (size_t i = 0; i < t->nbuckets; i++)
		for (struct entry *e = t->buckets[i]; e; e = e->next)
			if (e->count == 1 && n < 8)
				singles[n++] = e->key;
	/* Copy the keys first: table_remove frees them. */
	char copies[8][16] = { { 0 } };

	for (int i = 0; i < n; i++)
		strcpy(copies[i], singles[i]);
	for (int i = 0; i < n; i++)
		table_remove(t, copies[i]); /* L:purge_call */
	return n;
}

static void release_cache(void)
{
	free(g_recent); /* L:crash */
	g_recent = NULL;
}

/* Static glibc's start-up leaves other small blocks free under Valgrind
 * than natively (the recording runs under Valgrind, record full natively):
 * taking every free block of the two sizes the program uses first makes
 * the blocks after g_table lie at the same offsets from it in both runs,
 * where scenarios compare heap pointers (#heap-anchor g_table). */
static void *g_scratch[32];

static void take_free_small_blocks(void)
{
	for (int i = 0; i < 16; i++) {
		g_scratch[i] = malloc(8);
		g_scratch[16 + i] = malloc(40);
	}
}

int main(void)
{
	int height = 0, purged = 0;

	take_free_small_blocks();
	g_table = table_new(4);
	for (size_t i = 0; i < sizeof(g_words) / sizeof(g_words[0]); i++)
		table_add(g_table, g_words[i]);
	for (size_t i = 0; i < g_table->nbuckets; i++)
		for (struct entry *e = g_table->buckets[i]; e; e = e->next)
			g_tree = tree_insert(g_tree, e);
	tree_walk(g_tree, summarise, &g_summary);
	height = tree_height(g_tree); /* L:main_height */
	purged = purge_singles(g_table);
	release_cache(); /* L:main_release */
	return height + purged;
}
