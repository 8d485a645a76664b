/* etm-encode.c: ETMv4 packets and CoreSight frames (see etm-encode.h). */
#include "etm-encode.h"

#include "hwtrecord.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORD(w) (uint8_t)(w), (uint8_t)((w) >> 8), (uint8_t)((w) >> 16), \
		(uint8_t)((w) >> 24)

const uint8_t etm_fixture_code[0x28] = {
	WORD(0xd2800060),	/* 0x1000 mov x0, #3 */
	WORD(0x94000007),	/* 0x1004 bl 0x1020 */
	WORD(0xf1000400),	/* 0x1008 subs x0, x0, #1 */
	WORD(0x54ffffc1),	/* 0x100c b.ne 0x1004 */
	WORD(0x14000000),	/* 0x1010 b . */
	WORD(0xd503201f), WORD(0xd503201f), WORD(0xd503201f),
	WORD(0xd503201f),	/* 0x1020 nop */
	WORD(0xd65f03c0),	/* 0x1024 ret */
};

const uint64_t etm_main_path_ips[18] = {
	0x1000, 0x1004, 0x1020, 0x1024, 0x1008, 0x100c,
	0x1004, 0x1020, 0x1024, 0x1008, 0x100c,
	0x1004, 0x1020, 0x1024, 0x1008, 0x100c,
	0x1010, 0x1010,
};

void etm_bytes(struct etm_trace *t, const void *bytes, size_t n)
{
	if (t->len + n > sizeof(t->buf))
		abort();
	if (n)	/* BYTES may be NULL then */
		memcpy(t->buf + t->len, bytes, n);
	t->len += n;
}

static void byte(struct etm_trace *t, uint8_t b)
{
	etm_bytes(t, &b, 1);
}

void etm_async(struct etm_trace *t)
{
	static const uint8_t async[12] = { [11] = 0x80 };

	etm_bytes(t, async, sizeof(async));
}

void etm_trace_info(struct etm_trace *t)
{
	/* Header, PLCTL: the INFO section only; INFO 0: no cycle counts. */
	static const uint8_t info[] = { 0x01, 0x01, 0x00 };

	etm_bytes(t, info, sizeof(info));
}

void etm_trace_on(struct etm_trace *t)
{
	byte(t, 0x04);
}

void etm_overflow(struct etm_trace *t)
{
	static const uint8_t ovf[] = { 0x00, 0x05 };

	etm_bytes(t, ovf, sizeof(ovf));
}

/* A 64-bit IS0 address: bits 8:2 and 15:9 in seven-bit bytes, then bytes. */
static void addr64(struct etm_trace *t, uint64_t a)
{
	int i;

	byte(t, (uint8_t)((a >> 2) & 0x7f));
	byte(t, (uint8_t)((a >> 9) & 0x7f));
	for (i = 2; i < 8; i++)
		byte(t, (uint8_t)(a >> (8 * i)));
}

void etm_addr_ctxt(struct etm_trace *t, uint64_t addr, int el)
{
	byte(t, 0x85);		/* Address with Context, long, 64-bit, IS0 */
	addr64(t, addr);
	/* EL, SF (AArch64), NS; no VMID, no context ID. */
	byte(t, (uint8_t)((el & 3) | 0x10 | 0x20));
}

void etm_addr_ctxt_id(struct etm_trace *t, uint64_t addr, int el,
		      uint32_t context_id)
{
	int i;

	byte(t, 0x85);
	addr64(t, addr);
	/* ... and C: the context ID follows, four bytes, little-endian. */
	byte(t, (uint8_t)((el & 3) | 0x10 | 0x20 | 0x80));
	for (i = 0; i < 4; i++)
		byte(t, (uint8_t)(context_id >> (8 * i)));
}

void etm_addr(struct etm_trace *t, uint64_t addr)
{
	byte(t, 0x9d);		/* Long Address, 64-bit, IS0 */
	addr64(t, addr);
}

void etm_atom(struct etm_trace *t, bool taken)
{
	byte(t, taken ? 0xf7 : 0xf6);	/* format 1 */
}

void etm_start(struct etm_trace *t, uint64_t addr)
{
	etm_async(t);
	etm_trace_info(t);
	etm_trace_on(t);
	etm_addr_ctxt(t, addr, 0);
}

void etm_main_path(struct etm_trace *t)
{
	int i;

	etm_start(t, 0x1000);
	for (i = 0; i < 3; i++) {
		etm_atom(t, true);	/* bl 0x1020 */
		etm_atom(t, true);	/* ret */
		etm_addr(t, 0x1008);	/* ... to 0x1008 */
		etm_atom(t, i < 2);	/* b.ne 0x1004: taken twice */
	}
	etm_atom(t, true);		/* b . */
	etm_atom(t, true);		/* b . */
}

