/* stub-memory.c: the stopped live process's memory (see stub-memory.h). */
#include "stub-memory.h"

#include "tracer.h"

#include <stdio.h>
#include <string.h>

void stub_memory_init(struct stub_memory *m, struct rsp_conn *stub)
{
	m->stub = stub;
	stub_memory_forget(m);
}

void stub_memory_forget(struct stub_memory *m)
{
	size_t i;

	for (i = 0; i < STUB_MEMORY_PAGES; i++)
		m->pages[i].valid = false;
}

/* Up to LEN bytes at ADDR straight from the stub, one packet: how many. */
static size_t read_packet(struct rsp_conn *stub, uint64_t addr, uint8_t *buf,
			  size_t len)
{
	char packet[64];
	size_t got;

	snprintf(packet, sizeof(packet), "m%llx,%zx",
		 (unsigned long long)addr, len);
	if (stub_request(stub, packet, strlen(packet)) < 0)
		return 0;
	/* "Enn" (odd length) is an error; bytes come as hex pairs */
	if (stub->payload_len % 2)
		return 0;
	got = stub->payload_len / 2;
	if (got > len)
		got = len;
	return got && rsp_unhex(stub->payload, got, buf) ? got : 0;
}

/* The page holding ADDR, read if it is not kept: how many of its bytes
 * are readable from its start. */
static size_t page_of(struct stub_memory *m, uint64_t addr,
		      const uint8_t **bytes)
{
	uint64_t base = addr & ~(uint64_t)(STUB_MEMORY_PAGE - 1);
	size_t slot = (size_t)(base / STUB_MEMORY_PAGE) % STUB_MEMORY_PAGES;

	if (!m->pages[slot].valid || m->pages[slot].addr != base) {
		m->pages[slot].addr = base;
		m->pages[slot].len = read_packet(m->stub, base,
						 m->pages[slot].bytes,
						 STUB_MEMORY_PAGE);
		m->pages[slot].valid = true;
	}
	*bytes = m->pages[slot].bytes;
	return m->pages[slot].len;
}

size_t stub_memory_read(struct stub_memory *m, uint64_t addr, void *buf,
			size_t len)
{
	size_t done = 0;

	while (done < len) {
		uint64_t at = addr + done;
		size_t off = (size_t)(at % STUB_MEMORY_PAGE);
		size_t want = len - done < STUB_MEMORY_PAGE - off
			      ? len - done : STUB_MEMORY_PAGE - off;
		const uint8_t *bytes;
		size_t have = page_of(m, at, &bytes), n;

		/* A page the stub gave only in part: it is asked for exactly
		 * these bytes. */
		if (have < off + want)
			n = read_packet(m->stub, at, (uint8_t *)buf + done, want);
		else {
			n = have > off ? have - off : 0;
			if (n > want)
				n = want;
			memcpy((uint8_t *)buf + done, bytes + off, n);
		}
		done += n;
		if (n < want)
			break;
	}
	return done;
}
