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
 * The packets are written as the benchmarks' are (../bench/pt-synth.c).
 */
#include "elf-facts.h"
#include "hwtrecord.h"
#include "pt-synth.h"

#include <intel-pt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_PSB_PERIOD 4096

int main(int argc, char **argv)
{
	struct hwtr_writer_info info = { .source = "synthetic", .pid = 1 };
	struct hwtr_sideband_event mm = { .kind = hwtr_ev_mmap };
	struct hwtr_end end = { hwtr_end_exited, 0 };
	struct pt_packet pgd = { .type = ppt_tip_pgd };
	uint64_t start, loop, i, n, psb_period = DEFAULT_PSB_PERIOD;
	char build_id[128], *endp, *code;
	struct pt_synth *g;

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
	if (pt_synth_init(g, "mkrec-long") < 0)
		return 1;
	if (hwtr_writer_create(argv[2], &info, &g->writer) ||
	    hwtr_writer_add_thread(g->writer, 1, 0) ||
	    hwtr_writer_event(g->writer, &mm)) {
		fprintf(stderr, "mkrec-long: %s\n", hwtr_last_error());
		return 1;
	}
	pt_synth_psb(g, start);
	/* xor, then each iteration: add, sub, dec, jnz. */
	for (i = 1; i <= n && !g->failed; i++) {
		pt_synth_tnt(g, i < n);
		if (i < n && pt_synth_offset(g) >= psb_period)
			pt_synth_psb(g, loop);
		else if (pt_synth_offset(g) > sizeof(g->buf) / 2)
			pt_synth_write_out(g);	/* no PSB for long: the buffer still goes */
	}
	/* exit: mov, xor, syscall, where user-mode tracing stops. */
	pt_synth_flush_tnt(g);
	pgd.payload.ip.ipc = pt_ipc_suppressed;
	pt_synth_put(g, &pgd);
	pt_synth_write_out(g);
	if (g->failed || hwtr_writer_finish(g->writer, &end) < 0) {
		if (!g->failed)
			fprintf(stderr, "mkrec-long: %s\n", hwtr_last_error());
		return 1;
	}
	hwtr_writer_free(g->writer);
	pt_synth_release(g);
	free(g);
	free(code);
	printf("%" PRIu64 "\n", 1 + 4 * n + 3);
	return 0;
}
