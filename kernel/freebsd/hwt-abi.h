/* hwt-abi.h: the user-space ABI of FreeBSD's hwt(4), declared once, in our
 * own names, so that the same code builds on FreeBSD (real ioctls) and on
 * Linux (the test suite's stand-in) without <sys/hwt.h>.
 *
 * The layouts are those of sys/sys/hwt.h, sys/sys/hwt_record.h and
 * sys/amd64/pt/pt.h on an LP64 machine (amd64, arm64); every size and field
 * offset the facts file gives (../shared/reference/platform-facts.md, A.3,
 * A.4, A.5) is checked below at compile time, and the ioctl numbers are
 * computed the way FreeBSD's <sys/ioccom.h> computes _IOW and checked against
 * the numbers of that table.  On FreeBSD, hwt-sys-native.c also checks them
 * against the system's own header when it has one.
 *
 * The coresight backend's configuration (struct etmv4_config) is not in
 * FreeBSD's main tree but in the hwt development trees; its layout is checked
 * the same way, against offsets computed from that declaration.
 *
 * Not declared: CPU mode (cpu_map), kqueue notes, SVC_BUF (SPE only).
 */
#ifndef HWT_ABI_H
#define HWT_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#if !defined(__LP64__) && !defined(_LP64)
#error "hwt-abi.h describes the LP64 ABI (amd64, arm64)"
#endif

/* <sys/ioccom.h>: direction in the top bits, parameter length in 13 bits
 * from bit 16, group in bits 8-15, number in bits 0-7. */
#define HWT_ABI_IOCPARM_MASK 0x1fffUL
#define HWT_ABI_IOC_IN 0x80000000UL
#define HWT_ABI_IOW(group, num, type)                                         \
	(HWT_ABI_IOC_IN | ((sizeof(type) & HWT_ABI_IOCPARM_MASK) << 16) |    \
	 ((unsigned long)(group) << 8) | (unsigned long)(num))

#define HWT_ABI_MAGIC 0x42
#define HWT_ABI_BACKEND_MAXNAMELEN 256
#define HWT_ABI_MODE_THREAD 1
#define HWT_ABI_MODE_CPU 2
#define HWT_ABI_MAXPATHLEN 1024		/* MAXPATHLEN */
#define HWT_ABI_MAXBUFSIZE (32ULL << 30)	/* HWT_MAXBUFSIZE */
#define HWT_ABI_MAXCONFIGSIZE 4096	/* HWT_MAXCONFIGSIZE = PAGE_SIZE */
#define HWT_ABI_RECORD_GET_MAX 1024	/* nentries 1..1024 */

/* The two device nodes: /dev/hwt, and one per buffer. */
#define HWT_ABI_DEV "/dev/hwt"
#define HWT_ABI_NODE_FMT "/dev/hwt_%d_%d"	/* ident, thread index or cpu */

struct hwt_abi_alloc {
	size_t bufsize;
	int mode;
	pid_t pid;
	void *cpu_map;			/* cpuset_t *, CPU mode only */
	size_t cpusetsize;
	const char *backend_name;
	int *ident;			/* out */
	int kqueue_fd;
} __attribute__((aligned(16)));

/* START, STOP and WAKEUP take one. */
struct hwt_abi_reserved {
	int reserved;
} __attribute__((aligned(16)));

enum hwt_abi_record_type {
	HWT_ABI_RECORD_MMAP = 0,
	HWT_ABI_RECORD_MUNMAP = 1,	/* nothing produces it */
	HWT_ABI_RECORD_EXECUTABLE = 2,
	HWT_ABI_RECORD_KERNEL = 3,	/* CPU mode */
	HWT_ABI_RECORD_THREAD_CREATE = 4,
	HWT_ABI_RECORD_THREAD_SET_NAME = 5,	/* never emitted */
	HWT_ABI_RECORD_BUFFER = 6,
};

