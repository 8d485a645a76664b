/* test-values.c: registers and memory at past positions from a data log
 * (values.c, values-index.c; the format in values-format.h).
 *
 * Logs are written here byte by byte beside the fixture's main path (29
 * instructions, thread 1), so the expected values are the ones written:
 * registers redo (the latest at or before a position, a later record of the
 * same position winning), memory undo (the first record at or after the
 * position), and every way a log is refused rather than believed.  The
 * positions and PCs come from the fixture's labels.
 */
#include "fixture.h"
#include "values-format.h"
#include "values-access.h"
#include "values-seek.h"
#include "check-main.h"

#include <check.h>
#include <jansson.h>
#include <zlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct log {
	uint8_t b[65536];
	size_t n;
	uint64_t last;	/* the position the last record gave */
	uint64_t last_addr;	/* the address the last memory record gave */
};

static void put(struct log *l, const void *p, size_t n)
{
	ck_assert_uint_le(l->n + n, sizeof(l->b));
	memcpy(l->b + l->n, p, n);
	l->n += n;
}

static void put8(struct log *l, uint8_t v) { put(l, &v, 1); }
static void put32(struct log *l, uint32_t v) { put(l, &v, 4); }
static void put64(struct log *l, uint64_t v) { put(l, &v, 8); }

