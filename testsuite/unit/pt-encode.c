/* pt-encode.c: see pt-encode.h. */
#include "pt-encode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void refused(const char *what, int err)
{
	fprintf(stderr, "pt-encode: %s: %s\n", what, pt_errstr(pt_errcode(err)));
	abort();
}

void trace_begin(struct trace *t)
{
	memset(t, 0, sizeof(*t));
	pt_config_init(&t->config);
	t->config.begin = t->buf;
	t->config.end = t->buf + sizeof(t->buf);
	t->encoder = pt_alloc_encoder(&t->config);
	if (!t->encoder)
		refused("pt_alloc_encoder", -pte_nomem);
}

size_t trace_size(struct trace *t)
{
	uint64_t off = 0;

	pt_enc_get_offset(t->encoder, &off);
	return (size_t)off;
}

void trace_end(struct trace *t)
{
	pt_free_encoder(t->encoder);
	t->encoder = NULL;
}

static void put(struct trace *t, struct pt_packet *p)
{
	int r = pt_enc_next(t->encoder, p);

	if (r < 0)
		refused("pt_enc_next", r);
}

static void put_ip(struct trace *t, enum pt_packet_type type,
		   enum pt_ip_compression ipc, uint64_t ip)
{
	struct pt_packet p = { .type = type };

	p.payload.ip.ipc = ipc;
	p.payload.ip.ip = ip;
	put(t, &p);
}

static void put_mode_exec_64(struct trace *t)
{
	struct pt_packet p = { .type = ppt_mode };

	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec.csl = 1;
	put(t, &p);
}

static void put_psb_tsc(struct trace *t, uint64_t tsc)
{
	struct pt_packet p = { .type = ppt_psb };

	put(t, &p);
	p = (struct pt_packet){ .type = ppt_tsc };
	p.payload.tsc.tsc = tsc;
	put(t, &p);
}

void enc_psb(struct trace *t, uint64_t fup_ip, uint64_t tsc)
{
	put_psb_tsc(t, tsc);
	put_mode_exec_64(t);
	if (fup_ip)
		put_ip(t, ppt_fup, pt_ipc_sext_48, fup_ip);
	enc_simple(t, ppt_psbend);
}

void enc_psb_disabled(struct trace *t, uint64_t tsc)
{
	put_psb_tsc(t, tsc);
	enc_simple(t, ppt_psbend);
}

void enc_tnt(struct trace *t, const char *bits)
{
	struct pt_packet p = { .type = ppt_tnt_8 };
	size_t i, n = strlen(bits);

	if (!n || n > 47)
		refused("enc_tnt: 1 to 47 bits", -pte_invalid);
	if (n > 6)
		p.type = ppt_tnt_64;
	for (i = 0; i < n; i++)
		p.payload.tnt.payload = p.payload.tnt.payload << 1 |
					(uint64_t)(bits[i] == '1');
	p.payload.tnt.bit_size = (uint8_t)n;
	put(t, &p);
}

void enc_tip(struct trace *t, uint64_t ip)
{
	put_ip(t, ppt_tip, pt_ipc_sext_48, ip);
}

void enc_tip_pgd(struct trace *t)
{
	put_ip(t, ppt_tip_pgd, pt_ipc_suppressed, 0);
}

void enc_tip_pge(struct trace *t, uint64_t ip)
{
	put_mode_exec_64(t);
	put_ip(t, ppt_tip_pge, pt_ipc_sext_48, ip);
}

void enc_ovf(struct trace *t)
{
	enc_simple(t, ppt_ovf);
}

void enc_fup(struct trace *t, uint64_t ip)
{
	put_ip(t, ppt_fup, pt_ipc_sext_48, ip);
}

void enc_simple(struct trace *t, enum pt_packet_type type)
{
	struct pt_packet p = { .type = type };

	put(t, &p);
}

void enc_raw(struct trace *t, const void *bytes, size_t n)
{
	uint64_t off = trace_size(t);
	int r;

	if (off + n > sizeof(t->buf))
		refused("enc_raw", -pte_nomem);
	memcpy(t->buf + off, bytes, n);
	if ((r = pt_enc_sync_set(t->encoder, off + n)) < 0)
		refused("pt_enc_sync_set", r);
}
