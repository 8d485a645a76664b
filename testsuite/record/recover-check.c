/* recover-check.c: hwtr-recover-check RECORDING ORACLE: every general
 * register that libhwtrecord's recovery (hwtr_recovery_*, for recordings
 * without a data log) claims to know at a position of the first thread,
 * against the oracle (values-oracle.py: GDB single-stepping the same run
 * under Valgrind's gdbserver).  The end state is the recording's core
 * (NT_PRSTATUS of the thread, read here with libelf), as the server uses it.
 *
 * The core's memory is given too (the program is single-threaded; the
 * library's hwtr_core_memory, writable segments, as the server gives it), and
 * every byte of the oracle's globals (M lines) the recovery claims to know
 * is compared: "the same as the end" against the core's byte, an old value
 * against itself.
 *
 * Prints, per band of distance from the end (1-10, 11-1k, 1k-100k,
 * 100k-1M instructions), the registers and global bytes compared,
 * recovered and wrong, and the first wrong values; then the most frequent
 * causes of registers left unknown (hwtr_recovery_unknown_cause); exit 1 on any wrong
 * value, on a proof conflict, or when the positions do not line up with
 * the history.
 *
 * hwtr-recover-check --time RECORDING: how long the recovery of the first
 * thread takes and how many registers it claims per distance band (no
 * oracle: for the figures in doc/value-recovery.md).
 *
 * hwtr-recover-check --dump STEP RECORDING: after --time's report, every
 * register claimed (and the 64 bytes at the claimed rsp: "s" the end
 * state's, "oXX" an older value, "?" unknown) at every STEP-th position of
 * the window, one line each: for comparing two builds of the library value
 * for value.
 */
#include "vgdb-oracle.h"

#include <hwtrecord.h>

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/procfs.h>
#include <sys/reg.h>
#include <time.h>
#include <unistd.h>

#define MAX_GLOBAL_SIZE 256

/* The recovery's end-state memory: the core's writable segments, as the
 * server gives them (replay.c), through the same reader. */
static size_t core_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct hwtr_core_memory *cm = ctx;

	return hwtr_core_memory_writable(cm, addr)
	       ? hwtr_core_memory_read(cm, addr, buf, len) : 0;
}

/* The end state's bytes the program cannot write: the core's read-only
 * segments', as the server gives them. */
static size_t core_read_fixed(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct hwtr_core_memory *cm = ctx;

	return len && hwtr_core_memory_read_only(cm, addr) &&
	       hwtr_core_memory_read_only(cm, addr + len - 1)
	       ? hwtr_core_memory_read(cm, addr, buf, len) : 0;
}

/* The registers of thread TID in the core at PATH. */
static int core_registers(const char *path, uint32_t tid,
			  struct hwtr_recovery_end *end)
{
	static const int user_index[16] = {
		RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP,
		R8, R9, R10, R11, R12, R13, R14, R15,
	};
	int fd = open(path, O_RDONLY), found = 0;
	Elf *elf;
	size_t i, n;

	elf_version(EV_CURRENT);
	if (fd < 0 || !(elf = elf_begin(fd, ELF_C_READ, NULL)) ||
	    elf_getphdrnum(elf, &n)) {
		perror(path);
		return -1;
	}
	for (i = 0; i < n && !found; i++) {
		GElf_Phdr ph;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset,
					    ph.p_filesz, ELF_T_NHDR);
		while (data && (off = gelf_getnote(data, off, &nh, &name_off,
						    &desc_off)) > 0) {
			struct elf_prstatus pr;
			int r;

			if (nh.n_type != NT_PRSTATUS || nh.n_descsz < sizeof(pr))
				continue;
			memcpy(&pr, (char *)data->d_buf + desc_off, sizeof(pr));
			if ((uint32_t)pr.pr_pid != tid)
				continue;
			for (r = 0; r < 16; r++)
				end->regs[r] = pr.pr_reg[user_index[r]];
			end->pc = pr.pr_reg[RIP];
			end->fs_base = pr.pr_reg[FS_BASE];
			end->fs_base_known = true;
			end->eflags = (uint32_t)pr.pr_reg[EFLAGS];
			end->eflags_known = true;
			end->known = 0xffff;
			found = 1;
			break;
		}
	}
	elf_end(elf);
	close(fd);
	if (!found)
		fprintf(stderr, "%s: no registers of thread %u\n", path, tid);
	return found ? 0 : -1;
}

