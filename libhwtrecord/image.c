/* image.c: the image of binaries over time (see image.h).
 *
 * What grows with the number of mappings stays O(log n) a step: the live
 * mappings (never overlapping) are kept sorted by address, so an event finds
 * the ones it ends by binary search; a time window finds its view by the
 * counts of births and ends before its bounds, which fix every mapping's
 * role in it; a view's address ranges are laid out by one sweep; and which
 * mapping holds an address at a time is image-index.c's.
 */
#include "image.h"

#include "error.h"
#include "image-index.h"
#include "object-lookup.h"
#include "recording-file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* One address range of a view and the mapping that holds it. */
struct view_range {
	uint64_t begin, end;
	uint32_t map;
};

struct epoch {
	uint64_t hash;		/* of alive, up to its last role */
	uint8_t *alive;		/* one role per mapping */
	uint32_t *layers;	/* mappings with code, later wins */
	size_t nlayers;
	struct view_range *ranges;	/* sorted, disjoint */
	size_t nranges;
};

struct image_set {
	struct image_mapping *maps;
	size_t nmaps, cap_maps;
	size_t nevents;		/* sideband events read */
	const char *const *debug_dirs;
	struct epoch *epochs;	/* one view per distinct set of live mappings */
	unsigned nepochs, cap_epochs;
	unsigned *by_hash;	/* open addressing: epoch + 1, or 0 */
	size_t cap_by_hash;
	struct window_key *by_window;	/* open addressing on the key */
	size_t nby_window, cap_by_window;
	uint32_t *live;		/* mappings not ended, sorted by address */
	size_t nlive;
	uint64_t *ends;		/* times mappings ended, in order (sorted) */
	size_t nends;
	struct image_index *index;	/* address and time -> mapping */
	char *recdir;		/* the recording's directory */
};

/* A window's view is fixed by how many mappings were born at or before
 * its begin (BORN_BEGIN) and its end (BORN_END), and how many had ended at
 * or before its begin (ENDED): mappings and ends only ever come after the
 * ones read before (the sideband is in time order). */
struct window_key {
	size_t born_begin, ended, born_end;
	unsigned epoch_plus_one;	/* 0: empty slot */
};

static void set_problem(struct image_mapping *m, const char *fmt,
			const char *a, const char *b)
{
	char text[1024];

	snprintf(text, sizeof(text), fmt, a ? a : "", b ? b : "");
	free(m->problem);
	m->problem = strdup(text);
}

/* Find the file that holds the mapping's code (object-lookup.h's policy:
 * the recording's copies first, every file but the saved copy checked
 * against the sideband's build-id). */
static int locate_file(struct image_mapping *m, const char *recdir,
		       const char *saved, const char *const *debug_dirs)
{
	free(m->problem);
	m->problem = NULL;
	return object_lookup_code(recdir, m->path, m->build_id, saved,
				  debug_dirs, &m->file, &m->problem);
}

static uint64_t end_of(uint64_t addr, uint64_t len)
{
	return len > UINT64_MAX - addr ? UINT64_MAX : addr + len;
}

/* End the life of the live mappings that [ADDR, ADDR + LEN) overlaps, at
 * TSC; returns where a mapping of that range goes in the live list. */
static size_t end_overlapping(struct image_set *set, uint64_t addr,
			      uint64_t len, uint64_t tsc)
{
	uint64_t end = end_of(addr, len);
	size_t lo = 0, hi = set->nlive, k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct image_mapping *m = &set->maps[set->live[mid]];

		if (end_of(m->addr, m->len) <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < set->nlive && set->maps[set->live[k]].addr < end; k++) {
		set->maps[set->live[k]].tsc_end = tsc;
		set->ends[set->nends++] = tsc;
	}
	memmove(set->live + lo, set->live + k,
		(set->nlive - k) * sizeof(*set->live));
	set->nlive -= k - lo;
	return lo;
}

/* How much of the mapping the file holds: code past the end of the file is
 * not in the file.  A file that cannot be opened holds nothing. */
