/* ret-prog.c: ends by returning from main (no exit() call of its own):
 * a string builder grown by realloc, a line split with strtok_r into
 * words kept in a struct array, an insertion sort of that array with a
 * swap through a temporary struct, doubles averaged per word length, and a
 * recursion that builds the sorted output in reverse (values-ret*.scn). */
#include <stdlib.h>
#include <string.h>

struct word {
	char text[12];
	int length;
	double score;
};

struct builder {
	char *data;
	size_t len;
	size_t cap;
	int grows;
};

static struct word g_words[8];
static int g_count;
static double g_mean;
/* Never freed: the scenarios' heap anchor. */
static struct builder g_out;

static void put(struct builder *b, const char *s)
{
	size_t n = strlen(s);

	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->data = realloc(b->data, b->cap); /* L:grow */
		b->grows++;
	}
	memcpy(b->data + b->len, s, n + 1);
	b->len += n;
}

static int split(char *line)
{
	char *save = NULL;
	int n = 0;

	for (char *tok = strtok_r(line, " ,", &save); tok && n < 8;
	     tok = strtok_r(NULL, " ,", &save)) {
		struct word *w = &g_words[n++];
		strncpy(w->text, tok, sizeof w->text - 1);
		w->length = (int) strlen(w->text);
		w->score = w->length * 1.5 + (tok[0] - 'a') / 4.0; /* L:scored */
	}
	return n;
}

static void sort_words(struct word *w, int n)
{
	for (int i = 1; i < n; i++) {
		for (int j = i; j > 0 && w[j - 1].score > w[j].score; j--) {
			struct word tmp = w[j]; /* L:swap */
			w[j] = w[j - 1];
			w[j - 1] = tmp;
		}
	}
}

static void emit(struct builder *b, int i)
{
	if (i < 0)
		return;
	put(b, g_words[i].text); /* L:emit */
	put(b, i ? "," : ".");
	emit(b, i - 1);
}

static double mean(const struct word *w, int n)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += w[i].score;
	return n ? sum / n : 0.0; /* L:mean */
}

int main(void)
{
	char line[] = "pear,fig apple kiwi, banana date";
	int status;

	g_count = split(line);
	sort_words(g_words, g_count); /* L:sorted */
	g_mean = mean(g_words, g_count);
	emit(&g_out, g_count - 1);
	status = (int) g_out.len + g_out.grows; /* L:status */
	return status; /* L:return */
}
