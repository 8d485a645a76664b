/* hwtr-stepper: ground truth of execution for the test suite.
 *
 * Runs a program under ptrace, single-steps every thread (PTRACE_O_TRACECLONE
 * follows new threads) and prints each user-mode instruction as it retires,
 * per thread, in order, streaming:
 *
 *     TID 0xPC                      (default)
 *     TID OBJECT 0xFILE_OFFSET      (--offsets; OBJECT as /proc/PID/maps names it)
 *     # start|clone|exec|fork|signal|exit ...   (events, for people and checks)
 *
 * What counts as executed is what a user-mode-only Intel PT trace reports:
 *  - an instruction that faults is not listed (the fault is an asynchronous
 *    event at its IP, as PT's FUP + TIP.PGD); the handler's first instruction
 *    is the next one listed;
 *  - a syscall instruction is listed once it has entered the kernel, even if
 *    the thread then blocks there, exits or takes a signal;
 *  - a REP string instruction is one instruction, however many iterations
 *    single-stepping reports.
 * The tracee is started with PTRACE_TRACEME + exec, so the first instruction
 * listed is the entry of the dynamic loader (or of a static program).  With
 * --from-entry the stepper runs at full speed (a breakpoint, PTRACE_CONT) to
 * the program's entry point (AT_ENTRY), after the start and after every exec,
 * and lists from there: the loader's start-up is ~100,000 instructions, which
 * single-stepping in a VM takes seconds to get through.  A fork child is not
 * followed (a "# fork" line names it); exec is followed.
 *
 * A SIGTRAP the program raises (int3, or kill/tgkill) is told apart from the
 * stepper's own traps by its si_code: int3 is a trap, so it is listed as
 * executed, and the signal goes to the program.
 *
 * Limits: a program that stops itself with SIGSTOP is not supported (it
 * looks like a stepper event), nor one that catches SIGTRAP (a second int3
 * after the handler returned was seen to kill the program under the
 * stepper; only a SIGTRAP that ends the program is tested).
 */
#define _GNU_SOURCE
#include "maps.h"
#include "rep.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

struct thread {
	pid_t tid;
	bool exiting;		/* exit event seen: list nothing more */
	bool awaiting_stop;	/* a new thread before its first stop */
	bool have_pc;
	bool fresh;		/* pc set at an event: a trap there is no step */
	bool entering_handler;	/* a caught signal was injected */
	uint64_t pc;		/* next instruction to retire */
	const char *object;	/* pc translated when it was set */
	uint64_t offset;
};

static struct {
	bool offsets;
	bool from_entry;
	const char *only_object;	/* interned realpath, or NULL */
	FILE *out;
} opt;

static struct maps maps;
static struct thread **threads;	/* pointers: they stay valid as it grows */
static size_t nthreads;
static pid_t leader;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "hwtr-stepper: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	if (leader > 0)
		kill(leader, SIGKILL);
	exit(125);
}

static struct thread *find_thread(pid_t tid)
{
	for (size_t i = 0; i < nthreads; i++)
		if (threads[i]->tid == tid)
			return threads[i];
	return NULL;
}

static struct thread *add_thread(pid_t tid)
{
	struct thread **grown = realloc(threads, (nthreads + 1) * sizeof(*grown));
	struct thread *t = calloc(1, sizeof(*t));

	if (!grown || !t)
		die("out of memory");
	threads = grown;
	t->tid = tid;
	t->awaiting_stop = true;
	threads[nthreads++] = t;
	return t;
}

static void get_regs(pid_t tid, struct user_regs_struct *regs)
{
	if (ptrace(PTRACE_GETREGS, tid, NULL, regs) < 0)
		die("PTRACE_GETREGS on thread %d: %s", (int)tid, strerror(errno));
}

static void resume(pid_t tid, int request, int sig)
{
	/* ESRCH: the thread was killed meanwhile (exit_group, SIGKILL); its
	 * exit is reported by waitpid. */
	if (ptrace(request, tid, NULL, (void *)(long)sig) < 0 && errno != ESRCH)
		die("resuming thread %d: %s", (int)tid, strerror(errno));
}

/* Translate now: the mapping is certainly there while the thread is about to
 * execute at PC, which is not true once it retired (munmap, exec). */
