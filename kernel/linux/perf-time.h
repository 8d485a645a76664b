/* perf-time.h: perf's clock and the TSC, both ways.
 *
 * perf stamps sideband records in its own clock (nanoseconds); Intel PT
 * stamps the trace with the TSC.  The kernel publishes the conversion in the
 * mmap page of an event (time_shift, time_mult, time_zero, ...), perf copies
 * it into perf.data (TIME_CONV record, Intel PT's AUXTRACE_INFO), and the
 * conversion is the one documented beside struct perf_event_mmap_page in
 * <linux/perf_event.h>:
 *
 *   quot = cyc >> time_shift, rem = cyc & ((1 << time_shift) - 1)
 *   ns   = time_zero + quot * time_mult + ((rem * time_mult) >> time_shift)
 *
 * Arithmetic is modulo 2^64 as in the kernel and perf (time_zero may be
 * "negative").  Going back from nanoseconds to cycles rounds down, so a time
 * converted there and back may come out a cycle or two early; nothing here
 * needs more.
 */
#ifndef HWTR_PERF_TIME_H
#define HWTR_PERF_TIME_H

#include <stdbool.h>
#include <stdint.h>

struct perf_tsc_conv {
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_zero;
	uint64_t time_cycles;	/* with cap_user_time_short */
	uint64_t time_mask;
	bool cap_user_time_zero;	/* the conversion is usable */
	bool cap_user_time_short;
};

/* Cycles to perf time (ns); perf time to cycles. */
uint64_t perf_tsc_to_time(const struct perf_tsc_conv *tc, uint64_t cyc);
uint64_t perf_time_to_tsc(const struct perf_tsc_conv *tc, uint64_t ns);

/* A conversion for a TSC of FREQ_HZ (time zero at cycle 0), with the
 * multiplier and shift the kernel would choose (used when we write
 * perf.data). */
void perf_tsc_conv_for_freq(struct perf_tsc_conv *tc, uint64_t freq_hz);

#endif
