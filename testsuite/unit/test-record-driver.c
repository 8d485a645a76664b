/* test-record-driver.c: the driver of `hwtrec record` (tools/record-driver.c)
 * over a stand-in trace source whose "program" is a real child process, so
 * that the kernel's wait status is the oracle: the exit status and the
 * manifest's end must say what waitpid said; SIGTERM sent to the recorder
 * must reach a program the source starts only in drain (as the hwt source
 * does); attached, ^C must reach the source's interrupt op and end the
 * recording with the program running; the source's own exit status and
 * abort reason win; the ops are called in the contract's order. */
#define _GNU_SOURCE
#include "../../tools/record-driver.h"
#include "check-main.h"

#include <check.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the stand-in source is told to do. */
static struct plan {
	int child_exit;		/* the child _exits with this ... */
	int child_signal;	/* ... or kills itself with this */
	bool child_waits;	/* ... or waits for a signal */
	int raise_in_drain;	/* a signal the recorder gets while draining */
	int exit_status;	/* the source's own exit status */
	const char *aborted;
} plan;

static char tmpdir[256], recording[400];
static char calls[64];			/* the ops, in the order called */
static volatile sig_atomic_t child;	/* known from drain on */
static volatile sig_atomic_t interrupted;

struct source_run {
	struct hwtr_writer *writer;
};

static void called(const char *op)
{
	strncat(calls, op, sizeof(calls) - strlen(calls) - 1);
}

static bool fake_available(char *why, size_t size)
{
	return true;
}

static int fake_start(const struct record_request *req,
		      struct source_run **out)
{
	struct hwtr_writer_info info = { .source = "test", .pid = 1 };
	struct source_run *run = calloc(1, sizeof(*run));

	called("start ");
	ck_assert_ptr_nonnull(run);
	strcpy(info.pt.vendor, "intel");
	ck_assert_int_eq(hwtr_writer_create(recording, &info, &run->writer), 0);
	ck_assert_int_eq(hwtr_writer_add_thread(run->writer, 1, 1), 0);
	*out = run;
	return 0;
}

static pid_t fake_program(const struct source_run *run)
{
	return child;
}

static void fake_interrupt(void)
{
	interrupted = 1;
}

static void fake_drain(struct source_run *run, struct source_result *res)
{
	pid_t pid;

	called("drain ");
	fflush(NULL);	/* as the sources do: no buffered byte twice */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (plan.child_signal)
			kill(getpid(), plan.child_signal);
		if (plan.child_waits)
			for (;;)
				pause();
		_exit(plan.child_exit);
	}
	child = pid;
	if (plan.raise_in_drain)
		raise(plan.raise_in_drain);
	if (plan.raise_in_drain == SIGINT) {	/* attached: let it go */
		ck_assert_int_eq(interrupted, 1);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return;
	}
	ck_assert_int_eq(waitpid(pid, &res->status, 0), pid);
	res->ended = true;
}

static void fake_finish(struct source_run *run, struct source_result *res)
{
	called("finish ");
	res->writer = run->writer;
	res->name = recording;
	res->exit_status = plan.exit_status;
	res->aborted = plan.aborted;
	res->threads = 1;
}

static void fake_free(struct source_run *run)
{
	called("free");
	hwtr_writer_free(run->writer);
	free(run);
}

static const struct record_source fake = {
	.name = "fake", .summary = "a child process", .can_attach = true,
	.available = fake_available, .start = fake_start,
	.program = fake_program, .interrupt = fake_interrupt,
	.drain = fake_drain, .finish = fake_finish, .free = fake_free,
};