struct hwt_abi_record {
	enum hwt_abi_record_type record_type;
	union {
		struct {		/* MMAP, EXECUTABLE, KERNEL */
			char fullpath[HWT_ABI_MAXPATHLEN];
			uintptr_t addr;
			uintptr_t baseaddr;
		};
		struct {		/* BUFFER */
			int buf_id;
			int curpage;
			uintptr_t offset;	/* vm_offset_t */
		};
		int thread_id;		/* THREAD_* */
	};
} __attribute__((aligned(16)));

struct hwt_abi_record_get {
	struct hwt_abi_record *records;
	int *nentries;			/* in: room, out: how many */
	int wait;
} __attribute__((aligned(16)));

struct hwt_abi_bufptr_get {
	int *ident;			/* out: current page */
	uintptr_t *offset;		/* out: offset in that page */
	uint64_t *data;
} __attribute__((aligned(16)));

struct hwt_abi_set_config {
	int pause_on_mmap;
	void *config;			/* to the backend, unchecked */
	size_t config_size;
	int config_version;
} __attribute__((aligned(16)));

/* The Intel PT backend's configuration (struct pt_cpu_config). */
#define HWT_ABI_PT_MAX_RANGES 2
struct hwt_abi_pt_config {
	uint64_t rtit_ctl;
	int64_t cr3_filter;		/* register_t */
	int nranges;
	struct {
		uintptr_t start, end;	/* vm_offset_t */
	} ip_ranges[HWT_ABI_PT_MAX_RANGES];
	uint32_t mtc_freq;
	uint32_t cyc_thresh;
	uint32_t psb_freq;
};

/* IA32_RTIT_CTL bits the backend keeps (it masks the rest off). */
#define HWT_ABI_RTIT_CTL_OS (1ULL << 2)
#define HWT_ABI_RTIT_CTL_USER (1ULL << 3)
#define HWT_ABI_RTIT_CTL_CR3FILTER (1ULL << 7)
#define HWT_ABI_RTIT_CTL_MTCEN (1ULL << 9)
#define HWT_ABI_RTIT_CTL_BRANCHEN (1ULL << 13)
#define HWT_ABI_RTIT_CTL_DISTNT (1ULL << 55)
#define HWT_ABI_PT_SUPPORTED_CTL                                             \
	(HWT_ABI_RTIT_CTL_MTCEN | HWT_ABI_RTIT_CTL_CR3FILTER |               \
	 HWT_ABI_RTIT_CTL_DISTNT | HWT_ABI_RTIT_CTL_USER |                   \
	 HWT_ABI_RTIT_CTL_OS | HWT_ABI_RTIT_CTL_BRANCHEN)

/* The coresight backend's configuration: struct etmv4_config of
 * sys/arm64/coresight/coresight_etm4x.h (and its copy in usr.sbin/hwt's
 * hwt_coresight.h), in the hwt development trees (CTSRD-CHERI/cheribsd,
 * bnovkov/freebsd-src; see doc/recording-freebsd.md).  The ETM driver takes
 * it only when SET_CONFIG's size is exactly this struct's and its version 1,
 * and then writes cfg to TRCCONFIGR, eventctrl0/1, stall_ctrl, ts_ctrl,
 * syncfreq (TRCSYNCPR), vinst_ctrl (TRCVICTLR), the 16 address comparators
 * and viiectlr, vissctlr as they are; the other fields are not programmed.
 * Any other size or version silently gets the driver's default (return
 * stack, timestamps, context IDs, all ELs but the one it excludes). */
