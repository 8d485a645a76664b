/* breakpoints.c: see breakpoints.h.  A tree (glibc's tsearch, red-black)
 * of addresses, each with the set of breakpoint types there. */
#include "breakpoints.h"

#include <errno.h>
#include <search.h>
#include <stdlib.h>

struct breakpoint {
	uint64_t addr;
	uint32_t types;		/* bit N: a Z type N breakpoint */
};

struct breakpoints {
	void *tree;
	size_t count;		/* addresses in the tree */
	uint64_t *addrs;	/* sorted, when not stale */
	size_t naddrs;
	bool stale;
};

static int cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct breakpoint *)a)->addr;
	uint64_t y = ((const struct breakpoint *)b)->addr;

	return x < y ? -1 : x > y;
}

int breakpoints_new(struct breakpoints **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void breakpoints_free(struct breakpoints *b)
{
	if (!b)
		return;
	tdestroy(b->tree, free);
	free(b->addrs);
	free(b);
}

int breakpoints_insert(struct breakpoints *b, int type, uint64_t addr)
{
	struct breakpoint *bp, **node;

	if (type < 0 || type > 31)
		return -EINVAL;
	bp = malloc(sizeof(*bp));
	if (!bp)
		return -ENOMEM;
	*bp = (struct breakpoint){ addr, 0 };
	node = tsearch(bp, &b->tree, cmp);
	if (!node) {
		free(bp);
		return -ENOMEM;
	}
	if (*node != bp) {
		free(bp);	/* the address has one already */
	} else {
		b->count++;
		b->stale = true;
	}
	(*node)->types |= 1u << type;
	return 0;
}

int breakpoints_remove(struct breakpoints *b, int type, uint64_t addr)
{
	struct breakpoint key = { addr, 0 }, **node, *bp;

	if (type < 0 || type > 31)
		return -EINVAL;
	node = tfind(&key, &b->tree, cmp);
	if (!node)
		return 0;
	bp = *node;
	bp->types &= ~(1u << type);
	if (bp->types)
		return 0;
	tdelete(&key, &b->tree, cmp);
	free(bp);
	b->count--;
	b->stale = true;
	return 0;
}

bool breakpoints_at(const struct breakpoints *b, uint64_t addr)
{
	struct breakpoint key = { addr, 0 };

	return tfind(&key, &b->tree, cmp) != NULL;
}

/* twalk_r's in-order visits fill the array. */
static void collect(const void *node, VISIT which, void *closure)
{
	struct breakpoints *b = closure;

	if (which == postorder || which == leaf)
		b->addrs[b->naddrs++] = (*(const struct breakpoint *const *)node)->addr;
}

int breakpoints_addresses(struct breakpoints *b, const uint64_t **addrs,
			  size_t *count)
{
	if (b->stale || !b->addrs) {
		uint64_t *a = realloc(b->addrs, (b->count ? b->count : 1) * sizeof(*a));

		if (!a)
			return -ENOMEM;
		b->addrs = a;
		b->naddrs = 0;
		twalk_r(b->tree, collect, b);
		b->stale = false;
	}
	*addrs = b->addrs;
	*count = b->naddrs;
	return 0;
}
