/* bench-trace.h: a synthetic Intel PT recording over bench-code.S. */
#ifndef BENCH_TRACE_H
#define BENCH_TRACE_H

#include <stdint.h>

/* What the generator knows, independently of the decoder. */
struct bench_trace_facts {
	uint64_t instructions;	/* executed instructions it encoded */
	uint64_t trace_bytes;
	uint64_t psbs;
	uint64_t calls, returns, indirect, conditional;
	uint64_t init_position;	/* instruction number of init's first insn */
	uint64_t after_init_position;	/* ... of after_init (hot page, once) */
	uint64_t init_ip, after_init_ip;
};

/* Write recording DIR (must not exist) of a single thread running
 * CODE (bench-code, linked at fixed addresses) for at least MIN_INSNS
 * instructions, with a PSB+ every PSB_PERIOD bytes; SEED picks loop counts
 * and branch outcomes.  Returns 0, or -1 with a message on stderr. */
int bench_trace_write(const char *dir, const char *code, uint64_t min_insns,
		      unsigned psb_period, uint64_t seed,
		      struct bench_trace_facts *facts);

#endif
