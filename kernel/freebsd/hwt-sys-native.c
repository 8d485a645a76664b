/* hwt-sys-native.c: the seam (hwt-sys.h) filled with the real system.
 *
 * On FreeBSD: the system calls themselves, kinfo_getvmmap(3) for the
 * mappings, the kern.proc.pid sysctl with threads for the thread list (the
 * kernel walks p_threads, creation order), modfind(2) for modules, CPUID
 * for what the CPU can trace (the checks of the intel_pt module's
 * pt_supported()) and sysctlbyname(3) for the ETM driver's ID registers.  Elsewhere there is no hwt(4): the table is NULL and
 * `hwtrec record` says the source is for FreeBSD only.
 *
 * This file is compiled, but cannot be run or tested, on the Linux machines
 * the project is developed on; testsuite/hwt-standin runs the rest of the
 * source against a stand-in instead.
 */
#include "hwt-sys.h"

#ifdef __FreeBSD__

#include "hwt-abi.h"
#include "../pt-cpu.h"

#include <sys/param.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/module.h>
#include <sys/sysctl.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <libutil.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

/* The system's own declarations, when it has them, must agree with ours. */
#if defined(__has_include)
#if __has_include(<sys/hwt.h>)
#include <sys/hwt.h>
_Static_assert(HWT_ABI_IOC_ALLOC == HWT_IOC_ALLOC, "HWT_IOC_ALLOC");
_Static_assert(HWT_ABI_IOC_START == HWT_IOC_START, "HWT_IOC_START");
_Static_assert(HWT_ABI_IOC_STOP == HWT_IOC_STOP, "HWT_IOC_STOP");
_Static_assert(HWT_ABI_IOC_RECORD_GET == HWT_IOC_RECORD_GET, "HWT_IOC_RECORD_GET");
_Static_assert(HWT_ABI_IOC_BUFPTR_GET == HWT_IOC_BUFPTR_GET, "HWT_IOC_BUFPTR_GET");
_Static_assert(HWT_ABI_IOC_SET_CONFIG == HWT_IOC_SET_CONFIG, "HWT_IOC_SET_CONFIG");
_Static_assert(HWT_ABI_IOC_WAKEUP == HWT_IOC_WAKEUP, "HWT_IOC_WAKEUP");
_Static_assert(sizeof(struct hwt_abi_alloc) == sizeof(struct hwt_alloc), "hwt_alloc");
_Static_assert(sizeof(struct hwt_abi_record) ==
	       sizeof(struct hwt_record_user_entry), "hwt_record_user_entry");
_Static_assert(offsetof(struct hwt_abi_record, addr) ==
	       offsetof(struct hwt_record_user_entry, addr), "entry.addr");
_Static_assert(offsetof(struct hwt_abi_record, curpage) ==
	       offsetof(struct hwt_record_user_entry, curpage), "entry.curpage");
_Static_assert(sizeof(struct hwt_abi_set_config) == sizeof(struct hwt_set_config),
	       "hwt_set_config");
_Static_assert(HWT_ABI_RECORD_BUFFER == HWT_RECORD_BUFFER, "HWT_RECORD_BUFFER");
_Static_assert(HWT_ABI_RECORD_THREAD_CREATE == HWT_RECORD_THREAD_CREATE,
	       "HWT_RECORD_THREAD_CREATE");
#endif
#endif

static int native_open(const char *path, int flags)
{
	return open(path, flags | O_CLOEXEC);
}

static int native_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg);
}

static void native_exec(const char *program, char *const argv[])
{
	execv(program, argv);
}

static int native_vmmap(pid_t pid, struct hwt_vm_entry **out, size_t *n)
{
	struct kinfo_vmentry *kv;
	struct hwt_vm_entry *v;
	int cnt = 0, i;

	kv = kinfo_getvmmap(pid, &cnt);
	if (!kv)
		return -1;
	v = calloc((size_t)cnt + 1, sizeof(*v));
	if (!v) {
		free(kv);
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < cnt; i++) {
		v[i].start = kv[i].kve_start;
		v[i].end = kv[i].kve_end;
		v[i].offset = kv[i].kve_offset;
		v[i].prot = (kv[i].kve_protection & KVME_PROT_READ ? HWTR_PROT_READ : 0) |
			    (kv[i].kve_protection & KVME_PROT_WRITE ? HWTR_PROT_WRITE : 0) |
			    (kv[i].kve_protection & KVME_PROT_EXEC ? HWTR_PROT_EXEC : 0);
		if (kv[i].kve_type == KVME_TYPE_VNODE)
			snprintf(v[i].path, sizeof(v[i].path), "%s",
				 kv[i].kve_path);
	}
	free(kv);
	*out = v;
	*n = (size_t)cnt;
	return 0;
}