/* An unsigned LEB128 number, as values-format.h says. */
static void putvar(struct log *l, uint64_t v)
{
	while (v >= 0x80) {
		put8(l, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	put8(l, (uint8_t)v);
}

/* POS as a record gives it: the difference from the last (dpos). */
static void putpos(struct log *l, uint64_t pos)
{
	ck_assert_uint_ge(pos, l->last);
	putvar(l, pos - l->last);
	l->last = pos;
}

/* ADDR as a memory record gives it: the difference from the last one's,
 * zigzag (daddr). */
static void putaddr(struct log *l, uint64_t addr)
{
	int64_t d = (int64_t)(addr - l->last_addr);

	putvar(l, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
	l->last_addr = addr;
}

static void log_begin(struct log *l, uint32_t version)
{
	l->n = 0;
	l->last = 0;
	l->last_addr = 0;
	put(l, HWTR_VALUES_MAGIC, 8);
	put32(l, version);
	put32(l, HWTR_VALUES_HEADER_SIZE);
}

static void log_thread_of(struct log *l, uint32_t lwpid, uint64_t pos,
			  uint64_t global)
{
	put8(l, HWTR_VREC_THREAD);
	put32(l, lwpid);
	put64(l, pos);
	put64(l, global);
	l->last = pos;
	l->last_addr = 0;
}

/* The fixture's thread (lwpid 1) runs on at POS. */
static void log_thread(struct log *l, uint64_t pos, uint64_t global)
{
	log_thread_of(l, 1, pos, global);
}

/* A full snapshot at POS: GPR i = BASE + i, rflags FLAGS, rip RIP, ymm
 * byte i = i, the FPU state an empty x87 stack (every value 0, no tag
 * full, the top 0, rounding to nearest), the rest 0. */
static void log_snapshot(struct log *l, uint64_t pos, uint64_t base,
			 uint64_t flags, uint64_t rip)
{
	unsigned i;

	put8(l, HWTR_VREC_REGS);
	putpos(l, pos);
	putvar(l, HWTR_VREG_ALL);
	for (i = 0; i < 16; i++)
		putvar(l, base + i);
	putvar(l, flags);
	putvar(l, 0);	/* fs_base */
	putvar(l, 0);	/* gs_base */
	for (i = 0; i < 16 * 32; i++)
		put8(l, (uint8_t)i);
	putvar(l, rip);
	for (i = 0; i < HWTR_VREG_FPU_SIZE; i++)
		put8(l, 0);
}

/* rax at POS, in a REGS record's short form or, with MASKED, its general
 * form. */
static void log_rax_as(struct log *l, uint64_t pos, uint64_t rax, bool masked)
{
	if (masked) {
		put8(l, HWTR_VREC_REGS);
		putpos(l, pos);
		putvar(l, 1);
	} else {
		put8(l, HWTR_VREC_REGS_ONE | HWTR_VREG_GPR0);
		putpos(l, pos);
	}
	putvar(l, rax);
}

static void log_rax(struct log *l, uint64_t pos, uint64_t rax)
{
	log_rax_as(l, pos, rax, false);
}

/* rax and rflags at POS, in short form. */
static void log_rax_flags(struct log *l, uint64_t pos, uint64_t rax,
			  uint64_t flags)
{
	put8(l, HWTR_VREC_REGS_ONE | HWTR_VREC_REGS_AND_FLAGS | HWTR_VREG_GPR0);
	putpos(l, pos);
	putvar(l, rax);
	putvar(l, flags);
}

static void log_store(struct log *l, uint64_t pos, uint64_t addr,
		      const char *old)
{
	put8(l, HWTR_VREC_STORE);
	putpos(l, pos);
	putaddr(l, addr);
	putvar(l, strlen(old));
	put(l, old, strlen(old));
}

static void log_unknown(struct log *l, uint64_t pos, uint64_t addr,
			uint64_t len)
{
	put8(l, HWTR_VREC_UNKNOWN);
	putpos(l, pos);
	putaddr(l, addr);
	putvar(l, len);
}

/* END: HWTR_VALUES_SYNC_* (false and true: more, end). */
static void log_sync(struct log *l, int end, uint64_t count)
{
	put8(l, HWTR_VREC_SYNC);
	put8(l, (uint8_t)end);
	put32(l, 1);
	put32(l, 1);
	put64(l, count);
}

/* The history of the trace PATH writes with LOG as its data log, named in
 * the manifest with VERSION. */
static void open_path_with_log(struct fixture_history *h,
			       void (*path_of)(struct trace *),
			       const struct log *l, int version)
{
	char dir[512], path[600];
	struct trace t;
	json_t *m;
	FILE *f;

	trace_begin(&t);
	path_of(&t);
	fixture_history_open(h, &t);
	snprintf(dir, sizeof(dir), "%s", hwtr_recording_path(h->rec));
	hwtr_history_free(h->history);
	hwtr_recording_close(h->rec);
	snprintf(path, sizeof(path), "%s/values", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(l->b, 1, l->n, f), l->n);
	fclose(f);
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	m = json_load_file(path, 0, NULL);
	ck_assert_ptr_nonnull(m);
	json_object_set_new(m, "values", json_pack("{s:s,s:i}", "path",
						   "values", "version",
						   version));
	ck_assert_int_eq(json_dump_file(m, path, 0), 0);
	json_decref(m);
	ck_assert_int_eq(hwtr_recording_open(dir, &h->rec), 0);
	ck_assert_int_eq(hwtr_history_build(h->rec, NULL, &h->history), 0);
	h->thread = hwtr_history_thread(h->history, 0);
}

/* The main path's history with LOG as its data log. */
static void open_with_log(struct fixture_history *h, const struct log *l,
			  int version)
{
	open_path_with_log(h, trace_main_path, l, version);
}

/* The usual log: snapshot at 1, rax changes at 5 (twice: the second wins)
 * and 20, stores at 3 and 7, memory unmapped at 10, whole to 29; END as in
 * log_sync. */
static void usual_log(struct log *l, int end)
{
	log_begin(l, HWTR_VALUES_VERSION);
	log_thread(l, 0, 0);
	log_snapshot(l, 1, 0x100, 0x46, fixture_symbol("i1"));
	log_store(l, 3, 0x5000, "ab");
	log_rax_as(l, 5, 0x555, true);
	log_rax(l, 5, 0x5555);
	log_store(l, 7, 0x5001, "xy");
	log_unknown(l, 10, 0x5004, 4);
	log_rax_flags(l, 20, 0x2020, 0x83);
	log_sync(l, end, 29);
}

START_TEST(registers_are_the_latest_logged_at_or_before_the_position)
{
	struct fixture_history h;
	struct hwtr_values *v;
	struct log l;
	uint64_t r = 0, rip = 0;
	uint32_t eflags = 0;
	uint8_t xmm[16];

	usual_log(&l, true);
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_msg(hwtr_values_open(h.history, &v) == 0, "%s",
		      hwtr_last_error());
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(hwtr_values_register(v, h.thread, 1, hwtr_amd64_rax,
					      &r, 8), 8);
	ck_assert_uint_eq(r, 0x100);
	hwtr_values_register(v, h.thread, 4, hwtr_amd64_rax, &r, 8);
	ck_assert_uint_eq(r, 0x100);
	hwtr_values_register(v, h.thread, 5, hwtr_amd64_rax, &r, 8);
	ck_assert_uint_eq(r, 0x5555);
	hwtr_values_register(v, h.thread, 19, hwtr_amd64_rax, &r, 8);
	ck_assert_uint_eq(r, 0x5555);
	hwtr_values_register(v, h.thread, 29, hwtr_amd64_rax, &r, 8);
	ck_assert_uint_eq(r, 0x2020);
	/* GDB's order: rbx is VEX's fourth register, our second value. */
	hwtr_values_register(v, h.thread, 29, hwtr_amd64_rbx, &r, 8);
	ck_assert_uint_eq(r, 0x101);
	hwtr_values_register(v, h.thread, 29, hwtr_amd64_r15, &r, 8);
	ck_assert_uint_eq(r, 0x10f);
	/* IF and bit 1 are always set in user mode. */
	ck_assert_int_eq(hwtr_values_register(v, h.thread, 9,
					      hwtr_amd64_eflags, &eflags, 4), 4);
	ck_assert_uint_eq(eflags, 0x246);
	/* From the short record of rax and rflags at 20. */
	hwtr_values_register(v, h.thread, 19, hwtr_amd64_eflags, &eflags, 4);
	ck_assert_uint_eq(eflags, 0x246);
	hwtr_values_register(v, h.thread, 20, hwtr_amd64_eflags, &eflags, 4);
	ck_assert_uint_eq(eflags, 0x283);
	hwtr_values_register(v, h.thread, 20, hwtr_amd64_rbx, &r, 8);
	ck_assert_uint_eq(r, 0x101);
	ck_assert_int_eq(hwtr_values_register(v, h.thread, 9,
					      hwtr_amd64_xmm0 + 1, xmm, 16), 16);
	ck_assert_uint_eq(xmm[0], 32);
	ck_assert_uint_eq(xmm[15], 47);
	ck_assert_int_eq(hwtr_values_register(v, h.thread, 9,
					      hwtr_amd64_ymm0h + 1, xmm, 16), 16);
	ck_assert_uint_eq(xmm[0], 48);
	/* rip is the history's. */
	ck_assert_int_eq(hwtr_values_register(v, h.thread, 3, hwtr_amd64_rip,
					      &rip, 8), 8);
	ck_assert_uint_eq(rip, fixture_symbol(main_path_labels[2]));
	/* The x87 registers from the snapshot's FPU state (an empty stack
	 * of zeros: test-values-x87.c checks the rest of the mapping). */
	memset(xmm, 0xff, sizeof(xmm));
	ck_assert_int_eq(hwtr_values_register(v, h.thread, 9, hwtr_amd64_st0,
					      xmm, 16), 10);
	ck_assert_mem_eq(xmm, "\0\0\0\0\0\0\0\0\0\0", 10);
	r = 0;
	ck_assert_int_eq(hwtr_values_register(v, h.thread, 9,
					      hwtr_amd64_fctrl, &r, 8), 4);
	ck_assert_uint_eq(r, 0x37f);
	ck_assert_int_eq(hwtr_values_register(v, h.thread, 9,
					      hwtr_amd64_ftag, &r, 8), 4);
	ck_assert_uint_eq(r, 0xffff);
	/* Not logged: the x87 pointers and opcode, mxcsr, segment
	 * selectors. */
	ck_assert_int_eq(hwtr_values_register(v, h.thread, 9,
					      hwtr_amd64_fioff, &r, 8),
			 -hwtr_err_notfound);
	ck_assert_int_eq(hwtr_values_register(v, h.thread, 9,
					      hwtr_amd64_mxcsr, &r, 8),
			 -hwtr_err_notfound);
	ck_assert_int_eq(hwtr_values_register(v, h.thread, 9,
					      hwtr_amd64_cs, &r, 8),
			 -hwtr_err_notfound);
	ck_assert_int_eq(hwtr_values_register(v, h.thread, 30, hwtr_amd64_rax,
					      &r, 8), -hwtr_err_range);
	hwtr_values_free(v);
	fixture_history_close(&h);
}
END_TEST

static uint64_t u64(const uint8_t *b)
{
	uint64_t v;

	memcpy(&v, b, 8);
	return v;
}

/* GDB reads a position's registers one by one (the server's `g' reply asks
 * for every one): they come from one scan of the log from the snapshot,
 * not one scan each (values-regstate.h), and stepping forward goes on from
 * where the last scan stopped.  The values are the ones written: rax is
 * 0x1000 + its position from 2 on, the rest the snapshot's. */
START_TEST(a_position_s_registers_come_from_one_scan_of_the_log)
{
	struct fixture_history h;
	struct hwtr_values *v;
	struct log l;
	uint64_t n, before, records = 29;	/* snapshot, 27 rax, END */
	uint8_t buf[16];
	unsigned regno;
	int known = 0;

	log_begin(&l, HWTR_VALUES_VERSION);
	log_thread(&l, 0, 0);
	log_snapshot(&l, 1, 0x100, 0x46, fixture_symbol("i1"));
	for (n = 2; n <= 28; n++)
		log_rax(&l, n, 0x1000 + n);
	log_sync(&l, true, 29);
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_msg(hwtr_values_open(h.history, &v) == 0, "%s",
		      hwtr_last_error());
	for (regno = 0; regno < hwtr_amd64_nregs; regno++)
		known += hwtr_values_register(v, h.thread, 28, regno, buf,
					      sizeof(buf)) > 0;
	ck_assert_int_ge(known, 16 + 1 + 2 + 32 + 8 + 3);
	ck_assert_uint_le(values_register_records_read(v), records);
	hwtr_values_register(v, h.thread, 28, hwtr_amd64_rax, buf, 8);
	ck_assert_uint_eq(u64(buf), 0x1000 + 28);
	hwtr_values_register(v, h.thread, 28, hwtr_amd64_rbx, buf, 8);
	ck_assert_uint_eq(u64(buf), 0x101);
	/* Forward from the snapshot: one scan in all. */
	before = values_register_records_read(v);
	for (n = 1; n <= 28; n++) {
		hwtr_values_register(v, h.thread, n, hwtr_amd64_rax, buf, 8);
		ck_assert_uint_eq(u64(buf), n == 1 ? 0x100 : 0x1000 + n);
	}
	ck_assert_uint_le(values_register_records_read(v) - before, records);
	/* Backward: each position scans again from the snapshot, and must
	 * not keep what a later position set. */
	for (n = 28; n >= 1; n--) {
		hwtr_values_register(v, h.thread, n, hwtr_amd64_rax, buf, 8);
		ck_assert_uint_eq(u64(buf), n == 1 ? 0x100 : 0x1000 + n);
	}
	hwtr_values_free(v);
	fixture_history_close(&h);
}
END_TEST

static void memory_at(struct hwtr_values *v, struct hwtr_thread *t,
		      uint64_t number, char *states, char *bytes)
{
	uint8_t buf[8], st[8];
	int i;

	ck_assert_int_eq(hwtr_values_memory(v, t, number, 0x5000, buf, st, 8),
			 0);
	for (i = 0; i < 8; i++) {
		states[i] = "SOU"[st[i]];
		bytes[i] = st[i] == hwtr_value_old ? (char)buf[i] : '.';
	}
	states[8] = bytes[8] = 0;
}

START_TEST(memory_is_the_first_undo_record_at_or_after_the_position)
{
	struct fixture_history h;
	struct hwtr_values *v;
	struct log l;
	char st[9], b[9];

	usual_log(&l, true);
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_int_eq(hwtr_values_open(h.history, &v), 0);
	/* S: same as the end, O: old value, U: not known. */
	memory_at(v, h.thread, 1, st, b);
	ck_assert_str_eq(st, "OOOSUUUU");
	ck_assert_str_eq(b, "aby.....");
	memory_at(v, h.thread, 3, st, b);
	ck_assert_str_eq(st, "OOOSUUUU");
	ck_assert_str_eq(b, "aby.....");
	memory_at(v, h.thread, 4, st, b);
	ck_assert_str_eq(st, "SOOSUUUU");
	ck_assert_str_eq(b, ".xy.....");
	memory_at(v, h.thread, 8, st, b);
	ck_assert_str_eq(st, "SSSSUUUU");
	memory_at(v, h.thread, 11, st, b);
	ck_assert_str_eq(st, "SSSSSSSS");
	hwtr_values_free(v);
	fixture_history_close(&h);
}
END_TEST

/* Memory records give their address as the difference from the last
 * one's (daddr), going down as well as up, and from 0 again after a THREAD
 * record; each record is still read at its own address. */
START_TEST(memory_records_give_addresses_relative_to_the_last)
{
	struct fixture_history h;
	struct hwtr_values *v;
	struct log l;
	char st[9], b[9];

	log_begin(&l, HWTR_VALUES_VERSION);
	log_thread(&l, 0, 0);
	log_snapshot(&l, 1, 0x100, 0, fixture_symbol("i1"));
	log_store(&l, 3, 0x5002, "c");
	log_store(&l, 4, 0x5000, "ab");		/* 2 down */
	log_thread(&l, 5, 5);			/* restated: from 0 again */
	log_store(&l, 7, 0x5003, "d");
	log_unknown(&l, 9, 0x5006, 2);
	log_sync(&l, true, 29);
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_msg(hwtr_values_open(h.history, &v) == 0, "%s",
		      hwtr_last_error());
	memory_at(v, h.thread, 1, st, b);
	ck_assert_str_eq(st, "OOOOSSUU");
	ck_assert_str_eq(b, "abcd....");
	memory_at(v, h.thread, 5, st, b);
	ck_assert_str_eq(st, "SSSOSSUU");
	ck_assert_str_eq(b, "...d....");
	hwtr_values_free(v);
	fixture_history_close(&h);
}
END_TEST

/* Where a range last (or next) changed, for watchpoints: the log's STORE
 * and UNKNOWN records of the range, by the instruction that made them,
 * within the limit; another thread's stores are its own. */
static uint64_t change(struct hwtr_values *v, struct hwtr_thread *t,
		       uint64_t number, int direction, uint64_t limit,
		       uint64_t addr, uint64_t size, uint64_t *hit)
{
	uint64_t found = 0;
	int rc = hwtr_values_find_change(v, t, number, direction, limit, addr,
					 size, &found, hit);

	ck_assert_msg(rc >= 0, "%s", hwtr_last_error());
	return rc ? found : 0;
}

START_TEST(a_change_is_the_nearest_record_of_the_range)
{
	struct fixture_history h;
	struct hwtr_values *v;
	struct log l;
	uint64_t hit = 0, found;

	log_begin(&l, HWTR_VALUES_VERSION);
	log_thread(&l, 0, 0);
	log_snapshot(&l, 1, 0x100, 0, fixture_symbol("i1"));
	log_store(&l, 3, 0x5002, "c");
	log_store(&l, 4, 0x5000, "ab");
	log_store(&l, 5, 0x6000, "zz");		/* elsewhere */
	log_store(&l, 7, 0x5003, "d");
	log_unknown(&l, 9, 0x5006, 2);
	log_sync(&l, true, 29);
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_msg(hwtr_values_open(h.history, &v) == 0, "%s",
		      hwtr_last_error());
	/* Backward: the last one before the position. */
	ck_assert_uint_eq(change(v, h.thread, 29, -1, 1, 0x5000, 4, &hit), 7);
	ck_assert_uint_eq(hit, 0x5003);
	ck_assert_uint_eq(change(v, h.thread, 7, -1, 1, 0x5000, 4, &hit), 4);
	ck_assert_uint_eq(hit, 0x5000);
	ck_assert_uint_eq(change(v, h.thread, 4, -1, 1, 0x5000, 4, &hit), 3);
	ck_assert_uint_eq(hit, 0x5002);
	ck_assert_uint_eq(change(v, h.thread, 3, -1, 1, 0x5000, 4, &hit), 0);
	ck_assert_uint_eq(change(v, h.thread, 29, -1, 8, 0x5000, 4, &hit), 0);
	/* Forward: the first one at or after it. */
	ck_assert_uint_eq(change(v, h.thread, 1, 1, 29, 0x5000, 4, &hit), 3);
	ck_assert_uint_eq(change(v, h.thread, 4, 1, 29, 0x5000, 4, &hit), 4);
	ck_assert_uint_eq(change(v, h.thread, 5, 1, 29, 0x5000, 4, &hit), 7);
	ck_assert_uint_eq(change(v, h.thread, 8, 1, 29, 0x5000, 4, &hit), 0);
	ck_assert_uint_eq(change(v, h.thread, 1, 1, 2, 0x5000, 4, &hit), 0);
	/* One byte of a record is enough; made unknown is a change. */
	ck_assert_uint_eq(change(v, h.thread, 29, -1, 1, 0x5001, 1, &hit), 4);
	ck_assert_uint_eq(hit, 0x5001);
	ck_assert_uint_eq(change(v, h.thread, 8, 1, 29, 0x5007, 8, &hit), 9);
	ck_assert_uint_eq(hit, 0x5007);
	ck_assert_uint_eq(change(v, h.thread, 29, -1, 1, 0x5008, 8, &hit), 0);
	/* An empty range is an error, not "none". */
	ck_assert_int_lt(hwtr_values_find_change(v, h.thread, 29, -1, 1, 0x5000,
						 0, &found, &hit), 0);
	hwtr_values_free(v);
	fixture_history_close(&h);
}
END_TEST

START_TEST(a_change_is_not_found_in_a_log_cut_off)
{
	struct fixture_history h;
	struct hwtr_values *v;
	struct log l;
	uint64_t found, hit;

	log_begin(&l, HWTR_VALUES_VERSION);
	log_thread(&l, 0, 0);
	log_snapshot(&l, 1, 0x100, 0, fixture_symbol("i1"));
	log_store(&l, 3, 0x5000, "ab");
	log_rax(&l, 6, 0x66);
	l.n -= 3;	/* the last record is cut */
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_msg(hwtr_values_open(h.history, &v) == 0, "%s",
		      hwtr_last_error());
	/* Stores after the cut are not in it: "none" would be a guess. */
	ck_assert_int_eq(hwtr_values_find_change(v, h.thread, 29, -1, 1, 0x5000,
						 2, &found, &hit),
			 -hwtr_err_notfound);
	hwtr_values_free(v);
	fixture_history_close(&h);
}
END_TEST

START_TEST(a_log_cut_off_gives_registers_but_no_memory)
{
	struct fixture_history h;
	struct hwtr_values *v;
	struct log l;
	char st[9], b[9];
	uint64_t r;

	log_begin(&l, HWTR_VALUES_VERSION);
	log_thread(&l, 0, 0);
	log_snapshot(&l, 1, 0x100, 0, fixture_symbol("i1"));
	log_store(&l, 3, 0x5000, "ab");
	log_rax(&l, 6, 0x66);
	l.n -= 3;	/* the last record is cut */
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_msg(hwtr_values_open(h.history, &v) == 0, "%s",
		      hwtr_last_error());
	ck_assert_int_eq(hwtr_values_register(v, h.thread, 3, hwtr_amd64_rax,
					      &r, 8), 8);
	ck_assert_uint_eq(r, 0x100);
	/* Position 6's record is incomplete: from 4 on nothing is known. */
	ck_assert_int_eq(hwtr_values_register(v, h.thread, 4, hwtr_amd64_rax,
					      &r, 8), -hwtr_err_notfound);
	memory_at(v, h.thread, 1, st, b);
	ck_assert_str_eq(st, "UUUUUUUU");
	hwtr_values_free(v);
	fixture_history_close(&h);
}
END_TEST

/* Live mode: at a debugger's stop the log's last record is a SYNC marked
 * stopped, and the live process is the end state: memory is known as with
 * an ended log.  Once the program ran on (records after it, no new stop)
 * it is not; and a stop whose count is not the history's is refused. */
START_TEST(a_log_stopped_live_is_whole_up_to_its_last_sync)
{
	struct fixture_history h;
	struct hwtr_values *v = NULL;
	struct log l;
	char st[9], b[9];

	usual_log(&l, HWTR_VALUES_SYNC_STOPPED);
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_msg(hwtr_values_open(h.history, &v) == 0, "%s",
		      hwtr_last_error());
	memory_at(v, h.thread, 1, st, b);
	ck_assert_str_eq(st, "OOOSUUUU");
	ck_assert_str_eq(b, "aby.....");
	memory_at(v, h.thread, 11, st, b);
	ck_assert_str_eq(st, "SSSSSSSS");
	hwtr_values_free(v);
	fixture_history_close(&h);

	usual_log(&l, HWTR_VALUES_SYNC_STOPPED);
	log_thread(&l, 29, 29);		/* it ran on */
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_msg(hwtr_values_open(h.history, &v) == 0, "%s",
		      hwtr_last_error());
	memory_at(v, h.thread, 11, st, b);
	ck_assert_str_eq(st, "UUUUUUUU");
	hwtr_values_free(v);
	fixture_history_close(&h);

	log_begin(&l, HWTR_VALUES_VERSION);
	log_thread(&l, 0, 0);
	log_snapshot(&l, 1, 0x100, 0, fixture_symbol("i1"));
	log_sync(&l, HWTR_VALUES_SYNC_STOPPED, 28);
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	v = NULL;
	ck_assert_int_eq(hwtr_values_open(h.history, &v), -hwtr_err_format);
	ck_assert_ptr_null(v);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "counts 28"));
	fixture_history_close(&h);
}
END_TEST

START_TEST(a_log_that_counts_other_instructions_is_refused)
{
	struct fixture_history h;
	struct hwtr_values *v = NULL;
	struct log l;

	log_begin(&l, HWTR_VALUES_VERSION);
	log_thread(&l, 0, 0);
	log_snapshot(&l, 1, 0x100, 0, fixture_symbol("i1"));
	log_sync(&l, true, 28);
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_int_eq(hwtr_values_open(h.history, &v), -hwtr_err_format);
	ck_assert_ptr_null(v);
	ck_assert_str_eq(hwtr_last_error(), "values: thread 1: the data log "
			 "counts 28 instructions, the history 29: the log does "
			 "not match the trace and is not used");
	fixture_history_close(&h);
}
END_TEST

/* The main path twice, tracing stopped at the first one's system call and
 * started again at i1 (as an exec leaves the trace of the program that
 * exec'd and starts the next one's): 29 instructions, a gap (30), 29. */
static void trace_main_path_twice(struct trace *t)
{
	trace_main_path(t);
	enc_tip_pge(t, fixture_symbol("i1"));
	enc_tnt(t, "1111");
	trace_main_path_from_loop(t);
}

/* After an exec the log is the last image's (the Valgrind tool starts it
 * again): it counts the second run's 29 instructions, and is placed after
 * the gap, each snapshot's rip checked there; the first run has no values,
 * and a search for a change that reaches back into it and finds none in the
 * log says it cannot tell.  Placed anywhere but right after a gap, or with
 * a snapshot's rip not the history's, the log is refused. */
START_TEST(a_log_that_begins_after_an_exec_is_placed_after_its_gap)
{
	struct fixture_history h;
	struct hwtr_thread_stats stats;
	struct hwtr_values *v = NULL;
	struct log l;
	uint64_t r = 0, first = 0, found = 0, hit = 0;
	char st[9], b[9];

	usual_log(&l, true);
	open_path_with_log(&h, trace_main_path_twice, &l, HWTR_VALUES_VERSION);
	ck_assert_int_eq(hwtr_thread_stats(h.thread, &stats), 0);
	ck_assert_uint_eq(stats.instructions, 59);
	ck_assert_uint_eq(stats.gaps, 1);
	ck_assert_msg(hwtr_values_open(h.history, &v) == 0, "%s",
		      hwtr_last_error());
	ck_assert_int_eq(hwtr_values_first_known(v, h.thread, &first), 0);
	ck_assert_uint_eq(first, 31);
	ck_assert_int_eq(hwtr_values_register(v, h.thread, 31, hwtr_amd64_rax,
					      &r, 8), 8);
	ck_assert_uint_eq(r, 0x100);
	hwtr_values_register(v, h.thread, 35, hwtr_amd64_rax, &r, 8);
	ck_assert_uint_eq(r, 0x5555);
	hwtr_values_register(v, h.thread, 59, hwtr_amd64_rax, &r, 8);
	ck_assert_uint_eq(r, 0x2020);
	ck_assert_int_eq(hwtr_values_register(v, h.thread, 29, hwtr_amd64_rax,
					      &r, 8), -hwtr_err_notfound);
	ck_assert_int_eq(hwtr_values_register(v, h.thread, 1, hwtr_amd64_rax,
					      &r, 8), -hwtr_err_notfound);
	/* Memory as usual_log's at 1, 4 and 11, 30 numbers on. */
	memory_at(v, h.thread, 31, st, b);
	ck_assert_str_eq(st, "OOOSUUUU");
	ck_assert_str_eq(b, "aby.....");
	memory_at(v, h.thread, 34, st, b);
	ck_assert_str_eq(st, "SOOSUUUU");
	memory_at(v, h.thread, 41, st, b);
	ck_assert_str_eq(st, "SSSSSSSS");
	memory_at(v, h.thread, 29, st, b);
	ck_assert_str_eq(st, "UUUUUUUU");
	/* The stores of 0x5000 at log positions 3 and 7: 33 and 37. */
	ck_assert_uint_eq(change(v, h.thread, 59, -1, 31, 0x5000, 1, &hit), 33);
	ck_assert_uint_eq(change(v, h.thread, 31, 1, 59, 0x5001, 1, &hit), 33);
	ck_assert_int_eq(hwtr_values_find_change(v, h.thread, 33, -1, 1, 0x5000,
						 1, &found, &hit),
			 -hwtr_err_notfound);
	ck_assert_int_eq(hwtr_values_find_change(v, h.thread, 20, 1, 59, 0x5000,
						 1, &found, &hit),
			 -hwtr_err_notfound);
	hwtr_values_free(v);
	fixture_history_close(&h);

	/* 30 instructions: it would begin at the first run's last one. */
	usual_log(&l, true);
	l.n -= 8;
	put64(&l, 30);
	open_path_with_log(&h, trace_main_path_twice, &l, HWTR_VALUES_VERSION);
	v = NULL;
	ck_assert_int_eq(hwtr_values_open(h.history, &v), -hwtr_err_format);
	ck_assert_ptr_null(v);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "counts 30"));
	fixture_history_close(&h);

	/* After the gap, but its snapshot's rip is not the history's. */
	log_begin(&l, HWTR_VALUES_VERSION);
	log_thread(&l, 0, 0);
	log_snapshot(&l, 1, 0x100, 0, fixture_symbol("i2"));
	log_sync(&l, true, 29);
	open_path_with_log(&h, trace_main_path_twice, &l, HWTR_VALUES_VERSION);
	ck_assert_int_eq(hwtr_values_open(h.history, &v), -hwtr_err_format);
	ck_assert_ptr_null(v);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "rip"));
	fixture_history_close(&h);
}
END_TEST

