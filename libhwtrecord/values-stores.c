/* values-stores.c: the memory one instruction changed (hwtr_stores_at),
 * from the data log's undo records (values-format.h: STORE and UNKNOWN
 * records carry the position of the instruction that made them).
 *
 * The records of a position are found from where the thread was switched
 * in before it (its slice), or, reading instructions in ascending order,
 * from where the last read stopped, so a listing reads the log once.
 * Records of one instruction that touch or overlap are merged into one
 * store (a REP STOSB's iterations, a read()'s buffer); each byte's old
 * value is that of the first record touching it.  New values: the memory
 * just before the next instruction (hwtr_values_memory), where it says
 * "the same as at the end" the end state (the core); else not known.
 */
#include "end-memory.h"
#include "error.h"
#include "gaps.h"
#include "history.h"
#include "values-access.h"
#include "values-format.h"
#include "values-stores.h"
#include "values-registers.h"

#include <stdlib.h>
#include <string.h>

/* One STORE or UNKNOWN record of the instruction. */
struct store_record {
	uint64_t addr, len;
	const uint8_t *old;	/* NULL for UNKNOWN */
	size_t order;		/* in the log */
};

struct hwtr_stores {
	struct hwtr_values *values;
	struct hwtr_thread *thread;
	struct end_memory *end;
	uint64_t instructions;	/* of the thread's history */
	bool single_thread;	/* the end state follows its last instruction */
	/* Where the last two scans started and stopped, so that reading
	 * ascending instructions (and the registers of the next one) reads
	 * the log once. */
	struct scan_mark {
		uint64_t pos;	/* 0: none */
		size_t start;	/* the scan's first record ... */
		bool start_ours;	/* ... and whether it is the thread's */
		struct values_base start_base;	/* ... and the base there */
		size_t stop;	/* the thread's first record of a later
				 * position, or SIZE_MAX at the log's end */
		struct values_base stop_base;	/* the base there */
	} marks[2];
	unsigned next_mark;
	struct store_record *records;
	size_t nrecords, cap_records;
	struct hwtr_store *list;
	size_t nlist, cap_list;
	uint8_t *bytes;		/* old, new and new_known of each store */
	size_t cap_bytes;
};

int hwtr_stores_open(struct hwtr_values *values, struct hwtr_thread *thread,
		     struct hwtr_stores **out)
{
	struct hwtr_thread_stats stats;
	struct hwtr_stores *s;
	int err;

	if (!values || !thread || !out)
		return hwtr_fail(hwtr_err_invalid, "hwtr_stores_open: NULL");
	*out = NULL;
	if ((err = hwtr_thread_stats(thread, &stats)))
		return err;
	s = calloc(1, sizeof(*s));
	if (!s)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	s->values = values;
	s->thread = thread;
	s->instructions = stats.instructions;
	s->single_thread = hwtr_history_nthreads(thread->history) == 1;
	if ((err = end_memory_open(thread->history->recording, &s->end))) {
		hwtr_stores_free(s);
		return err;
	}
	*out = s;
	return 0;
}

void hwtr_stores_free(struct hwtr_stores *s)
{
	if (!s)
		return;
	end_memory_close(s->end);
	free(s->records);
	free(s->list);
	free(s->bytes);
	free(s);
}

static int add_record(struct hwtr_stores *s, const struct values_record *r)
{
	if (s->nrecords == s->cap_records) {
		size_t cap = s->cap_records ? 2 * s->cap_records : 64;
		struct store_record *p = realloc(s->records, cap * sizeof(*p));

		if (!p)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		s->records = p;
		s->cap_records = cap;
	}
	s->records[s->nrecords] = (struct store_record){
		.addr = r->addr, .len = r->len,
		.old = r->type == HWTR_VREC_STORE ? r->values : NULL,
		.order = s->nrecords,
	};
	s->nrecords++;
	return 0;
}