static void set_pc(struct thread *t, uint64_t pc, bool fresh)
{
	const struct maps_entry *e = maps_lookup(&maps, pc);

	t->pc = pc;
	t->have_pc = true;
	t->fresh = fresh;
	if (e && e->path[0]) {
		t->object = e->path;
		t->offset = pc - e->start + e->offset;
	} else {
		t->object = "[anon]";
		t->offset = pc;
	}
}

static void retire(struct thread *t)
{
	if (!t->have_pc)
		return;
	if (opt.only_object && t->object != opt.only_object)
		return;
	if (opt.offsets)
		fprintf(opt.out, "%d %s 0x%" PRIx64 "\n", (int)t->tid,
			t->object, t->offset);
	else
		fprintf(opt.out, "%d 0x%" PRIx64 "\n", (int)t->tid, t->pc);
}

static bool at_rep_string(pid_t tid, uint64_t pc)
{
	union { long word[2]; uint8_t bytes[16]; } code;

	for (int i = 0; i < 2; i++) {
		errno = 0;
		code.word[i] = ptrace(PTRACE_PEEKTEXT, tid,
				      (void *)(pc + i * sizeof(long)), NULL);
		if (errno)
			return false;
	}
	return rep_string_insn(code.bytes, sizeof(code.bytes));
}

/* Whether the process has a handler for SIG (SigCgt in /proc/PID/status). */
static bool signal_caught(pid_t pid, int sig)
{
	char name[64], line[256];
	unsigned long long mask = 0;
	bool found = false;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/status", (int)pid);
	f = fopen(name, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigCgt: %llx", &mask) == 1) {
			found = true;
			break;
		}
	fclose(f);
	return found && sig >= 1 && sig <= 64 && (mask >> (sig - 1)) & 1;
}

static bool maps_may_change(long nr)
{
	return nr == SYS_mmap || nr == SYS_munmap || nr == SYS_mprotect ||
	       nr == SYS_mremap || nr == SYS_shmat || nr == SYS_shmdt ||
	       nr == SYS_execve || nr == SYS_execveat || nr == SYS_brk;
}

static bool restarts_without_handler(long ret)
{
	/* ERESTARTSYS, ERESTARTNOINTR, ERESTARTNOHAND, ERESTART_RESTARTBLOCK:
	 * with no handler the kernel rewinds to the syscall instruction. */
	return ret == -512 || ret == -513 || ret == -514 || ret == -516;
}

static uint64_t auxv_entry(pid_t pid)
{
	uint64_t pair[2], entry = 0;
	char name[64];
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/auxv", (int)pid);
	f = fopen(name, "re");
	if (!f)
		die("cannot read %s: %s", name, strerror(errno));
	while (fread(pair, sizeof(pair), 1, f) == 1 && pair[0] != 0)
		if (pair[0] == 9)	/* AT_ENTRY */
			entry = pair[1];
	fclose(f);
	if (!entry)
		die("no AT_ENTRY in %s", name);
	return entry;
}

/* Run TID (the only thread, after start or exec) to the program's entry with
 * an int3 there.  Returns 0 at the entry, else the wait status of the end. */
static int run_to_entry(pid_t tid)
{
	uint64_t entry = auxv_entry(tid);
	struct user_regs_struct regs;
	long word;
	int status, sig = 0;

	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, tid, (void *)entry, NULL);
	if (errno)
		die("reading the entry point 0x%" PRIx64 ": %s", entry,
		    strerror(errno));
	if (ptrace(PTRACE_POKETEXT, tid, (void *)entry,
		   (void *)((word & ~0xffL) | 0xcc)) < 0)
		die("setting a breakpoint at 0x%" PRIx64 ": %s", entry,
		    strerror(errno));
	for (;;) {
		resume(tid, PTRACE_CONT, sig);
		if (waitpid(tid, &status, __WALL) < 0)
			die("waitpid: %s", strerror(errno));
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return status;
		sig = WSTOPSIG(status);
		if (sig != SIGTRAP)
			continue;	/* deliver it */
		sig = 0;
		if (status >> 16)
			continue;	/* an event (exit) */
		get_regs(tid, &regs);
		if (regs.rip == entry + 1)
			break;
	}
	if (ptrace(PTRACE_POKETEXT, tid, (void *)entry, (void *)word) < 0)
		die("removing the breakpoint: %s", strerror(errno));
	regs.rip = entry;
	if (ptrace(PTRACE_SETREGS, tid, NULL, &regs) < 0)
		die("PTRACE_SETREGS: %s", strerror(errno));
	return 0;
}