START_TEST(a_log_whose_snapshot_pc_differs_is_refused)
{
	struct fixture_history h;
	struct hwtr_values *v = NULL;
	struct log l;

	log_begin(&l, HWTR_VALUES_VERSION);
	log_thread(&l, 0, 0);
	log_snapshot(&l, 1, 0x100, 0, fixture_symbol("i2"));
	log_sync(&l, true, 29);
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_int_eq(hwtr_values_open(h.history, &v), -hwtr_err_format);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "values: thread 1: the "
				     "data log has rip "));
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), " at position 1, the "
				     "history "));
	fixture_history_close(&h);
}
END_TEST

START_TEST(newer_versions_and_bad_records_are_refused_by_name)
{
	struct fixture_history h;
	struct hwtr_values *v = NULL;
	struct log l;
	char want[256];

	usual_log(&l, true);
	open_with_log(&h, &l, HWTR_VALUES_VERSION + 1);
	ck_assert_int_eq(hwtr_values_open(h.history, &v), -hwtr_err_version);
	snprintf(want, sizeof(want), "%s: manifest: data log \"values\" is "
		 "version %d; this reader reads versions %d to %d",
		 hwtr_recording_path(h.rec), HWTR_VALUES_VERSION + 1,
		 HWTR_VALUES_OLDEST_VERSION, HWTR_VALUES_VERSION);
	ck_assert_str_eq(hwtr_last_error(), want);
	fixture_history_close(&h);

	usual_log(&l, true);
	l.b[8] = HWTR_VALUES_VERSION + 1;
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_int_eq(hwtr_values_open(h.history, &v), -hwtr_err_version);
	snprintf(want, sizeof(want), "values: offset 8: data log version %d",
		 HWTR_VALUES_VERSION + 1);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), want));
	fixture_history_close(&h);

	/* Versions 1 (fixed-size fields), 2 (whole positions) and 3 (no
	 * FPU state) are refused, naming their version, in the manifest and
	 * in the log. */
	for (int old = 1; old <= 3; old++) {
		usual_log(&l, true);
		l.b[8] = (uint8_t)old;
		open_with_log(&h, &l, old);
		ck_assert_int_eq(hwtr_values_open(h.history, &v),
				 -hwtr_err_version);
		snprintf(want, sizeof(want), "data log \"values\" is version "
			 "%d; this reader reads versions 4 to 5", old);
		ck_assert_msg(strstr(hwtr_last_error(), want) != NULL, "%s",
			      hwtr_last_error());
		fixture_history_close(&h);

		usual_log(&l, true);
		l.b[8] = (uint8_t)old;
		open_with_log(&h, &l, HWTR_VALUES_VERSION);
		ck_assert_int_eq(hwtr_values_open(h.history, &v),
				 -hwtr_err_version);
		snprintf(want, sizeof(want), "values: offset 8: data log "
			 "version %d; this reader reads versions 4 to 5", old);
		ck_assert_msg(strstr(hwtr_last_error(), want) != NULL, "%s",
			      hwtr_last_error());
		fixture_history_close(&h);
	}

	/* A header of another size is named as such, not as a version. */
	usual_log(&l, true);
	l.b[12] = 20;
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_int_eq(hwtr_values_open(h.history, &v), -hwtr_err_format);
	snprintf(want, sizeof(want), "values: offset 12: a data log header of "
		 "20 bytes; version %d's has 16", HWTR_VALUES_VERSION);
	ck_assert_msg(strstr(hwtr_last_error(), want) != NULL, "%s",
		      hwtr_last_error());
	fixture_history_close(&h);

	/* A position that overflows 64 bits is named, not wrapped. */
	log_begin(&l, HWTR_VALUES_VERSION);
	log_thread(&l, UINT64_MAX - 1, 0);
	put8(&l, HWTR_VREC_REGS_ONE | HWTR_VREG_GPR0);
	putvar(&l, 2);
	putvar(&l, 7);
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_int_eq(hwtr_values_open(h.history, &v), -hwtr_err_format);
	ck_assert_msg(strstr(hwtr_last_error(), "values: offset 37: position "
			     "18446744073709551614 + 2 overflows") != NULL,
		      "%s", hwtr_last_error());
	ck_assert_ptr_null(v);
	fixture_history_close(&h);

	/* A number longer than 64 bits: the byte that overflows is named (the
	 * record at 37, its tenth byte). */
	log_begin(&l, HWTR_VALUES_VERSION);
	log_thread(&l, 0, 0);
	put8(&l, HWTR_VREC_STORE);
	for (int i = 0; i < 10; i++)
		put8(&l, 0xff);
	put8(&l, 1);
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_int_eq(hwtr_values_open(h.history, &v), -hwtr_err_format);
	ck_assert_msg(strstr(hwtr_last_error(), "values: offset 47: a number "
			     "longer than 64 bits") != NULL, "%s",
		      hwtr_last_error());
	ck_assert_ptr_null(v);
	fixture_history_close(&h);

	/* The short form of "rflags and rflags" is no record. */
	log_begin(&l, HWTR_VALUES_VERSION);
	log_thread(&l, 0, 0);
	put8(&l, HWTR_VREC_REGS_ONE | HWTR_VREC_REGS_AND_FLAGS |
		 HWTR_VREG_RFLAGS);
	putvar(&l, 1);
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_int_eq(hwtr_values_open(h.history, &v), -hwtr_err_format);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "values: offset 37: "
				     "unknown record type 208"));
	fixture_history_close(&h);

	log_begin(&l, HWTR_VALUES_VERSION);
	log_thread(&l, 0, 0);
	put8(&l, 99);
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_int_eq(hwtr_values_open(h.history, &v), -hwtr_err_format);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "values: offset 37: "
				     "unknown record type 99"));
	ck_assert_ptr_null(v);
	fixture_history_close(&h);
}
END_TEST

