/* image-index.c: which mapping holds an address at a time (see the
 * header). */
#define _GNU_SOURCE	/* qsort_r */
#include "image-index.h"

#include "error.h"

#include <stdlib.h>
#include <string.h>

struct image_index {
	uint64_t *bounds;	/* sorted distinct mapping bounds */
	size_t nbounds;		/* leaves: [bounds[k], bounds[k + 1]) */
	size_t *first;		/* per node: its mappings in members[] */
	uint32_t *members;
	long *latest;		/* per node: its highest mapping index, or -1 */
};

static uint64_t end_of(const struct image_mapping *m)
{
	return m->len > UINT64_MAX - m->addr ? UINT64_MAX : m->addr + m->len;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The leaf holding address A: the last bound at or below it. */
static size_t leaf_of(const struct image_index *x, uint64_t a)
{
	size_t lo = 0, hi = x->nbounds;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->bounds[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/* Visit the nodes that cover leaves [LO, HI) exactly: count (FILL false)
 * or place mapping M in them. */
static void cover(struct image_index *x, size_t *fill, size_t node, size_t nl,
		  size_t nr, size_t lo, size_t hi, uint32_t m)
{
	size_t mid = nl + (nr - nl) / 2;

	if (hi <= nl || nr <= lo)
		return;
	if (lo <= nl && nr <= hi) {
		if (fill)
			x->members[fill[node]++] = m;
		else
			x->first[node + 1]++;
		return;
	}
	cover(x, fill, 2 * node, nl, mid, lo, hi, m);
	cover(x, fill, 2 * node + 1, mid, nr, lo, hi, m);
}

static int compare_birth(const void *a, const void *b, void *maps)
{
	const struct image_mapping *m = maps;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	if (m[i].tsc_begin != m[j].tsc_begin)
		return m[i].tsc_begin < m[j].tsc_begin ? -1 : 1;
	return i < j ? -1 : i > j;
}

int image_index_build(const struct image_mapping *maps, size_t n,
		      struct image_index **out)
{
	struct image_index *x = calloc(1, sizeof(*x));
	size_t i, k, nodes, leaves, *fill = NULL;

	if (!x || !(x->bounds = malloc((2 * n + 1) * sizeof(*x->bounds))))
		goto nomem;
	for (i = 0; i < n; i++) {
		x->bounds[2 * i] = maps[i].addr;
		x->bounds[2 * i + 1] = end_of(&maps[i]);
	}
	qsort(x->bounds, 2 * n, sizeof(*x->bounds), compare_u64);
	for (i = 0, k = 0; i < 2 * n; i++)
		if (!k || x->bounds[i] != x->bounds[k - 1])
			x->bounds[k++] = x->bounds[i];
	x->nbounds = k;
	leaves = k > 1 ? k - 1 : 1;
	nodes = 4 * leaves;
	x->first = calloc(nodes + 1, sizeof(*x->first));
	x->latest = malloc(nodes * sizeof(*x->latest));
	fill = malloc(nodes * sizeof(*fill));
	if (!x->first || !x->latest || !fill)
		goto nomem;
	for (i = 0; i < n && k > 1; i++)
		cover(x, NULL, 1, 0, leaves, leaf_of(x, maps[i].addr),
		      leaf_of(x, end_of(&maps[i])), (uint32_t)i);
	for (i = 0; i < nodes; i++)
		x->first[i + 1] += x->first[i];
	if (!(x->members = malloc((x->first[nodes] + 1) * sizeof(*x->members))))
		goto nomem;
	memcpy(fill, x->first, nodes * sizeof(*fill));
	for (i = 0; i < n && k > 1; i++)
		cover(x, fill, 1, 0, leaves, leaf_of(x, maps[i].addr),
		      leaf_of(x, end_of(&maps[i])), (uint32_t)i);
	for (i = 0; i < nodes; i++) {
		size_t count = x->first[i + 1] - x->first[i];

		qsort_r(x->members + x->first[i], count, sizeof(*x->members),
			compare_birth, (void *)maps);
		x->latest[i] = -1;
		for (k = x->first[i]; k < x->first[i + 1]; k++)
			if ((long)x->members[k] > x->latest[i])
				x->latest[i] = x->members[k];
	}
	free(fill);
	*out = x;
	return 0;
nomem:
	free(fill);
	image_index_free(x);
	return hwtr_fail(hwtr_err_nomem, "out of memory");
}

void image_index_free(struct image_index *x)
{
	if (!x)
		return;
	free(x->bounds);
	free(x->first);
	free(x->members);
	free(x->latest);
	free(x);
}

long image_index_lookup(const struct image_index *x,
			const struct image_mapping *maps, uint64_t ip,
			uint64_t tsc)
{
	size_t leaf, node = 1, nl = 0, nr;
	long latest = -1;

	if (!x || x->nbounds < 2 || ip < x->bounds[0] ||
	    ip >= x->bounds[x->nbounds - 1])
		return -1;
	leaf = leaf_of(x, ip);
	nr = x->nbounds - 1;
	for (;;) {
		size_t lo = x->first[node], hi = x->first[node + 1], mid;

		/* The last mapping here born at or before TSC: the only one
		 * here that may be alive then. */
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (maps[x->members[mid]].tsc_begin <= tsc)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > x->first[node] && maps[x->members[lo - 1]].tsc_end > tsc)
			return x->members[lo - 1];
		if (x->latest[node] > latest)
			latest = x->latest[node];
		if (nr - nl == 1)
			break;
		mid = nl + (nr - nl) / 2;
		if (leaf < mid) {
			node = 2 * node;
			nr = mid;
		} else {
			node = 2 * node + 1;
			nl = mid;
		}
	}
	return latest;
}
