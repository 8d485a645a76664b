/* valgrind-limits.c: when Valgrind itself gives up on a program.
 *
 * The software source can fail where the program would not: Valgrind
 * asserts and exits with status 1 (for one, when a program sends itself
 * SIGSYS during the kill system call), or it meets an instruction it cannot
 * decode and raises SIGILL at it, which the CPU may well run.  Either way
 * the recording must not pass for the program's own ending.  This file
 * decides, from what the tool sent and how Valgrind ended, whether that
 * happened and puts the reason in words; valgrind-source.c then ends the
 * recording with a gap that names it, marks the manifest's end "aborted"
 * and exits with EXIT_VALGRIND_LIMIT.
 *
 * How Valgrind giving up is told apart from the program's own end:
 *  - the tool's fini sends EXIT whenever the program exits (exit, _exit,
 *    exit_group, the last thread's exit); Valgrind that exits without it
 *    did not finish the program: its log (ours, not the program's) says why;
 *  - an UNDECODABLE event is followed by the SIGILL Valgrind raises; if the
 *    program catches it the thread's trace resumes (a TIP.PGE), and only a
 *    program that then dies of SIGILL died of Valgrind's limit.
 */
#include "valgrind-limits.h"
#include "../../source.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

void vg_limits_undecodable(struct vg_limits *l, uint32_t tid, uint64_t ip,
			   const uint8_t *bytes, size_t n)
{
	l->undecodable = true;
	l->tid = tid;
	l->ip = ip;
	l->nbytes = n < sizeof(l->bytes) ? n : sizeof(l->bytes);
	memcpy(l->bytes, bytes, l->nbytes);
}

void vg_limits_resumed(struct vg_limits *l, uint32_t tid)
{
	if (l->undecodable && l->tid == tid)
		l->undecodable = false;
}

/* The first line that says something in Valgrind's log of process PID, in
 * DIR ("==PID==" prefixes dropped), into OUT; false if there is none. */
static bool first_log_line(const char *dir, pid_t pid, char *out, size_t size)
{
	char path[4096], line[1024];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/vglog.%d", dir, (int)pid);
	f = fopen(path, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		char *s = line, *prefix_end;

		if (!strncmp(s, "==", 2) && (prefix_end = strstr(s + 2, "==")))
			s = prefix_end + 2;
		s[strcspn(s, "\n")] = 0;
		while (*s == ' ')
			s++;
		if (*s) {
			/* A line longer than the message: its start, marked. */
			if (snprintf(out, size, "%s", s) >= (int)size &&
			    size > 4)
				memcpy(out + size - 4, "...", 4);
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

bool vg_limits_reached(const struct vg_limits *l, pid_t pid, int status,
		       bool got_exit, const char *logdir, char *reason,
		       size_t size)
{
	char said[512];

	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGILL &&
	    l->undecodable) {
		int n = snprintf(reason, size, "Valgrind cannot decode the "
				 "instruction at 0x%llx (bytes",
				 (unsigned long long)l->ip);
		size_t i;

		for (i = 0; i < l->nbytes && n > 0 && (size_t)n < size; i++)
			n += snprintf(reason + n, size - (size_t)n, " %02x",
				      l->bytes[i]);
		if (n > 0 && (size_t)n < size)
			snprintf(reason + n, size - (size_t)n, "%s) and raised "
				 "SIGILL there; natively the program may run "
				 "it", l->nbytes ? "" : " unreadable");
		return true;
	}
	if (WIFEXITED(status) && !got_exit) {
		if (first_log_line(logdir, pid, said, sizeof(said)))
			snprintf(reason, size, "Valgrind gave up before the "
				 "program ended (exit status %d): %s",
				 WEXITSTATUS(status), said);
		else
			snprintf(reason, size, "Valgrind exited with status %d "
				 "before the program ended, saying nothing",
				 WEXITSTATUS(status));
		return true;
	}
	return false;
}
