/* pt-insn-list.c: list a recording's instructions with libipt alone.
 *
 * A check of the Valgrind source that does not go through libhwtrecord's
 * history: each thread's stream is decoded with libipt's instruction decoder
 * over an image built from the sideband's mmap events, as a third-party tool
 * would.  Prints one line per instruction ("TID IP"), "TID event ..." lines
 * for enables and disables, and "TID error OFFSET: MESSAGE" for decode
 * errors (decoding resumes at the next PSB).  Exit status 1 if any error.
 *
 * usage: pt-insn-list [--summary] REC.hwtrec
 */
#include "hwtrecord.h"

#include <intel-pt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct counts {
	uint64_t insns, enables, disables, errors, psbs;
};

static struct pt_image *build_image(struct hwtr_recording *rec)
{
	struct pt_image *image = pt_image_alloc("recording");
	size_t i, n = hwtr_recording_nevents(rec);
	char path[4096];

	for (i = 0; image && i < n; i++) {
		const struct hwtr_sideband_event *ev =
			hwtr_recording_event(rec, i);
		const char *file;
		int err;

		if (ev->kind != hwtr_ev_mmap || !(ev->prot & HWTR_PROT_EXEC))
			continue;
		if (ev->saved) {
			snprintf(path, sizeof(path), "%s/%s",
				 hwtr_recording_path(rec), ev->saved);
			file = path;
		} else if (ev->path) {
			file = ev->path;
		} else {
			continue;
		}
		err = pt_image_add_file(image, file, ev->pgoff, ev->len, NULL,
					ev->addr);
		if (err < 0)
			fprintf(stderr, "pt-insn-list: %s at 0x%" PRIx64 ": %s\n",
				file, ev->addr, pt_errstr(pt_errcode(err)));
	}
	return image;
}

static int handle_events(struct pt_insn_decoder *dec, int status,
			 uint32_t tid, bool quiet, struct counts *c)
{
	while (status & pts_event_pending) {
		struct pt_event ev;

		status = pt_insn_event(dec, &ev, sizeof(ev));
		if (status < 0)
			return status;
		switch (ev.type) {
		case ptev_enabled:
			c->enables++;
			if (!quiet)
				printf("%u event enabled 0x%" PRIx64 "\n", tid,
				       ev.variant.enabled.ip);
			break;
		case ptev_disabled:
		case ptev_async_disabled:
			c->disables++;
			if (!quiet)
				printf("%u event disabled\n", tid);
			break;
		case ptev_overflow:
			if (!quiet)
				printf("%u event overflow\n", tid);
			break;
		default:
			break;
		}
	}
	return status;
}

static void decode_thread(struct hwtr_recording *rec, size_t index,
			  struct pt_image *image, bool quiet, struct counts *c)
{
	const struct hwtr_recording_info *info = hwtr_recording_info(rec);
	const struct hwtr_thread_info *ti = &info->threads[index];
	struct pt_config config;
	struct pt_insn_decoder *dec;
	const uint8_t *bytes;
	size_t size;
	int status;

	if (hwtr_recording_trace(rec, index, &bytes, &size) < 0 ||
	    ti->trace_start >= size)
		return;
	pt_config_init(&config);
	config.begin = (uint8_t *)bytes;
	config.end = (uint8_t *)bytes + size;
	config.cpu.vendor = pcv_intel;
	config.cpu.family = info->pt.family;
	config.cpu.model = info->pt.model;
	config.cpu.stepping = info->pt.stepping;
	pt_cpu_errata(&config.errata, &config.cpu);
	dec = pt_insn_alloc_decoder(&config);
	if (!dec)
		return;
	pt_insn_set_image(dec, image);
	status = pt_insn_sync_set(dec, ti->trace_start);
	for (;;) {
		uint64_t offset = 0;

		if (status >= 0) {
			for (;;) {
				struct pt_insn insn;

				status = handle_events(dec, status, ti->tid,
						       quiet, c);
				if (status < 0)
					break;
				status = pt_insn_next(dec, &insn, sizeof(insn));
				if (insn.iclass != ptic_error) {
					c->insns++;
					if (!quiet)
						printf("%u 0x%" PRIx64 "\n",
						       ti->tid, insn.ip);
				}
				if (status < 0)
					break;
			}
		}
		if (status == -pte_eos)
			break;
		pt_insn_get_offset(dec, &offset);
		c->errors++;
		printf("%u error %" PRIu64 ": %s\n", ti->tid, offset,
		       pt_errstr(pt_errcode(status)));
		status = pt_insn_sync_forward(dec);
		if (status == -pte_eos)
			break;
	}
	pt_insn_free_decoder(dec);
}

int main(int argc, char **argv)
{
	struct hwtr_recording *rec;
	struct pt_image *image;
	struct counts total = { 0 };
	bool summary = argc > 2 && !strcmp(argv[1], "--summary");
	const char *path = argv[argc - 1];
	size_t i;

	if (argc < 2 || hwtr_recording_open(path, &rec) < 0) {
		fprintf(stderr, "usage: pt-insn-list [--summary] REC.hwtrec\n%s\n",
			hwtr_last_error());
		return 2;
	}
	image = build_image(rec);
	for (i = 0; i < hwtr_recording_info(rec)->nthreads; i++) {
		struct counts c = { 0 };

		decode_thread(rec, i, image, summary, &c);
		if (summary)
			printf("thread %u: %" PRIu64 " instructions, %" PRIu64
			       " enables, %" PRIu64 " disables, %" PRIu64
			       " errors\n", hwtr_recording_info(rec)->threads[i].tid,
			       c.insns, c.enables, c.disables, c.errors);
		total.insns += c.insns;
		total.errors += c.errors;
	}
	pt_image_free(image);
	hwtr_recording_close(rec);
	return total.errors ? 1 : 0;
}
