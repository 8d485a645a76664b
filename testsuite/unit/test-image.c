/* test-image.c: the image's views and lookups against their definitions.
 *
 * image.c finds the mappings an event ends by binary search over the live
 * ones, a window's view by counts of births and ends, lays out a view's
 * ranges by one sweep, and image-index.c answers "which mapping holds IP at
 * TSC" with a segment tree (issue 16: 10k mmap events were superlinear).
 * Here a random sideband of thousands of overlapping mmaps, munmaps and
 * execs is replayed by a plain model written from doc/recording-format.md
 * ("each executable mapping lives from its mmap to the munmap, exec or
 * overlapping mmap that ends it"; later mappings win where two overlap):
 * every lifetime, every lookup, every window's layers (and the end's), the
 * mapping that reads each address (symbols.c asks it) and the code read at
 * random addresses, in place and copied across adjacent mappings, must be
 * the model's.
 */
#include "fixture.h"
#include "image.h"
#include "check-main.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEVENTS 3000
#define PAGE 0x1000ULL
#define BASE 0x100000ULL
#define SPAN (64 * PAGE)

struct model_mapping {
	uint64_t addr, len, pgoff, begin, end;	/* alive in [begin, end) */
};

static struct model_mapping model[NEVENTS];
static size_t nmodel;
static struct hwtr_sideband_event events[NEVENTS];
static uint64_t rng = 88172645463325252ULL;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/* The events, and the model's mappings with their lifetimes. */
static void make_events(uint64_t file_size, uint64_t *last_tsc)
{
	uint64_t tsc = 0;
	size_t i, k;

	for (i = 0; i < NEVENTS; i++) {
		struct hwtr_sideband_event *e = &events[i];
		unsigned r = (unsigned)(next_random() % 100);

		tsc += next_random() % 3;	/* ties too */
		memset(e, 0, sizeof(*e));
		e->tsc = tsc;
		e->addr = BASE + (next_random() % 64) * PAGE;
		e->len = (1 + next_random() % 4) * PAGE;
		if (r < 3) {
			e->kind = hwtr_ev_exec;
			e->path = fixture_path();
			for (k = 0; k < nmodel; k++)
				if (model[k].end == UINT64_MAX)
					model[k].end = tsc;
			continue;
		}
		e->kind = r < 15 ? hwtr_ev_munmap : hwtr_ev_mmap;
		for (k = 0; k < nmodel; k++)
			if (model[k].end == UINT64_MAX &&
			    overlaps(model[k].addr, model[k].len, e->addr, e->len))
				model[k].end = tsc;
		if (e->kind == hwtr_ev_munmap)
			continue;
		e->prot = HWTR_PROT_READ | (r < 85 ? HWTR_PROT_EXEC : 0);
		e->path = fixture_path();
		e->pgoff = (next_random() % 2) * PAGE;
		ck_assert_uint_lt(e->pgoff, file_size);
		if (e->prot & HWTR_PROT_EXEC)
			model[nmodel++] = (struct model_mapping){
				e->addr, e->len, e->pgoff, tsc, UINT64_MAX };
	}
	*last_tsc = tsc;
}

static bool model_alive(const struct model_mapping *m, uint64_t tsc)
{
	return m->begin <= tsc && tsc < m->end;
}

/* The model's owner of IP among the layers WANT (the last holding it),
 * and in *RUN_END where that stays so: its end, or the start of a later
 * layer. */
static const struct image_mapping *model_owner(struct image_set *set,
					       const uint32_t *want, size_t nwant,
					       uint64_t ip, uint64_t *run_end)
{
	const struct image_mapping *owner = NULL;
	size_t l, at = 0;

	for (l = 0; l < nwant; l++) {
		const struct image_mapping *m = image_set_mapping(set, want[l]);

		if (ip >= m->addr && ip < m->addr + m->code_size) {
			owner = m;
			at = l;
		}
	}
	if (!owner)
		return NULL;
	*run_end = owner->addr + owner->code_size;
	for (l = at + 1; l < nwant; l++) {
		const struct image_mapping *m = image_set_mapping(set, want[l]);

		if (m->code_size && m->addr > ip && m->addr < *run_end)
			*run_end = m->addr;
	}
	return owner;
}

/* image_epoch_read of up to 3 pages from IP: the file's bytes of the
 * model's owner of each address, up to the first hole. */
static void check_read(struct image_set *set, unsigned epoch,
		       const uint32_t *want, size_t nwant, const uint8_t *file,
		       uint64_t ip)
{
	static uint8_t buf[3 * PAGE];
	size_t size = 1 + next_random() % sizeof(buf), got;
	uint64_t at = ip, run_end;
	const struct image_mapping *m;

	got = image_epoch_read(set, epoch, ip, buf, size);
	while (at < ip + size && (m = model_owner(set, want, nwant, at, &run_end))) {
		size_t n = (size_t)((run_end < ip + size ? run_end : ip + size) - at);

		ck_assert_msg(at + n <= ip + got, "read at 0x%llx stopped after "
			      "%zu bytes, the model has code to 0x%llx",
			      (unsigned long long)ip, got,
			      (unsigned long long)(at + n));
		ck_assert(!memcmp(buf + (at - ip), file + m->pgoff + (at - m->addr), n));
		at += n;
	}
	ck_assert_uint_eq(got, at - ip);
}

