/* test-run-request: what the next `run` starts (gdb-plugin/server/
 * run-request.c), from the packets GDB sends for it, as the GDB manual's
 * "General Query Packets" and vRun describe them.  The hex arguments are
 * written out by hand ("413d31" is "A=1"). */
#include "../unit/check-main.h"
#include "run-request.h"

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <hwtrecord.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct run_request run;
static char err[256];

static void teardown(void)
{
	run_request_fini(&run);
}

/* The message of a failure (hwtr_last_error()) is kept in err. */
static int setting(const char *payload)
{
	int rc = run_request_setting(&run, payload, strlen(payload));

	snprintf(err, sizeof(err), "%s", rc < 0 ? hwtr_last_error() : "");
	return rc;
}

static int vrun(const char *args)
{
	int rc = run_request_vrun(&run, args, strlen(args), "/bin/true");

	snprintf(err, sizeof(err), "%s", rc < 0 ? hwtr_last_error() : "");
	return rc;
}

START_TEST(vrun_without_file_name_runs_the_default_program)
{
	ck_assert_int_eq(vrun(""), 0);
	ck_assert_str_eq(run.argv[0], "/bin/true");
	ck_assert_ptr_null(run.argv[1]);
}
END_TEST

START_TEST(vrun_arguments_are_decoded_empty_ones_kept)
{
	/* /bin/sh ; -c ; "a b" ; "" */
	ck_assert_int_eq(vrun("2f62696e2f7368;2d63;612062;"), 0);
	ck_assert_str_eq(run.argv[0], "/bin/sh");
	ck_assert_str_eq(run.argv[1], "-c");
	ck_assert_str_eq(run.argv[2], "a b");
	ck_assert_str_eq(run.argv[3], "");
	ck_assert_ptr_null(run.argv[4]);
}
END_TEST

START_TEST(vrun_relative_path_is_made_absolute)
{
	char cwd[PATH_MAX], want[PATH_MAX + 16];

	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	snprintf(want, sizeof(want), "%s/./prog", cwd);
	ck_assert_int_eq(vrun("2e2f70726f67"), 0);	/* ./prog */
	ck_assert_str_eq(run.argv[0], want);
	/* A bare name is left to Valgrind's PATH search. */
	ck_assert_int_eq(vrun("6c73"), 0);		/* ls */
	ck_assert_str_eq(run.argv[0], "ls");
}
END_TEST

START_TEST(vrun_bad_hex_is_refused_and_keeps_the_last_argv)
{
	ck_assert_int_eq(vrun(";78"), 0);
	ck_assert_int_eq(vrun(";7"), -1);
	ck_assert_str_eq(err, "vRun: argument 1 is not hex");
	ck_assert_int_eq(vrun("2g"), -1);
	ck_assert_str_eq(err, "vRun: the file name is not hex");
	ck_assert_str_eq(run.argv[0], "/bin/true");
	ck_assert_str_eq(run.argv[1], "x");
}
END_TEST

START_TEST(environment_last_word_on_a_name_wins)
{
	ck_assert_int_eq(setting("QEnvironmentHexEncoded:413d31"), 0); /* A=1 */
	ck_assert_int_eq(setting("QEnvironmentHexEncoded:41423d33"), 0); /* AB=3 */
	ck_assert_int_eq(setting("QEnvironmentUnset:41"), 0);	/* A */
	ck_assert_uint_eq(run.env_set.n, 1);
	ck_assert_str_eq(run.env_set.v[0], "AB=3");
	ck_assert_ptr_null(run.env_set.v[1]);
	ck_assert_uint_eq(run.env_unset.n, 1);
	ck_assert_str_eq(run.env_unset.v[0], "A");
	ck_assert_int_eq(setting("QEnvironmentHexEncoded:413d"), 0);	/* A= */
	ck_assert_uint_eq(run.env_unset.n, 0);
	ck_assert_uint_eq(run.env_set.n, 2);
	ck_assert_str_eq(run.env_set.v[1], "A=");
	ck_assert_int_eq(setting("QEnvironmentReset"), 0);
	ck_assert_uint_eq(run.env_set.n, 0);
	ck_assert_uint_eq(run.env_unset.n, 0);
}
END_TEST

START_TEST(environment_without_equals_or_hex_is_refused)
{
	ck_assert_int_eq(setting("QEnvironmentHexEncoded:41"), -1);
	ck_assert_ptr_nonnull(strstr(err, "no '='"));
	ck_assert_int_eq(setting("QEnvironmentUnset:4"), -1);
	ck_assert_ptr_nonnull(strstr(err, "QEnvironmentUnset: the argument is not hex"));
	ck_assert_uint_eq(run.env_set.n + run.env_unset.n, 0);
}
END_TEST

START_TEST(working_directory_set_and_reset)
{
	ck_assert_int_eq(setting("QSetWorkingDir:2f746d70"), 0);	/* /tmp */
	ck_assert_str_eq(run.cwd, "/tmp");
	ck_assert_int_eq(setting("QSetWorkingDir:"), 0);
	ck_assert_ptr_null(run.cwd);
}
END_TEST