#define HWT_ABI_ETM_CONFIG_VERSION 1
#define HWT_ABI_ETM_MAX_SEQ_STATES 4
#define HWT_ABI_ETM_MAX_CNTR 4
#define HWT_ABI_ETM_MAX_RES_SEL 32
#define HWT_ABI_ETM_MAX_SS_CMP 8
#define HWT_ABI_ETM_MAX_ADDR_CMP 16
#define HWT_ABI_ETM_MAX_CTXID_CMP 8
#define HWT_ABI_ETM_MAX_VMID_CMP 8
struct hwt_abi_etmv4_config {
	uint32_t mode;
	uint32_t pe_sel;
	uint32_t cfg;			/* TRCCONFIGR */
	uint32_t eventctrl0;		/* TRCEVENTCTL0R */
	uint32_t eventctrl1;		/* TRCEVENTCTL1R */
	uint32_t stall_ctrl;		/* TRCSTALLCTLR */
	uint32_t ts_ctrl;		/* TRCTSCTLR */
	uint32_t syncfreq;		/* TRCSYNCPR */
	uint32_t ccctlr;
	uint32_t bb_ctrl;
	uint32_t vinst_ctrl;		/* TRCVICTLR */
	uint32_t viiectlr;		/* TRCVIIECTLR */
	uint32_t vissctlr;		/* TRCVISSCTLR */
	uint32_t vipcssctlr;
	uint8_t seq_idx;
	uint32_t seq_ctrl[HWT_ABI_ETM_MAX_SEQ_STATES];
	uint32_t seq_rst;
	uint32_t seq_state;
	uint8_t cntr_idx;
	uint32_t cntrldvr[HWT_ABI_ETM_MAX_CNTR];
	uint32_t cntr_ctrl[HWT_ABI_ETM_MAX_CNTR];
	uint32_t cntr_val[HWT_ABI_ETM_MAX_CNTR];
	uint8_t res_idx;
	uint32_t res_ctrl[HWT_ABI_ETM_MAX_RES_SEL];
	uint8_t ss_idx;
	uint32_t ss_ctrl[HWT_ABI_ETM_MAX_SS_CMP];
	uint32_t ss_status[HWT_ABI_ETM_MAX_SS_CMP];
	uint32_t ss_pe_cmp[HWT_ABI_ETM_MAX_SS_CMP];
	uint8_t addr_idx;
	uint64_t addr_val[HWT_ABI_ETM_MAX_ADDR_CMP];	/* TRCACVRn */
	uint64_t addr_acc[HWT_ABI_ETM_MAX_ADDR_CMP];	/* TRCACATRn */
	uint8_t addr_type[HWT_ABI_ETM_MAX_ADDR_CMP];
	uint8_t ctxid_idx;
	uint64_t ctxid_pid[HWT_ABI_ETM_MAX_CTXID_CMP];
	uint32_t ctxid_mask0;
	uint32_t ctxid_mask1;
	uint8_t vmid_idx;
	uint64_t vmid_val[HWT_ABI_ETM_MAX_VMID_CMP];
	uint32_t vmid_mask0;
	uint32_t vmid_mask1;
	uint32_t ext_inp;
	uint8_t s_ex_level;
};

/* ETMv4 register fields the configuration uses (Arm IHI0064). */
#define HWT_ABI_TRCSYNCPR_4K 12			/* an A-sync every 2^12 bytes */
#define HWT_ABI_TRCVICTLR_EVENT_TRUE 1		/* resource 1: always true */
#define HWT_ABI_TRCVICTLR_SSSTATUS (1u << 9)	/* start/stop logic started */
#define HWT_ABI_TRCVICTLR_EXLEVEL_S(el) (1u << (16 + (el)))	/* exclude */
#define HWT_ABI_TRCVICTLR_EXLEVEL_NS(el) (1u << (20 + (el)))	/* exclude */

/* The ETM driver's ID registers, read at attach, one sysctl per register
 * and trace unit (dev.coresight_etm4x.UNIT.idrN, N 0..13). */
#define HWT_ABI_ETM_IDR_SYSCTL "dev.coresight_etm4x.%d.idr%d"
#define HWT_ABI_ETM_NIDR 14

/* The backend programs TRCTRACEIDR with the hwt thread index + 1 (thread
 * mode) at every switch-in: trace IDs 1..0x6f are usable, 0x70 and up are
 * reserved by CoreSight. */
#define HWT_ABI_ETM_TRACE_ID(index) ((index) + 1)
#define HWT_ABI_ETM_MAX_TRACE_ID 0x6f

#define HWT_ABI_IOC_ALLOC HWT_ABI_IOW(HWT_ABI_MAGIC, 0, struct hwt_abi_alloc)
#define HWT_ABI_IOC_START                                                     \
	HWT_ABI_IOW(HWT_ABI_MAGIC, 1, struct hwt_abi_reserved)
