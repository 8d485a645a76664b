/* io-prog.c: data the kernel writes (values-io*.scn): pread() into a stack
 * buffer, fstat() into a global struct stat, a struct sent through a pipe
 * and read() at its other end, getline() from a file, then a store through a
 * pointer left NULL.  Each buffer is filled with a known pattern before its
 * system call, so going back over the call shows what it wrote. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct parcel {
	int id;
	char tag[12];
	long weight;
};

static struct stat g_st;
static char g_last[32];
static long g_total;
static int g_lines;

static long count_of(const char *line)
{
	const char *space = strchr(line, ' ');

	return space ? strtol(space + 1, NULL, 10) : -1; /* L:count_of */
}

static ssize_t send_parcel(int end, int id, const char *tag)
{
	struct parcel out;

	memset(&out, 0, sizeof out);
	out.id = id;
	strncpy(out.tag, tag, sizeof out.tag - 1);
	out.weight = 1000L * id + 7;
	return write(end, &out, sizeof out); /* L:sent */
}

static int take_parcel(int end, struct parcel *in)
{
	ssize_t got = -1;

	memset(in, 0x5a, sizeof *in);
	got = read(end, in, sizeof *in); /* L:before_read */
	return got == (ssize_t)sizeof *in ? in->id : -1; /* L:after_read */
}

int main(void)
{
	static const char text[] = "alpha 3\nbeta 14\ngamma 159\n";
	FILE *file = tmpfile();
	int fd = fileno(file);
	char head[16];
	struct parcel in = {-1, "none", -1};
	int ends[2];
	int *slot = NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t got = -1;

	if (write(fd, text, sizeof text - 1) != sizeof text - 1)
		return 1;
	memset(head, '.', sizeof head);
	head[sizeof head - 1] = 0;
	got = pread(fd, head, 8, 6); /* L:pread */
	fstat(fd, &g_st); /* L:fstat */
	if (pipe(ends) != 0)
		return 1;
	send_parcel(ends[1], 7, "crate");
	send_parcel(ends[1], 9, "drum");
	take_parcel(ends[0], &in); /* L:first_take */
	take_parcel(ends[0], &in); /* L:second_take */
	rewind(file);
	while (getline(&line, &cap, file) > 0) { /* L:getline */
		g_total += count_of(line); /* L:add_count */
		strncpy(g_last, line, sizeof g_last - 1);
		g_lines++;
	}
	if (g_total + got + in.weight > 0) /* L:before_crash */
		*slot = in.id; /* L:crash */
	return 0;
}
