/* parity-prog.c: where navigation goes in code GCC reshapes at -O2
 * (parity*.scn): is_even and is_odd calling each other as sibling calls
 * (jumps, no frames), a record reader GCC inlines into its loop (inline
 * frames), a static checksum called (or inlined) from several places,
 * strchr, strtol and memcpy each pass of the loop, then a store through a
 * NULL pointer in the inlined reader, the ninth record of a table of
 * eight.  Built -O2.  Lines the scenarios name carry "L:name".
 */
#include <stdlib.h>
#include <string.h>

struct record {
	char name[16];
	long value;
	int parity;
};

static volatile long sink;
static struct record table[8];
static struct record *volatile overflow;	/* NULL: the crash */
static int used;

__attribute__((noinline)) int is_odd(unsigned n);

__attribute__((noinline)) int is_even(unsigned n)
{
	if (n == 0)
		return 1; /* L:even_base */
	return is_odd(n - 1); /* L:even_rec */
}

__attribute__((noinline)) int is_odd(unsigned n)
{
	if (n == 0)
		return 0; /* L:odd_base */
	return is_even(n - 1); /* L:odd_rec */
}

static unsigned checksum(const char *s, size_t n)
{
	unsigned h = 5381;

	while (n--)
		h = h * 33 + (unsigned char)*s++; /* L:checksum */
	return h;
}

static struct record *read_record(const char *text)
{
	struct record *r;
	const char *colon;
	char *end;

	if (text[0] == '\0')
		return NULL; /* L:read_empty */
	colon = strchr(text, ':'); /* L:read_colon */
	if (colon == NULL || colon - text >= (long)sizeof r->name)
		return NULL;
	r = used < 8 ? &table[used++] : overflow; /* L:read_slot */
	r->name[colon - text] = '\0'; /* L:crash */
	memcpy(r->name, text, colon - text); /* L:read_copy */
	r->value = strtol(colon + 1, &end, 10); /* L:read_value */
	r->parity = is_even((unsigned)r->value); /* L:read_parity */
	sink += checksum(r->name, strlen(r->name));
	return r; /* L:read_ret */
}

__attribute__((noinline)) static long load(const char *const *lines, int n)
{
	long total = 0;
	int i;

	for (i = 0; i < n; i++) {
		struct record *r = read_record(lines[i]); /* L:load_read */

		if (r == NULL) {
			sink += checksum(lines[i], 1); /* L:load_skip */
			continue;
		}
		total += r->parity ? r->value : -r->value; /* L:load_add */
	}
	return total; /* L:load_ret */
}

static const char *const batch_a[] = {
	"ant:12", "bee:7", "", "cat:31", "dog:4",
};
static const char *const batch_b[] = {
	"eel:9", "fox:16", "no-colon", "gnu:25", "hen:3", "ibis:40",
};

int main(void)
{
	long a, b;

	a = load(batch_a, 5); /* L:main_load_a */
	b = load(batch_b, 6); /* L:main_load_b */
	sink += checksum("done", 4) + a + b; /* L:main_sink */
	return (int)(a + b);
}
