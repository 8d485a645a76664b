/* A packet router, built with clang -O2 (route*.scn): what clang's
 * optimiser leaves a debugger.  Packets are made by a function returning a
 * 40-byte struct through memory, checksummed by a loop clang unrolls and
 * vectorises, routed by a longest-prefix lookup inlined into route_pkt,
 * which ends in tail calls to deliver() or drop(); arguments live in
 * registers and location lists (DW_OP_entry_value where clang reuses
 * them).  A packet whose route names a port no packet used sends flush()
 * through a NULL port pointer: the crash, a load from it. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct pkt {
	uint16_t src, dst;
	uint8_t proto, ttl;
	uint16_t len;
	uint32_t sum;
	unsigned char data[28];
};

struct route {
	uint16_t prefix;
	uint16_t mask;
	int port;
};

struct stats {
	long bytes;
	int dropped;
	int forwarded;
	uint32_t last_sum;
	int why[3];
};

static const struct route g_routes[] = {
	{ 0x1000, 0xf000, 0 },
	{ 0x1200, 0xff00, 1 },
	{ 0x2000, 0xe000, 2 },
	{ 0x8000, 0x8000, 3 },
};

struct stats g_stats;
int g_port_count[4];
struct pkt *g_ports[4];
uint16_t g_trail[12];
volatile int g_salt = 7;

static inline uint32_t fold(uint32_t s)
{
	s = (s & 0xffff) + (s >> 16);
	return (s & 0xffff) + (s >> 16);
}

__attribute__((noinline)) uint32_t checksum(const unsigned char *p, int n)
{
	uint32_t s = 0;

	for (int i = 0; i < n; i++)
		s += (uint32_t)p[i] * (uint32_t)(i + 1);
	return fold(s); /* L:checksum_ret */
}

static inline int lookup(uint16_t dst)
{
	int best = -1;
	int best_bits = -1;

	for (unsigned i = 0; i < sizeof(g_routes) / sizeof(g_routes[0]); i++) {
		const struct route *r = &g_routes[i];
		int bits = __builtin_popcount(r->mask);

		if ((dst & r->mask) == r->prefix && bits > best_bits) {
			best = r->port;
			best_bits = bits;
		}
	}
	return best;
}

__attribute__((noinline)) int deliver(struct pkt *p, int port)
{
	g_stats.bytes += p->len;
	g_stats.forwarded++;
	g_stats.last_sum = p->sum;
	g_port_count[port]++;
	g_ports[port] = p; /* L:deliver_store */
	return port + 1;
}

__attribute__((noinline)) int drop(struct pkt *p, int why)
{
	g_stats.dropped++;
	g_stats.why[why]++;
	p->ttl = 0;
	return -why;
}

__attribute__((noinline)) int route_pkt(struct pkt *p)
{
	int port;

	if (p->ttl == 0)
		return drop(p, 1);
	p->ttl--;
	p->sum = checksum(p->data, p->len);
	if (p->sum % 7 == 0)
		return drop(p, 2);
	port = lookup(p->dst);
	if (port < 0)
		return drop(p, 0);
	return deliver(p, port); /* L:route_tail */
}

__attribute__((noinline)) struct pkt make(int i)
{
	struct pkt p;

	memset(&p, 0, sizeof(p));
	p.src = (uint16_t)(0x0100 + i);
	p.dst = (uint16_t)((i * 0x0911 + g_salt * 0x100) & 0x7fff);
	p.proto = (uint8_t)(i & 1 ? 17 : 6);
	p.ttl = (uint8_t)(i % 5);
	p.len = (uint16_t)(8 + (i * 3) % 20);
	for (int k = 0; k < p.len; k++)
		p.data[k] = (unsigned char)(i * 31 + k * k);
	return p; /* L:make_ret */
}

__attribute__((noinline)) int flush(int port, uint8_t ttl)
{
	struct pkt *q = g_ports[port];
	int len = q->len; /* L:crash */

	q->ttl = ttl;
	return len;
}

int main(void)
{
	struct pkt ring[4];
	int total = 0;
	int last = 0;

	for (int i = 0; i < 12; i++) {
		struct pkt *slot = &ring[i % 4];

		*slot = make(i);
		last = route_pkt(slot); /* L:main_route */
		g_trail[i] = (uint16_t)(last * 0x100 + slot->ttl);
		total += last;
	}
	printf("forwarded %d dropped %d total %d\n", g_stats.forwarded,
	       g_stats.dropped, total);
	return flush(lookup(0x8123), (uint8_t)total); /* L:main_flush */
}