static void measure_code(struct image_mapping *m)
{
	struct stat st;
	int fd;

	m->code_size = 0;
	if (regular_file_open(m->file, &fd, &st) < 0) {
		set_problem(m, "cannot load code: %s%s", hwtr_last_error(), "");
		return;
	}
	close(fd);
	if ((uint64_t)st.st_size > m->pgoff)
		m->code_size = (uint64_t)st.st_size - m->pgoff < m->len
				       ? (uint64_t)st.st_size - m->pgoff
				       : m->len;
}

/* Room for N more mappings, and every view's roles for them (none: a view
 * made before a mapping was known does not have it). */
static int reserve_maps(struct image_set *set, size_t n)
{
	size_t need = set->nmaps + n, cap = set->cap_maps ? set->cap_maps : 16;
	unsigned k;
	void *p;

	if (need <= set->cap_maps)
		return 0;
	while (cap < need)
		cap *= 2;
	p = realloc(set->maps, cap * sizeof(*set->maps));
	if (!p)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	set->maps = p;
	if (!(p = realloc(set->live, cap * sizeof(*set->live))))
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	set->live = p;
	if (!(p = realloc(set->ends, cap * sizeof(*set->ends))))
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	set->ends = p;
	memset(set->maps + set->cap_maps, 0,
	       (cap - set->cap_maps) * sizeof(*set->maps));
	for (k = 0; k < set->nepochs; k++) {
		p = realloc(set->epochs[k].alive, cap + 1);
		if (!p)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		set->epochs[k].alive = p;
		memset(set->epochs[k].alive + set->nmaps, 0, cap + 1 - set->nmaps);
	}
	set->cap_maps = cap;
	return 0;
}

/* The sideband's events from the first not read yet. */
static int read_events(struct image_set *set, struct hwtr_recording *rec)
{
	size_t nev = hwtr_recording_nevents(rec), i;
	int err = reserve_maps(set, nev - set->nevents + 1);

	if (err)
		return err;
	for (i = set->nevents; i < nev; i++) {
		const struct hwtr_sideband_event *ev = hwtr_recording_event(rec, i);
		struct image_mapping *m;

		size_t at;

		if (ev->kind == hwtr_ev_munmap) {
			end_overlapping(set, ev->addr, ev->len, ev->tsc);
			continue;
		}
		if (ev->kind == hwtr_ev_exec) {
			/* A new program image: everything before it is gone. */
			end_overlapping(set, 0, UINT64_MAX, ev->tsc);
			continue;
		}
		if (ev->kind != hwtr_ev_mmap)
			continue;
		at = end_overlapping(set, ev->addr, ev->len, ev->tsc);
		if (!(ev->prot & HWTR_PROT_EXEC) || ev->len == 0)
			continue;
		memmove(set->live + at + 1, set->live + at,
			(set->nlive - at) * sizeof(*set->live));
		set->live[at] = (uint32_t)set->nmaps;
		set->nlive++;
		m = &set->maps[set->nmaps++];
		m->addr = ev->addr;
		m->len = ev->len;
		m->pgoff = ev->pgoff;
		m->tsc_begin = ev->tsc;
		m->tsc_end = UINT64_MAX;
		m->path = ev->path;
		m->build_id = ev->build_id;
		if (locate_file(m, hwtr_recording_path(rec), ev->saved,
				set->debug_dirs) < 0)
			return -hwtr_err_nomem;
		if (m->file)
			measure_code(m);
	}
	set->nevents = nev;
	/* Later events end earlier mappings: the index is made again. */
	image_index_free(set->index);
	set->index = NULL;
	return image_index_build(set->maps, set->nmaps, &set->index);
}

int image_set_build(struct hwtr_recording *rec, const char *const *debug_dirs,
		    struct image_set **out)
{
	struct image_set *set = calloc(1, sizeof(*set));
	int err;

