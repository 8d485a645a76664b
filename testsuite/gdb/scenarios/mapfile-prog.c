/* mapfile-prog.c: memory of a mapped file (values-mapfile*.scn): the
 * program writes a file, maps it shared, copies a record out of it with
 * its own `rep movsb`, changes bytes of the mapping, unmaps it, maps the
 * file again privately at another place and reads what the first mapping
 * wrote, then stores through NULL.  The kernel fills a mapping's pages (no
 * instruction of the program writes them), so at past positions its bytes
 * are what the file held, or unknown.  Static, not PIE, like values-prog.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAP_SIZE 4096

static char g_record[32];
static char *g_map;
static long g_sum;

static void copy_bytes(char *to, const char *from, size_t n)
{
	__asm__ volatile("rep movsb" /* L:movsb */
			 : "+D"(to), "+S"(from), "+c"(n)
			 :
			 : "memory");
}

static long sum_bytes(const char *p, size_t n)
{
	long sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += p[i]; /* L:sum */
	return sum;
}

int main(void)
{
	static const char text[] = "record 1: alpha; record 2: beta";
	char path[64];
	int fd;
	char *second;
	long *nowhere = NULL;

	/* Not mkstemp: its clock_gettime runs rdtscp, which record full
	 * cannot record. */
	snprintf(path, sizeof path, "/tmp/mapfile-prog.%d", (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 1;
	unlink(path);
	if (write(fd, text, sizeof text) != sizeof text ||
	    ftruncate(fd, MAP_SIZE) != 0)
		return 1;
	g_map = mmap(NULL, MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		     0); /* L:map */
	if (g_map == MAP_FAILED)
		return 1;
	copy_bytes(g_record, g_map + 10, 6); /* L:copy */
	g_map[10] = 'A'; /* L:change */
	g_map[100] = 'z';
	g_sum = sum_bytes(g_map, 16);
	munmap(g_map, MAP_SIZE); /* L:unmap */
	second = mmap(NULL, MAP_SIZE, PROT_READ, MAP_PRIVATE, fd, 0);
	if (second == MAP_FAILED)
		return 1;
	g_map = second;
	g_sum += sum_bytes(second + 10, 6); /* L:again */
	g_sum += second[100];
	close(fd);
	*nowhere = g_sum; /* L:crash */
	return 0;
}