/* The last slice of LOG that began before POS: where POS's records start. */
static const struct values_slice *slice_before(const struct values_thread *log,
					       uint64_t pos)
{
	size_t lo = 0, hi = log->nslices;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (log->slices[mid].pos < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &log->slices[lo - 1] : NULL;
}

/* Where to start reading LOG's records of position POS: *OURS says whether
 * the record there is the thread's. */
static size_t scan_start(const struct hwtr_stores *s,
			 const struct values_thread *log, uint64_t pos,
			 bool *ours, struct values_base *base)
{
	const struct values_slice *slice = slice_before(log, pos);
	size_t best = slice ? slice->offset : SIZE_MAX;
	unsigned i;

	*ours = false;
	/* a THREAD record gives its position whole and starts addresses */
	*base = (struct values_base){ 0, 0 };
	for (i = 0; i < 2; i++) {
		const struct scan_mark *m = &s->marks[i];

		if (!m->pos)
			continue;
		if (m->pos == pos && (best == SIZE_MAX || m->start >= best)) {
			best = m->start;
			*ours = m->start_ours;
			*base = m->start_base;
		} else if (m->pos < pos && m->stop != SIZE_MAX &&
			   (best == SIZE_MAX || m->stop > best)) {
			best = m->stop;
			*ours = true;	/* the stop record is the thread's */
			*base = m->stop_base;
		}
	}
	return best;
}

static void take_registers(const struct values_record *r,
			   struct stores_registers *regs);

/* Read LOG's records of position POS: its STORE and UNKNOWN records into
 * s->records, and, when REGS is not NULL, the registers its REGS records
 * set. */
static int scan_position(struct hwtr_stores *s, const struct values_index *ix,
			 const struct values_thread *log, uint64_t pos,
			 struct stores_registers *regs)
{
	struct scan_mark *mark = &s->marks[s->next_mark];
	struct values_record r;
	size_t off, start;
	bool ours, start_ours;
	struct values_base base, start_base;
	int err;

	start = off = scan_start(s, log, pos, &ours, &base);
	start_ours = ours;
	start_base = base;
	if (off == SIZE_MAX)
		return -hwtr_err_notfound;
	s->nrecords = 0;
	if (regs)
		memset(regs->changed, 0, sizeof(regs->changed));
	for (; off < ix->end; off = r.next, values_base_next(&base, &r)) {
		if ((err = values_record_read(ix, off, &base, &r)))
			return err;
		if (r.type == HWTR_VREC_THREAD) {
			ours = r.lwpid == log->lwpid;
			if (ours && r.pos > pos)
				break;
			if (!ours) {
				r.next = values_thread_resumes_after(log, off);
				if (r.next == SIZE_MAX) {
					off = ix->end;
					break;
				}
			}
			continue;
		}
		if (!ours || r.type == HWTR_VREC_SYNC)
			continue;
		if (r.pos > pos)
			break;
		if (r.pos < pos)
			continue;
		if (r.type == HWTR_VREC_REGS) {
			if (regs)
				take_registers(&r, regs);
		}
		else if ((r.type == HWTR_VREC_STORE ||
			  r.type == HWTR_VREC_UNKNOWN) && r.len &&
			 (err = add_record(s, &r)))
			return err;
	}
	*mark = (struct scan_mark){ .pos = pos, .start = start,
		.start_ours = start_ours, .start_base = start_base,
		.stop = off < ix->end ? off : SIZE_MAX, .stop_base = base };
	s->next_mark ^= 1;
	return 0;
}

static int by_kind_then_address(const void *a, const void *b)
{
	const struct store_record *x = a, *y = b;

	if (!x->old != !y->old)
		return !x->old ? 1 : -1;	/* known stores first */
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int add_store(struct hwtr_stores *s, uint64_t addr, uint64_t end,
		     bool known)
{
	if (s->nlist == s->cap_list) {
		size_t cap = s->cap_list ? 2 * s->cap_list : 16;
		struct hwtr_store *p = realloc(s->list, cap * sizeof(*p));

		if (!p)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		s->list = p;
		s->cap_list = cap;
	}
	s->list[s->nlist++] = (struct hwtr_store){ .addr = addr,
		.size = end - addr, .known = known };
	return 0;
}

static void sort_records(struct hwtr_stores *s,
			 int (*order)(const void *, const void *))
{
	if (s->nrecords)	/* qsort's array may not be NULL, even empty */
		qsort(s->records, s->nrecords, sizeof(*s->records), order);
}

/* Merge the records into stores; the bytes are laid out later. */
static int merge_records(struct hwtr_stores *s)
{
	size_t i;
	int err;

	s->nlist = 0;
	sort_records(s, by_kind_then_address);
	for (i = 0; i < s->nrecords; i++) {
		const struct store_record *r = &s->records[i];
		struct hwtr_store *last = s->nlist ? &s->list[s->nlist - 1]
						   : NULL;
		uint64_t end = r->addr + r->len;

		if (last && last->known == !!r->old &&
		    r->addr <= last->addr + last->size) {
			if (end > last->addr + last->size)
				last->size = end - last->addr;
			continue;
		}
		if ((err = add_store(s, r->addr, end, r->old != NULL)))
			return err;
	}
	return 0;
}

/* The values after the instruction (before NEXT, the next instruction
 * the log holds; 0 for none) of store ST. */
static int new_values(struct hwtr_stores *s, uint64_t next, bool memory_known,
		      struct hwtr_store *st, uint8_t *new_bytes,
		      uint8_t *new_known)
{
	uint8_t *state;
	size_t i;
	int err = 0;

	memset(new_known, 0, st->size);
	if (!memory_known)
		return 0;
	if (!next) {
		/* Nothing of this thread follows; the end state is after it
		 * only when no other thread ran. */
		if (!s->single_thread)
			return 0;
		return end_memory_read(s->end, st->addr, new_bytes, new_known,
				       st->size);
	}
	state = malloc(st->size);
	if (!state)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if ((err = hwtr_values_memory(s->values, s->thread, next,
				      st->addr, new_bytes, state, st->size)))
		goto out;
	for (i = 0; i < st->size; i++) {
		uint8_t known = 0;

		if (state[i] == hwtr_value_old) {
			new_known[i] = 1;
			continue;
		}
		if (state[i] != hwtr_value_same)
			continue;
		if ((err = end_memory_read(s->end, st->addr + i, &new_bytes[i],
					   &known, 1)))
			goto out;
		new_known[i] = known;
	}
out:
	free(state);
	return err;
}

/* Lay out each known store's old bytes, new bytes and which new bytes are
 * known, in one buffer. */
static int fill_bytes(struct hwtr_stores *s, uint64_t next, bool memory_known)
{
	size_t need = 0, at = 0, i, j;
	int err;

	for (i = 0; i < s->nlist; i++)
		if (s->list[i].known) {
			if (s->list[i].size > (SIZE_MAX - need) / 3)
				return hwtr_fail(hwtr_err_nomem, "a store of "
						 "%llu bytes", (unsigned long long)
						 s->list[i].size);
			need += 3 * s->list[i].size;
		}
	if (need > s->cap_bytes) {
		uint8_t *p = realloc(s->bytes, need);

		if (!p)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		s->bytes = p;
		s->cap_bytes = need;
	}
	for (i = 0; i < s->nlist; i++) {
		struct hwtr_store *st = &s->list[i];
		uint8_t *old = s->bytes + at;

		if (!st->known)
			continue;
		st->old = old;
		st->new_bytes = old + st->size;
		st->new_known = old + 2 * st->size;
		at += 3 * st->size;
		/* Latest record first, so the first one's bytes stay. */
		for (j = s->nrecords; j-- > 0;) {
			const struct store_record *r = &s->records[j];
			uint64_t lo, hi;

			if (!r->old)
				continue;
			lo = r->addr > st->addr ? r->addr : st->addr;
			hi = r->addr + r->len < st->addr + st->size
			     ? r->addr + r->len : st->addr + st->size;
			if (lo < hi)
				memcpy(old + (lo - st->addr),
				       r->old + (lo - r->addr), hi - lo);
		}
		if ((err = new_values(s, next, memory_known, st,
				      (uint8_t *)st->new_bytes,
				      (uint8_t *)st->new_known)))
			return err;
	}
	return 0;
}

/* Merging sorted the records by address; filling needs log order. */
static int by_order(const void *a, const void *b)
{
	const struct store_record *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

int stores_next_insn(struct hwtr_stores *s, uint64_t number, uint64_t *next,
		     bool *across_gap)
{
	uint64_t n;

	*next = 0;
	*across_gap = false;
	for (n = number + 1; n <= s->instructions; n++) {
		const struct gap_entry *g = history_gap_at(s->thread, n);

		if (!g) {
			*next = n;
			return 0;
		}
		if (strcmp(g->gap.kind, "disabled"))
			return -hwtr_err_notfound;
		*across_gap = true;
	}
	return -hwtr_err_notfound;
}

/* Whether only gaps follow NUMBER in its thread. */
static bool last_traced(struct hwtr_stores *s, uint64_t number)
{
	uint64_t n;

	for (n = number + 1; n <= s->instructions; n++)
		if (!history_gap_at(s->thread, n))
			return false;
	return true;
}

int hwtr_stores_at(struct hwtr_stores *s, uint64_t number,
		   const struct hwtr_store **list, size_t *count)
{
	const struct values_index *ix;
	const struct values_thread *log;
	uint64_t pos, complete, next;
	bool memory_known, across_gap;
	int err;

	if (!s || !list || !count)
		return hwtr_fail(hwtr_err_invalid, "hwtr_stores_at: NULL");
	*list = NULL;
	*count = 0;
	if ((err = values_locate(s->values, s->thread, number, &ix, &log, &pos,
				 &complete, &memory_known)))
		return err;
	if (!log || pos == 0 || pos > complete)
		return -hwtr_err_notfound;
	err = stores_next_insn(s, number, &next, &across_gap);
	if (err == -hwtr_err_notfound && !last_traced(s, number))
		return err;	/* a gap that may hide logged code */
	if ((err = scan_position(s, ix, log, pos, NULL)) ||
	    (err = merge_records(s)))
		return err;
	sort_records(s, by_order);
	if ((err = fill_bytes(s, next, memory_known)))
		return err;
	*list = s->list;
	*count = s->nlist;
	return 0;
}

/* The registers a REGS record sets, as hwtr_values_register gives them
 * (values-registers.c); rip is the history's and left out.  A later
 * record's value replaces an earlier one's. */
static void take_registers(const struct values_record *r,
			   struct stores_registers *regs)
{
	unsigned regno, bit, offset, size;

	for (regno = 0; regno < hwtr_amd64_nregs; regno++)
		if (values_register_bit(regno, &bit, &offset, &size) &&
		    ((r->mask >> bit) & 1) &&
		    values_record_gdb_register(r, regno, regs->value[regno]))
			regs->changed[regno] = true;
}

int stores_registers_after(struct hwtr_stores *s, uint64_t number,
			   struct stores_registers *regs)
{
	const struct values_index *ix;
	const struct values_thread *log;
	uint64_t pos, complete;
	bool memory_known;
	uint64_t next;
	bool across_gap;
	int err;

	memset(regs->changed, 0, sizeof(regs->changed));
	if ((err = stores_next_insn(s, number, &next, &across_gap)) ||
	    (err = values_locate(s->values, s->thread, next, &ix, &log,
				 &pos, &complete, &memory_known)))
		return err;
	if (!log || pos == 0 || pos > complete)
		return -hwtr_err_notfound;
	return scan_position(s, ix, log, pos, regs);
}
