/* fuzz-values.c: libFuzzer target for the data log reader (values*.c,
 * values-index.c; the format in libhwtrecord/values-format.h).  The input
 * is the recording's data log, `values`; the rest of the recording is fixed
 * and valid: the unit tests' fixture code (testsuite/unit/fixture-code.S)
 * and a real trace of its main path (seeds-decoder/main-path), whose
 * thread is named as the log's first record names it, with no size or
 * CRC-32 for the log in the manifest, as after a recorder that did not
 * finish, so that every record reaches the parser.  The log is read whole
 * (hwtr_values_open) and, for a tail of the history, from its seek table
 * (hwtr_values_load_tail, and from the last restart point alone,
 * hwtr_values_load_tail_back); what accepts it is then read at every position:
 * every register, memory around the stack pointer and at the ends of the
 * address space, each instruction's stores, and the `hwtrec dump --values`
 * listing, text and JSON.  Seeds (make-values-seeds.sh): real logs of the fixture under the
 * Valgrind source, whole and cut.  FUZZ_VALUES_SHOW=1 prints whether each
 * read accepted the input, or why not. */
#include "fixture-recording.h"
#include "scratch-dir.h"

#include "hwtrecord.h"
#include "values-format.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FIXTURE_CODE
#error "FIXTURE_CODE must name the assembled fixture"
#endif
#ifndef FIXTURE_TRACE
#error "FIXTURE_TRACE must name a trace of the fixture (seeds-decoder/main-path)"
#endif

static struct hwtr_recording *rec;
static struct hwtr_history *history, *tail;
static uint32_t thread_tid;
static FILE *devnull;

/* The manifest names `values` as the recording's data log, and the thread
 * TID. */
static void write_manifest(uint32_t tid)
{
	const char *path = scratch_path("rec/manifest.json");
	json_t *m = json_load_file(path, 0, NULL);
	json_t *t = m ? json_array_get(json_object_get(m, "threads"), 0) : NULL;

	if (!t || json_object_set_new(t, "tid", json_integer(tid)) ||
	    json_object_set_new(m, "values",
				json_pack("{s:s,s:i}", "path", "values",
					  "version", HWTR_VALUES_VERSION)) ||
	    json_dump_file(m, path, JSON_INDENT(2))) {
		fprintf(stderr, "fuzz-values: cannot write %s\n", path);
		abort();
	}
	json_decref(m);
}

/* The fixed recording, its thread named TID: the data log names its
 * threads by their Linux thread ids, which a real log (the seeds) has from
 * the run that wrote it.  False when the recording refuses that id. */
static bool open_recording(uint32_t tid)
{
	if (history && tid == thread_tid)
		return true;
	hwtr_history_free(tail);
	hwtr_history_free(history);
	hwtr_recording_close(rec);
	history = tail = NULL;
	rec = NULL;
	write_manifest(tid);
	if (hwtr_recording_open(scratch_path("rec"), &rec) < 0)
		return false;
	/* A tail as long as the trace: it starts with the log's first
	 * register snapshot, which places it. */
	if (hwtr_history_build(rec, NULL, &history) < 0 ||
	    hwtr_history_build_tail(rec, NULL, 1u << 20, &tail) < 0) {
		fprintf(stderr, "fuzz-values: the fixed recording's history "
			"does not build: %s\n", hwtr_last_error());
		abort();
	}
	thread_tid = tid;
	return true;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fixture_recording_write(FIXTURE_CODE);
	fixture_recording_use_trace(FIXTURE_TRACE);
	scratch_write("rec/values", HWTR_VALUES_MAGIC, 8);
	if (!open_recording(1)) {
		fprintf(stderr, "fuzz-values: the fixed recording does not open: %s\n",
			hwtr_last_error());
		abort();
	}
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	return 0;
}

/* The thread a log is about: its first record's, a THREAD record after the
 * 16-byte header (u8 type 1, u32 lwpid); 1 when it has none. */
static uint32_t first_thread(const uint8_t *data, size_t size)
{
	uint32_t tid;

	if (size < 21 || data[16] != 1)
		return 1;
	memcpy(&tid, data + 17, 4);
	return tid ? tid : 1;
}

