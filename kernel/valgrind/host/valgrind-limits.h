/* valgrind-limits.h: whether Valgrind, not the program, ended the run.
 * The recorder notes the tool's UNDECODABLE events and the threads that
 * resumed after one (a handler caught the SIGILL). */
#ifndef HWTREC_VALGRIND_LIMITS_H
#define HWTREC_VALGRIND_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct vg_limits {
	bool undecodable;		/* pending: no handler ran since */
	uint32_t tid;
	uint64_t ip;
	uint8_t bytes[16];
	size_t nbytes;
};

void vg_limits_undecodable(struct vg_limits *limits, uint32_t tid,
			   uint64_t ip, const uint8_t *bytes, size_t n);
void vg_limits_resumed(struct vg_limits *limits, uint32_t tid);
/* True if Valgrind gave up, with the reason in words: STATUS is the wait
 * status of Valgrind (process PID), GOT_EXIT whether the tool reported the
 * program's exit, LOGDIR holds Valgrind's logs (vglog.PID). */
bool vg_limits_reached(const struct vg_limits *limits, pid_t pid, int status,
		       bool got_exit, const char *logdir, char *reason,
		       size_t size);

#endif
