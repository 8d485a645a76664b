/*
 * A ledger replayed from a built-in command list: each command names an
 * operation found in a table of function pointers.  Account 7's history
 * pointer is dropped by "close" on the 40th command; the 48th posts to it
 * and dereferences NULL.  The live scenarios break in the loop, go back
 * over a dispatch, and on into live execution to the crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NACCOUNTS	8
#define NCOMMANDS	50

struct account {
	long	 balance;
	int	 posts;
	long	*history;		/* last 4 amounts posted */
};

typedef long (*op_fn)(struct account *, long);

static struct account accounts[NACCOUNTS];
static long history_store[NACCOUNTS][4];
static int dispatched;
static long last_result;

static long
op_deposit(struct account *a, long amount)
{
	a->balance += amount;
	a->history[a->posts % 4] = amount;
	a->posts++;
	return a->balance;
}

static long
op_withdraw(struct account *a, long amount)
{
	if (amount > a->balance)
		amount = a->balance;
	a->balance -= amount;
	a->history[a->posts % 4] = -amount; /* L:withdraw_store */
	a->posts++;
	return a->balance;
}

static long
op_interest(struct account *a, long percent)
{
	long gained;

	gained = a->balance * percent / 100;
	return op_deposit(a, gained);
}

static long
op_close(struct account *a, long unused)
{
	(void)unused;
	a->history = NULL;	/* the bug: posts to it crash L:close */
	return a->balance;
}

static const struct {
	const char	*name;
	op_fn		 fn;
} ops[] = {
	{ "deposit", op_deposit },
	{ "withdraw", op_withdraw },
	{ "interest", op_interest },
	{ "close", op_close },
};

static op_fn
lookup(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) /* L:lookup_loop */
		if (strcmp(ops[i].name, name) == 0)
			return ops[i].fn;
	return NULL;
}

static void
command_for(int n, char *name, size_t size, int *account, long *amount)
{
	const char *name_of;

	*account = n % NACCOUNTS;
	*amount = 10 + n * 3;
	if (n == 39) {
		name_of = "close";
		*account = 7;
	} else if (n % 10 == 9)
		name_of = "interest";
	else if (n % 3 == 2)
		name_of = "withdraw";
	else
		name_of = "deposit";
	snprintf(name, size, "%s", name_of); /* L:command_name */
}

static long
dispatch(const char *name, int account, long amount)
{
	op_fn fn;

	fn = lookup(name); /* L:dispatch_lookup */
	if (fn == NULL)
		return -1;
	dispatched++;
	return fn(&accounts[account], amount); /* L:dispatch_call */
}

int
main(void)
{
	char name[16];
	long amount;
	int account, n;

	for (n = 0; n < NACCOUNTS; n++)
		accounts[n].history = history_store[n];
	for (n = 0; n < NCOMMANDS; n++) {
		command_for(n, name, sizeof(name), &account, &amount); /* L:main_command */
		last_result = dispatch(name, account, amount); /* L:main_dispatch */
	}
	printf("%d commands, last %ld\n", dispatched, last_result);
	return 0;
}
