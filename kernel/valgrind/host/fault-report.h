/* fault-report.h: the address of the fault that ended the program, from
 * Valgrind's log (fault-report.c). */
#ifndef HWTREC_FAULT_REPORT_H
#define HWTREC_FAULT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The address Valgrind reported for the fatal SIGNAL of process PID (its
 * log LOGDIR/vglog.PID): true and *ADDR, or false when it reported none. */
bool fault_report_address(const char *logdir, pid_t pid, int signal,
			  uint64_t *addr);

#endif
