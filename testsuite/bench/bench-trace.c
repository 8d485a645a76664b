/* bench-trace.c: see bench-trace.h.
 *
 * The generator runs bench-code.S in its head: each function below mirrors
 * one of the assembly's functions block by block, counts the instructions it
 * executes, and emits the packets a user-mode Intel PT trace of it holds,
 * with libipt's encoder: taken/not-taken bits in long TNT packets, returns
 * compressed into a TNT bit when their call is in the same PSB window (the
 * decoder can start at any PSB, so the hardware does not compress across
 * one), TIPs with the shortest IP compression against the last IP for
 * indirect calls and jumps, a PSB+ (TSC, MODE.Exec, FUP) every psb_period
 * bytes, and TIP.PGD at the exit system call.  Bytes stream to the
 * recording at each PSB, so memory stays small whatever the length. */
#include "bench-trace.h"

#include "elf-facts.h"
#include "pt-synth.h"
#include "hwtrecord.h"

#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

struct frame {
	uint64_t ret_ip;
	uint64_t window;	/* PSB window of the call */
};

struct gen {
	struct pt_synth pt;
	unsigned psb_period;
	uint64_t last_ip;
	uint64_t window;
	struct frame stack[MAX_DEPTH];
	int depth;
	uint64_t rng;
	int failed;
	struct bench_trace_facts *facts;
	const char *code;
};

/* Addresses of the assembly's labels. */
static struct {
	uint64_t start, after_init, main_loop, after_ind, after_work, exit;
	uint64_t f[4], f0_loop, f0_ret, f1_a, f1_b, f2_add, f2_skip, f2_after, c[2];
	uint64_t work, work_loop, work_call, work_ret, work_nocall, work_end;
	uint64_t leaf, init;
} L;

