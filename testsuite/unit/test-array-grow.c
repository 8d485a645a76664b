/* test-array-grow.c: hwtr_array_grow and hwtr_path_join (array-grow.c,
 * path-join.c), the helpers the library, the importers and the server
 * share instead of a copy each.
 *
 * Oracle: their definitions in hwtrecord.h: the capacity doubles from 64
 * until the element fits, the contents survive, a size that would overflow
 * is refused with the array untouched; DIR/NAME byte for byte.
 */
#include "check-main.h"

#include <hwtrecord.h>

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

START_TEST(capacity_doubles_from_64_and_keeps_the_elements)
{
	uint32_t *a = NULL;
	size_t cap = 0, n;

	for (n = 0; n < 1000; n++) {
		ck_assert_int_eq(hwtr_array_grow((void **)&a, &cap, n, sizeof(*a)), 0);
		ck_assert_uint_gt(cap, n);
		a[n] = (uint32_t)n * 7;
		if (n < 64)
			ck_assert_uint_eq(cap, 64);
		else if (n < 128)
			ck_assert_uint_eq(cap, 128);
	}
	ck_assert_uint_eq(cap, 1024);
	for (n = 0; n < 1000; n++)
		ck_assert_uint_eq(a[n], n * 7);
	/* Room already: nothing moves. */
	{
		uint32_t *before = a;

		ck_assert_int_eq(hwtr_array_grow((void **)&a, &cap, 999, sizeof(*a)), 0);
		ck_assert_ptr_eq(a, before);
		ck_assert_uint_eq(cap, 1024);
	}
	/* An element far past the end: doubled until it fits. */
	ck_assert_int_eq(hwtr_array_grow((void **)&a, &cap, 5000, sizeof(*a)), 0);
	ck_assert_uint_eq(cap, 8192);
	a[5000] = 1;
	free(a);
}
END_TEST

START_TEST(sizes_that_overflow_are_refused_and_the_array_kept)
{
	char *a = malloc(64);
	size_t cap = 64;

	ck_assert_ptr_nonnull(a);
	a[0] = 'x';
	ck_assert_int_eq(hwtr_array_grow((void **)&a, &cap, 64, SIZE_MAX / 64),
			 -hwtr_err_nomem);
	ck_assert_str_eq(hwtr_last_error(), "array of 128 elements of "
			 "288230376151711743 bytes too large");
	ck_assert_uint_eq(cap, 64);
	ck_assert_int_eq(a[0], 'x');
	ck_assert_int_eq(hwtr_array_grow((void **)&a, &cap, SIZE_MAX, 1),
			 -hwtr_err_nomem);
	ck_assert_str_eq(hwtr_last_error(), "array of 18446744073709551615 "
			 "elements too large");
	ck_assert_uint_eq(cap, 64);
	ck_assert_int_eq(hwtr_array_grow((void **)&a, &cap, 64, 0), -hwtr_err_invalid);
	free(a);
}
END_TEST

START_TEST(paths_join_with_one_slash)
{
	char *p = hwtr_path_join("rec.hwtrec", "trace/1.pt");

	ck_assert_str_eq(p, "rec.hwtrec/trace/1.pt");
	free(p);
	p = hwtr_path_join("", "x");
	ck_assert_str_eq(p, "/x");
	free(p);
	ck_assert_ptr_null(hwtr_path_join(NULL, "x"));
	ck_assert_str_eq(hwtr_last_error(), "hwtr_path_join: bad argument");
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("helpers");

	tcase_add_test(tc, capacity_doubles_from_64_and_keeps_the_elements);
	tcase_add_test(tc, sizes_that_overflow_are_refused_and_the_array_kept);
	tcase_add_test(tc, paths_join_with_one_slash);
	return check_run_tcase("array-grow", tc);
}