#define HWT_ABI_IOC_STOP HWT_ABI_IOW(HWT_ABI_MAGIC, 2, struct hwt_abi_reserved)
#define HWT_ABI_IOC_RECORD_GET                                                \
	HWT_ABI_IOW(HWT_ABI_MAGIC, 3, struct hwt_abi_record_get)
#define HWT_ABI_IOC_BUFPTR_GET                                                \
	HWT_ABI_IOW(HWT_ABI_MAGIC, 4, struct hwt_abi_bufptr_get)
#define HWT_ABI_IOC_SET_CONFIG                                                \
	HWT_ABI_IOW(HWT_ABI_MAGIC, 5, struct hwt_abi_set_config)
#define HWT_ABI_IOC_WAKEUP                                                    \
	HWT_ABI_IOW(HWT_ABI_MAGIC, 6, struct hwt_abi_reserved)

/* The amd64 table of the facts file (A.3, A.4, A.5). */
_Static_assert(sizeof(struct hwt_abi_alloc) == 64, "hwt_alloc size");
_Static_assert(offsetof(struct hwt_abi_alloc, mode) == 8, "hwt_alloc.mode");
_Static_assert(offsetof(struct hwt_abi_alloc, pid) == 12, "hwt_alloc.pid");
_Static_assert(offsetof(struct hwt_abi_alloc, cpu_map) == 16, "hwt_alloc.cpu_map");
_Static_assert(offsetof(struct hwt_abi_alloc, cpusetsize) == 24,
	       "hwt_alloc.cpusetsize");
_Static_assert(offsetof(struct hwt_abi_alloc, backend_name) == 32,
	       "hwt_alloc.backend_name");
_Static_assert(offsetof(struct hwt_abi_alloc, ident) == 40, "hwt_alloc.ident");
_Static_assert(offsetof(struct hwt_abi_alloc, kqueue_fd) == 48,
	       "hwt_alloc.kqueue_fd");
_Static_assert(sizeof(struct hwt_abi_reserved) == 16, "hwt_start size");
_Static_assert(sizeof(struct hwt_abi_record) == 1056, "hwt_record_user_entry size");
_Static_assert(offsetof(struct hwt_abi_record, fullpath) == 8,
	       "hwt_record_user_entry.fullpath");
_Static_assert(offsetof(struct hwt_abi_record, addr) == 1032,
	       "hwt_record_user_entry.addr");
_Static_assert(offsetof(struct hwt_abi_record, baseaddr) == 1040,
	       "hwt_record_user_entry.baseaddr");
_Static_assert(offsetof(struct hwt_abi_record, buf_id) == 8,
	       "hwt_record_user_entry.buf_id");
_Static_assert(offsetof(struct hwt_abi_record, curpage) == 12,
	       "hwt_record_user_entry.curpage");
_Static_assert(offsetof(struct hwt_abi_record, offset) == 16,
	       "hwt_record_user_entry.offset");
_Static_assert(offsetof(struct hwt_abi_record, thread_id) == 8,
	       "hwt_record_user_entry.thread_id");
_Static_assert(sizeof(struct hwt_abi_record_get) == 32, "hwt_record_get size");
_Static_assert(offsetof(struct hwt_abi_record_get, wait) == 16,
	       "hwt_record_get.wait");
_Static_assert(sizeof(struct hwt_abi_bufptr_get) == 32, "hwt_bufptr_get size");
_Static_assert(sizeof(struct hwt_abi_set_config) == 32, "hwt_set_config size");
_Static_assert(offsetof(struct hwt_abi_set_config, config) == 8,
	       "hwt_set_config.config");
_Static_assert(offsetof(struct hwt_abi_set_config, config_size) == 16,
	       "hwt_set_config.config_size");
_Static_assert(offsetof(struct hwt_abi_set_config, config_version) == 24,
	       "hwt_set_config.config_version");
_Static_assert(sizeof(struct hwt_abi_pt_config) == 72, "pt_cpu_config size");
_Static_assert(offsetof(struct hwt_abi_pt_config, nranges) == 16,
	       "pt_cpu_config.nranges");
_Static_assert(offsetof(struct hwt_abi_pt_config, ip_ranges) == 24,
	       "pt_cpu_config.ip_ranges");
