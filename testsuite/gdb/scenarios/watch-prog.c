/* watch-prog.c: memory for watchpoints (watch-*.scn): a global a loop
 * writes and another reads, a struct member, a local reached through a
 * pointer (watch -l), a buffer filled by memcpy and then by read() from a
 * pipe, a string read by strlen and a loop, then a store through a pointer
 * left NULL.  Reads and writes are kept apart (no x++ on watched memory)
 * so that x86's access watchpoints, which GDB uses natively for rwatch,
 * report the same reads as a read watchpoint. */
#include <string.h>
#include <unistd.h>

struct point {
	int x, y;
};

int g_counter;
int g_seen;
struct point g_origin = { 1, 2 };
char g_buffer[24];
char g_text[16] = "watched";
long g_sum;

static void bump(int value)
{
	g_counter = value; /* L:bump */
}

static int look(void)
{
	return g_counter; /* L:look */
}

static void set_local(int *slot, int value)
{
	*slot = value; /* L:set_local */
}

static long sum_text(void)
{
	long sum = 0;
	size_t i, n = strlen(g_text);

	for (i = 0; i < n; i++)
		sum += g_text[i];
	return sum;
}

int main(void)
{
	static const char pattern[] = "copied by memcpy";
	int local = 5;
	int ends[2];
	int i;
	int *nowhere = NULL;

	for (i = 1; i <= 4; i++) {
		bump(10 * i);
		g_seen = look();
	}
	g_origin.y = 7; /* L:member */
	g_origin.x = g_origin.y + 1;
	set_local(&local, 6);
	set_local(&local, 9);
	memcpy(g_buffer, pattern, sizeof pattern);
	if (pipe(ends) != 0)
		return 1;
	if (write(ends[1], "from the pipe", 14) != 14)
		return 1;
	if (read(ends[0], g_buffer, 14) != 14) /* L:read */
		return 1;
	g_sum = sum_text();
	g_counter = local; /* L:last */
	*nowhere = g_counter; /* L:crash */
	return 0;
}