static void setup(void)
{
	memset(&plan, 0, sizeof(plan));
	calls[0] = 0;
	child = 0;
	interrupted = 0;
	snprintf(tmpdir, sizeof(tmpdir), "%s/hwtr-driver-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(recording, sizeof(recording), "%s/r.hwtrec", tmpdir);
}

static void teardown(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Record with the stand-in source: the exit status, and the recording's
 * end as a reader sees it in *END (its reason in REASON). */
static int drive(bool attach, struct hwtr_end *end, char *reason,
		 size_t size)
{
	static char *const argv[] = { "program", NULL };
	struct record_request req = {
		.argv = argv, .program = "program", .quiet = true,
		.pid = attach ? 1 : 0,
	};
	const struct hwtr_recording_info *info;
	struct hwtr_recording *rec;
	int rc = record_drive(&fake, &req);

	if (hwtr_recording_open(recording, &rec))
		ck_abort_msg("%s: %s", recording, hwtr_last_error());
	info = hwtr_recording_info(rec);
	ck_assert(info->complete);
	*end = info->end;
	snprintf(reason, size, "%s", info->end_reason ? info->end_reason : "");
	hwtr_recording_close(rec);
	return rc;
}

START_TEST(exit_status_is_the_programs)
{
	struct hwtr_end end;
	char reason[128];

	plan.child_exit = 7;
	ck_assert_int_eq(drive(false, &end, reason, sizeof(reason)), 7);
	ck_assert_int_eq(end.state, hwtr_end_exited);
	ck_assert_int_eq(end.code, 7);
	ck_assert_str_eq(calls, "start drain finish free");
}
END_TEST

START_TEST(death_by_signal_is_128_plus_signal)
{
	struct hwtr_end end;
	char reason[128];

	plan.child_signal = SIGUSR1;
	ck_assert_int_eq(drive(false, &end, reason, sizeof(reason)),
			 128 + SIGUSR1);
	ck_assert_int_eq(end.state, hwtr_end_signaled);
	ck_assert_int_eq(end.code, SIGUSR1);
}
END_TEST

START_TEST(sigterm_reaches_a_program_started_in_drain)
{
	struct hwtr_end end;
	char reason[128];

	plan.child_waits = true;
	plan.raise_in_drain = SIGTERM;
	ck_assert_int_eq(drive(false, &end, reason, sizeof(reason)),
			 128 + SIGTERM);
	ck_assert_int_eq(end.state, hwtr_end_signaled);
	ck_assert_int_eq(end.code, SIGTERM);
}
END_TEST

START_TEST(sighup_reaches_the_program)
{
	struct hwtr_end end;
	char reason[128];

	plan.child_waits = true;
	plan.raise_in_drain = SIGHUP;
	ck_assert_int_eq(drive(false, &end, reason, sizeof(reason)),
			 128 + SIGHUP);
	ck_assert_int_eq(end.code, SIGHUP);
}
END_TEST

START_TEST(attached_interrupt_lets_the_program_go)
{
	struct hwtr_end end;
	char reason[128];

	plan.child_waits = true;
	plan.raise_in_drain = SIGINT;
	ck_assert_int_eq(drive(true, &end, reason, sizeof(reason)), 0);
	ck_assert_int_eq(end.state, hwtr_end_running);
}
END_TEST

START_TEST(the_sources_exit_status_and_abort_win)
{
	struct hwtr_end end;
	char reason[128];

	plan.child_signal = SIGUSR2;
	plan.exit_status = EXIT_VALGRIND_LIMIT;
	plan.aborted = "the source gave up";
	ck_assert_int_eq(drive(false, &end, reason, sizeof(reason)),
			 EXIT_VALGRIND_LIMIT);
	ck_assert_int_eq(end.state, hwtr_end_aborted);
	ck_assert_str_eq(reason, "the source gave up");
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("driver");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, exit_status_is_the_programs);
	tcase_add_test(tc, death_by_signal_is_128_plus_signal);
	tcase_add_test(tc, sigterm_reaches_a_program_started_in_drain);
	tcase_add_test(tc, sighup_reaches_the_program);
	tcase_add_test(tc, attached_interrupt_lets_the_program_go);
	tcase_add_test(tc, the_sources_exit_status_and_abort_win);
	return check_run_tcase("record-driver", tc);
}
