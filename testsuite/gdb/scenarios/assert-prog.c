/* assert-prog.c: a tokenizer written as a state machine (a switch in a
 * loop, a goto to its error exit), token counts in a global struct, a
 * CRC-32 table built at run time and a checksum per token, then an
 * assert() that fails three calls below main: __assert_fail prints and
 * abort() raises SIGABRT (values-assert*.scn). */
#include <assert.h>
#include <stdint.h>
#include <string.h>

enum state { S_SPACE, S_WORD, S_NUMBER, S_ERROR };

struct stats {
	int words;
	int numbers;
	long number_sum;
	uint32_t crc;
};

static struct stats g_stats;
static uint32_t g_crc_table[256];
static const char *g_inputs[] = {
	"alpha 12 beta 7",
	"gamma 30 31",
	"delta 5 x9",
	"omega 1000",
};

static void make_table(void)
{
	for (uint32_t n = 0; n < 256; n++) {
		uint32_t c = n;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		g_crc_table[n] = c; /* L:table */
	}
}

static uint32_t crc32_of(const char *p, size_t n, uint32_t crc)
{
	crc = ~crc;
	while (n--)
		crc = g_crc_table[(crc ^ (uint8_t) *p++) & 0xff] ^ (crc >> 8);
	return ~crc; /* L:crc_ret */
}

static int scan(const char *line, long *last_number)
{
	enum state st = S_SPACE;
	const char *start = line;
	long value = 0;
	int tokens = 0;

	for (const char *p = line;; p++) {
		char c = *p;
		switch (st) {
		case S_SPACE:
			if (c >= '0' && c <= '9') {
				st = S_NUMBER;
				value = c - '0';
				start = p;
			} else if (c >= 'a' && c <= 'z') {
				st = S_WORD;
				start = p;
			} else if (c != ' ' && c != '\0') {
				goto bad;
			}
			break;
		case S_WORD:
			if (c == ' ' || c == '\0') {
				g_stats.words++;
				g_stats.crc = crc32_of(start, p - start, g_stats.crc); /* L:word_done */
				tokens++;
				st = S_SPACE;
			} else if (c < 'a' || c > 'z') {
				goto bad;
			}
			break;
		case S_NUMBER:
			if (c >= '0' && c <= '9') {
				value = value * 10 + (c - '0');
			} else if (c == ' ' || c == '\0') {
				g_stats.numbers++;
				g_stats.number_sum += value; /* L:number_done */
				*last_number = value;
				tokens++;
				st = S_SPACE;
			} else {
				st = S_ERROR;
				goto bad;
			}
			break;
		case S_ERROR:
			goto bad;
		}
		if (c == '\0')
			break;
	}
	return tokens;
bad:
	return -(int) (start - line) - 1; /* L:bad */
}

static void check_line(const char *line, int index)
{
	long last = -1;
	int tokens = scan(line, &last);

	assert(tokens > 0); /* L:assert */
	(void) index;
}

static int run_lines(void)
{
	int i;

	for (i = 0; i < (int) (sizeof g_inputs / sizeof g_inputs[0]); i++)
		check_line(g_inputs[i], i); /* L:each_line */
	return i;
}

int main(void)
{
	int n;

	make_table();
	memset(&g_stats, 0, sizeof g_stats);
	n = run_lines(); /* L:main_run */
	return n;
}
