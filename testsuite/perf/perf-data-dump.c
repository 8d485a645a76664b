/* perf-data-dump: the records of a perf.data as formats/perf-data.c reads
 * them, one line each, in the words `perf report -D` uses, so that
 * test-perf-reader.sh can compare the two on files perf itself wrote. */
#include "hwtrecord.h"
#include "../../formats/perf-data.h"

#include <inttypes.h>
#include <stdio.h>

static int print_build_id(void *ctx, const struct perf_build_id_entry *e)
{
	int i;

	(void)ctx;
	printf("BUILD_ID ");
	for (i = 0; i < e->size; i++)
		printf("%02x", e->build_id[i]);
	printf(" %s\n", e->filename);
	return 0;
}

int main(int argc, char **argv)
{
	struct perf_data *pd;
	struct perf_data_iter it;
	struct perf_data_item item;
	int status;

	if (argc != 2) {
		fprintf(stderr, "usage: perf-data-dump perf.data\n");
		return 2;
	}
	if (perf_data_open(argv[1], stderr, &pd)) {
		fprintf(stderr, "%s\n", hwtr_last_error());
		return 1;
	}
	perf_data_iter_init(pd, &it);
	while ((status = perf_data_next(&it, &item)) > 0) {
		const struct perf_rec *r = &item.rec;

		switch (r->type) {
		case PERF_RECORD_COMM:
			printf("COMM%s %s:%u/%u\n",
			       (r->misc & PERF_RECORD_MISC_COMM_EXEC) ? " exec" : "",
			       r->u.comm.comm, r->u.comm.pid, r->u.comm.tid);
			break;
		case PERF_RECORD_MMAP2:
			printf("MMAP2 %u/%u: [0x%" PRIx64 "(0x%" PRIx64 ") @ 0x%"
			       PRIx64 "]: %s\n", r->u.mmap.pid, r->u.mmap.tid,
			       r->u.mmap.addr, r->u.mmap.len, r->u.mmap.pgoff,
			       r->u.mmap.filename);
			break;
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT:
			printf("%s(%u:%u):(%u:%u)\n", r->type == PERF_RECORD_FORK
			       ? "FORK" : "EXIT", r->u.task.pid, r->u.task.tid,
			       r->u.task.ppid, r->u.task.ptid);
			break;
		default:
			break;
		}
	}
	if (status < 0) {
		fprintf(stderr, "%s\n", hwtr_last_error());
		perf_data_close(pd);
		return 1;
	}
	perf_data_build_ids(pd, print_build_id, NULL);
	perf_data_close(pd);
	return 0;
}