/* The registers checked: rax..r15 and eflags (the oracle's order). */
#define NCHECKED ORACLE_NREGS

static unsigned regno(unsigned r)
{
	return r == ORACLE_EFLAGS ? hwtr_amd64_eflags : r;
}

#define NBANDS 4
static const uint64_t band_max[NBANDS] = { 10, 1000, 100000, 1000000 };
static const char *const band_name[NBANDS] = {
	"1-10", "11-1k", "1k-100k", "100k-1M",
};

static double clock_seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_seconds(CLOCK_MONOTONIC);
}

/* The first thread's end state, from RECORDING's core. */
static int end_state(const char *recording, const struct hwtr_recording *rec,
		     struct hwtr_history *history,
		     struct hwtr_core_memory **cm, struct hwtr_recovery_end *end)
{
	const struct hwtr_recording_info *info = hwtr_recording_info(rec);
	struct hwtr_thread *thread = hwtr_history_thread(history, 0);
	struct hwtr_thread_stats stats;
	struct hwtr_cursor *cursor;
	struct hwtr_insn last;
	char core[4096];

	snprintf(core, sizeof(core), "%s/core", recording);
	memset(end, 0, sizeof(*end));
	if (!thread || hwtr_thread_stats(thread, &stats) ||
	    core_registers(core, stats.tid, end) ||
	    hwtr_core_memory_open(core, cm) ||
	    hwtr_cursor_alloc(thread, &cursor))
		return -1;
	end->under_valgrind = info && info->source &&
			      !strcmp(info->source, "valgrind");
	if (hwtr_history_nthreads(history) == 1) {
		end->read_memory = core_read;
		end->read_fixed_memory = core_read_fixed;
		end->memory_ctx = *cm;
	}
	/* At its last instruction (a fault) or after it, as the server
	 * decides (replay.c, thread_at_end). */
	if (hwtr_cursor_goto(cursor, stats.instructions) ||
	    hwtr_cursor_insn(cursor, &last))
		return -1;
	end->position = !last.gap && last.ip == end->pc ? stats.instructions
						         : stats.instructions + 1;
	hwtr_cursor_free(cursor);
	return 0;
}

/* Print what RECOVERY claims at every STEP-th position of its window. */
static void dump_recovery(struct hwtr_recovery *recovery,
			  const struct hwtr_recovery_stats *rs, uint64_t step)
{
	uint64_t p;
	unsigned r;

	for (p = rs->first; p <= rs->end; p += step) {
		uint64_t v, rsp = 0;
		uint8_t buf[64], state[64];
		bool have_rsp = false;
		size_t i;

		printf("%" PRIu64 ":", p);
		for (r = 0; r < NCHECKED; r++) {
			if (hwtr_recovery_register(recovery, p, regno(r), &v,
						   8) == 8) {
				printf(" %" PRIx64, v);
				if (regno(r) == hwtr_amd64_rsp) {
					rsp = v;
					have_rsp = true;
				}
			} else {
				printf(" ?");
			}
		}
		if (have_rsp && !hwtr_recovery_memory(recovery, p, rsp, buf,
						      state, sizeof(buf))) {
			printf(" |");
			/* "s": the end state's byte (hwtr_recovery_memory
			 * leaves BUF alone there); "oXX": an old value. */
			for (i = 0; i < sizeof(buf); i++)
				if (state[i] == hwtr_value_unknown)
					printf(" ?");
				else if (state[i] == hwtr_value_same)
					printf(" s");
				else
					printf(" o%02x", buf[i]);
		}
		printf("\n");
	}
}

