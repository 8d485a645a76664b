/* crash.c: the program scripts/demo.sh records.  It dies of SIGSEGV on a
 * NULL pointer three calls below main: find_item() returns NULL for an item
 * that is not on the list, and price_of() uses it. */
#include <stdio.h>
#include <string.h>

struct item {
	const char *name;
	int price;
};

static struct item *find_item(struct item *items, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(items[i].name, name) == 0)
			return &items[i];
	return NULL;
}

static int price_of(struct item *items, int n, const char *name)
{
	struct item *it = find_item(items, n, name);

	return it->price;
}

static int total(struct item *items, int n, const char **names, int count)
{
	int sum = 0;

	for (int i = 0; i < count; i++)
		sum += price_of(items, n, names[i]);
	return sum;
}

int main(void)
{
	struct item items[] = { { "apple", 3 }, { "pear", 4 }, { "plum", 2 } };
	const char *basket[] = { "pear", "apple", "kiwi" };

	printf("total: %d\n", total(items, 3, basket, 3));
	return 0;
}