/* A read must give the register's size (at most BUF's) or an error. */
static void read_registers(struct hwtr_values *v, struct hwtr_thread *thread,
			   uint64_t pos, uint64_t *rsp)
{
	uint8_t buf[32];
	unsigned regno;

	*rsp = 0;
	for (regno = 0; regno <= hwtr_amd64_nregs; regno++) {
		int rc = hwtr_values_register(v, thread, pos, regno, buf,
					      sizeof(buf));

		if (rc > (int)sizeof(buf))
			abort();
		if (regno == hwtr_amd64_rsp && rc == 8)
			memcpy(rsp, buf, 8);
	}
}

static void read_memory(struct hwtr_values *v, struct hwtr_thread *thread,
			uint64_t pos, uint64_t addr, size_t size)
{
	uint8_t buf[256], state[256];
	size_t i;

	if (hwtr_values_memory(v, thread, pos, addr, buf, state, size) < 0)
		return;
	for (i = 0; i < size; i++)
		if (state[i] > hwtr_value_unknown)
			abort();
}

static void read_stores(struct hwtr_values *v, struct hwtr_thread *thread,
			uint64_t instructions)
{
	struct hwtr_stores *stores;
	const struct hwtr_store *list;
	uint64_t pos, sum = 0;
	size_t count, i;

	if (hwtr_stores_open(v, thread, &stores) < 0)
		return;
	for (pos = 0; pos <= instructions + 1; pos++) {
		if (hwtr_stores_at(stores, pos, &list, &count) < 0)
			continue;
		/* Touch every byte: a store must hold what it says. */
		for (i = 0; i < count; i++)
			if (list[i].known && list[i].size && list[i].size < (1u << 20))
				sum += list[i].old[list[i].size - 1] +
				       list[i].new_known[list[i].size - 1];
	}
	hwtr_stores_free(stores);
	fprintf(devnull, "%llu\n", (unsigned long long)sum);
}

/* Read everything V says of every thread of H at every position. */
static void read_all(struct hwtr_values *v, struct hwtr_history *h)
{
	size_t t;

	for (t = 0; t < hwtr_history_nthreads(h); t++) {
		struct hwtr_thread *thread = hwtr_history_thread(h, t);
		struct hwtr_thread_stats stats;
		uint64_t pos, rsp;

		if (hwtr_thread_stats(thread, &stats) < 0)
			abort();
		for (pos = 0; pos <= stats.instructions + 1; pos++) {
			read_registers(v, thread, pos, &rsp);
			if (rsp)
				read_memory(v, thread, pos, rsp - 64, 192);
			read_memory(v, thread, pos, 0, 16);
			read_memory(v, thread, pos, UINT64_MAX - 7, 16);	/* wraps */
		}
		read_registers(v, thread, UINT64_MAX, &rsp);
		read_stores(v, thread, stats.instructions);
		hwtr_list_insns_values(thread, v, 1, stats.instructions, 0,
				       false, devnull);
		hwtr_list_insns_values(thread, v, 1, stats.instructions, 0,
				       true, devnull);
	}
}

static void say(const char *how, int err)
{
	if (getenv("FUZZ_VALUES_SHOW"))
		printf("%s: %s\n", how, err < 0 ? hwtr_last_error() : "accepted");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwtr_values *v = NULL;
	int err;

	scratch_write("rec/values", data, size);
	if (!open_recording(first_thread(data, size)))
		return 0;
	/* The whole log, bound to the whole history. */
	err = hwtr_values_open(history, &v);
	say("whole", err);
	if (err == 0 && v) {
		read_all(v, history);
		hwtr_values_free(v);
	}
	/* The tail's part only, from the seek table's restart points. */
	v = NULL;
	err = hwtr_values_load_tail(tail, &v);
	say("tail", err);
	if (err == 0 && v) {
		read_all(v, tail);
		hwtr_values_free(v);
	}
	/* Its last restart point only, for its first thread, as the server
	 * reads it first. */
	v = NULL;
	err = hwtr_values_load_tail_back(tail, hwtr_history_nthreads(tail)
					 ? hwtr_history_thread(tail, 0) : NULL,
					 1, &v);
	say("tail-back", err);
	if (err == 0 && v) {
		read_all(v, tail);
		hwtr_values_free(v);
	}
	return 0;
}