static void on_event(struct thread *t, int event)
{
	struct user_regs_struct regs;
	unsigned long msg = 0;

	switch (event) {
	case PTRACE_EVENT_CLONE:
		ptrace(PTRACE_GETEVENTMSG, t->tid, NULL, &msg);
		fprintf(opt.out, "# clone %d %lu\n", (int)t->tid, msg);
		if (!find_thread((pid_t)msg))
			add_thread((pid_t)msg);
		break;
	case PTRACE_EVENT_EXEC: {
		char exe[4096];
		char link[64];
		ssize_t n;

		retire(t);	/* the execve syscall */
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)t->tid);
		n = readlink(link, exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		fprintf(opt.out, "# exec %d %s\n", (int)t->tid, exe);
		if (opt.from_entry && run_to_entry(t->tid) != 0)
			return;	/* it ended before its entry */
		if (maps_read(&maps, leader) < 0)
			die("reading /proc/%d/maps after exec: %s", (int)leader,
			    strerror(errno));
		get_regs(t->tid, &regs);
		set_pc(t, regs.rip, true);
		break;
	}
	case PTRACE_EVENT_EXIT:
		get_regs(t->tid, &regs);
		/* Inside a syscall (exit, or blocked when another thread
		 * ended the process), the syscall entered the kernel. */
		if (t->have_pc && regs.rip != t->pc && !t->entering_handler)
			retire(t);
		ptrace(PTRACE_GETEVENTMSG, t->tid, NULL, &msg);
		fprintf(opt.out, "# exit %d 0x%lx\n", (int)t->tid, msg);
		t->exiting = true;
		resume(t->tid, PTRACE_CONT, 0);
		return;
	default:
		break;
	}
	resume(t->tid, PTRACE_SINGLESTEP, 0);
}

static void on_step(struct thread *t)
{
	struct user_regs_struct regs;

	get_regs(t->tid, &regs);
	if (t->exiting) {
		resume(t->tid, PTRACE_CONT, 0);
		return;
	}
	if (maps_may_change((long)regs.orig_rax))
		maps.stale = true;
	if (t->entering_handler) {
		/* The kernel reports the handler's entry before it runs. */
		t->entering_handler = false;
		set_pc(t, regs.rip, false);
	} else if (!t->have_pc || (t->fresh && regs.rip == t->pc)) {
		set_pc(t, regs.rip, false);
	} else {
		if (regs.rip != t->pc || !at_rep_string(t->tid, t->pc))
			retire(t);
		/* fork/vfork/clone without CLONE_THREAD: not followed. */
		if (((long)regs.orig_rax == SYS_fork ||
		     (long)regs.orig_rax == SYS_vfork ||
		     (long)regs.orig_rax == SYS_clone ||
		     (long)regs.orig_rax == SYS_clone3) &&
		    (long)regs.rax > 0 && !find_thread((pid_t)regs.rax))
			fprintf(opt.out, "# fork %d %ld\n", (int)t->tid,
				(long)regs.rax);
		set_pc(t, regs.rip, false);
	}
	resume(t->tid, PTRACE_SINGLESTEP, 0);
}

static void on_signal(struct thread *t, int sig)
{
	struct user_regs_struct regs;
	bool caught = signal_caught(leader, sig);

	get_regs(t->tid, &regs);
	if (t->have_pc && regs.rip != t->pc && !t->entering_handler) {
		/* A syscall was interrupted: it entered the kernel. */
		retire(t);
		if (caught || !restarts_without_handler((long)regs.rax))
			set_pc(t, regs.rip, false);
	}
	fprintf(opt.out, "# signal %d %d\n", (int)t->tid, sig);
	if (caught)
		t->entering_handler = true;
	resume(t->tid, PTRACE_SINGLESTEP, sig);
}

/* A SIGTRAP of the program's own (int3: SI_KERNEL; kill, tgkill: SI_USER,
 * SI_TKILL), not a single-step or syscall-exit report (TRAP_TRACE,
 * TRAP_BRKPT). */
