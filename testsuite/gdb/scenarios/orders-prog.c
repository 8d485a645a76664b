/* orders-prog.c: a value scenario's program (values-orders.scn), written
 * as a user's program that crashes: a parser that returns through
 * out-parameters into its caller's frame, a recursion that adds into a
 * local of main through a pointer, an array of structs changed in a loop
 * and again after the stops, a function pointer table, a static local,
 * errno set by a failing open(), strings built with snprintf, a union and
 * bitfields, and a crash through a NULL struct pointer two calls below
 * main.  Static, not PIE, like values-prog.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct order {
	char item[12];
	int qty;
	unsigned express : 1;
	unsigned priority : 3;
};

union amount {
	long cents;
	double ratio;
};

struct order orders[4] = {
	{ "bolt", 12, 0, 1 }, { "nut", 40, 1, 2 },
	{ "washer", 7, 0, 5 }, { "spring", 3, 1, 7 },
};
int g_total;
char g_label[32];
int g_errno_seen;
union amount g_amount;

typedef int (*weigh_fn)(const struct order *);

static int by_qty(const struct order *o)
{
	return o->qty; /* L:by_qty */
}

static int by_priority(const struct order *o)
{
	return o->qty * o->priority; /* L:by_priority */
}

/* Digits at the start of TEXT into *VALUE, their count into *LEN. */
static int parse_count(const char *text, int *value, int *len)
{
	int v = 0, n = 0;

	while (text[n] >= '0' && text[n] <= '9') {
		v = v * 10 + (text[n] - '0'); /* L:parse_digit */
		n++;
	}
	*value = v;
	*len = n; /* L:parse_len */
	return n > 0;
}

static int restock(int depth, int *added)
{
	static int calls;

	calls++;
	if (depth == 0)
		return calls; /* L:restock_base */
	*added += depth;
	orders[depth - 1].qty += depth;
	return restock(depth - 1, added) + 1;
}

static int try_open(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		g_errno_seen = errno; /* L:try_open_err */
	return fd;
}

static void ship(struct order *o, int count)
{
	o->qty -= count; /* L:crash */
}

static struct order *find(const char *item)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(orders[i].item, item) == 0)
			return &orders[i];
	return NULL; /* L:find_none */
}

int main(void)
{
	int value = 0, len = 0, added = 0, depth;
	char note[24];
	weigh_fn weigh[2] = { by_qty, by_priority };
	struct order *target;

	parse_count("325kg", &value, &len);
	depth = restock(3, &added); /* L:after_parse */
	try_open("/nonexistent/orders.txt");
	for (int i = 0; i < 4; i++)
		g_total += weigh[orders[i].express](&orders[i]); /* L:weigh */
	g_amount.cents = g_total * 100L;
	snprintf(g_label, sizeof g_label, "total=%d err=%d", g_total, /* L:label */
		 g_errno_seen);
	snprintf(note, sizeof note, "%s/%d", orders[1].item, value);
	orders[2].qty = 0; /* L:zero */
	orders[1].priority = 6;
	target = find(note + 4);
	ship(target, depth); /* L:ship */
	return 0;
}
