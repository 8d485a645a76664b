/* csv-prog.c: a value scenario's program (values-csv*.scn): a program
 * that reads a CSV file of sensor samples.  It writes the file itself
 * (an O_TMPFILE file of its own, so the run needs no input), read()s it
 * back in 64-byte chunks into a global buffer, carrying a partial line
 * over to the next chunk with memmove, splits each line into fields by
 * hand, converts them with strtol and strtod (errno checked: a reading too
 * large for a long gives ERANGE), fills an array of structs, sorts it with
 * qsort by a comparator on a double, and averages the readings per sensor
 * group: a group no sample belongs to divides by a count of zero
 * (SIGFPE), two calls below main.  errno after a failed open() of a path
 * that does not exist is kept too.  Static, not PIE, like values-prog.
 */
#define _GNU_SOURCE /* O_TMPFILE */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SAMPLES 16
#define GROUPS 4

struct sample {
	char name[8];
	long id;
	double reading;
	int group;
	int range_error;
};

static const char g_text[] =
	"name,id,reading,group\n"
	"tin,17,3.25,0\n"
	"lead,4,-1.5,1\n"
	"zinc,99999999999999999999,0.125,0\n"
	"iron,23,12.0,2\n"
	"gold,8,7.75,1\n"
	"neon,31,2.5,0\n";

static char g_chunk[64];
static struct sample g_samples[MAX_SAMPLES];
static int g_count;
static int g_open_errno;

static int split(char *line, char **fields, int max)
{
	int n = 0;

	fields[n++] = line;
	for (; *line != '\0' && n < max; line++)
		if (*line == ',') {
			*line = '\0'; /* L:split */
			fields[n++] = line + 1;
		}
	return n;
}

static void parse_line(char *line)
{
	char *fields[4];
	struct sample *s;
	char *end;
	size_t len;

	if (split(line, fields, 4) != 4 || line[0] == 'n')
		return;
	s = &g_samples[g_count];
	len = strlen(fields[0]);
	memcpy(s->name, fields[0], len < 7 ? len : 7);
	errno = 0;
	s->id = strtol(fields[1], &end, 10);
	s->range_error = errno == ERANGE; /* L:strtol */
	s->reading = strtod(fields[2], &end);
	s->group = (int) strtol(fields[3], NULL, 10);
	g_count++; /* L:parsed */
}

static size_t take_lines(char *buf, size_t used)
{
	char *start = buf, *nl;

	while ((nl = memchr(start, '\n', used - (size_t) (start - buf))) != NULL) {
		*nl = '\0';
		parse_line(start); /* L:line */
		start = nl + 1;
	}
	used -= (size_t) (start - buf);
	memmove(buf, start, used); /* L:carry */
	return used;
}

static int by_reading(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	return (x->reading > y->reading) - (x->reading < y->reading); /* L:cmp */
}

static int average(const int *sums, const int *counts, int group)
{
	return sums[group] / counts[group]; /* L:crash */
}

static void report(int *out)
{
	int sums[GROUPS] = { 0 }, counts[GROUPS] = { 0 };
	int g, i;

	for (i = 0; i < g_count; i++) {
		sums[g_samples[i].group] += (int) (g_samples[i].reading * 4);
		counts[g_samples[i].group]++;
	}
	for (g = 0; g < GROUPS; g++)
		out[g] = average(sums, counts, g); /* L:average */
}

int main(void)
{
	int averages[GROUPS];
	size_t used = 0;
	ssize_t got;
	int fd;

	fd = open("/nonexistent/samples.csv", O_RDONLY);
	g_open_errno = errno; /* L:open_errno */
	fd = open("/tmp", O_TMPFILE | O_RDWR, 0600);
	if (write(fd, g_text, sizeof g_text - 1) != (ssize_t) sizeof g_text - 1)
		return 1;
	lseek(fd, 0, SEEK_SET);
	while ((got = read(fd, g_chunk + used, sizeof g_chunk - 1 - used)) > 0) {
		used += (size_t) got; /* L:read */
		used = take_lines(g_chunk, used);
	}
	close(fd);
	qsort(g_samples, (size_t) g_count, sizeof g_samples[0], by_reading);
	report(averages); /* L:report */
	return averages[0];
}