_Static_assert(offsetof(struct hwt_abi_pt_config, mtc_freq) == 56,
	       "pt_cpu_config.mtc_freq");
_Static_assert(offsetof(struct hwt_abi_pt_config, psb_freq) == 64,
	       "pt_cpu_config.psb_freq");
/* struct etmv4_config on arm64 (LP64; fixed-width members only, so the
 * same on amd64): computed from the declaration, natural alignment. */
_Static_assert(sizeof(struct hwt_abi_etmv4_config) == 816, "etmv4_config size");
_Static_assert(offsetof(struct hwt_abi_etmv4_config, cfg) == 8,
	       "etmv4_config.cfg");
_Static_assert(offsetof(struct hwt_abi_etmv4_config, syncfreq) == 28,
	       "etmv4_config.syncfreq");
_Static_assert(offsetof(struct hwt_abi_etmv4_config, vinst_ctrl) == 40,
	       "etmv4_config.vinst_ctrl");
_Static_assert(offsetof(struct hwt_abi_etmv4_config, viiectlr) == 44,
	       "etmv4_config.viiectlr");
_Static_assert(offsetof(struct hwt_abi_etmv4_config, seq_ctrl) == 60,
	       "etmv4_config.seq_ctrl");
_Static_assert(offsetof(struct hwt_abi_etmv4_config, res_ctrl) == 140,
	       "etmv4_config.res_ctrl");
_Static_assert(offsetof(struct hwt_abi_etmv4_config, addr_val) == 376,
	       "etmv4_config.addr_val");
_Static_assert(offsetof(struct hwt_abi_etmv4_config, addr_acc) == 504,
	       "etmv4_config.addr_acc");
_Static_assert(offsetof(struct hwt_abi_etmv4_config, ctxid_pid) == 656,
	       "etmv4_config.ctxid_pid");
_Static_assert(offsetof(struct hwt_abi_etmv4_config, vmid_val) == 736,
	       "etmv4_config.vmid_val");
_Static_assert(offsetof(struct hwt_abi_etmv4_config, s_ex_level) == 812,
	       "etmv4_config.s_ex_level");
_Static_assert(sizeof(struct hwt_abi_etmv4_config) <= HWT_ABI_MAXCONFIGSIZE,
	       "etmv4_config fits SET_CONFIG");

_Static_assert(HWT_ABI_IOC_ALLOC == 0x80404200UL, "HWT_IOC_ALLOC");
_Static_assert(HWT_ABI_IOC_START == 0x80104201UL, "HWT_IOC_START");
_Static_assert(HWT_ABI_IOC_STOP == 0x80104202UL, "HWT_IOC_STOP");
_Static_assert(HWT_ABI_IOC_RECORD_GET == 0x80204203UL, "HWT_IOC_RECORD_GET");
_Static_assert(HWT_ABI_IOC_BUFPTR_GET == 0x80204204UL, "HWT_IOC_BUFPTR_GET");
_Static_assert(HWT_ABI_IOC_SET_CONFIG == 0x80204205UL, "HWT_IOC_SET_CONFIG");
_Static_assert(HWT_ABI_IOC_WAKEUP == 0x80104206UL, "HWT_IOC_WAKEUP");

/* A name for an ioctl number, for messages. */
static inline const char *hwt_abi_ioctl_name(unsigned long request)
{
	switch (request) {
	case HWT_ABI_IOC_ALLOC: return "HWT_IOC_ALLOC";
	case HWT_ABI_IOC_START: return "HWT_IOC_START";
	case HWT_ABI_IOC_STOP: return "HWT_IOC_STOP";
	case HWT_ABI_IOC_RECORD_GET: return "HWT_IOC_RECORD_GET";
	case HWT_ABI_IOC_BUFPTR_GET: return "HWT_IOC_BUFPTR_GET";
	case HWT_ABI_IOC_SET_CONFIG: return "HWT_IOC_SET_CONFIG";
	case HWT_ABI_IOC_WAKEUP: return "HWT_IOC_WAKEUP";
	}
	return "an unknown hwt ioctl";
}

#endif
