/* recover-ops.c: the distinct operations of a recovery window
 * (recover-ops.h). */
#include "recover-ops.h"

#include <stdlib.h>
#include <string.h>

/* OP with every field copied into zeroed storage: padding compares equal.
 * (A field added to struct recover_op must be added here.) */
static void canonical(const struct recover_op *op, struct recover_op *c)
{
	memset(c, 0, sizeof(*c));
	c->kind = op->kind;
	c->alu = op->alu;
	c->width = op->width;
	c->dst = op->dst;
	c->src = op->src;
	c->base = op->base;
	c->index = op->index;
	c->scale = op->scale;
	c->writes = op->writes;
	c->fwrites = op->fwrites;
	c->cond = op->cond;
	c->target_reg = op->target_reg;
	c->imm = op->imm;
	c->mkind = op->mkind;
	c->msize = op->msize;
	c->mbase = op->mbase;
	c->mindex = op->mindex;
	c->mscale = op->mscale;
	c->mseg = op->mseg;
	c->sets_fs = op->sets_fs;
	c->vkind = op->vkind;
	c->vreg = op->vreg;
	c->mdisp = op->mdisp;
	c->vimm = op->vimm;
}

_Static_assert(sizeof(struct recover_op) % 8 == 0,
	       "hash_op reads struct recover_op as words");

static size_t hash_op(const struct recover_op *c)
{
	uint64_t w[sizeof(*c) / 8], h = 0;
	size_t i;

	memcpy(w, c, sizeof(w));
	for (i = 0; i < sizeof(w) / 8; i++) {
		h = (h ^ w[i]) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 32;	/* (the table takes the low bits) */
	}
	return (size_t)h;
}

uint32_t recover_ops_intern(struct recover_ops *t, const struct recover_op *op)
{
	struct recover_op c;
	size_t i;

	canonical(op, &c);
	if (2 * (t->n + 1) > t->cap_intern) {
		size_t cap = t->cap_intern ? 2 * t->cap_intern : 4096, j;
		uint32_t *h = calloc(cap, sizeof(*h));

		if (!h)
			return UINT32_MAX;
		for (j = 0; j < t->n; j++) {
			i = hash_op(&t->op[j]) & (cap - 1);
			while (h[i])
				i = (i + 1) & (cap - 1);
			h[i] = (uint32_t)j + 1;
		}
		free(t->intern);
		t->intern = h;
		t->cap_intern = cap;
	}
	for (i = hash_op(&c) & (t->cap_intern - 1); t->intern[i];
	     i = (i + 1) & (t->cap_intern - 1))
		if (!memcmp(&t->op[t->intern[i] - 1], &c, sizeof(c)))
			return t->intern[i] - 1;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct recover_op *p = realloc(t->op, cap * sizeof(*p));

		if (!p)
			return UINT32_MAX;
		t->op = p;
		t->cap = cap;
	}
	t->op[t->n] = c;
	t->intern[i] = (uint32_t)++t->n;
	return (uint32_t)t->n - 1;
}

void recover_ops_built(struct recover_ops *t)
{
	free(t->intern);
	t->intern = NULL;
	t->cap_intern = 0;
}

void recover_ops_free(struct recover_ops *t)
{
	recover_ops_built(t);
	free(t->op);
	memset(t, 0, sizeof(*t));
}