static int time_recovery(const char *path, uint64_t dump_step)
{
	static const uint64_t bands[] = { 10, 1000, 100000, 1000000 };
	struct hwtr_recording *rec;
	struct hwtr_history *history;
	struct hwtr_recovery *recovery;
	struct hwtr_recovery_stats rs;
	struct hwtr_recovery_end end;
	struct hwtr_core_memory *cm = NULL;
	double t0, t1, c0, c1;
	size_t b;

	if (hwtr_recording_open(path, &rec) ||
	    hwtr_history_build(rec, NULL, &history) ||
	    end_state(path, rec, history, &cm, &end)) {
		fprintf(stderr, "%s: %s\n", path, hwtr_last_error());
		return 1;
	}
	t0 = now();
	c0 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
	if (hwtr_recovery_open(hwtr_history_thread(history, 0), &end, 0,
			       &recovery) || hwtr_recovery_stats(recovery, &rs)) {
		fprintf(stderr, "%s: %s\n", path, hwtr_last_error());
		return 1;
	}
	t1 = now();
	c1 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
	/* (CPU time too: on a loaded machine the wall clock says little.) */
	printf("recovery of %" PRIu64 " instructions: %.2f s (%.2f s CPU), %"
	       PRIu64
	       " unmodelled, %" PRIu64 " barriers, %u passes, %" PRIu64
	       " conflicts\n", rs.end - rs.first, t1 - t0, c1 - c0, rs.unmodelled,
	       rs.barriers, rs.passes, rs.conflicts);
	for (b = 0; b < 4; b++) {
		uint64_t lo = b ? bands[b - 1] + 1 : 1, d, step, n = 0, known = 0;
		unsigned r;

		step = (bands[b] - lo) / 200 + 1;
		for (d = lo; d <= bands[b] && d < end.position - rs.first;
		     d += step) {
			for (r = 0; r < NCHECKED; r++) {
				uint64_t v;

				n++;
				known += hwtr_recovery_register(recovery,
						end.position - d, regno(r),
						&v, 8) == 8;
			}
		}
		if (n)
			printf("distance %7" PRIu64 "-%-7" PRIu64 ": %5.1f%% of "
			       "registers claimed\n", lo, bands[b],
			       100.0 * known / n);
	}
	if (dump_step)
		dump_recovery(recovery, &rs, dump_step);
	hwtr_recovery_free(recovery);
	hwtr_core_memory_close(cm);
	hwtr_history_free(history);
	hwtr_recording_close(rec);
	return 0;
}

/* Why registers stay unknown: a count per cause
 * (hwtr_recovery_unknown_cause), the most frequent printed at the end. */
#define MAX_CAUSES 512
struct cause {
	char name[48];
	unsigned long count;
};
static struct cause causes[MAX_CAUSES];
static size_t ncauses;
static unsigned long nunknown;

static void count_cause(struct hwtr_recovery *recovery, uint64_t number,
			unsigned r)
{
	char name[48];
	size_t i;

	if (hwtr_recovery_unknown_cause(recovery, number, r, name,
					sizeof(name)))
		snprintf(name, sizeof(name), "(no cause: %s)",
			 hwtr_last_error());
	nunknown++;
	for (i = 0; i < ncauses && strcmp(causes[i].name, name); i++)
		;
	if (i == ncauses) {
		if (ncauses == MAX_CAUSES)
			i = MAX_CAUSES - 1;	/* (the rest, lumped) */
		else
			ncauses++;
		snprintf(causes[i].name, sizeof(causes[i].name), "%s", name);
	}
	causes[i].count++;
}

static int by_count(const void *a, const void *b)
{
	const struct cause *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1
	       : strcmp(x->name, y->name);
}

static void print_causes(void)
{
	size_t i;

	qsort(causes, ncauses, sizeof(*causes), by_count);
	printf("unknown register reads by cause (the instruction that last "
	       "wrote the register), of %lu:\n", nunknown);
	for (i = 0; i < ncauses && i < 15; i++)
		printf("  %6lu %5.1f%%  %s\n", causes[i].count,
		       100.0 * causes[i].count / nunknown, causes[i].name);
}