	if (!set)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	set->debug_dirs = debug_dirs;
	set->recdir = strdup(hwtr_recording_path(rec));
	if (!set->recdir) {
		free(set);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	if ((err = read_events(set, rec))) {
		image_set_free(set);
		return err;
	}
	*out = set;
	return 0;
}

const char *image_set_recording_dir(const struct image_set *set)
{
	return set->recdir;
}

int image_set_extend(struct image_set *set, struct hwtr_recording *rec)
{
	return read_events(set, rec);
}

void image_set_free(struct image_set *set)
{
	size_t i;

	if (!set)
		return;
	free(set->recdir);
	for (i = 0; i < set->nepochs; i++) {
		free(set->epochs[i].alive);
		free(set->epochs[i].layers);
		free(set->epochs[i].ranges);
	}
	free(set->epochs);
	free(set->by_hash);
	free(set->by_window);
	free(set->live);
	free(set->ends);
	image_index_free(set->index);
	for (i = 0; i < set->nmaps; i++) {
		if (set->maps[i].map)
			munmap(set->maps[i].map, set->maps[i].map_size);
		free(set->maps[i].file);
		free(set->maps[i].problem);
	}
	free(set->maps);
	free(set);
}

size_t image_set_count(const struct image_set *set)
{
	return set->nmaps;
}

const struct image_mapping *image_set_mapping(const struct image_set *set,
					      size_t index)
{
	return index < set->nmaps ? &set->maps[index] : NULL;
}

/* How a mapping takes part in the image of a chunk's window: those alive at
 * the window's start win; those made during the window (the sideband's time
 * is coarser than the trace's: a dlopen'ed library may run before the next
 * PSB) fill the addresses nothing else holds. */
enum { not_in_image = 0, born_in_window = 1, alive_at_start = 2 };

static uint8_t window_role(const struct image_mapping *m, uint64_t begin,
			   uint64_t end)
{
	if (m->tsc_begin <= begin && m->tsc_end > begin)
		return alive_at_start;
	if (m->tsc_begin > begin && m->tsc_begin <= end)
		return born_in_window;
	return not_in_image;
}

/* One layer's bound in a view: later ranks win where layers overlap, as
 * pt_image_add lays a new section over the ones it overlaps. */
struct layer_bound {
	uint64_t at;
	uint32_t rank;
	bool begins;
};

static int compare_bounds(const void *a, const void *b)
{
	const struct layer_bound *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

/* Max-heap of layer ranks. */
static void heap_push(uint32_t *heap, size_t *n, uint32_t rank)
{
	size_t i = (*n)++;

	for (; i && heap[(i - 1) / 2] < rank; i = (i - 1) / 2)
		heap[i] = heap[(i - 1) / 2];
	heap[i] = rank;
}

static void heap_pop(uint32_t *heap, size_t *n)
{
	uint32_t last = heap[--*n];
	size_t i = 0, child;

	while ((child = 2 * i + 1) < *n) {
		if (child + 1 < *n && heap[child + 1] > heap[child])
			child++;
		if (heap[child] <= last)
			break;
		heap[i] = heap[child];
		i = child;
	}
	if (*n)
		heap[i] = last;
}

/* The view's ranges from its layers: sweep the layers' bounds in address
 * order, the highest rank among the layers open there owning each piece. */
static int lay_out(struct image_set *set, struct epoch *e)
{
	size_t n = e->nlayers, i, nheap = 0;
	struct layer_bound *bounds = malloc((2 * n + 1) * sizeof(*bounds));
	uint32_t *heap = malloc((n + 1) * sizeof(*heap));
	uint8_t *closed = calloc(n + 1, 1);
	int err = 0;

	e->ranges = malloc((2 * n + 1) * sizeof(*e->ranges));
	if (!bounds || !heap || !closed || !e->ranges) {
		err = hwtr_fail(hwtr_err_nomem, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct image_mapping *m = &set->maps[e->layers[i]];

		bounds[2 * i] = (struct layer_bound){ m->addr, (uint32_t)i, true };
		bounds[2 * i + 1] = (struct layer_bound){
			end_of(m->addr, m->code_size), (uint32_t)i, false };
	}
	qsort(bounds, 2 * n, sizeof(*bounds), compare_bounds);
	for (i = 0; i < 2 * n;) {
		uint64_t at = bounds[i].at;
		uint32_t owner;

		for (; i < 2 * n && bounds[i].at == at; i++) {
			if (bounds[i].begins)
				heap_push(heap, &nheap, bounds[i].rank);
			else
				closed[bounds[i].rank] = 1;
		}
		while (nheap && closed[heap[0]])
			heap_pop(heap, &nheap);
		if (!nheap || i == 2 * n)
			continue;
		owner = e->layers[heap[0]];
		if (e->nranges && e->ranges[e->nranges - 1].end == at &&
		    e->ranges[e->nranges - 1].map == owner)
			e->ranges[e->nranges - 1].end = bounds[i].at;
		else
			e->ranges[e->nranges++] =
				(struct view_range){ at, bounds[i].at, owner };
	}
out:
	free(bounds);
	free(heap);
	free(closed);
	return err;
}

static int build_epoch(struct image_set *set, struct epoch *e)
{
	size_t i;
	void *p;
	int err;

	e->layers = calloc(set->nmaps + 1, sizeof(*e->layers));
	if (!e->layers)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	/* The mappings born in the window first, then those alive at its
	 * start, each in sideband order: later ones win where they overlap. */
	for (i = 0; i < 2 * set->nmaps; i++) {
		size_t k = i % set->nmaps;
		uint8_t role = i < set->nmaps ? born_in_window : alive_at_start;
		const struct image_mapping *m = &set->maps[k];

		if (e->alive[k] != role || !m->code_size)
			continue;
		e->layers[e->nlayers++] = (uint32_t)k;
	}
	/* Views are many: each keeps only what it holds. */
	if ((p = realloc(e->layers, (e->nlayers + 1) * sizeof(*e->layers))))
		e->layers = p;
	if ((err = lay_out(set, e)))
		return err;
	if ((p = realloc(e->ranges, (e->nranges + 1) * sizeof(*e->ranges))))
		e->ranges = p;
	return 0;
}

/* FNV-1a of the roles up to the last mapping that has one: a view made
 * before later mappings were read hashes the same with them (no role). */
static uint64_t roles_hash(const uint8_t *alive, size_t n)
{
	uint64_t h = 14695981039346656037ULL;
	size_t i;

	while (n && !alive[n - 1])
		n--;
	for (i = 0; i < n; i++)
		h = (h ^ alive[i]) * 1099511628211ULL;
	return h;
}

static void hash_insert(struct image_set *set, unsigned k)
{
	size_t mask = set->cap_by_hash - 1, i;

	for (i = set->epochs[k].hash & mask; set->by_hash[i]; i = (i + 1) & mask)
		;
	set->by_hash[i] = k + 1;
}

/* Views by the hash of their roles (open addressing), with view K. */
static int index_epoch(struct image_set *set, unsigned k)
{
	if (2 * ((size_t)k + 1) > set->cap_by_hash) {
		size_t cap = set->cap_by_hash ? 2 * set->cap_by_hash : 64;
		unsigned *table = calloc(cap, sizeof(*table)), e;

		if (!table)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		free(set->by_hash);
		set->by_hash = table;
		set->cap_by_hash = cap;
		for (e = 0; e < k; e++)
			hash_insert(set, e);
	}
	hash_insert(set, k);
	return 0;
}

static bool find_epoch(const struct image_set *set, const uint8_t *alive,
		       uint64_t hash, unsigned *epoch)
{
	size_t i, mask = set->cap_by_hash - 1;

	if (!set->cap_by_hash)
		return false;
	for (i = hash & mask; set->by_hash[i]; i = (i + 1) & mask) {
		const struct epoch *e = &set->epochs[set->by_hash[i] - 1];

		if (e->hash == hash && !memcmp(e->alive, alive, set->nmaps)) {
			*epoch = set->by_hash[i] - 1;
			return true;
		}
	}
	return false;
}

/* How many mappings were born at or before TSC (they come in time order). */
static size_t born_by(const struct image_set *set, uint64_t tsc)
{
	size_t lo = 0, hi = set->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (set->maps[mid].tsc_begin <= tsc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* How many mappings had ended at or before TSC. */
static size_t ended_by(const struct image_set *set, uint64_t tsc)
{
	size_t lo = 0, hi = set->nends;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (set->ends[mid] <= tsc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct window_key *window_slot(struct image_set *set,
				      const struct window_key *k)
{
	uint64_t h = k->born_begin * 0x9e3779b97f4a7c15ULL ^
		     k->ended * 0xc2b2ae3d27d4eb4fULL ^ k->born_end;
	size_t mask = set->cap_by_window - 1, i;

	for (i = (size_t)(h ^ (h >> 29)) & mask;; i = (i + 1) & mask) {
		struct window_key *w = &set->by_window[i];

		if (!w->epoch_plus_one ||
		    (w->born_begin == k->born_begin && w->ended == k->ended &&
		     w->born_end == k->born_end))
			return w;
	}
}

static int remember_window(struct image_set *set, struct window_key key,
			   unsigned epoch)
{
	if (2 * (set->nby_window + 1) > set->cap_by_window) {
		size_t cap = set->cap_by_window ? 2 * set->cap_by_window : 64, i;
		size_t old_cap = set->cap_by_window;
		struct window_key *old = set->by_window, *table;

		if (!(table = calloc(cap, sizeof(*table))))
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		set->by_window = table;
		set->cap_by_window = cap;
		for (i = 0; i < old_cap; i++)
			if (old[i].epoch_plus_one)
				*window_slot(set, &old[i]) = old[i];
		free(old);
	}
	key.epoch_plus_one = epoch + 1;
	*window_slot(set, &key) = key;
	set->nby_window++;
	return 0;
}

int image_set_for_window(struct image_set *set, uint64_t begin, uint64_t end,
			 unsigned *epoch)
{
	struct window_key key = { born_by(set, begin), ended_by(set, begin),
				  born_by(set, end), 0 };
	struct window_key *known;
	uint8_t *alive;
	struct epoch *e;
	uint64_t hash;
	size_t i;
	int err;

	if (set->cap_by_window &&
	    (known = window_slot(set, &key))->epoch_plus_one) {
		*epoch = known->epoch_plus_one - 1;
		return 0;
	}
	if (!(alive = calloc(set->cap_maps + 1, 1)))
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (i = 0; i < set->nmaps; i++)
		alive[i] = window_role(&set->maps[i], begin, end);
	hash = roles_hash(alive, set->nmaps);
	if (find_epoch(set, alive, hash, epoch)) {
		free(alive);
		return remember_window(set, key, *epoch);
	}
	if (set->nepochs == set->cap_epochs) {
		unsigned cap = set->cap_epochs ? 2 * set->cap_epochs : 8;
		void *p = realloc(set->epochs, cap * sizeof(*set->epochs));

		if (!p) {
			free(alive);
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		}
		set->epochs = p;
		set->cap_epochs = cap;
	}
	e = &set->epochs[set->nepochs];
	memset(e, 0, sizeof(*e));
	e->alive = alive;
	e->hash = hash;
	if ((err = build_epoch(set, e)) || (err = index_epoch(set, set->nepochs))) {
		free(e->alive);
		free(e->layers);
		free(e->ranges);
		return err;
	}
	*epoch = set->nepochs++;
	return remember_window(set, key, *epoch);
}

size_t image_epoch_layers(const struct image_set *set, unsigned epoch,
			  const uint32_t **mappings)
{
	if (epoch >= set->nepochs) {
		*mappings = NULL;
		return 0;
	}
	*mappings = set->epochs[epoch].layers;
	return set->epochs[epoch].nlayers;
}

/* Map the file's bytes of mapping M (mapping_bytes holds the lock). */
static void map_file(struct image_mapping *m)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t start, skip;
	struct stat st;
	void *p;
	int fd;

	if (!m->file || !m->code_size || page <= 0)
		return;
	if (regular_file_open(m->file, &fd, &st) < 0)
		return;
	start = m->pgoff & ~((uint64_t)page - 1);
	skip = m->pgoff - start;
	p = mmap(NULL, (size_t)(skip + m->code_size), PROT_READ, MAP_PRIVATE, fd,
		 (off_t)start);
	close(fd);
	if (p == MAP_FAILED)
		return;
	m->map = p;
	m->map_size = (size_t)(skip + m->code_size);
	m->bytes = (const uint8_t *)p + skip;
}

/* The file's bytes of mapping M (mapped on first use), or NULL.  The index
 * pass reads code on several threads (history-parallel.c): the first use
 * maps under a lock, and map_tried, set last, publishes the bytes. */
static const uint8_t *mapping_bytes(struct image_mapping *m)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

	if (__atomic_load_n(&m->map_tried, __ATOMIC_ACQUIRE))
		return m->bytes;
	pthread_mutex_lock(&lock);
	if (!m->map_tried) {
		map_file(m);
		__atomic_store_n(&m->map_tried, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lock);
	return m->bytes;
}

/* The range of the last code read, per thread (the index pass reads code on
 * several): code runs on.  Only a hint, checked against the epoch's ranges,
 * so one left by another image set is harmless. */
static _Thread_local struct {
	const struct image_set *set;
	unsigned epoch;
	size_t range;
} last_read;

/* The range of EPOCH holding IP, or NULL.  Code runs on: the last range
 * found is tried first. */
static const struct view_range *find_range(struct image_set *set, unsigned epoch,
					   uint64_t ip)
{
	const struct epoch *e;
	size_t lo = 0, hi;

	if (epoch >= set->nepochs)
		return NULL;
	e = &set->epochs[epoch];
	if (last_read.set == set && last_read.epoch == epoch &&
	    last_read.range < e->nranges) {
		const struct view_range *r = &e->ranges[last_read.range];

		if (ip >= r->begin && ip < r->end)
			return r;
	}
	hi = e->nranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->ranges[mid].end <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= e->nranges || ip < e->ranges[lo].begin)
		return NULL;
	last_read.set = set;
	last_read.epoch = epoch;
	last_read.range = lo;
	return &e->ranges[lo];
}

const uint8_t *image_epoch_code(struct image_set *set, unsigned epoch,
				uint64_t ip, size_t *avail)
{
	const struct view_range *r = find_range(set, epoch, ip);
	struct image_mapping *m;
	const uint8_t *bytes;

	if (!r)
		return NULL;
	m = &set->maps[r->map];
	if (!(bytes = mapping_bytes(m)))
		return NULL;
	*avail = (size_t)(r->end - ip);
	return bytes + (ip - m->addr);
}

long image_epoch_mapping(struct image_set *set, unsigned epoch, uint64_t ip)
{
	const struct view_range *r = find_range(set, epoch, ip);

	return r ? (long)r->map : -1;
}

int image_set_at_end(struct image_set *set, unsigned *epoch)
{
	/* A window after every event: only the mappings never ended are
	 * alive at its start. */
	return image_set_for_window(set, UINT64_MAX - 1, UINT64_MAX - 1, epoch);
}

size_t image_epoch_read(struct image_set *set, unsigned epoch, uint64_t ip,
			uint8_t *buf, size_t size)
{
	size_t done = 0;

	while (done < size) {
		size_t avail = 0, n;
		const uint8_t *code = image_epoch_code(set, epoch, ip + done, &avail);

		if (!code)
			break;
		n = avail < size - done ? avail : size - done;
		memcpy(buf + done, code, n);
		done += n;
	}
	return done;
}

const struct image_mapping *image_set_lookup(const struct image_set *set,
					     uint64_t ip, uint64_t tsc)
{
	long k = image_index_lookup(set->index, set->maps, ip, tsc);

	return k < 0 ? NULL : &set->maps[k];
}

size_t image_set_nevents(const struct image_set *set)
{
	return set->nevents;
}