static uint64_t rnd(struct gen *g)
{
	/* xorshift64: a fixed seed gives the same trace every run. */
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

static void put_ip(struct gen *g, enum pt_packet_type type, uint64_t ip)
{
	struct pt_packet p = { .type = type };

	/* The shortest compression the last IP allows, as hardware does. */
	if ((ip >> 16) == (g->last_ip >> 16))
		p.payload.ip.ipc = pt_ipc_update_16;
	else if ((ip >> 32) == (g->last_ip >> 32))
		p.payload.ip.ipc = pt_ipc_update_32;
	else
		p.payload.ip.ipc = pt_ipc_sext_48;
	p.payload.ip.ip = ip;
	pt_synth_put(&g->pt, &p);
	g->last_ip = ip;
}

/* PSB+ at NEXT_IP, the instruction about to execute. */
static void psb(struct gen *g, uint64_t next_ip)
{
	pt_synth_psb(&g->pt, next_ip);
	g->last_ip = next_ip;
	g->window++;
	g->facts->psbs++;
}

static void maybe_psb(struct gen *g, uint64_t next_ip)
{
	if (pt_synth_offset(&g->pt) >= g->psb_period)
		psb(g, next_ip);
}

static void insns(struct gen *g, unsigned n)
{
	g->facts->instructions += n;
}

/* A conditional branch; the next instruction is NEXT. */
static void cond(struct gen *g, int taken, uint64_t next)
{
	g->facts->conditional++;
	if (pt_synth_tnt(&g->pt, taken))
		maybe_psb(g, next);
}

static void tip(struct gen *g, uint64_t target)
{
	pt_synth_flush_tnt(&g->pt);
	put_ip(g, ppt_tip, target);
	g->facts->indirect++;
	maybe_psb(g, target);
}

static void call(struct gen *g, uint64_t ret_ip)
{
	if (g->depth == MAX_DEPTH) {
		fprintf(stderr, "bench-trace: call stack too deep\n");
		g->pt.failed = 1;
		return;
	}
	g->stack[g->depth].ret_ip = ret_ip;
	g->stack[g->depth++].window = g->window;
	g->facts->calls++;
}

static void ret(struct gen *g)
{
	struct frame f = g->stack[--g->depth];

	g->facts->returns++;
	if (f.window == g->window) {
		g->facts->conditional--;	/* a compressed return, not a jcc */
		cond(g, 1, f.ret_ip);
	} else {
		tip(g, f.ret_ip);
		g->facts->indirect--;
	}
}

/* ---------------------------------------------- the assembly, mirrored */

static void leaf(struct gen *g)
{
	insns(g, 4);
	ret(g);
}

static void call_leaf(struct gen *g, uint64_t ret_ip)
{
	call(g, ret_ip);
	leaf(g);
}

static void f0(struct gen *g)
{
	unsigned n = 4 + (unsigned)(rnd(g) % 29), i;

	insns(g, 1);
	for (i = 1; i <= n; i++) {
		insns(g, 5);
		cond(g, i < n, i < n ? L.f0_loop : L.f0_ret);
	}
	insns(g, 1);
	ret(g);
}

static void f1(struct gen *g)
{
	insns(g, 2);
	call_leaf(g, L.f1_a);
	insns(g, 1);
	call_leaf(g, L.f1_b);
	insns(g, 2);
	ret(g);
}

static void f2(struct gen *g)
{
	int skip = (int)(rnd(g) & 1);

	insns(g, 2);
	cond(g, skip, skip ? L.f2_skip : L.f2_add);
	if (!skip)
		insns(g, 1);
	insns(g, 1);
	call_leaf(g, L.f2_after);
	insns(g, 1);
	ret(g);
}

static void f3(struct gen *g)
{
	int k = (int)(rnd(g) & 1);

	insns(g, 5);
	tip(g, L.c[k]);
	insns(g, k ? 3 : 2);
	ret(g);
}

static void work(struct gen *g)
{
	unsigned n = 16 + (unsigned)(rnd(g) % 113), i;

	insns(g, 1);
	for (i = n; i >= 1; i--) {
		int nocall = (i & 7) != 0;

		insns(g, 3);
		cond(g, nocall, nocall ? L.work_nocall : L.work_call);
		if (!nocall) {
			insns(g, 2);
			call_leaf(g, L.work_ret);
			insns(g, 1);
		}
		insns(g, 4);
		cond(g, i > 1, i > 1 ? L.work_loop : L.work_end);
	}
	insns(g, 1);
	ret(g);
}

static int resolve(const char *code)
{
	static const char *const fnames[4] = { "f0", "f1", "f2", "f3" };
	struct {
		const char *name;
		uint64_t *where;
	} names[] = {
		{ "_start", &L.start }, { "after_init", &L.after_init },
		{ "main_loop", &L.main_loop }, { "after_ind", &L.after_ind },
		{ "after_work", &L.after_work }, { "exit", &L.exit },
		{ "f0_loop", &L.f0_loop }, { "f0_ret", &L.f0_ret },
		{ "f1_a", &L.f1_a }, { "f1_b", &L.f1_b },
		{ "f2_add", &L.f2_add }, { "f2_skip", &L.f2_skip }, { "f2_after", &L.f2_after },
		{ "c0", &L.c[0] }, { "c1", &L.c[1] }, { "work", &L.work },
		{ "work_loop", &L.work_loop }, { "work_call", &L.work_call },
		{ "work_ret", &L.work_ret },
		{ "work_nocall", &L.work_nocall }, { "work_end", &L.work_end },
		{ "leaf", &L.leaf }, { "init", &L.init },
	};
	size_t i;

	for (i = 0; i < 4; i++)
		if (!(L.f[i] = elf_symbol(code, fnames[i])))
			goto missing;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!(*names[i].where = elf_symbol(code, names[i].name))) {
			fprintf(stderr, "bench-trace: %s: no symbol %s\n", code,
				names[i].name);
			return -1;
		}
	return 0;
missing:
	fprintf(stderr, "bench-trace: %s: no symbol %s\n", code, fnames[i]);
	return -1;
}