/* The tail of the main path (hwtr_history_build_tail: its last chunk,
 * whole instructions 14 to 29, numbered 1 to 16; test-history-tail.c)
 * with a log of the whole: snapshots at 1 and at 20 (the tail's 7, at its
 * label's PC), rax changes at 5 and 25, a store at 22, whole to 29. */
#define TAIL_BASE 13

static void tail_log(struct log *l, int end, uint64_t tail_rip, uint64_t count)
{
	log_begin(l, HWTR_VALUES_VERSION);
	log_thread(l, 0, 0);
	log_snapshot(l, 1, 0x100, 0, fixture_symbol("i1"));
	log_rax(l, 5, 0x5555);
	if (tail_rip)
		log_snapshot(l, 20, 0x200, 0, tail_rip);
	log_store(l, 22, 0x5000, "ab");
	log_rax(l, 25, 0x2525);
	log_sync(l, end, count);
}

static struct hwtr_history *tail_of(struct fixture_history *h)
{
	struct hwtr_history *tail;
	struct hwtr_thread_stats st;

	ck_assert_int_eq(hwtr_history_build_tail(h->rec, NULL, 1, &tail), 0);
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_thread(tail, 0), &st), 0);
	ck_assert_uint_eq(st.instructions, 29 - TAIL_BASE);
	return tail;
}

