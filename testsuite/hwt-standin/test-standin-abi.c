/* test-standin-abi: the stand-in answers the hwt(4) ioctl protocol as the
 * kernel does (errno for errno, from sys/dev/hwt), and the source's context
 * layer (kernel/freebsd/hwt-context.c) never issues START without a
 * configuration and names each kernel error's cause.
 *
 * The traced process is a child of the test that only sleeps: these tests
 * are about the protocol, not the trace.  Each test runs in its own process
 * (Check's fork mode), so each starts with a fresh stand-in.
 */
#define _GNU_SOURCE
#include "../unit/check-main.h"
#include "standin.h"
#include "../../kernel/freebsd/hwt-context.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BUF (16 * STANDIN_PAGE)

static const struct hwt_sys *sys;
static pid_t target, target2;
static char dir[256];

static pid_t sleeper(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		for (;;)
			pause();
	return pid;
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/hwt-standin-abi-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	setenv("HWT_STANDIN_DIR", dir, 1);
	sys = hwt_sys_default;
	target = sleeper();
	target2 = sleeper();
}

static void teardown(void)
{
	char cmd[300];

	kill(target, SIGKILL);
	kill(target2, SIGKILL);
	waitpid(target, NULL, 0);
	waitpid(target2, NULL, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* ALLOC through /dev/hwt: 0 or the errno. */
static int alloc(pid_t pid, size_t bufsize, const char *backend, int mode,
		 int *ident)
{
	struct hwt_abi_alloc a = {
		.bufsize = bufsize, .mode = mode, .pid = pid,
		.backend_name = backend, .ident = ident, .kqueue_fd = -1,
	};
	int fd = sys->open(HWT_ABI_DEV, O_RDWR), rc;

	ck_assert_int_ge(fd, 0);
	rc = sys->ioctl(fd, HWT_ABI_IOC_ALLOC, &a) < 0 ? errno : 0;
	sys->close(fd);
	return rc;
}

static int node(int ident, int index)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), HWT_ABI_NODE_FMT, ident, index);
	fd = sys->open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	return fd;
}

static int call(int fd, unsigned long request, void *arg)
{
	return sys->ioctl(fd, request, arg) < 0 ? errno : 0;
}

static int records(int fd, struct hwt_abi_record *recs, int n, int wait)
{
	struct hwt_abi_record_get g = { .records = recs, .nentries = &n,
					.wait = wait };
	int err = call(fd, HWT_ABI_IOC_RECORD_GET, &g);

	return err ? -err : n;
}

static int set_config(int fd, size_t size, int pause)
{
	struct hwt_abi_pt_config c = {
		.rtit_ctl = HWT_ABI_RTIT_CTL_USER | HWT_ABI_RTIT_CTL_BRANCHEN,
	};
	static uint8_t big[2 * STANDIN_PAGE];
	struct hwt_abi_set_config sc = {
		.pause_on_mmap = pause,
		.config = size > sizeof(c) ? (void *)big : (void *)&c,
		.config_size = size,
	};

	return call(fd, HWT_ABI_IOC_SET_CONFIG, &sc);
}

START_TEST(dev_hwt_takes_alloc_only)
{
	struct hwt_abi_reserved r = { 0 };
	struct hwt_abi_record rec;
	int n = 1, fd = sys->open(HWT_ABI_DEV, O_RDWR);
	struct hwt_abi_record_get g = { &rec, &n, 0 };

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(call(fd, HWT_ABI_IOC_START, &r), ENXIO);
	ck_assert_int_eq(call(fd, HWT_ABI_IOC_RECORD_GET, &g), ENXIO);
	sys->close(fd);
}
END_TEST

START_TEST(alloc_checks_its_arguments)
{
	int ident = -1;

	ck_assert_int_eq(alloc(target, BUF + 100, "pt", HWT_ABI_MODE_THREAD, &ident), EINVAL);
	ck_assert_int_eq(alloc(target, (size_t)33 << 30, "pt", HWT_ABI_MODE_THREAD, &ident), EINVAL);
	ck_assert_int_eq(alloc(target, BUF, NULL, HWT_ABI_MODE_THREAD, &ident), EINVAL);
	ck_assert_int_eq(alloc(target, BUF, "spe", HWT_ABI_MODE_THREAD, &ident), ENODEV);
	ck_assert_int_eq(alloc(target, BUF, "pt", 3, &ident), ENXIO);
	ck_assert_int_eq(alloc(target, BUF, "pt", HWT_ABI_MODE_CPU, &ident), ENODEV);
	ck_assert_int_eq(alloc(0x7ffffff0, BUF, "pt", HWT_ABI_MODE_THREAD, &ident), ENXIO);
	ck_assert_int_eq(ident, -1);
	ck_assert_int_eq(alloc(target, BUF, "pt", HWT_ABI_MODE_THREAD, &ident), 0);
	ck_assert_int_eq(ident, 0);
	/* One context per process, whoever asks. */
	ck_assert_int_eq(alloc(target, BUF, "pt", HWT_ABI_MODE_THREAD, &ident), EEXIST);
}
END_TEST

