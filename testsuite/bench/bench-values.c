/* bench-values.c RECORDING: how fast the data log answers (issue 18 section
 * 1): hwtr_values_open's time (one pass over the log), then 1,000 register
 * reads (rax) and 1,000 memory reads (16 bytes at the thread's rsp) at
 * random positions of the first thread, min/median/max ms.  Figures only;
 * it fails only when the library refuses the log. */
#include <hwtrecord.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#define N 1000

int main(int argc, char **argv)
{
	struct hwtr_recording *rec;
	struct hwtr_history *history;
	struct hwtr_values *values;
	struct hwtr_thread *thread;
	struct hwtr_thread_stats stats;
	static double reg_ms[N], mem_ms[N];
	unsigned long known_bytes = 0;
	double t0;
	int i;

	if (argc != 2 || hwtr_recording_open(argv[1], &rec) ||
	    hwtr_history_build(rec, NULL, &history)) {
		fprintf(stderr, "usage: bench-values RECORDING (%s)\n",
			hwtr_last_error());
		return 2;
	}
	t0 = now_ms();
	if (hwtr_values_open(history, &values) || !values) {
		fprintf(stderr, "%s: %s\n", argv[1], values ? hwtr_last_error()
						     : "no data log");
		return 1;
	}
	printf("open (index the log): %.0f ms\n", now_ms() - t0);
	thread = hwtr_history_thread(history, 0);
	hwtr_thread_stats(thread, &stats);
	srand(1);
	for (i = 0; i < N; i++) {
		uint64_t n = 1 + (uint64_t)((double)rand() / RAND_MAX *
					    (double)(stats.instructions - 1));
		uint64_t rax, rsp = 0;
		uint8_t buf[16], st[16];
		int k;

		t0 = now_ms();
		hwtr_values_register(values, thread, n, hwtr_amd64_rax, &rax, 8);
		reg_ms[i] = now_ms() - t0;
		hwtr_values_register(values, thread, n, hwtr_amd64_rsp, &rsp, 8);
		t0 = now_ms();
		hwtr_values_memory(values, thread, n, rsp, buf, st, 16);
		mem_ms[i] = now_ms() - t0;
		for (k = 0; k < 16; k++)
			known_bytes += st[k] != hwtr_value_unknown;
	}
	qsort(reg_ms, N, sizeof(double), cmp);
	qsort(mem_ms, N, sizeof(double), cmp);
	printf("%llu instructions; register read: min %.3f median %.3f max "
	       "%.3f ms; memory read (16 bytes): min %.3f median %.3f max "
	       "%.3f ms; %lu of %d bytes known\n",
	       (unsigned long long)stats.instructions, reg_ms[0], reg_ms[N / 2],
	       reg_ms[N - 1], mem_ms[0], mem_ms[N / 2], mem_ms[N - 1],
	       known_bytes, N * 16);
	hwtr_values_free(values);
	hwtr_history_free(history);
	hwtr_recording_close(rec);
	return 0;
}