START_TEST(a_tail_counts_back_from_the_log_end)
{
	struct fixture_history h;
	struct hwtr_history *tail;
	struct hwtr_thread *tt;
	struct hwtr_values *v;
	struct log l;
	uint64_t r = 0, rip = 0;
	char st[9], b[9];
	int pass;

	tail_log(&l, true, fixture_symbol(main_path_labels[19]), 29);
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	tail = tail_of(&h);
	tt = hwtr_history_thread(tail, 0);
	ck_assert_msg(hwtr_values_load(h.rec, &v) == 0, "%s", hwtr_last_error());
	ck_assert_ptr_nonnull(v);
	/* Bound to no history yet. */
	ck_assert_int_eq(hwtr_values_register(v, tt, 1, hwtr_amd64_rax, &r, 8),
			 -hwtr_err_invalid);
	/* The tail, then the whole (as the server switches): the same
	 * values at the same instructions, the ones the log was written
	 * with. */
	for (pass = 0; pass < 2; pass++) {
		struct hwtr_thread *t = pass ? h.thread : tt;
		uint64_t base = pass ? TAIL_BASE : 0;

		ck_assert_msg(hwtr_values_bind(v, pass ? h.history : tail) == 0,
			      "%s", hwtr_last_error());
		/* From the snapshot at 1, before the tail began. */
		ck_assert_int_eq(hwtr_values_register(v, t, base + 1,
						      hwtr_amd64_rax, &r, 8), 8);
		ck_assert_uint_eq(r, 0x5555);
		ck_assert_int_eq(hwtr_values_register(v, t, base + 6,
						      hwtr_amd64_rbx, &r, 8), 8);
		ck_assert_uint_eq(r, 0x101);
		/* Whole 20: the snapshot in the tail. */
		hwtr_values_register(v, t, base + 7, hwtr_amd64_rbx, &r, 8);
		ck_assert_uint_eq(r, 0x201);
		hwtr_values_register(v, t, base + 11, hwtr_amd64_rax, &r, 8);
		ck_assert_uint_eq(r, 0x200);
		hwtr_values_register(v, t, base + 12, hwtr_amd64_rax, &r, 8);
		ck_assert_uint_eq(r, 0x2525);
		ck_assert_int_eq(hwtr_values_register(v, t, base + 1,
						      hwtr_amd64_rip, &rip, 8), 8);
		ck_assert_uint_eq(rip, fixture_symbol(main_path_labels[TAIL_BASE]));
		/* The store at 22 (the tail's 9). */
		memory_at(v, t, base + 9, st, b);
		ck_assert_str_eq(b, "ab......");
		memory_at(v, t, base + 10, st, b);
		ck_assert_str_eq(st, "SSSSSSSS");
	}
	hwtr_values_free(v);
	hwtr_history_free(tail);
	fixture_history_close(&h);
}
END_TEST

/* Where the log cannot prove where the tail is in it, the tail gets no
 * values (the caller waits for the whole history), and the whole still
 * gets them where the log matches it. */
START_TEST(a_tail_the_log_cannot_place_gets_no_values)
{
	static const struct {
		int end;
		const char *tail_label;	/* the snapshot at 20's PC, or none */
		uint64_t count;
		int err, whole_err;
		const char *message;
	} cases[] = {
		/* No snapshot in the tail: nothing to check against. */
		{ true, NULL, 29, -hwtr_err_notfound, 0,
		  "no register snapshot of the data log falls in the end of "
		  "the trace decoded first (positions 14 to 29)" },
		/* A snapshot whose PC is another instruction's. */
		{ true, "i2", 29, -hwtr_err_format, -hwtr_err_format,
		  "the data log has rip " },
		/* A log without its end: where the end is, is not known. */
		{ false, "", 29, -hwtr_err_notfound, 0, "the data log has no "
		  "end record" },
		/* A log of fewer instructions than the tail has. */
		{ true, "", 10, -hwtr_err_format, -hwtr_err_format,
		  "the data log counts 10 instructions, the end of the trace "
		  "alone 16" },
	};
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct fixture_history h;
		struct hwtr_history *tail;
		struct hwtr_values *v;
		struct log l;
		uint64_t r;
		uint64_t rip = !cases[k].tail_label ? 0
			       : *cases[k].tail_label
			       ? fixture_symbol(cases[k].tail_label)
			       : fixture_symbol(main_path_labels[19]);

		tail_log(&l, cases[k].end, rip, cases[k].count);
		open_with_log(&h, &l, HWTR_VALUES_VERSION);
		tail = tail_of(&h);
		ck_assert_int_eq(hwtr_values_load(h.rec, &v), 0);
		ck_assert_int_eq(hwtr_values_bind(v, tail), cases[k].err);
		ck_assert_msg(strstr(hwtr_last_error(), cases[k].message),
			      "case %zu: %s", k, hwtr_last_error());
		ck_assert_int_eq(hwtr_values_register(v, hwtr_history_thread(tail, 0),
						      16, hwtr_amd64_rax, &r, 8),
				 -hwtr_err_invalid);
		ck_assert_int_eq(hwtr_values_bind(v, h.history), cases[k].whole_err);
		if (!cases[k].whole_err) {
			ck_assert_int_eq(hwtr_values_register(v, h.thread, 29,
							      hwtr_amd64_rax,
							      &r, 8), 8);
			ck_assert_uint_eq(r, 0x2525);
		}
		hwtr_values_free(v);
		hwtr_history_free(tail);
		fixture_history_close(&h);
	}
}
END_TEST