START_TEST(records_come_in_order_and_nentries_is_checked)
{
	struct hwt_abi_record recs[4];
	int ident, fd;

	ck_assert_int_eq(alloc(target, BUF, "pt", HWT_ABI_MODE_THREAD, &ident), 0);
	fd = node(ident, 0);
	ck_assert_int_eq(records(fd, recs, 0, 0), -ENXIO);
	ck_assert_int_eq(records(fd, recs, 1025, 0), -ENXIO);
	/* ALLOC queued one THREAD_CREATE per existing thread. */
	ck_assert_int_eq(records(fd, recs, 4, 0), 1);
	ck_assert_int_eq(recs[0].record_type, HWT_ABI_RECORD_THREAD_CREATE);
	ck_assert_int_eq(recs[0].thread_id, 0);
	ck_assert_int_eq(records(fd, recs, 4, 0), 0);
	sys->close(fd);
}
END_TEST

START_TEST(record_get_with_wait_sleeps)
{
	struct hwt_abi_record recs[4];
	struct timespec a, b;
	int ident, fd;

	ck_assert_int_eq(alloc(target, BUF, "pt", HWT_ABI_MODE_THREAD, &ident), 0);
	fd = node(ident, 0);
	ck_assert_int_eq(records(fd, recs, 4, 0), 1);
	clock_gettime(CLOCK_MONOTONIC, &a);
	ck_assert_int_eq(records(fd, recs, 4, 1), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	/* Until a record or a signal; the stand-in's "signal" comes at 50 ms. */
	ck_assert_int_ge((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000, 45);
	sys->close(fd);
}
END_TEST

START_TEST(mmap_whole_buffer_read_only_shared)
{
	int ident, fd;
	uint8_t *p;
	size_t i;

	ck_assert_int_eq(alloc(target, BUF, "pt", HWT_ABI_MODE_THREAD, &ident), 0);
	fd = node(ident, 0);
	ck_assert_ptr_eq(sys->mmap(NULL, BUF, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), MAP_FAILED);
	ck_assert_int_eq(errno, ENXIO);
	ck_assert_ptr_eq(sys->mmap(NULL, BUF, PROT_READ, MAP_SHARED, fd, STANDIN_PAGE), MAP_FAILED);
	ck_assert_int_eq(errno, ENXIO);
	ck_assert_ptr_eq(sys->mmap(NULL, BUF, PROT_READ, MAP_PRIVATE, fd, 0), MAP_FAILED);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_eq(sys->mmap(NULL, BUF / 2, PROT_READ, MAP_SHARED, fd, 0), MAP_FAILED);
	ck_assert_int_eq(errno, ENXIO);
	p = sys->mmap(NULL, BUF, PROT_READ, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	for (i = 0; i < BUF; i++)
		ck_assert_int_eq(p[i], 0);
	sys->munmap(p, BUF);
	sys->close(fd);
}
END_TEST

START_TEST(set_config_start_stop_follow_the_state)
{
	struct hwt_abi_reserved r = { 0 };
	int ident, fd;

	ck_assert_int_eq(alloc(target, BUF, "pt", HWT_ABI_MODE_THREAD, &ident), 0);
	fd = node(ident, 0);
	ck_assert_int_eq(call(fd, HWT_ABI_IOC_STOP, &r), ENXIO);	/* not running */
	ck_assert_int_eq(set_config(fd, 0, 0), 0);		/* a silent no-op */
	ck_assert_int_eq(set_config(fd, STANDIN_PAGE + 1, 0), EFBIG);
	ck_assert_int_eq(set_config(fd, sizeof(struct hwt_abi_pt_config), 1), 0);
	ck_assert_int_eq(call(fd, HWT_ABI_IOC_START, &r), 0);
	ck_assert_int_eq(call(fd, HWT_ABI_IOC_START, &r), ENXIO);
	ck_assert_int_eq(set_config(fd, sizeof(struct hwt_abi_pt_config), 0), ENXIO);
	ck_assert_int_eq(call(fd, HWT_ABI_IOC_STOP, &r), 0);
	ck_assert_int_eq(call(fd, HWT_ABI_IOC_STOP, &r), ENXIO);
	ck_assert_int_eq(set_config(fd, sizeof(struct hwt_abi_pt_config), 0), 0);
	sys->close(fd);
}
END_TEST

START_TEST(bufptr_and_wakeup)
{
	int ident, fd, page = -1;
	uintptr_t offset = 1;
	uint64_t data = 1;
	struct hwt_abi_bufptr_get g = { &page, &offset, &data };
	struct hwt_abi_reserved r = { 0 };

	ck_assert_int_eq(alloc(target, BUF, "pt", HWT_ABI_MODE_THREAD, &ident), 0);
	fd = node(ident, 0);
	ck_assert_int_eq(call(fd, HWT_ABI_IOC_BUFPTR_GET, &g), 0);
	ck_assert_int_eq(page, 0);
	ck_assert_int_eq(offset, 0);
	ck_assert_int_eq(data, 0);
	ck_assert_int_eq(call(fd, HWT_ABI_IOC_WAKEUP, &r), 0);
	sys->close(fd);
}
END_TEST

START_TEST(only_the_owner_may_use_a_context)
{
	struct hwt_abi_reserved r = { 0 };
	int ident, ident2, fd;

	ck_assert_int_eq(alloc(target, BUF, "pt", HWT_ABI_MODE_THREAD, &ident), 0);
	fd = node(ident, 0);
	/* Another process that owns nothing: ENXIO. */
	standin_set_caller(target2);
	ck_assert_int_eq(call(fd, HWT_ABI_IOC_STOP, &r), ENXIO);
	/* ... and once it owns a context of its own: EPERM. */
	ck_assert_int_eq(alloc(target2, BUF, "pt", HWT_ABI_MODE_THREAD, &ident2), 0);
	ck_assert_int_eq(call(fd, HWT_ABI_IOC_WAKEUP, &r), EPERM);
	standin_set_caller(0);
	ck_assert_int_eq(call(fd, HWT_ABI_IOC_WAKEUP, &r), 0);
	sys->close(fd);
}
END_TEST

/* START without SET_CONFIG would crash FreeBSD; the stand-in panics. */
START_TEST(start_without_set_config_panics_the_stand_in)
{
	char marker[300];
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct hwt_abi_reserved r = { 0 };
		int ident, fd;

		if (alloc(target, BUF, "pt", HWT_ABI_MODE_THREAD, &ident))
			_exit(3);
		fd = node(ident, 0);
		set_config(fd, 0, 0);	/* size 0: still no configuration */
		call(fd, HWT_ABI_IOC_START, &r);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(WTERMSIG(status), SIGABRT);
	snprintf(marker, sizeof(marker), "%s/PANIC", dir);
	ck_assert_int_eq(access(marker, F_OK), 0);
}
END_TEST

/* The context layer: START only from CONFIGURED, so never issued here. */
START_TEST(context_never_starts_unconfigured)
{
	uint8_t config[sizeof(struct hwt_abi_pt_config)] = { 0 };
	struct hwt_ctx *ctx;
	const void *buf;
	char msg[512];

	ck_assert_int_eq(hwt_ctx_alloc(sys, target, BUF, "pt", &ctx, msg, sizeof(msg)), 0);
	ck_assert_int_eq(hwt_ctx_map(ctx, 0, &buf), 0);
	ck_assert_int_eq(hwt_ctx_start(ctx), -1);
	ck_assert_ptr_nonnull(strstr(hwt_ctx_error(ctx), "without a successful HWT_IOC_SET_CONFIG"));
	/* An empty configuration is the kernel's silent no-op: refused. */
	ck_assert_int_eq(hwt_ctx_configure(ctx, false, config, 0, 0), -1);
	ck_assert_int_eq(hwt_ctx_state(ctx), HWT_CTX_ALLOCATED);
	ck_assert_int_eq(hwt_ctx_start(ctx), -1);
	ck_assert_uint_eq(hwt_ctx_starts(ctx), 0);
	ck_assert_int_eq(hwt_ctx_configure(ctx, false, config, sizeof(config), 0), 0);
	ck_assert_int_eq(hwt_ctx_start(ctx), 0);
	ck_assert_uint_eq(hwt_ctx_starts(ctx), 1);
	ck_assert_int_eq(hwt_ctx_state(ctx), HWT_CTX_RUNNING);
	hwt_ctx_free(ctx);
}
END_TEST

/* hwt_ctx_alloc's message for each way ALLOC or the open can fail. */
static void expect_alloc_message(pid_t pid, size_t bufsize, const char *text)
{
	struct hwt_ctx *ctx;
	char msg[768];

	ck_assert_int_eq(hwt_ctx_alloc(sys, pid, bufsize, "pt", &ctx, msg, sizeof(msg)), -1);
	ck_assert_ptr_null(ctx);
	if (!strstr(msg, text))
		ck_abort_msg("message '%s' lacks '%s'", msg, text);
}

START_TEST(message_module_not_loaded)
{
	setenv("HWT_STANDIN_MODULES", "", 1);
	expect_alloc_message(target, BUF, "the hwt(4) module is not loaded (kldload hwt intel_pt");
}
END_TEST

START_TEST(message_backend_module_not_loaded)
{
	setenv("HWT_STANDIN_MODULES", "hwt", 1);
	expect_alloc_message(target, BUF, "the intel_pt module is not loaded, so hwt(4) has no \"pt\" backend: kldload intel_pt");
}
END_TEST

START_TEST(message_unsupported_cpu)
{
	setenv("HWT_STANDIN_CPU", "none", 1);
	expect_alloc_message(target, BUF, "unsupported CPU: this CPU has no Intel Processor Trace");
}
END_TEST

START_TEST(message_permission_on_dev)
{
	setenv("HWT_STANDIN_NODES", "denied", 1);
	expect_alloc_message(target, BUF, "/dev/hwt: permission denied: hwt(4)'s nodes are root:wheel mode 0660");
}
END_TEST

START_TEST(message_bad_buffer_size)
{
	expect_alloc_message(target, 5000, "refused a buffer of 5000 bytes per thread: it must be a multiple of the page size");
}
END_TEST

START_TEST(message_no_such_process)
{
	expect_alloc_message(0x7ffffff0, BUF, "HWT_IOC_ALLOC: no process 2147483632");
}
END_TEST

START_TEST(message_already_traced)
{
	int ident;
	char text[128];

	ck_assert_int_eq(alloc(target, BUF, "pt", HWT_ABI_MODE_THREAD, &ident), 0);
	snprintf(text, sizeof(text), "process %d is already traced through hwt(4)", (int)target);
	expect_alloc_message(target, BUF, text);
}
END_TEST

START_TEST(message_not_permitted)
{
	pid_t other;
	char text[128];

	if (geteuid() != 0)
		return;		/* needs a process of another user */
	other = fork();
	ck_assert_int_ge(other, 0);
	if (other == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(1);
		for (;;)
			pause();
	}
	usleep(100000);
	snprintf(text, sizeof(text), "permission denied to trace process %d", (int)other);
	expect_alloc_message(other, BUF, text);
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hwt-standin-abi");
	TCase *tc = tcase_create("abi");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, dev_hwt_takes_alloc_only);
	tcase_add_test(tc, alloc_checks_its_arguments);
	tcase_add_test(tc, records_come_in_order_and_nentries_is_checked);
	tcase_add_test(tc, record_get_with_wait_sleeps);
	tcase_add_test(tc, mmap_whole_buffer_read_only_shared);
	tcase_add_test(tc, set_config_start_stop_follow_the_state);
	tcase_add_test(tc, bufptr_and_wakeup);
	tcase_add_test(tc, only_the_owner_may_use_a_context);
	tcase_add_test(tc, start_without_set_config_panics_the_stand_in);
	tcase_add_test(tc, context_never_starts_unconfigured);
	tcase_add_test(tc, message_module_not_loaded);
	tcase_add_test(tc, message_backend_module_not_loaded);
	tcase_add_test(tc, message_unsupported_cpu);
	tcase_add_test(tc, message_permission_on_dev);
	tcase_add_test(tc, message_bad_buffer_size);
	tcase_add_test(tc, message_no_such_process);
	tcase_add_test(tc, message_already_traced);
	tcase_add_test(tc, message_not_permitted);
	suite_add_tcase(s, tc);
	return check_run_suite(s);
}
