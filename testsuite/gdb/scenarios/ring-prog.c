/* ring-prog.c: a value scenario's program (values-ring*.scn): a producer
 * and a consumer taking turns in one thread over a ring buffer of eight
 * message slots (head and tail free-running unsigned counters masked into
 * the array, the oldest message dropped when the ring is full), messages
 * popped into the caller's struct through an out-parameter, a sequence
 * number from a static local, handlers chosen by the message's kind from a
 * table of function pointers, a running checksum in a global struct.  The
 * last message is a "config" message whose context pointer the producer
 * never set: its handler reads through NULL (SIGSEGV), three calls below
 * main.  Static, not PIE, like values-prog.
 */
#include <stddef.h>

#define RING_SLOTS 8
#define RING_MASK (RING_SLOTS - 1)

enum kind { MSG_DATA, MSG_TICK, MSG_CONFIG, MSG_KINDS };

struct config {
	int window;
	int scale;
};

struct msg {
	unsigned seq;
	enum kind kind;
	short len;
	unsigned char payload[12];
	const struct config *ctx;
};

struct ring {
	struct msg slot[RING_SLOTS];
	unsigned head; /* next slot written */
	unsigned tail; /* next slot read */
	unsigned dropped;
};

struct stats {
	unsigned long checksum;
	int handled[MSG_KINDS];
	int last_len;
};

static struct ring g_ring;
static struct stats g_stats;
static struct config g_config = { 4, 3 };

static unsigned next_seq(void)
{
	static unsigned seq = 100;

	return seq++; /* L:next_seq */
}

static void ring_push(struct ring *r, enum kind kind, const char *text,
		      const struct config *ctx)
{
	struct msg *m;
	short n;

	if (r->head - r->tail == RING_SLOTS) {
		r->tail++; /* L:drop */
		r->dropped++;
	}
	m = &r->slot[r->head & RING_MASK];
	m->seq = next_seq();
	m->kind = kind;
	for (n = 0; text[n] != '\0' && n < (short) sizeof m->payload; n++)
		m->payload[n] = (unsigned char) text[n];
	m->len = n; /* L:pushed */
	m->ctx = ctx;
	r->head++;
}

static int ring_pop(struct ring *r, struct msg *out)
{
	if (r->head == r->tail)
		return 0;
	*out = r->slot[r->tail & RING_MASK]; /* L:pop */
	r->tail++;
	return 1;
}

static unsigned long on_data(const struct msg *m)
{
	unsigned long sum = 0;
	int i;

	for (i = 0; i < m->len; i++)
		sum = sum * 31 + m->payload[i]; /* L:on_data */
	return sum;
}

static unsigned long on_tick(const struct msg *m)
{
	return m->seq * 2UL; /* L:on_tick */
}

static unsigned long on_config(const struct msg *m)
{
	return (unsigned long) (m->ctx->window * m->ctx->scale); /* L:crash */
}

static unsigned long (*const handlers[MSG_KINDS])(const struct msg *) = {
	on_data, on_tick, on_config,
};

static void consume(struct ring *r, int budget)
{
	struct msg m;
	unsigned long v;

	while (budget-- > 0 && ring_pop(r, &m)) {
		v = handlers[m.kind](&m); /* L:dispatch */
		g_stats.checksum ^= v + m.seq;
		g_stats.handled[m.kind]++;
		g_stats.last_len = m.len;
	}
}

int main(void)
{
	static const char *const words[] = { "alpha", "bravo", "charlie",
					     "delta", "echo",  "foxtrot" };
	int round;

	for (round = 0; round < 6; round++) {
		ring_push(&g_ring, MSG_DATA, words[round], NULL);
		if (round % 2 == 1)
			ring_push(&g_ring, MSG_TICK, "t", NULL);
		ring_push(&g_ring, MSG_CONFIG, "cfg", &g_config);
		consume(&g_ring, 2); /* L:consume */
	}
	/* A burst that overruns the ring: the oldest messages are dropped. */
	for (round = 0; round < 10; round++)
		ring_push(&g_ring, MSG_DATA, words[round % 6], NULL);
	ring_push(&g_ring, MSG_CONFIG, "late", NULL); /* L:late */
	consume(&g_ring, 20);
	return (int) g_stats.checksum;
}