/* A log with restart points and a seek table (values-format.h, "Seeking"),
 * as the Valgrind tool writes it, for the main path's tail (whole 14 to
 * 29, log_base TAIL_BASE): restart points at 0, 11 and 19, each followed
 * by a snapshot (at 1, 12 and 20: the tail's 7, at its label's PC); before
 * the tail rax at 5 and a store at 8, in it rax at 13 (before the tail's
 * first instruction), a store at 22 and rax at 25; whole to 29.  The
 * table's entries (offset, pos, lwpid, CRC-32 to the next) are kept in
 * SEEK so that tests can damage what they name. */
struct seek_log {
	struct log l;
	size_t entry_offset[3], table, store_22;
};

static void seek_entry_begin(struct seek_log *s, int k, uint64_t pos)
{
	s->entry_offset[k] = s->l.n;
	log_thread(&s->l, pos, pos);
}

/* RESTATED: the snapshot at 12 comes twice, as the Valgrind tool writes it
 * when the instruction that had it faulted (values-format.h,
 * HWTR_VREC_REGS): first with the faulting instruction's rip (i1) and
 * other registers, then, after a THREAD record of position 11 and the
 * signal frame's store, restated at the handler's first instruction, the
 * history's instruction 12. */
static void seek_log_with(struct seek_log *s, bool restated)
{
	struct log *l = &s->l;
	static const uint64_t pos[3] = { 0, 11, 19 };
	size_t end_sync;
	uint32_t crc;
	int k;

	log_begin(l, HWTR_VALUES_VERSION);
	seek_entry_begin(s, 0, 0);
	log_snapshot(l, 1, 0x100, 0, fixture_symbol("i1"));
	log_rax(l, 5, 0x5555);
	log_store(l, 8, 0x5000, "zz");
	seek_entry_begin(s, 1, 11);
	if (restated) {
		log_snapshot(l, 12, 0x900, 0, fixture_symbol("i1"));
		log_thread(l, 11, 11);
		log_store(l, 11, 0x6000, "sf");
	}
	log_snapshot(l, 12, 0x300, 0, fixture_symbol(main_path_labels[11]));
	log_rax(l, 13, 0x1313);
	seek_entry_begin(s, 2, 19);
	log_snapshot(l, 20, 0x200, 0, fixture_symbol(main_path_labels[19]));
	s->store_22 = l->n;
	log_store(l, 22, 0x5000, "ab");
	log_rax(l, 25, 0x2525);
	end_sync = l->n;
	log_sync(l, true, 29);
	s->table = l->n;
	put8(l, HWTR_VREC_SEEK);
	put64(l, end_sync);
	put32(l, 3);
	for (k = 0; k < 3; k++) {
		size_t end = k < 2 ? s->entry_offset[k + 1] : s->table;

		put64(l, s->entry_offset[k]);
		put64(l, pos[k]);
		put32(l, 1);
		put32(l, (uint32_t)crc32(0, l->b + s->entry_offset[k],
					 (uInt)(end - s->entry_offset[k])));
	}
	crc = (uint32_t)crc32(0, l->b + s->table, (uInt)(l->n - s->table));
	put64(l, s->table);
	put32(l, crc);
	put32(l, 0);
	put(l, HWTR_VALUES_SEEK_MAGIC, 8);
}

static void seek_log(struct seek_log *s)
{
	seek_log_with(s, false);
}

START_TEST(a_tail_reads_the_log_from_the_restart_point_before_it)
{
	struct fixture_history h;
	struct hwtr_history *tail;
	struct hwtr_thread *tt;
	struct hwtr_values *v = NULL;
	struct seek_log s;
	uint64_t r = 0;
	char st[9], b[9];

	seek_log(&s);
	/* The part before the restart point at 11 is not a log at all: the
	 * tail's values can only come from the part after it. */
	s.l.b[s.entry_offset[0] + 21] = 0x7f;
	open_with_log(&h, &s.l, HWTR_VALUES_VERSION);
	ck_assert_int_eq(hwtr_values_open(h.history, &v), -hwtr_err_format);
	ck_assert_msg(strstr(hwtr_last_error(), "unknown record type 127"),
		      "%s", hwtr_last_error());
	tail = tail_of(&h);
	tt = hwtr_history_thread(tail, 0);
	ck_assert_msg(hwtr_values_load_tail(tail, &v) == 0, "%s",
		      hwtr_last_error());
	ck_assert_ptr_nonnull(v);
	/* The tail's 1 is whole 14: rax from 13, rbx from the snapshot at
	 * 12 (both written after the restart point at 11). */
	ck_assert_int_eq(hwtr_values_register(v, tt, 1, hwtr_amd64_rax, &r, 8), 8);
	ck_assert_uint_eq(r, 0x1313);
	ck_assert_int_eq(hwtr_values_register(v, tt, 1, hwtr_amd64_rbx, &r, 8), 8);
	ck_assert_uint_eq(r, 0x301);
	/* Whole 20, the snapshot there; whole 25. */
	hwtr_values_register(v, tt, 7, hwtr_amd64_rbx, &r, 8);
	ck_assert_uint_eq(r, 0x201);
	hwtr_values_register(v, tt, 12, hwtr_amd64_rax, &r, 8);
	ck_assert_uint_eq(r, 0x2525);
	/* Memory: the store at 22 undone back to the tail's 1 and 9, not
	 * after it (the store at 8 is before the tail: not needed). */
	memory_at(v, tt, 1, st, b);
	ck_assert_str_eq(st, "OOSSSSSS");
	ck_assert_str_eq(b, "ab......");
	memory_at(v, tt, 9, st, b);
	ck_assert_str_eq(b, "ab......");
	memory_at(v, tt, 10, st, b);
	ck_assert_str_eq(st, "SSSSSSSS");
	/* It holds the log from 11 on only: the whole history, which
	 * needs it from 0, is refused. */
	ck_assert_int_eq(hwtr_values_bind(v, h.history), -hwtr_err_notfound);
	ck_assert_msg(strstr(hwtr_last_error(), "does not reach back to "
			     "position 1"), "%s", hwtr_last_error());
	hwtr_values_free(v);
	hwtr_history_free(tail);
	fixture_history_close(&h);
}
END_TEST

/* hwtr_values_load_tail_back: the first values at the end need only the
 * log from the restart point before the last instructions asked for.  Here
 * the segment between the restart points at 11 and 19 is damaged (the rax
 * record at 13 changed: its CRC-32 no longer matches), so the whole tail's
 * part is refused; reading 1 instruction back (from the restart point at
 * 19) or 10 (29 - 10 = 19) does not touch it and gives the values written
 * after 19, from the tail's 7 (whole 20) on; older positions are not known
 * to it (not a value from elsewhere), and reading 11 back reaches the
 * damage and is refused by name.  Undamaged, 11 back reaches the tail's
 * start. */
START_TEST(a_tail_s_last_part_alone_gives_the_values_after_its_restart_point)
{
	struct fixture_history h;
	struct hwtr_history *tail;
	struct hwtr_thread *tt;
	struct hwtr_values *v = NULL;
	struct seek_log s;
	uint64_t r = 0, first = 0, back;
	char st[9], b[9];

	seek_log(&s);
	s.l.b[s.entry_offset[1] + 21 + (s.entry_offset[2] - s.entry_offset[1]
				       - 21) - 1] ^= 0x01;	/* rax at 13 */
	open_with_log(&h, &s.l, HWTR_VALUES_VERSION);
	tail = tail_of(&h);
	tt = hwtr_history_thread(tail, 0);
	ck_assert_int_eq(hwtr_values_load_tail(tail, &v), -hwtr_err_format);
	ck_assert_msg(strstr(hwtr_last_error(), "do not match the seek "
			     "table's CRC-32"), "%s", hwtr_last_error());
	for (back = 1; back <= 10; back += 9) {
		ck_assert_msg(hwtr_values_load_tail_back(tail, NULL, back, &v) == 0,
			      "%s", hwtr_last_error());
		ck_assert_int_eq(hwtr_values_first_known(v, tt, &first), 0);
		ck_assert_uint_eq(first, 20 - TAIL_BASE);
		hwtr_values_register(v, tt, 7, hwtr_amd64_rbx, &r, 8);
		ck_assert_uint_eq(r, 0x201);
		hwtr_values_register(v, tt, 12, hwtr_amd64_rax, &r, 8);
		ck_assert_uint_eq(r, 0x2525);
		ck_assert_int_eq(hwtr_values_register(v, tt, 6, hwtr_amd64_rbx,
						      &r, 8), -hwtr_err_notfound);
		memory_at(v, tt, 7, st, b);
		ck_assert_str_eq(st, "OOSSSSSS");
		ck_assert_str_eq(b, "ab......");
		memory_at(v, tt, 6, st, b);
		ck_assert_str_eq(st, "UUUUUUUU");
		hwtr_values_free(v);
		v = NULL;
	}
	ck_assert_int_eq(hwtr_values_load_tail_back(tail, NULL, 11, &v),
			 -hwtr_err_format);
	ck_assert_ptr_null(v);
	hwtr_history_free(tail);
	fixture_history_close(&h);

	seek_log(&s);
	open_with_log(&h, &s.l, HWTR_VALUES_VERSION);
	tail = tail_of(&h);
	tt = hwtr_history_thread(tail, 0);
	ck_assert_msg(hwtr_values_load_tail_back(tail, NULL, 11, &v) == 0, "%s",
		      hwtr_last_error());
	ck_assert_int_eq(hwtr_values_first_known(v, tt, &first), 0);
	ck_assert_uint_eq(first, 1);
	hwtr_values_register(v, tt, 1, hwtr_amd64_rax, &r, 8);
	ck_assert_uint_eq(r, 0x1313);
	hwtr_values_free(v);
	hwtr_history_free(tail);
	fixture_history_close(&h);
}
END_TEST