START_TEST(only_the_run_settings_are_taken)
{
	ck_assert(run_request_is_setting("QEnvironmentReset", 17));
	ck_assert(!run_request_is_setting("QEnvironmentResetX", 18));
	ck_assert(!run_request_is_setting("QSetWorkingDir", 14));
	ck_assert(!run_request_is_setting("QPassSignals:e", 14));
	ck_assert_int_eq(setting("QPassSignals:e"), -1);
}
END_TEST

START_TEST(vrun_redirections_are_taken_out_of_the_arguments)
{
	/* (default) a < in.txt >out 2>&1: as the shell of a native `run`
	 * reads them; GDB 13 sends them as arguments. */
	ck_assert_int_eq(vrun(";61;3c;696e2e747874;3e6f7574;323e2631"), 0);
	ck_assert_str_eq(run.argv[0], "/bin/true");
	ck_assert_str_eq(run.argv[1], "a");
	ck_assert_ptr_null(run.argv[2]);
	ck_assert_str_eq(run.redirect.path[0], "in.txt");
	ck_assert_str_eq(run.redirect.path[1], "out");
	ck_assert(!run.redirect.append[1]);
	ck_assert_ptr_null(run.redirect.path[2]);
	ck_assert(run.redirect.err_to_out);
	/* >>log 2>> err: appending; a new vRun forgets the old ones. */
	ck_assert_int_eq(vrun(";3e3e6c6f67;323e3e;657272"), 0);
	ck_assert_ptr_null(run.argv[1]);
	ck_assert_ptr_null(run.redirect.path[0]);
	ck_assert_str_eq(run.redirect.path[1], "log");
	ck_assert(run.redirect.append[1]);
	ck_assert_str_eq(run.redirect.path[2], "err");
	ck_assert(run.redirect.append[2]);
	ck_assert(!run.redirect.err_to_out);
	/* <%s> and a>b: arguments (a shell would not take them as files). */
	ck_assert_int_eq(vrun(";3c25733e;613e62"), 0);
	ck_assert_str_eq(run.argv[1], "<%s>");
	ck_assert_str_eq(run.argv[2], "a>b");
	ck_assert_ptr_null(run.redirect.path[0]);
	ck_assert_ptr_null(run.redirect.path[1]);
}
END_TEST

START_TEST(vrun_redirection_without_file_is_refused)
{
	ck_assert_int_eq(vrun(";61;3c;696e"), 0);
	/* (default) b < */
	ck_assert_int_eq(vrun(";62;3c"), -1);
	ck_assert(strstr(err, "`<' with no file after it"));
	ck_assert_str_eq(run.argv[1], "a");	/* the last run's kept */
	ck_assert_str_eq(run.redirect.path[0], "in");
}
END_TEST

START_TEST(apply_gives_the_tracer_the_request)
{
	struct tracer_config config = { .argv = NULL };
	char *const initial[] = { "/bin/false", NULL };

	config.argv = initial;
	run_request_apply(&run, &config);
	ck_assert_ptr_eq(config.argv, initial);	/* no vRun yet */
	ck_assert_int_eq(vrun(""), 0);
	ck_assert_int_eq(setting("QEnvironmentHexEncoded:413d31"), 0);
	ck_assert_int_eq(setting("QSetWorkingDir:2f"), 0);
	run_request_apply(&run, &config);
	ck_assert_str_eq(config.argv[0], "/bin/true");
	ck_assert_str_eq(config.env_set[0], "A=1");
	ck_assert_ptr_null(config.env_unset);
	ck_assert_str_eq(config.cwd, "/");
	ck_assert_ptr_null(config.redirect[0]);
	/* (default) <in 2>&1 */
	ck_assert_int_eq(vrun(";3c696e;323e2631"), 0);
	run_request_apply(&run, &config);
	ck_assert_str_eq(config.redirect[0], "in");
	ck_assert_ptr_null(config.redirect[1]);
	ck_assert(config.err_to_out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("run-request");
	TCase *tc = tcase_create("run-request");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, vrun_without_file_name_runs_the_default_program);
	tcase_add_test(tc, vrun_arguments_are_decoded_empty_ones_kept);
	tcase_add_test(tc, vrun_relative_path_is_made_absolute);
	tcase_add_test(tc, vrun_bad_hex_is_refused_and_keeps_the_last_argv);
	tcase_add_test(tc, environment_last_word_on_a_name_wins);
	tcase_add_test(tc, environment_without_equals_or_hex_is_refused);
	tcase_add_test(tc, working_directory_set_and_reset);
	tcase_add_test(tc, only_the_run_settings_are_taken);
	tcase_add_test(tc, vrun_redirections_are_taken_out_of_the_arguments);
	tcase_add_test(tc, vrun_redirection_without_file_is_refused);
	tcase_add_test(tc, apply_gives_the_tracer_the_request);
	suite_add_tcase(s, tc);
	return check_run_suite(s);
}
