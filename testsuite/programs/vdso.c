/* vdso: clock_gettime and gettimeofday run in the vDSO (user-mode code the
 * kernel maps; no file on disk).  Results are not branched on, so the
 * program's own path is the same in every run. */
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

int main(void)
{
	struct timespec ts;
	struct timeval tv;
	int calls = 0;

	for (int i = 0; i < 10; i++) {
		clock_gettime(i & 1 ? CLOCK_MONOTONIC : CLOCK_REALTIME, &ts);
		calls++;
	}
	gettimeofday(&tv, NULL);
	calls++;
	printf("vdso: %d calls\n", calls);
	return 0;
}