const uint64_t etm_periodic_async_path_ips[21] = {
	0x1000, 0x1004, 0x1020, 0x1024, 0x1008, 0x100c,
	0x1004, 0x1020, 0x1024, 0x1008, 0x100c,
	0x1004, 0x1020, 0x1024, 0x1008, 0x100c,
	0x1010, 0x1010,
	0x1008, 0x100c, 0x1004,
};

void etm_periodic_async_path(struct etm_trace *t)
{
	int i;

	etm_start(t, 0x1000);
	for (i = 0; i < 3; i++) {
		etm_atom(t, true);	/* bl 0x1020 */
		etm_atom(t, true);	/* ret */
		etm_addr(t, 0x1008);	/* ... to 0x1008 */
		if (i == 0) {
			etm_async(t);	/* the sync period is reached */
			etm_trace_info(t);
		}
		etm_atom(t, i < 2);	/* b.ne 0x1004 */
	}
	etm_atom(t, true);		/* b . */
	etm_atom(t, true);		/* b . */
	etm_start(t, 0x1008);
	etm_atom(t, true);		/* b.ne 0x1004 */
	etm_atom(t, true);		/* bl 0x1020 */
}

/* The formatter's frame: bytes 0-14 hold data or, in an even byte with bit
 * 0 set, a new source ID; byte 15 holds bit 0 of each even data byte, or for
 * an ID byte whether the next byte still belongs to the previous source. */
size_t etm_frames(const struct etm_source *sources, size_t n, size_t run,
		  uint8_t *out, size_t size)
{
	struct item { uint8_t id, data; } *items;
	size_t total = 0, i, k = 0, pos = 0, len = 0;
	uint8_t cur = 0;
	size_t *done = calloc(n + 1, sizeof(*done));

	for (i = 0; i < n; i++)
		total += sources[i].len;
	items = calloc(total + 1, sizeof(*items));
	if (!items || !done)
		abort();
	/* Round robin in runs of RUN bytes. */
	while (k < total)
		for (i = 0; i < n; i++) {
			size_t j;

			for (j = 0; j < run && done[i] < sources[i].len; j++)
				items[k++] = (struct item){ sources[i].id,
							    sources[i].bytes[done[i]++] };
		}
	free(done);
	k = 0;
	while (k < total || pos) {
		uint8_t *f = out + len;

		if (pos == 0) {
			if (len + 16 > size)
				abort();
			memset(f, 0, 16);
		}
		if (pos == 14) {
			/* The last slot has no partner: data, or an ID. */
			if (k < total && items[k].id != cur) {
				cur = items[k].id;
				f[14] = (uint8_t)(cur << 1 | 1);
			} else if (k < total) {
				f[14] = items[k].data & 0xfe;
				f[15] |= (uint8_t)((items[k].data & 1) << 7);
				k++;
			} else {
				f[14] = 0x01;	/* pad: ID 0 */
			}
			pos = 0;
			len += 16;
			continue;
		}
		if (k >= total) {
			/* Pad with ID 0: no source's data. */
			f[pos] = 0x01;
			f[pos + 1] = 0;
			cur = 0;
		} else if (items[k].id != cur) {
			cur = items[k].id;
			f[pos] = (uint8_t)(cur << 1 | 1);
			f[pos + 1] = items[k++].data;	/* the new source's */
		} else if (k + 1 == total || items[k + 1].id != cur) {
			/* The ID change now (to the next source, or to ID 0
			 * after the last byte), the byte after still the old
			 * source's: odd bytes are always data. */
			uint8_t next = k + 1 < total ? items[k + 1].id : 0;

			f[pos] = (uint8_t)(next << 1 | 1);
			f[15] |= (uint8_t)(1u << (pos / 2));
			f[pos + 1] = items[k++].data;
			cur = next;
		} else {
			f[pos] = items[k].data & 0xfe;
			f[15] |= (uint8_t)((items[k].data & 1) << (pos / 2));
			f[pos + 1] = items[k + 1].data;
			k += 2;
		}
		pos += 2;
	}
	free(items);
	return len;
}

static struct hwtr_etm_config source_config(uint8_t id, bool formatted)
{
	/* A Cortex-A53's trace unit (TRCIDR0-2), no options traced. */
	struct hwtr_etm_config e = {
		.trace_id = id, .formatted = formatted,
		.frame_flags = formatted ? HWTR_ETM_FRAME_MEM_ALIGN : 0,
		.arch_version = 0x800, .profile = 'A', .trctraceidr = id,
		.cpu = -1,
	};

	e.trcidr[0] = 0x28000ea1;
	e.trcidr[1] = 0x4100f400;
	e.trcidr[2] = 0x488;
	return e;
}

int etm_fixture_recording(const char *dir, const struct etm_source *src,
			  size_t n, bool formatted)
{
	return etm_fixture_recording_with(dir, src, n, formatted, NULL);
}

