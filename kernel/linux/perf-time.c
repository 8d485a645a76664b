/* perf-time.c: perf clock <-> TSC (perf-time.h). */
#include "perf-time.h"

uint64_t perf_tsc_to_time(const struct perf_tsc_conv *tc, uint64_t cyc)
{
	uint64_t quot, rem;

	if (tc->cap_user_time_short)
		cyc = tc->time_cycles + ((cyc - tc->time_cycles) & tc->time_mask);
	if (tc->time_shift >= 64)
		return tc->time_zero;
	quot = cyc >> tc->time_shift;
	rem = cyc & ((UINT64_C(1) << tc->time_shift) - 1);
	return tc->time_zero + quot * tc->time_mult +
	       ((rem * tc->time_mult) >> tc->time_shift);
}

uint64_t perf_time_to_tsc(const struct perf_tsc_conv *tc, uint64_t ns)
{
	uint64_t t, quot, rem;

	if (!tc->time_mult || tc->time_shift >= 64)
		return 0;
	t = ns - tc->time_zero;
	quot = t / tc->time_mult;
	rem = t % tc->time_mult;
	return (quot << tc->time_shift) + (rem << tc->time_shift) / tc->time_mult;
}

void perf_tsc_conv_for_freq(struct perf_tsc_conv *tc, uint64_t freq_hz)
{
	/* The kernel's choice (calc_cyc2ns_scale via clocks_calc_mult_shift):
	 * the largest shift whose multiplier still fits in 32 bits. */
	uint16_t shift = 31;
	uint64_t mult;

	if (!freq_hz)
		freq_hz = 1000000000;
	for (;;) {
		mult = ((UINT64_C(1000000000) << shift) + freq_hz / 2) / freq_hz;
		if (mult <= UINT32_MAX || shift == 0)
			break;
		shift--;
	}
	tc->time_shift = shift;
	tc->time_mult = (uint32_t)mult;
	tc->time_zero = 0;
	tc->time_cycles = 0;
	tc->time_mask = 0;
	tc->cap_user_time_zero = true;
	tc->cap_user_time_short = false;
}