static bool program_sigtrap(pid_t tid)
{
	siginfo_t si;

	if (ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) < 0)
		return false;
	return si.si_code == SI_KERNEL || si.si_code <= 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hwtr-stepper [--offsets] [--from-entry] [--object PATH] [-o FILE]\n"
		"                    -- PROGRAM [ARGS...]\n"
		"Single-steps PROGRAM and all its threads with ptrace and prints every\n"
		"user-mode instruction it executes: 'TID 0xPC', or with --offsets\n"
		"'TID OBJECT 0xFILE_OFFSET'.  --object lists only instructions in that file;\n"
		"--from-entry starts listing at the program's entry point (after exec too).\n"
		"Exit status: the program's (128+N if it died of signal N); 125 on a\n"
		"stepper error.\n");
}

int main(int argc, char **argv)
{
	int i, status, result = 0;
	pid_t pid;

	opt.out = stdout;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "--offsets")) {
			opt.offsets = true;
		} else if (!strcmp(argv[i], "--from-entry")) {
			opt.from_entry = true;
		} else if (!strcmp(argv[i], "--object") && i + 1 < argc) {
			char *real = realpath(argv[++i], NULL);

			if (!real)
				die("--object %s: %s", argv[i], strerror(errno));
			opt.only_object = maps_intern(real);
			free(real);
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			opt.out = fopen(argv[++i], "we");
			if (!opt.out)
				die("cannot write %s: %s", argv[i], strerror(errno));
		} else if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] == '-') {
			usage(stderr);
			return 125;
		} else {
			break;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 125;
	}

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(argv[i], &argv[i]);
		fprintf(stderr, "hwtr-stepper: cannot run %s: %s\n", argv[i],
			strerror(errno));
		_exit(127);
	}
	leader = pid;
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid: %s", strerror(errno));
	if (!WIFSTOPPED(status)) {
		leader = 0;
		return WIFEXITED(status) ? WEXITSTATUS(status) : 125;
	}
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
				  PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)) < 0)
		die("PTRACE_SETOPTIONS: %s", strerror(errno));
	if (opt.from_entry) {
		int end = run_to_entry(pid);

		if (end) {
			leader = 0;
			return WIFEXITED(end) ? WEXITSTATUS(end)
					      : 128 + WTERMSIG(end);
		}
	}
	if (maps_read(&maps, pid) < 0)
		die("reading /proc/%d/maps: %s", (int)pid, strerror(errno));
	{
		struct thread *t = add_thread(pid);
		struct user_regs_struct regs;

		t->awaiting_stop = false;
		get_regs(pid, &regs);
		set_pc(t, regs.rip, false);
		fprintf(opt.out, "# start %d\n", (int)pid);
		resume(pid, PTRACE_SINGLESTEP, 0);
	}

	for (;;) {
		pid_t tid = waitpid(-1, &status, __WALL);
		struct thread *t;
		int sig, event;

		if (tid < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				break;
			die("waitpid: %s", strerror(errno));
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (tid == leader)
				result = WIFEXITED(status) ? WEXITSTATUS(status)
							   : 128 + WTERMSIG(status);
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;
		sig = WSTOPSIG(status);
		event = status >> 16;
		t = find_thread(tid);
		if (!t)
			t = add_thread(tid);	/* its stop came before the clone event */
		if (t->awaiting_stop) {
			struct user_regs_struct regs;

			t->awaiting_stop = false;
			get_regs(tid, &regs);
			set_pc(t, regs.rip, true);
			fprintf(opt.out, "# start %d\n", (int)tid);
			resume(tid, PTRACE_SINGLESTEP, sig == SIGSTOP ? 0 : sig);
		} else if (sig == SIGTRAP && event) {
			on_event(t, event);
		} else if (sig == SIGTRAP && !program_sigtrap(tid)) {
			on_step(t);
		} else {
			on_signal(t, sig);
		}
	}
	leader = 0;
	if (fclose(opt.out) != 0)
		die("writing the output: %s", strerror(errno));
	maps_free(&maps);
	for (size_t j = 0; j < nthreads; j++)
		free(threads[j]);
	free(threads);
	return result;
}
