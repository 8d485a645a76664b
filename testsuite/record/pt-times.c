/* hwtr-pt-times: the time span of raw Intel PT streams, read with libipt's
 * packet decoder (not with libhwtrecord: this is an independent view).
 *
 *     hwtr-pt-times STREAM.pt...
 *
 * prints "STREAM FIRST_TSC LAST_TSC COUNT" per stream: the first and last
 * TSC packet values and how many there are (0 0 0 when there is none).
 * Exit status 2 when a stream cannot be read or has no PSB.
 */
#include <errno.h>
#include <inttypes.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int span(const char *path)
{
	struct pt_packet_decoder *decoder;
	uint64_t first = 0, last = 0, count = 0;
	struct pt_config config;
	uint8_t *buf;
	long size;
	FILE *f;
	int err;

	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "hwtr-pt-times: %s: %s\n", path, strerror(errno));
		return 2;
	}
	buf = malloc(size ? (size_t)size : 1);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "hwtr-pt-times: %s: cannot read\n", path);
		return 2;
	}
	fclose(f);
	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + size;
	decoder = pt_pkt_alloc_decoder(&config);
	if (!decoder)
		return 2;
	err = pt_pkt_sync_forward(decoder);
	if (err < 0) {
		fprintf(stderr, "hwtr-pt-times: %s: no PSB: %s\n", path,
			pt_errstr(pt_errcode(err)));
		return 2;
	}
	for (;;) {
		struct pt_packet packet;

		err = pt_pkt_next(decoder, &packet, sizeof(packet));
		if (err == -pte_eos)
			break;
		if (err < 0) {	/* a bad packet: go on at the next PSB */
			if (pt_pkt_sync_forward(decoder) < 0)
				break;
			continue;
		}
		if (packet.type == ppt_tsc) {
			if (!count++)
				first = packet.payload.tsc.tsc;
			last = packet.payload.tsc.tsc;
		}
	}
	pt_pkt_free_decoder(decoder);
	free(buf);
	printf("%s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", path, first, last, count);
	return 0;
}

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: hwtr-pt-times STREAM.pt...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		if (span(argv[i]))
			status = 2;
	return status;
}
