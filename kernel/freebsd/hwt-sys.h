/* hwt-sys.h: the seam between the hwt(4) source and the system under it.
 *
 * Everything the source asks of the kernel goes through one function table:
 * the device calls (open, close, ioctl, mmap, munmap, with the meaning and
 * errno of the FreeBSD system calls) and a few process questions (exec the
 * program in the child and wait for it, the process's executable mappings
 * and its threads, whether a module is loaded, what the CPU can trace, a
 * sysctl for what the trace units say of themselves).  hwt-sys-native.c
 * fills it with the real calls on FreeBSD and leaves it empty elsewhere; the
 * test suite's stand-in (testsuite/hwt-standin) fills it with a pretend
 * kernel on Linux.  Nothing else differs between the two builds.
 */
#ifndef HWT_SYS_H
#define HWT_SYS_H

#include "hwtrecord.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One mapping of the traced process (kinfo_vmentry, reduced). */
struct hwt_vm_entry {
	uint64_t start, end;	/* [start, end) */
	uint64_t offset;	/* file offset of start */
	int prot;		/* HWTR_PROT_* */
	char path[1024];	/* "" when not file-backed */
};

struct hwt_sys {
	const char *name;	/* "FreeBSD", "stand-in" */
	/* System calls: -1 with errno on failure. */
	int (*open)(const char *path, int flags);
	int (*close)(int fd);
	int (*ioctl)(int fd, unsigned long request, void *arg);
	void *(*mmap)(void *addr, size_t len, int prot, int flags, int fd,
		      off_t offset);
	int (*munmap)(void *addr, size_t len);
	/* In the forked child, replace it with PROGRAM; returns only on
	 * failure, with errno set. */
	void (*exec)(const char *program, char *const argv[]);
	/* waitpid(2) for that child. */
	pid_t (*waitpid)(pid_t pid, int *status, int options);
	/* The process's mappings, malloc'ed into *entries; -1 with errno. */
	int (*vmmap)(pid_t pid, struct hwt_vm_entry **entries, size_t *n);
	/* The process's live threads in creation order (the kernel's
	 * p_threads order, in which hwt numbers them): up to MAX lwpids in
	 * OUT, their count in *N; -1 with errno. */
	int (*threads)(pid_t pid, uint32_t *out, size_t max, size_t *n);
	/* Is the kernel module NAME loaded? */
	bool (*module_loaded)(const char *name);
	/* Can this CPU trace with BACKEND ("pt", "coresight")?  If so, fill
	 * PT with what a decoder must know of it (PT only); if not, say why in
	 * WHY. */
	bool (*cpu)(const char *backend, struct hwtr_pt_config *pt, char *why,
		    size_t size);
	/* sysctlbyname(3), read only: -1 with errno (ENOENT: no such name). */
	int (*sysctl)(const char *name, void *value, size_t *size);
};

/* The system the hwt source runs on: the real one on FreeBSD, NULL on other
 * systems, the stand-in in the test suite's build. */
extern const struct hwt_sys *const hwt_sys_default;

#endif