static int open_recording(struct gen *g, const char *dir, const char *code)
{
	struct hwtr_writer_info info = { .source = "bench", .pid = 1 };
	struct hwtr_sideband_event mm = { .kind = hwtr_ev_mmap };
	char build_id[128];

	strcpy(info.pt.vendor, "intel");
	info.pt.family = 6;
	info.pt.model = 0x55;	/* Skylake-SP */
	info.pt.stepping = 4;
	info.pt.tsc = true;
	info.pt.return_compression = true;
	info.pt.psb_period = g->psb_period;
	info.executable = code;
	if (elf_text_mapping(code, &mm.addr, &mm.len, &mm.pgoff) ||
	    elf_build_id(code, build_id, sizeof(build_id))) {
		fprintf(stderr, "bench-trace: %s: cannot read its ELF headers\n", code);
		return -1;
	}
	mm.prot = HWTR_PROT_READ | HWTR_PROT_EXEC;
	mm.path = code;
	mm.build_id = build_id;
	if (hwtr_writer_create(dir, &info, &g->pt.writer) ||
	    hwtr_writer_add_thread(g->pt.writer, 1, 0) ||
	    hwtr_writer_event(g->pt.writer, &mm)) {
		fprintf(stderr, "bench-trace: %s\n", hwtr_last_error());
		return -1;
	}
	return 0;
}

int bench_trace_write(const char *dir, const char *code, uint64_t min_insns,
		      unsigned psb_period, uint64_t seed,
		      struct bench_trace_facts *facts)
{
	struct hwtr_end end = { hwtr_end_exited, 0 };
	struct gen *g = calloc(1, sizeof(*g));
	int err = -1;

	memset(facts, 0, sizeof(*facts));
	if (!g || resolve(code) < 0)
		goto out;
	g->facts = facts;
	g->psb_period = psb_period;
	g->rng = seed ? seed : 1;
	g->code = code;
	if (pt_synth_init(&g->pt, "bench-trace") < 0 ||
	    open_recording(g, dir, code) < 0)
		goto out;

	psb(g, L.start);
	/* _start: call init; init runs once on its own page. */
	insns(g, 1);
	call(g, L.after_init);
	facts->init_position = facts->instructions + 1;
	facts->init_ip = L.init;
	insns(g, 4);
	ret(g);
	facts->after_init_position = facts->instructions + 1;
	facts->after_init_ip = L.after_init;
	insns(g, 1);
	for (;;) {
		int last = facts->instructions >= min_insns;
		int k = (int)(rnd(g) % 4);
		/* main_loop: the indirect call through the table. */
		insns(g, 4);
		call(g, L.after_ind);
		tip(g, L.f[k]);
		switch (k) {
		case 0: f0(g); break;
		case 1: f1(g); break;
		case 2: f2(g); break;
		default: f3(g); break;
		}
		insns(g, 1);
		call(g, L.after_work);
		work(g);
		insns(g, 3);
		cond(g, !last, last ? L.exit : L.main_loop);
		if (last || g->pt.failed)
			break;
	}
	/* exit: mov, xor, syscall, where user-mode tracing stops. */
	insns(g, 3);
	pt_synth_flush_tnt(&g->pt);
	{
		/* TIP.PGD with its IP suppressed, as at a system call. */
		struct pt_packet p = { .type = ppt_tip_pgd };

		p.payload.ip.ipc = pt_ipc_suppressed;
		pt_synth_put(&g->pt, &p);
	}
	pt_synth_write_out(&g->pt);
	facts->trace_bytes = g->pt.flushed;
	if (g->pt.failed || hwtr_writer_finish(g->pt.writer, &end) < 0) {
		if (!g->pt.failed)
			fprintf(stderr, "bench-trace: %s\n", hwtr_last_error());
		goto out;
	}
	err = 0;
out:
	if (g) {
		hwtr_writer_free(g->pt.writer);
		pt_synth_release(&g->pt);
	}
	free(g);
	return err;
}
