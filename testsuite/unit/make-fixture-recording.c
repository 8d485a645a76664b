/* make-fixture-recording DIR: writes the main-path recording of the unit
 * tests (fixture.c) for the command-line tests. */
#include "fixture.h"

#include <check.h>
#include <stdio.h>

static const char *dir;

START_TEST(write_it)
{
	struct trace t;

	trace_begin(&t);
	trace_main_path(&t);
	fixture_recording(dir, t.buf, trace_size(&t), NULL, NULL);
	trace_end(&t);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("fixture");
	TCase *tc = tcase_create("write");
	SRunner *sr;
	int failed;

	if (argc != 2) {
		fprintf(stderr, "usage: make-fixture-recording DIR\n");
		return 2;
	}
	dir = argv[1];
	tcase_add_test(tc, write_it);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
