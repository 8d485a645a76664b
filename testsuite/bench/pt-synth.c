/* pt-synth.c: see pt-synth.h. */
#include "pt-synth.h"

#include <stdio.h>

int pt_synth_init(struct pt_synth *s, const char *who)
{
	s->who = who;
	pt_config_init(&s->config);
	s->config.begin = s->buf;
	s->config.end = s->buf + sizeof(s->buf);
	s->encoder = pt_alloc_encoder(&s->config);
	if (!s->encoder) {
		fprintf(stderr, "%s: out of memory\n", who);
		return -1;
	}
	return 0;
}

void pt_synth_release(struct pt_synth *s)
{
	pt_free_encoder(s->encoder);
	s->encoder = NULL;
}

void pt_synth_put(struct pt_synth *s, struct pt_packet *p)
{
	int r = pt_enc_next(s->encoder, p);

	if (r < 0 && !s->failed) {
		fprintf(stderr, "%s: pt_enc_next: %s\n", s->who,
			pt_errstr(pt_errcode(r)));
		s->failed = 1;
	}
}

uint64_t pt_synth_offset(struct pt_synth *s)
{
	uint64_t off = 0;

	pt_enc_get_offset(s->encoder, &off);
	return off;
}

void pt_synth_write_out(struct pt_synth *s)
{
	uint64_t n = pt_synth_offset(s);

	if (n && hwtr_writer_trace(s->writer, 1, s->buf, n) < 0 && !s->failed) {
		fprintf(stderr, "%s: %s\n", s->who, hwtr_last_error());
		s->failed = 1;
	}
	s->flushed += n;
	pt_enc_sync_set(s->encoder, 0);
}

void pt_synth_flush_tnt(struct pt_synth *s)
{
	struct pt_packet p = { .type = s->ntnt <= 6 ? ppt_tnt_8 : ppt_tnt_64 };

	if (!s->ntnt)
		return;
	p.payload.tnt.payload = s->tnt_bits;
	p.payload.tnt.bit_size = (uint8_t)s->ntnt;
	pt_synth_put(s, &p);
	s->tnt_bits = s->ntnt = 0;
}

int pt_synth_tnt(struct pt_synth *s, int taken)
{
	s->tnt_bits = s->tnt_bits << 1 | (uint64_t)(taken != 0);
	if (++s->ntnt < 47)
		return 0;
	pt_synth_flush_tnt(s);
	return 1;
}

void pt_synth_psb(struct pt_synth *s, uint64_t next_ip)
{
	struct pt_packet p = { .type = ppt_psb };

	pt_synth_flush_tnt(s);
	pt_synth_write_out(s);
	pt_synth_put(s, &p);
	p = (struct pt_packet){ .type = ppt_tsc };
	s->tsc += 10000;
	p.payload.tsc.tsc = s->tsc;
	pt_synth_put(s, &p);
	p = (struct pt_packet){ .type = ppt_mode };
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec.csl = 1;
	pt_synth_put(s, &p);
	p = (struct pt_packet){ .type = ppt_fup };
	p.payload.ip.ipc = pt_ipc_sext_48;
	p.payload.ip.ip = next_ip;
	pt_synth_put(s, &p);
	p = (struct pt_packet){ .type = ppt_psbend };
	pt_synth_put(s, &p);
}