START_TEST(views_and_lookups_are_the_models)
{
	const char *dir = fixture_tmpdir();
	char recdir[300];
	struct hwtr_recording *rec;
	struct image_set *set;
	struct trace t;
	uint64_t last_tsc, file_size;
	uint8_t *file;
	size_t i, q;
	FILE *f;

	f = fopen(fixture_path(), "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	file_size = (uint64_t)ftell(f);
	rewind(f);
	file = malloc(file_size);
	ck_assert_uint_eq(fread(file, 1, file_size, f), file_size);
	fclose(f);

	make_events(file_size, &last_tsc);
	snprintf(recdir, sizeof(recdir), "%s/r.hwtrec", dir);
	trace_begin(&t);
	trace_main_path(&t);
	fixture_recording_with(recdir, t.buf, trace_size(&t), events, NEVENTS);
	trace_end(&t);
	ck_assert_int_eq(hwtr_recording_open(recdir, &rec), 0);
	ck_assert_int_eq(image_set_build(rec, NULL, &set), 0);

	/* Lifetimes. */
	ck_assert_uint_eq(image_set_count(set), nmodel);
	for (i = 0; i < nmodel; i++) {
		const struct image_mapping *m = image_set_mapping(set, i);

		ck_assert_uint_eq(m->addr, model[i].addr);
		ck_assert_uint_eq(m->tsc_begin, model[i].begin);
		ck_assert_uint_eq(m->tsc_end, model[i].end);
	}

	/* The mapping holding IP at TSC: the one alive (there is at most
	 * one), else the latest that ever held IP. */
	for (q = 0; q < 20000; q++) {
		uint64_t ip = BASE - PAGE + next_random() % (SPAN + 6 * PAGE);
		uint64_t tsc = next_random() % (last_tsc + 3);
		const struct image_mapping *got = image_set_lookup(set, ip, tsc);
		long want = -1, alive = -1;

		for (i = 0; i < nmodel; i++) {
			if (ip < model[i].addr || ip >= model[i].addr + model[i].len)
				continue;
			want = (long)i;
			if (model_alive(&model[i], tsc)) {
				ck_assert_msg(alive < 0, "two mappings alive at once");
				alive = (long)i;
			}
		}
		if (alive >= 0)
			want = alive;
		ck_assert_msg(want < 0 ? got == NULL
				       : got == image_set_mapping(set, (size_t)want),
			      "lookup 0x%llx at %llu: got mapping %ld, want %ld",
			      (unsigned long long)ip, (unsigned long long)tsc,
			      got ? (long)(got - image_set_mapping(set, 0)) : -1L,
			      want);
	}

	/* Windows: the layers (born in the window, then alive at its start,
	 * each in sideband order, those with code) and the code read. */
	for (q = 0; q < 600; q++) {
		uint64_t begin = next_random() % (last_tsc + 3);
		uint64_t end = begin + next_random() % 40;
		uint32_t want[2 * NEVENTS];
		const uint32_t *layers;
		size_t nwant = 0, nlayers, role, k;
		unsigned epoch;

		ck_assert_int_eq(image_set_for_window(set, begin, end, &epoch), 0);
		for (role = 0; role < 2; role++)
			for (i = 0; i < nmodel; i++) {
				bool born = model[i].begin > begin && model[i].begin <= end;
				bool at_start = model_alive(&model[i], begin);

				if ((role == 0 ? born : at_start) &&
				    image_set_mapping(set, i)->code_size)
					want[nwant++] = (uint32_t)i;
			}
		nlayers = image_epoch_layers(set, epoch, &layers);
		ck_assert_uint_eq(nlayers, nwant);
		for (k = 0; k < nwant; k++)
			ck_assert_uint_eq(layers[k], want[k]);
		for (k = 0; k < 50; k++) {
			uint64_t ip = BASE - PAGE + next_random() % (SPAN + 6 * PAGE);
			const struct image_mapping *owner = NULL;
			const uint8_t *code;
			size_t avail = 0, l;

			for (l = 0; l < nwant; l++) {
				const struct image_mapping *m = image_set_mapping(set, want[l]);

				if (ip >= m->addr && ip < m->addr + m->code_size)
					owner = m;
			}
			code = image_epoch_code(set, epoch, ip, &avail);
			ck_assert_msg(!code == !owner, "window [%llu, %llu] 0x%llx: "
				      "code %p, owner %p", (unsigned long long)begin,
				      (unsigned long long)end, (unsigned long long)ip,
				      (const void *)code, (const void *)owner);
			ck_assert_int_eq(image_epoch_mapping(set, epoch, ip),
					 owner ? (long)(owner - image_set_mapping(set, 0))
					       : -1L);
			check_read(set, epoch, want, nwant, file, ip);
			if (!owner)
				continue;
			ck_assert_uint_ge(avail, 1);
			ck_assert_uint_le(ip + avail, owner->addr + owner->code_size);
			ck_assert_int_eq(*code, file[owner->pgoff + ip - owner->addr]);
		}
	}
	/* The view at the end: the mappings never ended, with code. */
	{
		uint32_t want[NEVENTS];
		const uint32_t *layers;
		size_t nwant = 0, nlayers, k;
		unsigned epoch;

		ck_assert_int_eq(image_set_at_end(set, &epoch), 0);
		for (i = 0; i < nmodel; i++)
			if (model[i].end == UINT64_MAX &&
			    image_set_mapping(set, i)->code_size)
				want[nwant++] = (uint32_t)i;
		nlayers = image_epoch_layers(set, epoch, &layers);
		ck_assert_uint_eq(nlayers, nwant);
		for (k = 0; k < nwant; k++)
			ck_assert_uint_eq(layers[k], want[k]);
		for (k = 0; k < 200; k++)
			check_read(set, epoch, want, nwant, file,
				   BASE - PAGE + next_random() % (SPAN + 6 * PAGE));
	}
	image_set_free(set);
	hwtr_recording_close(rec);
	free(file);
	fixture_cleanup();
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("views");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, views_and_lookups_are_the_models);
	return check_run_tcase("image", tc);
}
