/* mkrec-long: a recording of one thread running long-loop.S for ITERATIONS
 * loop iterations (4 instructions each), written with libipt's encoder as a
 * user-mode Intel PT trace would hold it: PSB+ (TSC, MODE.Exec, FUP) every
 * 4 KiB (or PSB_PERIOD bytes), a TNT bit per iteration (taken, then not taken at the last), and
 * TIP.PGD at the exit system call.  No core: where the program stopped is
 * known from the trace only.  A history of a few hundred million
 * instructions takes seconds to build and little memory (one function
 * segment), which is what the plain-GDB connect test needs.
 *
 * Usage: mkrec-long CODE DIR ITERATIONS [PSB_PERIOD]; prints the number of
 * instructions.  A PSB_PERIOD larger than the trace gives a single PSB+.
 */
#include "elf-facts.h"
#include "hwtrecord.h"

#include <intel-pt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_PSB_PERIOD 4096

struct gen {
	struct hwtr_writer *writer;
	struct pt_encoder *encoder;
	uint8_t buf[1 << 16];
	uint64_t tsc;
	uint64_t tnt_bits;
	unsigned ntnt;
	int failed;
};

static void put(struct gen *g, struct pt_packet *p)
{
	int r = pt_enc_next(g->encoder, p);

	if (r < 0 && !g->failed) {
		fprintf(stderr, "mkrec-long: pt_enc_next: %s\n", pt_errstr(pt_errcode(r)));
		g->failed = 1;
	}
}

static uint64_t offset(struct gen *g)
{
	uint64_t off = 0;

	pt_enc_get_offset(g->encoder, &off);
	return off;
}

static void write_out(struct gen *g)
{
	uint64_t n = offset(g);

	if (n && hwtr_writer_trace(g->writer, 1, g->buf, n) < 0 && !g->failed) {
		fprintf(stderr, "mkrec-long: %s\n", hwtr_last_error());
		g->failed = 1;
	}
	pt_enc_sync_set(g->encoder, 0);
}

static void flush_tnt(struct gen *g)
{
	struct pt_packet p = { .type = ppt_tnt_64 };

	if (!g->ntnt)
		return;
	p.payload.tnt.payload = g->tnt_bits;
	p.payload.tnt.bit_size = (uint8_t)g->ntnt;
	put(g, &p);
	g->tnt_bits = g->ntnt = 0;
}

static void tnt(struct gen *g, int taken)
{
	g->tnt_bits = g->tnt_bits << 1 | (taken ? 1 : 0);
	if (++g->ntnt == 47)
		flush_tnt(g);
}

/* PSB+ with NEXT_IP, the instruction about to execute. */
static void psb(struct gen *g, uint64_t next_ip)
{
	struct pt_packet p = { .type = ppt_psb };

	flush_tnt(g);
	write_out(g);
	put(g, &p);
	p = (struct pt_packet){ .type = ppt_tsc };
	g->tsc += 10000;
	p.payload.tsc.tsc = g->tsc;
	put(g, &p);
	p = (struct pt_packet){ .type = ppt_mode };
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec.csl = 1;
	put(g, &p);
	p = (struct pt_packet){ .type = ppt_fup };
	p.payload.ip.ipc = pt_ipc_sext_48;
	p.payload.ip.ip = next_ip;
	put(g, &p);
	p = (struct pt_packet){ .type = ppt_psbend };
	put(g, &p);
}

int main(int argc, char **argv)
{
	struct hwtr_writer_info info = { .source = "synthetic", .pid = 1 };
	struct hwtr_sideband_event mm = { .kind = hwtr_ev_mmap };
	struct hwtr_end end = { hwtr_end_exited, 0 };
	struct pt_config config;
	struct pt_packet pgd = { .type = ppt_tip_pgd };
	uint64_t start, loop, i, n, psb_period = DEFAULT_PSB_PERIOD;
	char build_id[128], *endp, *code;
	struct gen *g;

	if (argc < 4 || argc > 5 || !(n = strtoull(argv[3], &endp, 0)) || *endp ||
	    (argc == 5 && (!(psb_period = strtoull(argv[4], &endp, 0)) || *endp))) {
		fprintf(stderr, "usage: mkrec-long CODE DIR ITERATIONS [PSB_PERIOD]\n");
		return 2;
	}
	/* The sideband names the code by its absolute path, as a recorder does. */
	code = realpath(argv[1], NULL);
	start = elf_symbol(argv[1], "_start");
	loop = elf_symbol(argv[1], "loop");
	g = calloc(1, sizeof(*g));
	if (!g || !code || !start || !loop ||
	    elf_text_mapping(argv[1], &mm.addr, &mm.len, &mm.pgoff) ||
	    elf_build_id(argv[1], build_id, sizeof(build_id))) {
		fprintf(stderr, "mkrec-long: %s: not long-loop's code\n", argv[1]);
		return 1;
	}
	strcpy(info.pt.vendor, "intel");
	info.pt.family = 6;
	info.pt.model = 0x55;
	info.pt.stepping = 4;
	info.pt.tsc = true;
	info.pt.psb_period = (uint32_t)(psb_period > UINT32_MAX ? UINT32_MAX : psb_period);
	info.executable = code;
	mm.prot = HWTR_PROT_READ | HWTR_PROT_EXEC;
	mm.path = code;
	mm.build_id = build_id;
	pt_config_init(&config);
	config.begin = g->buf;
	config.end = g->buf + sizeof(g->buf);
	g->encoder = pt_alloc_encoder(&config);
	if (!g->encoder || hwtr_writer_create(argv[2], &info, &g->writer) ||
	    hwtr_writer_add_thread(g->writer, 1, 0) ||
	    hwtr_writer_event(g->writer, &mm)) {
		fprintf(stderr, "mkrec-long: %s\n", hwtr_last_error());
		return 1;
	}
	psb(g, start);
	/* xor, then each iteration: add, sub, dec, jnz. */
	for (i = 1; i <= n && !g->failed; i++) {
		tnt(g, i < n);
		if (i < n && offset(g) >= psb_period)
			psb(g, loop);
		else if (offset(g) > sizeof(g->buf) / 2)
			write_out(g);	/* no PSB for long: the buffer still goes */
	}
	/* exit: mov, xor, syscall, where user-mode tracing stops. */
	flush_tnt(g);
	pgd.payload.ip.ipc = pt_ipc_suppressed;
	put(g, &pgd);
	write_out(g);
	if (g->failed || hwtr_writer_finish(g->writer, &end) < 0) {
		if (!g->failed)
			fprintf(stderr, "mkrec-long: %s\n", hwtr_last_error());
		return 1;
	}
	hwtr_writer_free(g->writer);
	pt_free_encoder(g->encoder);
	free(g);
	free(code);
	printf("%" PRIu64 "\n", 1 + 4 * n + 3);
	return 0;
}
