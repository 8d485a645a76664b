/* tls-prog.c: thread-local variables of shared libraries at past
 * positions (values-tls.scn): counters in a library linked with the
 * program (static TLS) and in one it dlopen()s (TLS allocated on first
 * use), bumped in turns; then a crash.  Not PIE, dynamically linked; the
 * libraries are found beside it. */
#include <dlfcn.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

long linked_bump(long by);

static long sum;

int main(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	long (*opened_bump)(long);
	void *lib;
	int i;

	if (n <= 0)
		return 2;
	path[n] = 0;
	strcpy(strrchr(path, '/') + 1, "libtls-opened.so");
	sum = linked_bump(1); /* L:first_bump */
	lib = dlopen(path, RTLD_NOW); /* L:dlopen */
	if (!lib)
		return 3;
	opened_bump = (long (*)(long))dlsym(lib, "opened_bump");
	for (i = 1; i <= 4; i++) {
		sum += linked_bump(i); /* L:loop */
		sum += opened_bump(10 * i);
	}
	return *(volatile int *)(sum & 1); /* L:crash */
}
