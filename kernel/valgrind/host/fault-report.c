/* fault-report.c: the address of the fault that ended the program, from
 * Valgrind's report of it.
 *
 * A kernel's core has the fatal signal's siginfo (NT_SIGINFO: GDB's
 * `$_siginfo`, whose si_addr says which address faulted); Valgrind's core
 * has only its signal, code and errno (NT_PRSTATUS's pr_info), and a tool
 * is not told the siginfo of a fatal signal.  Valgrind says the address in
 * one place only, its log (ours, not the program's: --log-file), in the
 * lines its default action writes for a signal the kernel raised:
 *
 *     Process terminating with default action of signal 11 (SIGSEGV)
 *      Access not within mapped region at address 0x8
 *
 * (m_signals.c, default_action: "%s at address %p" for SIGSEGV, SIGBUS,
 * SIGFPE and SIGILL; nothing for a signal sent by a process, and no
 * address for a general protection fault.)  The signal in the first line
 * must be the one the recorder saw, and the address line must follow it
 * directly; anything else is no report.
 *
 * Only SIGSEGV and SIGBUS: their address is the data (or jump target) the
 * program touched, the same under Valgrind.  For SIGFPE and SIGILL the
 * kernel gives the faulting instruction's address, and Valgrind reports
 * its own translation's (an idiv at 0x401232 reported at 0x10031b1a4d).
 */
#include "fault-report.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* LINE without Valgrind's "==PID== " prefix and leading blanks. */
static const char *message_of(const char *line)
{
	const char *end;

	if (!strncmp(line, "==", 2) && (end = strstr(line + 2, "==")))
		line = end + 2;
	while (*line == ' ')
		line++;
	return line;
}

/* " ... at address 0xHEX" at the end of MSG: the address. */
static bool address_at_end(const char *msg, uint64_t *addr)
{
	const char *at = strstr(msg, " at address 0x");
	char *end;

	if (!at || at == msg)
		return false;
	at += strlen(" at address 0x");
	if (!*at || !strchr("0123456789abcdef", *at))
		return false;
	*addr = strtoull(at, &end, 16);
	while (*end == '\n' || *end == '\r')
		end++;
	return !*end && end - at <= 16;
}

bool fault_report_address(const char *logdir, pid_t pid, int signal,
			  uint64_t *addr)
{
	char path[4096], line[1024], want[64];
	bool found = false, after_header = false;
	FILE *f;

	if (signal != SIGSEGV && signal != SIGBUS)
		return false;
	snprintf(path, sizeof(path), "%s/vglog.%d", logdir, (int)pid);
	snprintf(want, sizeof(want),
		 "Process terminating with default action of signal %d ", signal);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		const char *msg = message_of(line);

		if (after_header) {
			found = address_at_end(msg, addr);
			break;
		}
		after_header = !strncmp(msg, want, strlen(want));
	}
	fclose(f);
	return found;
}