int etm_fixture_recording_with(const char *dir, const struct etm_source *src,
			       size_t n, bool formatted,
			       const struct etm_fixture_extra *extra)
{
	static uint8_t frames[1 << 16];
	struct hwtr_writer_info winfo = {
		.source = "test", .trace_format = "etm4", .arch = "aarch64",
	};
	struct hwtr_sideband_event mm = {
		.kind = hwtr_ev_mmap, .addr = ETM_FIXTURE_BASE,
		.len = sizeof(etm_fixture_code),
		.prot = HWTR_PROT_READ | HWTR_PROT_EXEC, .path = "code",
	};
	struct hwtr_writer *w = NULL;
	const char *stream = NULL;
	size_t i;
	int rc = -1;

	if (hwtr_writer_create(dir, &winfo, &w) < 0 ||
	    hwtr_writer_save_object(w, "code", etm_fixture_code,
				    sizeof(etm_fixture_code), &mm.saved) < 0 ||
	    hwtr_writer_event(w, &mm) < 0)
		goto out;
	if (formatted && extra && extra->frames &&
	    hwtr_writer_save_trace(w, "frames", extra->frames, extra->frames_len,
				   &stream) < 0)
		goto out;
	if (formatted && !(extra && extra->frames) &&
	    hwtr_writer_save_trace(w, "frames", frames,
				   etm_frames(src, n, 5, frames, sizeof(frames)),
				   &stream) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		struct hwtr_etm_config e = source_config(src[i].id, formatted);
		uint32_t tid = src[i].tid ? src[i].tid : src[i].id;
		char name[16];

		e.trcconfigr = src[i].trcconfigr;
		e.has_context_id = src[i].has_context_id;
		e.context_id = src[i].context_id;
		snprintf(name, sizeof(name), "%u", tid);
		if ((!formatted && hwtr_writer_save_trace(w, name, src[i].bytes,
							  src[i].len, &stream) < 0) ||
		    hwtr_writer_add_source(w, tid, 0, stream, &e) < 0)
			goto out;
	}
	for (i = 0; extra && i < extra->nlosses * n; i++) {
		struct hwtr_sideband_event loss = {
			.kind = hwtr_ev_loss, .tsc = 0, .offset = extra->losses[i / n],
			.reason = extra->loss_reason,
		};

		loss.tid = src[i % n].tid ? src[i % n].tid : src[i % n].id;
		if (hwtr_writer_event(w, &loss) < 0)
			goto out;
	}
	rc = hwtr_writer_finish(w, NULL) < 0 ? -1 : 0;
out:
	hwtr_writer_free(w);
	return rc;
}

void etm_snapshot_files(const char *format, uint32_t trcconfigr,
			const uint8_t *trace, size_t len,
			struct etm_file files[ETM_SNAPSHOT_FILES])
{
	static const char snapshot_ini[] =
		"[snapshot]\nversion=1.0\n\n[device_list]\ndevice0=cpu_0.ini\n"
		"device1=device_1.ini\n\n[trace]\nmetadata=trace.ini\n";
	static const char cpu_ini[] =
		"[device]\nname=cpu_0\nclass=core\ntype=Cortex-A53\n\n[regs]\n"
		"PC(size:64)=0x1000\n\n[dump1]\nfile=code.bin\naddress=0x1000\n"
		"length=0x28\n";
	static char etm_ini[512], trace_ini[512];

	snprintf(etm_ini, sizeof(etm_ini),
		 "[device]\nname=ETM_0\nclass=trace_source\ntype=ETM4\n\n"
		 "[regs]\nTRCCONFIGR(0x004)=0x%08X\nTRCTRACEIDR(0x010)=0x00000010\n"
		 "TRCIDR0(0x078)=0x28000EA1\nTRCIDR1(0x079)=0x4100F400\n"
		 "TRCIDR2(0x07A)=0x00000488\n", trcconfigr);
	snprintf(trace_ini, sizeof(trace_ini),
		 "[trace_buffers]\nbuffers=buffer0\n\n[buffer0]\nname=ETB_0\n"
		 "file=trace.bin\nformat=%s\n\n[source_buffers]\nETM_0=ETB_0\n\n"
		 "[core_trace_sources]\ncpu_0=ETM_0\n", format);
	files[0] = (struct etm_file){ "snapshot.ini", snapshot_ini, strlen(snapshot_ini) };
	files[1] = (struct etm_file){ "cpu_0.ini", cpu_ini, strlen(cpu_ini) };
	files[2] = (struct etm_file){ "device_1.ini", etm_ini, strlen(etm_ini) };
	files[3] = (struct etm_file){ "trace.ini", trace_ini, strlen(trace_ini) };
	files[4] = (struct etm_file){ "trace.bin", trace, len };
	files[5] = (struct etm_file){ "code.bin", etm_fixture_code,
				      sizeof(etm_fixture_code) };
}