int main(int argc, char **argv)
{
	struct hwtr_recording *rec;
	struct hwtr_history *history;
	struct hwtr_values *values;
	struct hwtr_thread *thread;
	struct hwtr_thread_stats stats;
	struct hwtr_cursor *cursor;
	struct hwtr_recovery *recovery;
	struct hwtr_recovery_stats rs;
	struct hwtr_recovery_end end;
	unsigned long compared[NBANDS] = { 0 }, recovered[NBANDS] = { 0 },
		      wrong[NBANDS] = { 0 }, bad = 0;
	unsigned long mcompared[NBANDS] = { 0 }, mrecovered[NBANDS] = { 0 },
		      mwrong[NBANDS] = { 0 };
	unsigned long reg_recovered[NBANDS][NCHECKED] = { { 0 } };
	struct hwtr_core_memory *cm = NULL;
	uint64_t *number;
	struct oracle o;
	const struct oracle_step *steps;
	size_t n, i, b;

	if (argc == 3 && !strcmp(argv[1], "--time"))
		return time_recovery(argv[2], 0);
	if (argc == 4 && !strcmp(argv[1], "--dump") && atoll(argv[2]) > 0)
		return time_recovery(argv[3], (uint64_t)atoll(argv[2]));
	if (argc != 3) {
		fprintf(stderr, "usage: hwtr-recover-check RECORDING ORACLE\n"
			"       hwtr-recover-check --time RECORDING\n"
			"       hwtr-recover-check --dump STEP RECORDING\n");
		return 2;
	}
	if (oracle_read(argv[2], &o))
		return 2;
	steps = o.steps;
	n = o.nsteps;
	if (!n) {
		fprintf(stderr, "%s: no oracle\n", argv[2]);
		return 2;
	}
	if (hwtr_recording_open(argv[1], &rec) ||
	    hwtr_history_build(rec, NULL, &history) ||
	    hwtr_values_open(history, &values) ||
	    !(thread = hwtr_history_thread(history, 0)) ||
	    hwtr_thread_stats(thread, &stats) ||
	    hwtr_cursor_alloc(thread, &cursor)) {
		fprintf(stderr, "%s: %s\n", argv[1], hwtr_last_error());
		return 1;
	}
	if (values) {
		fprintf(stderr, "%s: has a data log: not a control-flow-only "
			"recording\n", argv[1]);
		return 1;
	}
	if (end_state(argv[1], rec, history, &cm, &end)) {
		fprintf(stderr, "%s: no end state: %s\n", argv[1],
			hwtr_last_error());
		return 1;
	}
	if (hwtr_recovery_open(thread, &end, 0, &recovery) ||
	    hwtr_recovery_stats(recovery, &rs)) {
		fprintf(stderr, "%s: %s\n", argv[1], hwtr_last_error());
		return 1;
	}
	/* The oracle's k-th instruction is the history's k-th that is not a
	 * gap. */
	number = calloc(n, sizeof(*number));
	for (i = 0, b = 1; i < n && b <= stats.instructions; b++) {
		struct hwtr_insn insn;

		if (hwtr_cursor_goto(cursor, b) || hwtr_cursor_insn(cursor, &insn))
			break;
		if (insn.gap)
			continue;
		if (insn.ip != steps[i].pc) {
			printf("oracle position %zu: pc 0x%" PRIx64 ", history "
			       "0x%" PRIx64 " at %" PRIu64 "\n", i + 1,
			       steps[i].pc, insn.ip, b);
			return 1;
		}
		number[i++] = b;
	}
	/* A fault: the faulting instruction is the oracle's last and not in
	 * the trace; the end state stands there. */
	if (i == n - 1 && end.position == stats.instructions + 1 &&
	    steps[i].pc == end.pc)
		n--;
	if (i < n) {
		printf("the history ends before the oracle's position %zu\n",
		       i + 1);
		return 1;
	}
	for (i = 0; i < n; i++) {
		uint64_t dist = end.position - number[i];
		unsigned r;

		for (b = 0; b < NBANDS && dist > band_max[b]; b++)
			;
		if (b == NBANDS)
			continue;
		for (r = 0; r < NCHECKED; r++) {
			uint64_t v;
			int rc = hwtr_recovery_register(recovery, number[i],
							regno(r), &v, sizeof(v));

			compared[b]++;
			if (rc < 0) {
				count_cause(recovery, number[i], regno(r));
				continue;
			}
			recovered[b]++;
			reg_recovered[b][r]++;
			if (v != steps[i].reg[r]) {
				wrong[b]++;
				if (bad++ < 20)
					printf("position %" PRIu64 " (pc 0x%"
					       PRIx64 ", %" PRIu64 " before the "
					       "end): %s recovered 0x%" PRIx64
					       ", oracle 0x%" PRIx64 "\n",
					       number[i], steps[i].pc, dist,
					       oracle_reg_names[r], v, steps[i].reg[r]);
			}
		}
	}
	for (i = 0; i < n; i++) {
		uint64_t dist = end.position - number[i];
		size_t g, k;

		for (b = 0; b < NBANDS && dist > band_max[b]; b++)
			;
		if (b == NBANDS)
			continue;
		for (g = 0; g < o.nglobals; g++) {
			const struct oracle_global *gl = &o.globals[g];
			uint8_t val[MAX_GLOBAL_SIZE], st[MAX_GLOBAL_SIZE];
			uint8_t endv[MAX_GLOBAL_SIZE];
			size_t have;

			if (!steps[i].mem[g] || gl->size > MAX_GLOBAL_SIZE)
				continue;
			have = core_read(cm, gl->addr, endv, gl->size);
			if (hwtr_recovery_memory(recovery, number[i],
						 gl->addr, val, st, gl->size)) {
				printf("%s\n", hwtr_last_error());
				return 1;
			}
			for (k = 0; k < gl->size; k++) {
				uint8_t got;

				mcompared[b]++;
				if (st[k] == hwtr_value_unknown ||
				    (st[k] == hwtr_value_same && k >= have))
					continue;
				got = st[k] == hwtr_value_old ? val[k] : endv[k];
				mrecovered[b]++;
				if (got != steps[i].mem[g][k]) {
					mwrong[b]++;
					if (bad++ < 20)
						printf("position %" PRIu64 " (pc 0x%"
						       PRIx64 "): %s+%zu recovered "
						       "%s0x%02x, oracle 0x%02x\n",
						       number[i], steps[i].pc,
						       gl->name, k,
						       st[k] == hwtr_value_same
						       ? "(end) " : "", got,
						       steps[i].mem[g][k]);
				}
			}
		}
	}
	printf("recover-check: window %" PRIu64 "..%" PRIu64 ", %" PRIu64
	       " unmodelled, %" PRIu64 " barriers, %u passes, %" PRIu64
	       " conflicts\n", rs.first, rs.end, rs.unmodelled, rs.barriers,
	       rs.passes, rs.conflicts);
	printf("%-10s %10s %10s %8s %6s %10s %10s %8s %6s\n", "distance",
	       "registers", "recovered", "share", "wrong", "mem-bytes",
	       "recovered", "share", "wrong");
	for (b = 0; b < NBANDS; b++)
		if (compared[b])
			printf("%-10s %10lu %10lu %7.1f%% %6lu %10lu %10lu %7.1f%% "
			       "%6lu\n", band_name[b], compared[b], recovered[b],
			       100.0 * recovered[b] / compared[b], wrong[b],
			       mcompared[b], mrecovered[b], mcompared[b] ?
			       100.0 * mrecovered[b] / mcompared[b] : 0.0,
			       mwrong[b]);
	/* Which registers stay unknown: per register, the share recovered. */
	for (b = 0; b < NBANDS; b++) {
		unsigned r;

		if (!compared[b])
			continue;
		printf("%-10s", band_name[b]);
		for (r = 0; r < NCHECKED; r++)
			printf(" %s %.0f%%", oracle_reg_names[r],
			       100.0 * reg_recovered[b][r] /
			       (compared[b] / NCHECKED));
		printf("\n");
	}
	/* The general registers alone, eflags and r11 (which the kernel
	 * sets from the flags), as counts. */
	for (b = 0; b < NBANDS; b++) {
		unsigned long per = compared[b] / NCHECKED, gprs = 0;
		unsigned r;

		if (!compared[b])
			continue;
		for (r = 0; r < 16; r++)
			gprs += reg_recovered[b][r];
		printf("%-10s gprs %lu of %lu (%.1f%%), eflags %lu of %lu, "
		       "r11 %lu of %lu\n", band_name[b], gprs, 16 * per,
		       100.0 * gprs / (16 * per),
		       reg_recovered[b][ORACLE_EFLAGS], per,
		       reg_recovered[b][11], per);
	}
	print_causes();
	printf("recover-check: %lu wrong values\n", bad);
	hwtr_recovery_free(recovery);
	hwtr_cursor_free(cursor);
	hwtr_history_free(history);
	hwtr_core_memory_close(cm);
	hwtr_recording_close(rec);
	free(number);
	oracle_free(&o);
	return bad || rs.conflicts ? 1 : 0;
}
