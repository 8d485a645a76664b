/* mkrec-fixture OUT.hwtrec: the unit tests' fixture recording (one thread,
 * the main path through testsuite/unit/fixture-code.S, written with libipt's
 * encoder) for tests that drive GDB over it.  fixture.c asserts with Check,
 * so the writing runs as a (non-forking) Check test. */
#include "fixture.h"

#include <check.h>
#include <stdio.h>

static const char *out;

START_TEST(write_recording)
{
	struct trace t;

	trace_begin(&t);
	trace_main_path(&t);
	fixture_recording(out, t.buf, trace_size(&t), NULL, NULL);
	trace_end(&t);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("mkrec-fixture");
	TCase *tc = tcase_create("write");
	SRunner *runner;
	int failed;

	if (argc != 2) {
		fprintf(stderr, "usage: mkrec-fixture OUT.hwtrec\n");
		return 2;
	}
	out = argv[1];
	tcase_add_test(tc, write_recording);
	suite_add_tcase(s, tc);
	runner = srunner_create(s);
	srunner_set_fork_status(runner, CK_NOFORK);
	srunner_run_all(runner, CK_SILENT);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? 1 : 0;
}
