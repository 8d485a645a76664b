/* check-main.h: what every Check test program's main() ends with (the
 * unit tests' and, as ../unit/check-main.h, the other groups'). */
#ifndef HWTR_CHECK_MAIN_H
#define HWTR_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

/* How many of N random trials a test runs: all N natively (the sanitizer
 * tree runs every unit test natively too), a tenth (at least one) under
 * memcheck (memcheck.sh says so), where each costs a hundred times more
 * and what memcheck looks for, an invalid access, a leak or a jump on an
 * undefined value, shows in the code paths the first trials take. */
static inline int check_trials(int n)
{
	const char *memcheck = getenv("HWTR_UNDER_MEMCHECK");

	if (memcheck && *memcheck == '1')
		return n / 10 > 0 ? n / 10 : 1;
	return n;
}

/* Run the suite S (its test cases added); main()'s exit status: whether
 * every test passed. */
static inline int check_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Run TC, the program's one test case, as the suite NAME. */
static inline int check_run_tcase(const char *name, TCase *tc)
{
	Suite *s = suite_create(name);

	suite_add_tcase(s, tc);
	return check_run_suite(s);
}

#endif