static int native_threads(pid_t pid, uint32_t *out, size_t max, size_t *n)
{
	int mib[4] = { CTL_KERN, KERN_PROC, KERN_PROC_PID | KERN_PROC_INC_THREAD,
		       (int)pid };
	struct kinfo_proc *kp = NULL;
	size_t len = 0, i;

	for (;;) {
		if (sysctl(mib, 4, NULL, &len, NULL, 0) < 0)
			return -1;
		len += len / 4 + sizeof(*kp);	/* threads may come meanwhile */
		free(kp);
		kp = malloc(len);
		if (!kp) {
			errno = ENOMEM;
			return -1;
		}
		if (sysctl(mib, 4, kp, &len, NULL, 0) == 0)
			break;
		if (errno != ENOMEM) {
			free(kp);
			return -1;
		}
	}
	*n = 0;
	for (i = 0; i < len / sizeof(*kp) && *n < max; i++)
		out[(*n)++] = (uint32_t)kp[i].ki_tid;
	free(kp);
	return 0;
}

static bool native_module_loaded(const char *name)
{
	return modfind(name) >= 0;
}

static bool native_cpu(const char *backend, struct hwtr_pt_config *pt,
		       char *why, size_t size)
{
#if defined(__aarch64__)
	/* The coresight backend registers itself only when a TMC-ETR
	 * attaches; the trace units are checked through their sysctls
	 * (hwt-backend.c). */
	(void)pt;
	if (strcmp(backend, "coresight")) {
		snprintf(why, size, "the %s backend is not for this CPU", backend);
		return false;
	}
	return true;
#elif defined(__x86_64__)
	unsigned a, b, c, d;

	if (strcmp(backend, "pt")) {
		snprintf(why, size, "the %s backend is not for this CPU", backend);
		return false;
	}
	if (!__get_cpuid_count(0, 0, &a, &b, &c, &d) || b != 0x756e6547) {
		snprintf(why, size, "not an Intel CPU: it has no Processor Trace");
		return false;
	}
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & (1u << 25))) {
		snprintf(why, size, "this CPU has no Intel Processor Trace "
			 "(CPUID.7.EBX[25])");
		return false;
	}
	__get_cpuid_count(1, 0, &a, &b, &c, &d);
	if (!(c & (1u << 26))) {
		snprintf(why, size, "this CPU has no XSAVE, which the intel_pt "
			 "module needs");
		return false;
	}
	memset(pt, 0, sizeof(*pt));
	snprintf(pt->vendor, sizeof(pt->vendor), "intel");
	pt_cpu_identity(a, pt);
	__get_cpuid_count(0xd, 1, &a, &b, &c, &d);
	if (!(a & (1u << 1)) || !(a & (1u << 3)) || !(c & (1u << 8))) {
		snprintf(why, size, "this CPU cannot save the PT state with "
			 "XSAVES/XSAVEC, which the intel_pt module needs");
		return false;
	}
	__get_cpuid_count(0x14, 0, &a, &b, &c, &d);
	if (!(c & 1) || !(c & 2)) {
		snprintf(why, size, "this CPU's Processor Trace has no "
			 "multi-entry ToPA output, which the intel_pt module "
			 "needs");
		return false;
	}
	pt->cpuid_0x14_ebx = b;
	pt->cpuid_0x14_ecx = c;
	if (__get_cpuid_count(0x15, 0, &a, &b, &c, &d)) {
		pt->cpuid_0x15_eax = a;
		pt->cpuid_0x15_ebx = b;
	}
	/* What FreeBSD's backend programs: no TSC, return compression on,
	 * PSBFreq left 0 (2 KiB). */
	pt->tsc = false;
	pt->return_compression = true;
	pt->psb_period = 2048;
	return true;
#else
	snprintf(why, size, "hwtrecord reads this CPU's trace only with the "
		 "Intel PT backend on amd64 and the coresight backend on arm64");
	return false;
#endif
}

static int native_sysctl(const char *name, void *value, size_t *size)
{
	return sysctlbyname(name, value, size, NULL, 0);
}

static const struct hwt_sys native = {
	.name = "FreeBSD",
	.open = native_open,
	.close = close,
	.ioctl = native_ioctl,
	.mmap = mmap,
	.munmap = munmap,
	.exec = native_exec,
	.waitpid = waitpid,
	.vmmap = native_vmmap,
	.threads = native_threads,
	.module_loaded = native_module_loaded,
	.cpu = native_cpu,
	.sysctl = native_sysctl,
};

const struct hwt_sys *const hwt_sys_default = &native;

#else

const struct hwt_sys *const hwt_sys_default = NULL;

#endif
