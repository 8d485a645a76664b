/* bench-libipt.c REC.hwtrec: the yardstick of bench-scale.sh (issue 21): a
 * plain libipt block-decoder loop over a recording's Intel PT streams, with
 * the settings libhwtrecord decodes with (decode-pt.c: the manifest's CPU
 * and timing values, blocks ended at calls and jumps), every executable
 * mapping of the sideband in one image.  It prints the instructions libipt
 * decoded, the decode errors it resynchronised after and the CPU seconds of
 * the decoding loops alone; nothing else of ours takes part.  The
 * recording is read with libhwtrecord's public API (manifest, sideband,
 * stream bytes), which decodes nothing.
 */
#include "hwtrecord.h"

#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Every executable mapping of the recording, through an image section
 * cache as ptxed and libhwtrecord's decode-pt.c use it: without one,
 * libipt maps a file section and allocates (and clears) its block cache
 * again at each switch between sections, which made this loop take 90x
 * its time on a python3 recording.  A file libipt cannot read is
 * reported, and where its code runs the loop counts a decode error. */
static struct pt_image *image_of(const struct hwtr_recording *rec,
				 struct pt_image_section_cache *iscache)
{
	struct pt_image *image = pt_image_alloc(NULL);
	size_t i, n = hwtr_recording_nevents(rec);

	for (i = 0; image && i < n; i++) {
		const struct hwtr_sideband_event *ev = hwtr_recording_event(rec, i);
		char saved[4096];
		const char *path = ev->path;
		int isid, err;

		if (ev->kind != hwtr_ev_mmap || !(ev->prot & HWTR_PROT_EXEC) || !path)
			continue;
		if (ev->saved) {
			snprintf(saved, sizeof(saved), "%s/%s",
				 hwtr_recording_path(rec), ev->saved);
			path = saved;
		}
		isid = pt_iscache_add_file(iscache, path, ev->pgoff, ev->len,
					   ev->addr);
		err = isid < 0 ? isid
		      : pt_image_add_cached(image, iscache, isid, NULL);
		if (err < 0)
			fprintf(stderr, "bench-libipt: %s at 0x%llx: %s\n", path,
				(unsigned long long)ev->addr,
				pt_errstr(pt_errcode(err)));
	}
	return image;
}

static void config_of(const struct hwtr_pt_config *pt, const uint8_t *bytes,
		      size_t size, struct pt_config *config)
{
	pt_config_init(config);
	config->begin = (uint8_t *)bytes;
	config->end = (uint8_t *)bytes + size;
	if (!strcmp(pt->vendor, "intel")) {
		config->cpu.vendor = pcv_intel;
		config->cpu.family = pt->family;
		config->cpu.model = pt->model;
		config->cpu.stepping = pt->stepping;
		pt_cpu_errata(&config->errata, &config->cpu);
	}
	config->cpuid_0x15_eax = pt->cpuid_0x15_eax;
	config->cpuid_0x15_ebx = pt->cpuid_0x15_ebx;
	config->mtc_freq = pt->mtc_freq;
	config->nom_freq = pt->nom_freq;
	config->flags.variant.block.end_on_call = 1;
	config->flags.variant.block.end_on_jump = 1;
}

/* ptxed's loop: sync, then events and blocks until an error, resync. */
static int decode(struct pt_block_decoder *d, uint64_t *insns, uint64_t *errors)
{
	for (;;) {
		int status = pt_blk_sync_forward(d);

		if (status == -pte_eos)
			return 0;
		while (status >= 0) {
			struct pt_block block;

			while (status & pts_event_pending) {
				struct pt_event ev;

				status = pt_blk_event(d, &ev, sizeof(ev));
				if (status < 0)
					break;
			}
			if (status < 0)
				break;
			status = pt_blk_next(d, &block, sizeof(block));
			*insns += block.ninsn;
		}
		if (status == -pte_eos)
			return 0;
		(*errors)++;
	}
}

int main(int argc, char **argv)
{
	struct hwtr_recording *rec;
	const struct hwtr_recording_info *info;
	struct pt_image_section_cache *iscache;
	struct pt_image *image;
	uint64_t insns = 0, errors = 0;
	double cpu = 0;
	size_t t;

	if (argc != 2) {
		fprintf(stderr, "usage: bench-libipt REC.hwtrec\n");
		return 2;
	}
	if (hwtr_recording_open(argv[1], &rec) < 0) {
		fprintf(stderr, "bench-libipt: %s\n", hwtr_last_error());
		return 1;
	}
	info = hwtr_recording_info(rec);
	iscache = pt_iscache_alloc("bench-libipt");
	image = iscache ? image_of(rec, iscache) : NULL;
	if (!image) {
		fprintf(stderr, "bench-libipt: out of memory\n");
		return 1;
	}
	for (t = 0; t < info->nthreads; t++) {
		struct pt_block_decoder *d;
		struct pt_config config;
		const uint8_t *bytes;
		size_t size;
		double start;

		if (hwtr_recording_trace(rec, t, &bytes, &size) < 0) {
			fprintf(stderr, "bench-libipt: %s\n", hwtr_last_error());
			return 1;
		}
		if (size <= info->threads[t].trace_start)
			continue;
		config_of(&info->pt, bytes + info->threads[t].trace_start,
			  size - info->threads[t].trace_start, &config);
		start = cpu_seconds();
		d = pt_blk_alloc_decoder(&config);
		if (!d || pt_blk_set_image(d, image) < 0) {
			fprintf(stderr, "bench-libipt: cannot set up a decoder\n");
			return 1;
		}
		decode(d, &insns, &errors);
		pt_blk_free_decoder(d);
		cpu += cpu_seconds() - start;
	}
	printf("instructions %llu\nerrors %llu\ncpu_seconds %.3f\n",
	       (unsigned long long)insns, (unsigned long long)errors, cpu);
	pt_image_free(image);
	pt_iscache_free(iscache);
	hwtr_recording_close(rec);
	return 0;
}
