/* values: data that changes in every way the data log must follow, for the
 * value tests (../record/values-vs-vgdb.test): calls and a loop that update
 * globals, SSE arithmetic, REP MOVSB and REP STOSB into a global buffer, a
 * read() that fills part of it (the kernel writes), a signal handler that
 * changes a global (a signal frame on the stack), and memory mapped and
 * unmapped.  Deterministic. */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

long g_sum;
double g_scaled;
char g_buf[64];
volatile sig_atomic_t g_signalled;

__attribute__((noinline)) static long square(long x)
{
	return x * x;
}

__attribute__((noinline)) static void copy(char *dst, const char *src, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

__attribute__((noinline)) static void fill(char *dst, char c, size_t n)
{
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(c) : "memory");
}

static void on_usr1(int sig)
{
	g_signalled = sig;
	g_sum += 1000;
}

int main(void)
{
	static const char text[] = "values from the past";
	int fds[2];
	char *page;

	for (long i = 0; i < 12; i++) {
		g_sum += square(i);
		g_scaled = g_scaled * 1.5 + (double)i;
	}
	copy(g_buf, text, sizeof(text));
	fill(g_buf + 24, 'z', 8);
	if (pipe(fds) == 0 && write(fds[1], "kernel!", 7) == 7)
		g_sum += read(fds[0], g_buf + 40, 7);
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page != MAP_FAILED) {
		page[0] = 'p';
		g_buf[63] = page[0];
		munmap(page, 4096);
	}
	_exit(g_sum == 0);	/* no exit handlers: fewer steps */
}
