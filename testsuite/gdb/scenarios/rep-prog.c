/* rep-prog.c: memory that x86 string instructions read and write, for
 * watchpoints (test-watch-rep.py): a `rep movsb` of our own
 * copies g_src into g_dst, a `rep stosq` fills g_words, a `rep movsb`
 * with the direction flag set copies backwards, a `rep stosb` of zero
 * length touches nothing, and a plain loop then reads what they wrote.
 * Ends with a store through a pointer left NULL.  Reads and writes of a
 * watched byte are kept to distinct instructions' iterations so that x86's
 * access watchpoints (GDB's rwatch natively) report what a read
 * watchpoint would. */
#include <stddef.h>

char g_src[64] = "the string a rep movsb reads, one byte each iteration";
char g_dst[64];
unsigned long g_words[16];
char g_back[32];
long g_sum;

static void copy_bytes(char *to, const char *from, size_t n)
{
	__asm__ volatile("rep movsb" /* L:movsb */
			 : "+D"(to), "+S"(from), "+c"(n)
			 :
			 : "memory");
}

static void fill_words(unsigned long *to, unsigned long value, size_t n)
{
	__asm__ volatile("rep stosq" /* L:stosq */
			 : "+D"(to), "+c"(n)
			 : "a"(value)
			 : "memory");
}

/* Copies N bytes ending at TO + N - 1 from FROM + N - 1 down. */
static void copy_down(char *to, const char *from, size_t n)
{
	char *last_to = to + n - 1;
	const char *last_from = from + n - 1;

	__asm__ volatile("std\n\trep movsb\n\tcld" /* L:movsb_down */
			 : "+D"(last_to), "+S"(last_from), "+c"(n)
			 :
			 : "memory");
}

static void fill_bytes(char *to, int value, size_t n)
{
	__asm__ volatile("rep stosb" /* L:stosb */
			 : "+D"(to), "+c"(n)
			 : "a"(value)
			 : "memory");
}

int main(void)
{
	long *nowhere = NULL;
	size_t i;

	copy_bytes(g_dst, g_src, sizeof g_dst); /* L:main_copy */
	fill_words(g_words, 0x0101010101010101ul, 16); /* L:main_fill */
	fill_words(g_words + 4, 0x2222222222222222ul, 4); /* L:main_refill */
	copy_down(g_back, g_src + 8, sizeof g_back); /* L:main_down */
	fill_bytes(g_dst + 20, 'z', 0); /* L:main_empty */
	for (i = 0; i < sizeof g_dst; i++)
		g_sum += g_dst[i] + g_back[i % sizeof g_back];
	g_sum += (long)g_words[5]; /* L:last */
	*nowhere = g_sum; /* L:crash */
	return 0;
}