/* A log whose seek table is missing or does not check out gives the tail
 * nothing (the caller reads the whole log), saying why; the whole log is
 * still read as before, version 4's (no table) included. */
START_TEST(a_missing_or_damaged_seek_table_falls_back_to_the_whole_log)
{
	static const struct {
		const char *what;
		int version, err;
		const char *message;
	} cases[] = {
		{ "version 4", 4, -hwtr_err_notfound,
		  "data log version 4 has no seek table" },
		{ "cut off before the footer", 5, -hwtr_err_notfound,
		  "no seek table at the end (no HWTRSEEK)" },
		{ "an entry changed", 5, -hwtr_err_format,
		  "the seek table does not match its CRC-32" },
		{ "a byte after the restart point changed", 5, -hwtr_err_format,
		  "do not match the seek table's CRC-32" },
		{ "the footer points outside", 5, -hwtr_err_format,
		  "outside the log" },
	};
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct fixture_history h;
		struct hwtr_history *tail;
		struct hwtr_values *v = NULL;
		struct seek_log s;
		uint64_t r = 0;

		seek_log(&s);
		switch (k) {
		case 0:
			usual_log(&s.l, true);
			s.l.b[8] = 4;
			break;
		case 1:
			s.l.n -= 3;
			break;
		case 2:
			s.l.b[s.table + 13 + 24 + 8] ^= 1;	/* a pos */
			break;
		case 3:
			s.l.b[s.store_22 + 4] = 'X';	/* "ab" -> "Xb" */
			break;
		case 4:
			s.l.b[s.l.n - 24 + 7] = 0x40;
			break;
		}
		open_with_log(&h, &s.l, cases[k].version);
		tail = tail_of(&h);
		ck_assert_msg(hwtr_values_load_tail(tail, &v) == cases[k].err,
			      "%s: %s", cases[k].what, hwtr_last_error());
		ck_assert_msg(strstr(hwtr_last_error(), cases[k].message),
			      "%s: %s", cases[k].what, hwtr_last_error());
		ck_assert_ptr_null(v);
		/* The whole log is read from its start, as before. */
		ck_assert_msg(hwtr_values_load(h.rec, &v) == 0, "%s: %s",
			      cases[k].what, hwtr_last_error());
		ck_assert_int_eq(hwtr_values_bind(v, h.history), 0);
		ck_assert_int_eq(hwtr_values_register(v, h.thread, 6,
						      hwtr_amd64_rax, &r, 8), 8);
		ck_assert_uint_eq(r, 0x5555);
		hwtr_values_free(v);
		hwtr_history_free(tail);
		fixture_history_close(&h);
	}
}
END_TEST

/* The recorder's checksum of a finished log (values_seek_file_crc) is
 * zlib's CRC-32 of all its bytes, though it reads only the header, the
 * table and the footer; a log cut off, or whose table does not check out,
 * gives an error, on which the recorder reads the whole file. */
START_TEST(a_finished_log_s_crc_comes_from_its_seek_table)
{
	struct seek_log s;
	uint32_t crc = 0;

	seek_log(&s);
	ck_assert_int_eq(values_seek_file_crc(s.l.b, s.l.n, "values", &crc), 0);
	ck_assert_uint_eq(crc, (uint32_t)crc32(0, s.l.b, (uInt)s.l.n));
	/* Records before the first restart point are read, not assumed. */
	s.l.b[s.entry_offset[0] - 1] ^= 0x10;	/* the header's last byte */
	ck_assert_int_eq(values_seek_file_crc(s.l.b, s.l.n, "values", &crc), 0);
	ck_assert_uint_eq(crc, (uint32_t)crc32(0, s.l.b, (uInt)s.l.n));
	s.l.b[s.entry_offset[0] - 1] ^= 0x10;
	/* The table's entry changed: its own CRC no longer matches. */
	s.l.b[s.table + 13 + 8] ^= 1;
	ck_assert_int_lt(values_seek_file_crc(s.l.b, s.l.n, "values", &crc), 0);
	s.l.b[s.table + 13 + 8] ^= 1;
	/* Cut off: no footer. */
	ck_assert_int_lt(values_seek_file_crc(s.l.b, s.l.n - 3, "values", &crc),
			 0);
	ck_assert_int_lt(values_seek_file_crc(s.l.b, 10, "values", &crc), 0);
}
END_TEST

/* The instruction at 10 had a full snapshot and faulted: the tool took it
 * back and restated the snapshot at the instruction that came next at
 * position 10 (the signal handler's first), after a THREAD record of 9 and
 * the signal frame's store at 9.  The restated snapshot replaces the
 * first: its rip is checked, its registers given. */
START_TEST(a_snapshot_restated_at_its_position_replaces_the_first)
{
	struct fixture_history h;
	struct hwtr_values *v = NULL;
	struct log l;
	uint64_t r = 0;
	char st[9], b[9];

	ck_assert_uint_ne(fixture_symbol("i1"),
			  fixture_symbol(main_path_labels[9]));
	log_begin(&l, HWTR_VALUES_VERSION);
	log_thread(&l, 0, 0);
	log_snapshot(&l, 1, 0x100, 0, fixture_symbol("i1"));
	log_rax(&l, 5, 0x5555);
	log_snapshot(&l, 10, 0x900, 0, fixture_symbol("i1"));
	log_thread(&l, 9, 9);
	log_store(&l, 9, 0x5000, "sf");
	log_snapshot(&l, 10, 0xa00, 0, fixture_symbol(main_path_labels[9]));
	log_rax(&l, 12, 0x1212);
	log_sync(&l, true, 29);
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_msg(hwtr_values_open(h.history, &v) == 0, "%s",
		      hwtr_last_error());
	ck_assert_ptr_nonnull(v);
	hwtr_values_register(v, h.thread, 9, hwtr_amd64_rax, &r, 8);
	ck_assert_uint_eq(r, 0x5555);
	hwtr_values_register(v, h.thread, 9, hwtr_amd64_rbx, &r, 8);
	ck_assert_uint_eq(r, 0x101);
	hwtr_values_register(v, h.thread, 10, hwtr_amd64_rax, &r, 8);
	ck_assert_uint_eq(r, 0xa00);
	hwtr_values_register(v, h.thread, 10, hwtr_amd64_rbx, &r, 8);
	ck_assert_uint_eq(r, 0xa01);
	hwtr_values_register(v, h.thread, 12, hwtr_amd64_rax, &r, 8);
	ck_assert_uint_eq(r, 0x1212);
	hwtr_values_register(v, h.thread, 29, hwtr_amd64_r15, &r, 8);
	ck_assert_uint_eq(r, 0xa0f);
	/* The signal frame was written before 10: there at 10, not at 9. */
	memory_at(v, h.thread, 9, st, b);
	ck_assert_str_eq(b, "sf......");
	memory_at(v, h.thread, 10, st, b);
	ck_assert_str_eq(st, "SSSSSSSS");
	hwtr_values_free(v);
	fixture_history_close(&h);
}
END_TEST

/* The instruction after the last (30) had a full snapshot and faulted,
 * fatally: nothing came after it to restate the snapshot, whose rip is the
 * faulting instruction's, at a position the history does not have.  The
 * log counts 29 (the last sync) and is believed up to there. */
START_TEST(a_snapshot_of_a_fatal_fault_after_the_last_position_is_not_checked)
{
	struct fixture_history h;
	struct hwtr_values *v = NULL;
	struct log l;
	uint64_t r = 0;

	log_begin(&l, HWTR_VALUES_VERSION);
	log_thread(&l, 0, 0);
	log_snapshot(&l, 1, 0x100, 0, fixture_symbol("i1"));
	log_rax(&l, 5, 0x5555);
	log_thread(&l, 29, 29);
	log_snapshot(&l, 30, 0x300, 0, fixture_symbol("i1"));
	log_sync(&l, true, 29);
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_msg(hwtr_values_open(h.history, &v) == 0, "%s",
		      hwtr_last_error());
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(hwtr_values_register(v, h.thread, 29, hwtr_amd64_rax,
					      &r, 8), 8);
	ck_assert_uint_eq(r, 0x5555);
	hwtr_values_register(v, h.thread, 29, hwtr_amd64_rbx, &r, 8);
	ck_assert_uint_eq(r, 0x101);
	hwtr_values_free(v);
	fixture_history_close(&h);
}
END_TEST

