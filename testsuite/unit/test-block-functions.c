/* test-block-functions.c: the function of each instruction of a block
 * (block-functions.c) and how often the index pass has to look it up.
 *
 * Oracle: the fixture's symbol table (the assembler's labels and function
 * sizes).  fixture-code's text ends with twice (t6, a 2-byte jmp); the rest
 * of its page is mapped but belongs to no function, as the code of a
 * stripped program does.
 */
#include "fixture.h"
#include "block-functions.h"
#include "history.h"
#include "check-main.h"

#include <check.h>

/* The symbolizer's lookup, counted. */
struct counted {
	const struct hwtr_symbolizer *symbols;
	unsigned calls;
};

static uint32_t counted_lookup(void *ctx, unsigned epoch, uint64_t ip)
{
	struct counted *c = ctx;

	c->calls++;
	return symbolizer_function_uncached(c->symbols, epoch, ip);
}

static struct decoder_block block_at(uint64_t ip, uint64_t end_ip,
				     uint32_t ninsn, unsigned epoch)
{
	struct decoder_block b = {
		.ip = ip, .end_ip = end_ip, .ninsn = ninsn, .epoch = epoch,
		.iclass = hwtr_ic_other, .isa = hwtr_isa_x86_64,
	};

	return b;
}

/* Blocks in code without a function are answered from the memo after the
 * first one, not looked up one by one; code with a function in between is
 * still looked up and named. */
START_TEST(code_without_symbols_is_looked_up_once)
{
	struct fixture_history o;
	struct hwtr_history *h;
	struct counted c = { 0 };
	struct fn_memo memo = { 0 };
	struct decoder_block b;
	uint64_t after = fixture_symbol("t6") + 2, last_ip, split_ip;
	unsigned epoch;
	uint32_t fn, leaf;

	fixture_history_main_path(&o);
	h = o.thread->history;
	c.symbols = h->symbols;
	ck_assert_int_eq(symbolizer_end_epoch(h->symbols, &epoch), 0);
	leaf = symbolizer_function_uncached(h->symbols, epoch,
					    fixture_symbol("leaf"));
	ck_assert_uint_ne(leaf, 0);

	/* A block of one instruction right after twice: none, looked up. */
	ck_assert_uint_eq(fn_memo_at(&memo, h->symbols, counted_lookup, &c,
				     after, epoch), 0);
	ck_assert_uint_eq(c.calls, 1);
	b = block_at(after, after, 1, epoch);
	ck_assert_uint_eq(fn_block_split(&memo, h->symbols, h->images, h->isa,
					 &b, &last_ip, &split_ip), 1);
	/* The next blocks there: no lookup (on main: one per block). */
	ck_assert(fn_memo_known(&memo, after + 2, epoch, &fn));
	ck_assert_uint_eq(fn, 0);
	ck_assert_uint_eq(fn_memo_at(&memo, h->symbols, counted_lookup, &c,
				     after + 2, epoch), 0);
	ck_assert_uint_eq(fn_memo_at(&memo, h->symbols, counted_lookup, &c,
				     after + 0x100, epoch), 0);
	ck_assert_uint_eq(c.calls, 1);
	/* Nor is it known in another image, or before where it was noted. */
	ck_assert(!fn_memo_known(&memo, after + 2, epoch + 1, &fn));
	ck_assert(!fn_memo_known(&memo, fixture_symbol("t6"), epoch, &fn));

	/* A function in between is looked up and named... */
	ck_assert_uint_eq(fn_memo_at(&memo, h->symbols, counted_lookup, &c,
				     fixture_symbol("leaf"), epoch), leaf);
	ck_assert_uint_eq(c.calls, 2);
	ck_assert(fn_memo_known(&memo, fixture_symbol("i4"), epoch, &fn));
	ck_assert_uint_eq(fn, leaf);
	/* ...and the code without one is still known after it. */
	ck_assert_uint_eq(fn_memo_at(&memo, h->symbols, counted_lookup, &c,
				     after + 4, epoch), 0);
	ck_assert_uint_eq(c.calls, 2);
	fixture_history_close(&o);
}
END_TEST

/* A block that runs from twice's last instruction on into the code without
 * a function is split there, as the symbols say. */
START_TEST(block_split_where_the_function_ends)
{
	struct fixture_history o;
	struct hwtr_history *h;
	struct counted c = { 0 };
	struct fn_memo memo = { 0 };
	struct decoder_block b;
	uint64_t t6 = fixture_symbol("t6"), last_ip, split_ip;
	unsigned epoch;
	uint32_t twice;

	fixture_history_main_path(&o);
	h = o.thread->history;
	c.symbols = h->symbols;
	ck_assert_int_eq(symbolizer_end_epoch(h->symbols, &epoch), 0);
	twice = fn_memo_at(&memo, h->symbols, counted_lookup, &c, t6, epoch);
	ck_assert_uint_eq(twice, symbolizer_function_uncached(
					  h->symbols, epoch, fixture_symbol("t1")));
	/* jmp (2 bytes), then two zero-byte instructions (add %al,(%rax)). */
	b = block_at(t6, t6 + 4, 3, epoch);
	ck_assert_uint_eq(fn_block_split(&memo, h->symbols, h->images, h->isa,
					 &b, &last_ip, &split_ip), 1);
	ck_assert_uint_eq(last_ip, t6);
	ck_assert_uint_eq(split_ip, t6 + 2);
	fixture_history_close(&o);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("block-functions");

	tcase_add_test(tc, code_without_symbols_is_looked_up_once);
	tcase_add_test(tc, block_split_where_the_function_ends);
	return check_run_tcase("block-functions", tc);
}
