/* list-prog.c: a value scenario's program (values-list.scn): a linked list
 * built with malloc and strcpy, walked, copied into a line with strlen and
 * memcpy (SSE2 string functions), a global array written in a loop, the
 * list freed, and a crash through a NULL pointer three calls below main.
 * Heap pointers are compared as offsets from the last node (#heap-anchor):
 * the heap lies elsewhere under Valgrind, and so does the first block
 * malloc gives relative to the next ones (glibc's brk heap grows
 * otherwise there).  Static, not PIE, like values-prog.
 */
#include <stdlib.h>
#include <string.h>

struct node {
	int key;
	char name[12];
	struct node *next;
};

static int squares[16];
static char line[64] = "empty";
static struct node *head;
static struct node *first_node;
static int freed;
static struct node *last_node;

static struct node *push(struct node *list, int key, const char *name)
{
	struct node *n = malloc(sizeof *n);

	if (first_node == NULL)
		first_node = n;
	last_node = n;
	n->key = key;
	strcpy(n->name, name); /* L:push_copy */
	n->next = list;
	return n; /* L:push_done */
}

static int sum_keys(const struct node *list)
{
	int sum = 0;

	for (; list; list = list->next)
		sum += list->key; /* L:sum_loop */
	return sum; /* L:sum_done */
}

static void fill_squares(int bias)
{
	for (int i = 0; i < 16; i++)
		squares[i] = i * i - bias; /* L:squares */
}

static size_t build_line(const struct node *list)
{
	size_t len = 0;

	for (; list; list = list->next) {
		size_t n = strlen(list->name);

		memcpy(line + len, list->name, n); /* L:memcpy */
		len += n;
		line[len++] = ',';
	}
	line[len] = 0;
	return len; /* L:line_done */
}

static int free_list(struct node *list)
{
	int count = 0;

	while (list) {
		struct node *next = list->next;

		free(list); /* L:free */
		list = next;
		count++;
	}
	return count;
}

static int lookup(const struct node *list, int key)
{
	return list->key == key ? key : -key; /* L:lookup */
}

static int report(int total, size_t len)
{
	int found = lookup(head, total); /* L:report */

	return found + (int)len;
}

int main(void)
{
	static const char *const names[] = { "alpha", "bravo", "charlie",
					     "delta", "echo" };
	struct node *list;
	int total, result;
	size_t len;

	for (int i = 0; i < 5; i++)
		head = push(head, (i + 1) * 11, names[i]); /* L:main_push */
	total = sum_keys(head); /* L:main_sum */
	fill_squares(3);
	len = build_line(head); /* L:main_line */
	list = head;
	head = NULL;	/* (head->name is never freed memory) */
	freed = free_list(list); /* L:main_free */
	squares[0] = total + (int)len + freed;
	result = report(total, len); /* L:crash */
	return result;
}
