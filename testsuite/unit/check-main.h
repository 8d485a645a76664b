/* check-main.h: what every Check test program's main() ends with. */
#ifndef HWTR_CHECK_MAIN_H
#define HWTR_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

/* Run TC, the program's one test case, as the suite NAME; main()'s exit
 * status: whether every test passed. */
static inline int check_run_tcase(const char *name, TCase *tc)
{
	Suite *s = suite_create(name);
	SRunner *sr;
	int failed;

	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
