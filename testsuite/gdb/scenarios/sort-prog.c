/* sort-prog.c: libc calling back into the program, and unusual data
 * (values-sort*.scn): qsort() and bsearch() with comparators, a table of
 * function pointers, a union read through two members, bitfields in a
 * packed struct, then a load through the NULL a failed bsearch() returned. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct __attribute__((packed)) entry {
	uint8_t kind;
	uint32_t key;
	unsigned flags : 3;
	unsigned level : 5;
	int16_t delta;
};

union word {
	uint32_t whole;
	uint8_t bytes[4];
	float real;
};

typedef long (*op_fn)(long, long);

static struct entry g_entries[6];
static long g_compares;
static union word g_word;

static int by_key(const void *a, const void *b)
{
	const struct entry *left = a, *right = b;

	g_compares++;
	if (left->key != right->key) /* L:by_key */
		return left->key < right->key ? -1 : 1;
	return 0;
}

static int by_value(const void *a, const void *b)
{
	long left = *(const long *)a, right = *(const long *)b;

	return (left > right) - (left < right); /* L:by_value */
}

static long add(long a, long b) { return a + b; }
static long mul(long a, long b) { return a * b; /* L:mul */ }
static long sub(long a, long b) { return a - b; }

static long fold(op_fn op, const long *values, int n, long start)
{
	long acc = start;

	for (int i = 0; i < n; i++)
		acc = op(acc, values[i]); /* L:fold */
	return acc;
}

int main(void)
{
	static const uint32_t keys[6] = {42, 7, 19, 88, 3, 61};
	long values[5] = {9, -4, 25, 1, 16};
	op_fn table[3] = {add, mul, sub};
	struct entry probe = {0};
	struct entry *hit = NULL;
	long *found = NULL;
	long results[3] = {0};
	long want = 25, missing = 5;
	long *absent = NULL;

	for (int i = 0; i < 6; i++) {
		g_entries[i].kind = (uint8_t)('a' + i);
		g_entries[i].key = keys[i];
		g_entries[i].flags = i & 7;
		g_entries[i].level = (i * 5) & 31;
		g_entries[i].delta = (int16_t)(100 - 40 * i);
	}
	qsort(g_entries, 6, sizeof g_entries[0], by_key); /* L:qsort */
	probe.key = 19;
	hit = bsearch(&probe, g_entries, 6, sizeof g_entries[0], by_key);
	qsort(values, 5, sizeof values[0], by_value); /* L:qsort_values */
	found = bsearch(&want, values, 5, sizeof values[0], by_value);
	g_word.whole = 0x40490fdb; /* L:union */
	g_word.bytes[0] ^= 0xff;
	for (int i = 0; i < 3; i++)
		results[i] = fold(table[i], values, 5, i == 1 ? 1 : 0); /* L:results */
	absent = bsearch(&missing, values, 5, sizeof values[0], by_value);
	if (hit && found) /* L:before_crash */
		results[0] += *absent + hit->delta; /* L:crash */
	return (int)results[0];
}