/* A restart point whose segment holds a snapshot and its restatement
 * (seek_log_with): the whole log and its tail, read from that restart
 * point, both take the restated one; the segment's CRC covers both. */
START_TEST(a_restart_point_before_a_restated_snapshot_gives_the_restated_one)
{
	struct fixture_history h;
	struct hwtr_history *tail;
	struct hwtr_thread *tt;
	struct hwtr_values *v = NULL;
	struct seek_log s;
	uint64_t r = 0;
	char st[9], b[9];

	seek_log_with(&s, true);
	open_with_log(&h, &s.l, HWTR_VALUES_VERSION);
	ck_assert_msg(hwtr_values_open(h.history, &v) == 0, "%s",
		      hwtr_last_error());
	hwtr_values_register(v, h.thread, 12, hwtr_amd64_rbx, &r, 8);
	ck_assert_uint_eq(r, 0x301);
	hwtr_values_free(v);
	tail = tail_of(&h);
	tt = hwtr_history_thread(tail, 0);
	ck_assert_msg(hwtr_values_load_tail(tail, &v) == 0, "%s",
		      hwtr_last_error());
	ck_assert_ptr_nonnull(v);
	/* The tail's 1 is whole 14: rax from 13, rbx from the restated
	 * snapshot at 12. */
	ck_assert_int_eq(hwtr_values_register(v, tt, 1, hwtr_amd64_rax, &r, 8), 8);
	ck_assert_uint_eq(r, 0x1313);
	ck_assert_int_eq(hwtr_values_register(v, tt, 1, hwtr_amd64_rbx, &r, 8), 8);
	ck_assert_uint_eq(r, 0x301);
	hwtr_values_register(v, tt, 7, hwtr_amd64_rbx, &r, 8);
	ck_assert_uint_eq(r, 0x201);
	/* The signal frame's store at 11 is before the tail. */
	memory_at(v, tt, 1, st, b);
	ck_assert_str_eq(b, "ab......");
	hwtr_values_free(v);
	hwtr_history_free(tail);
	fixture_history_close(&h);
}
END_TEST

/* Another thread's records between two of the fixture thread's: a
 * reader of the fixture thread skips them (from that thread's THREAD
 * record to the fixture thread's next one) and never takes their values.
 * Before, it read them one by one, for every register at every stop: on
 * xz with two workers, 2.5 minutes at the main thread's last stop. */
START_TEST(another_threads_records_are_skipped_not_taken)
{
	struct fixture_history h;
	struct hwtr_values *v;
	struct log l;
	uint64_t r = 0, p, hit;
	char st[9], b[9];

	log_begin(&l, HWTR_VALUES_VERSION);
	log_thread(&l, 0, 0);
	log_snapshot(&l, 1, 0x100, 0x46, fixture_symbol("i1"));
	log_rax(&l, 5, 0x5555);
	log_store(&l, 5, 0x5000, "ab");
	log_thread_of(&l, 2, 0, 6);
	log_snapshot(&l, 1, 0x900, 0x46, 0x1000);
	for (p = 2; p < 2000; p++) {
		log_rax(&l, p, 0x9000 + p);
		log_store(&l, p, 0x5000, "zz");
	}
	log_thread(&l, 6, 2005);
	log_rax(&l, 20, 0x2020);
	log_store(&l, 21, 0x5001, "xy");
	log_thread_of(&l, 2, 2000, 2021);
	log_rax(&l, 2000, 0x7777);
	log_thread(&l, 21, 2022);
	log_sync(&l, true, 29);
	open_with_log(&h, &l, HWTR_VALUES_VERSION);
	ck_assert_msg(hwtr_values_open(h.history, &v) == 0, "%s",
		      hwtr_last_error());
	ck_assert_ptr_nonnull(v);
	hwtr_values_register(v, h.thread, 4, hwtr_amd64_rax, &r, 8);
	ck_assert_uint_eq(r, 0x100);
	hwtr_values_register(v, h.thread, 6, hwtr_amd64_rax, &r, 8);
	ck_assert_uint_eq(r, 0x5555);
	hwtr_values_register(v, h.thread, 19, hwtr_amd64_rax, &r, 8);
	ck_assert_uint_eq(r, 0x5555);
	hwtr_values_register(v, h.thread, 20, hwtr_amd64_rax, &r, 8);
	ck_assert_uint_eq(r, 0x2020);
	hwtr_values_register(v, h.thread, 29, hwtr_amd64_rax, &r, 8);
	ck_assert_uint_eq(r, 0x2020);
	hwtr_values_register(v, h.thread, 29, hwtr_amd64_rbx, &r, 8);
	ck_assert_uint_eq(r, 0x101);
	/* Memory is the whole process's: the other thread's stores between
	 * the fixture thread's positions 6 and 7 count (their undo bytes
	 * "zz"), by time. */
	memory_at(v, h.thread, 5, st, b);
	ck_assert_str_eq(st, "OOOSSSSS");
	ck_assert_str_eq(b, "aby.....");
	memory_at(v, h.thread, 6, st, b);
	ck_assert_str_eq(st, "OOOSSSSS");
	ck_assert_str_eq(b, "zzy.....");
	memory_at(v, h.thread, 7, st, b);
	ck_assert_str_eq(st, "SOOSSSSS");
	ck_assert_str_eq(b, ".xy.....");
	memory_at(v, h.thread, 22, st, b);
	ck_assert_str_eq(st, "SSSSSSSS");
	/* A change is the thread's own: thread 2's "zz" at 2..1999 are
	 * its, in another history thread. */
	ck_assert_uint_eq(change(v, h.thread, 29, -1, 1, 0x5000, 2, &hit), 21);
	ck_assert_uint_eq(hit, 0x5001);
	ck_assert_uint_eq(change(v, h.thread, 21, -1, 1, 0x5000, 2, &hit), 5);
	ck_assert_uint_eq(change(v, h.thread, 6, 1, 29, 0x5000, 2, &hit), 21);
	hwtr_values_free(v);
	fixture_history_close(&h);
}
END_TEST

START_TEST(a_recording_without_a_log_has_no_values)
{
	struct fixture_history h;
	struct hwtr_values *v = (void *)1;

	fixture_history_main_path(&h);
	ck_assert_int_eq(hwtr_values_open(h.history, &v), 0);
	ck_assert_ptr_null(v);
	fixture_history_close(&h);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("values");

	tcase_add_test(tc, registers_are_the_latest_logged_at_or_before_the_position);
	tcase_add_test(tc, a_position_s_registers_come_from_one_scan_of_the_log);
	tcase_add_test(tc, memory_is_the_first_undo_record_at_or_after_the_position);
	tcase_add_test(tc, memory_records_give_addresses_relative_to_the_last);
	tcase_add_test(tc, a_log_cut_off_gives_registers_but_no_memory);
	tcase_add_test(tc, a_change_is_the_nearest_record_of_the_range);
	tcase_add_test(tc, a_change_is_not_found_in_a_log_cut_off);
	tcase_add_test(tc, a_log_stopped_live_is_whole_up_to_its_last_sync);
	tcase_add_test(tc, a_log_that_counts_other_instructions_is_refused);
	tcase_add_test(tc, a_log_whose_snapshot_pc_differs_is_refused);
	tcase_add_test(tc, a_log_that_begins_after_an_exec_is_placed_after_its_gap);
	tcase_add_test(tc, newer_versions_and_bad_records_are_refused_by_name);
	tcase_add_test(tc, a_snapshot_restated_at_its_position_replaces_the_first);
	tcase_add_test(tc, a_snapshot_of_a_fatal_fault_after_the_last_position_is_not_checked);
	tcase_add_test(tc, a_restart_point_before_a_restated_snapshot_gives_the_restated_one);
	tcase_add_test(tc, a_recording_without_a_log_has_no_values);
	tcase_add_test(tc, another_threads_records_are_skipped_not_taken);
	tcase_add_test(tc, a_tail_counts_back_from_the_log_end);
	tcase_add_test(tc, a_tail_the_log_cannot_place_gets_no_values);
	tcase_add_test(tc, a_tail_reads_the_log_from_the_restart_point_before_it);
	tcase_add_test(tc, a_missing_or_damaged_seek_table_falls_back_to_the_whole_log);
	tcase_add_test(tc, a_finished_log_s_crc_comes_from_its_seek_table);
	tcase_add_test(tc, a_tail_s_last_part_alone_gives_the_values_after_its_restart_point);
	tcase_set_timeout(tc, 60);
	return check_run_tcase("values", tc);
}
