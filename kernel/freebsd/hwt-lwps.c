/* hwt-lwps.c: naming hwt(4) thread indexes with LWP ids (hwt-lwps.h).
 *
 * Two queues in creation order: indexes whose THREAD_CREATE was read but
 * that have no name yet, and LWP ids seen in a listing that no index has
 * taken yet.  A listing appends its new LWP ids (they were created after
 * every id already queued, since an older live thread would have been in the
 * earlier listing too).  Names are given only when settled: when the waiting
 * indexes are exactly the unnamed threads created before the latest listing
 * (no THREAD_CREATE read since it, and every record queued before it read).
 * Then every queued id belongs to a waiting index, in the same order, so
 * equal counts pair them exactly; fewer ids means some waiting thread ended
 * unseen, and nobody can say which: every waiting index is then unnamed and
 * the queued ids are dropped.  Pairing at an unsettled moment could give a
 * thread that ended unseen the id of a later one whose record was not read
 * yet.
 */
#include "hwt-lwps.h"

#include <stdlib.h>
#include <string.h>

struct name {
	bool named;
	uint32_t tid;
};

struct hwt_lwps {
	struct name *names;	/* by index */
	size_t nnames;
	int *waiting;		/* indexes without a name, ascending */
	size_t nwaiting, cap_waiting;
	uint32_t *queued;	/* LWP ids not taken, creation order */
	size_t nqueued, cap_queued;
	uint32_t *seen;		/* every LWP id ever listed */
	size_t nseen, cap_seen;
	size_t created, unnamed;
	size_t created_at_listing;	/* `created` at the latest listing */
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	void *v;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	v = realloc(*p, n * elem);
	if (!v)
		return -1;
	*p = v;
	*cap = n;
	return 0;
}

int hwt_lwps_new(struct hwt_lwps **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -1;
}

void hwt_lwps_free(struct hwt_lwps *m)
{
	if (!m)
		return;
	free(m->names);
	free(m->waiting);
	free(m->queued);
	free(m->seen);
	free(m);
}

int hwt_lwps_created(struct hwt_lwps *m, int index)
{
	size_t i;

	if (index < 0)
		return -1;
	if ((size_t)index >= m->nnames) {
		struct name *v = realloc(m->names, ((size_t)index + 1) * sizeof(*v));

		if (!v)
			return -1;
		memset(v + m->nnames, 0, ((size_t)index + 1 - m->nnames) * sizeof(*v));
		m->names = v;
		m->nnames = (size_t)index + 1;
	}
	for (i = 0; i < m->nwaiting; i++)
		if (m->waiting[i] == index)
			return 0;
	if (m->names[index].named)
		return 0;
	if (grow((void **)&m->waiting, &m->cap_waiting, m->nwaiting + 1,
		 sizeof(int)))
		return -1;
	/* Records come in index order; keep the queue sorted anyway. */
	i = m->nwaiting;
	while (i > 0 && m->waiting[i - 1] > index) {
		m->waiting[i] = m->waiting[i - 1];
		i--;
	}
	m->waiting[i] = index;
	m->nwaiting++;
	m->created++;
	return 0;
}

static bool was_seen(const struct hwt_lwps *m, uint32_t tid)
{
	size_t i;

	for (i = 0; i < m->nseen; i++)
		if (m->seen[i] == tid)
			return true;
	return false;
}

int hwt_lwps_listed(struct hwt_lwps *m, const uint32_t *tids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (was_seen(m, tids[i]))
			continue;
		if (grow((void **)&m->seen, &m->cap_seen, m->nseen + 1,
			 sizeof(uint32_t)) ||
		    grow((void **)&m->queued, &m->cap_queued, m->nqueued + 1,
			 sizeof(uint32_t)))
			return -1;
		m->seen[m->nseen++] = tids[i];
		m->queued[m->nqueued++] = tids[i];
	}
	m->created_at_listing = m->created;
	return 0;
}

bool hwt_lwps_settle(struct hwt_lwps *m)
{
	size_t k;

	if (m->created != m->created_at_listing)
		return false;	/* a thread created since: list again */
	if (m->nqueued > m->nwaiting)
		/* An id whose record is not read yet: the kernel listed a
		 * thread before queueing its THREAD_CREATE.  Wait for it. */
		return false;
	if (m->nqueued < m->nwaiting) {
		/* Some waiting thread ended before any listing showed it. */
		hwt_lwps_give_up(m);
		return true;
	}
	for (k = 0; k < m->nwaiting; k++) {
		struct name *nm = &m->names[m->waiting[k]];

		nm->named = true;
		nm->tid = m->queued[k];
	}
	m->nqueued = 0;
	m->nwaiting = 0;
	return true;
}

void hwt_lwps_give_up(struct hwt_lwps *m)
{
	size_t i;

	for (i = 0; i < m->nwaiting; i++) {
		struct name *nm = &m->names[m->waiting[i]];

		nm->named = true;
		nm->tid = HWT_UNNAMED_THREAD(m->waiting[i]);
		m->unnamed++;
	}
	m->nwaiting = 0;
	m->nqueued = 0;
}

bool hwt_lwps_name(const struct hwt_lwps *m, int index, uint32_t *tid)
{
	if (index < 0 || (size_t)index >= m->nnames || !m->names[index].named)
		return false;
	*tid = m->names[index].tid;
	return true;
}

size_t hwt_lwps_waiting(const struct hwt_lwps *m)
{
	return m->nwaiting;
}

size_t hwt_lwps_unnamed(const struct hwt_lwps *m)
{
	return m->unnamed;
}
