/* info.c: `hwtrec info REC [--json]`: what a recording holds. */
#include "commands.h"
#include "open-history.h"
#include "../libhwtrecord/json-text.h"

#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: hwtrec info [--json] REC.hwtrec\n"
		"Format, source, process, threads, instructions, function "
		"segments, gaps,\ntrace bytes and bits per instruction of a "
		"recording.\n");
}

static const char *end_text(const struct hwtr_end *end, const char *reason,
			    char *buf, size_t n)
{
	switch (end->state) {
	case hwtr_end_exited:
		snprintf(buf, n, "exited with code %d", end->code);
		break;
	case hwtr_end_signaled:
		snprintf(buf, n, "killed by signal %d (%s)", end->code,
			 strsignal(end->code));
		if (end->has_fault_address) {
			size_t len = strlen(buf);

			snprintf(buf + len, n - len, ", fault address 0x%llx",
				 (unsigned long long)end->fault_address);
		}
		break;
	case hwtr_end_aborted:
		snprintf(buf, n, "the recorder could not go on: %s",
			 reason ? reason : "reason unknown");
		break;
	default:
		snprintf(buf, n, "still running when the recording ended");
	}
	return buf;
}

/* What a CoreSight "thread" is: a trace source on a core. */
static void etm_source_line(const struct hwtr_recording_info *info, uint32_t tid)
{
	size_t i;

	for (i = 0; i < info->nthreads; i++) {
		const struct hwtr_etm_config *e = info->threads[i].etm;

		if (info->threads[i].tid != tid || !e)
			continue;
		printf("    %s %s, trace ID 0x%x, on %s (%s), %s", e->ete ? "ETE" : "ETMv4",
		       e->source ? e->source : "source", e->trace_id,
		       e->core ? e->core : "a core",
		       e->core_type ? e->core_type : "unknown type",
		       info->threads[i].stream);
		if (e->has_context_id)
			printf(", context ID %u", e->context_id);
		putchar('\n');
	}
}

/* The file the kernel mapped for the program an exec event (number I)
 * started: the first file mapped after it (the program comes before its
 * interpreter), or NULL. */
static const char *execd_file(const struct hwtr_recording *rec, size_t i)
{
	size_t n = hwtr_recording_nevents(rec);

	for (i++; i < n; i++) {
		const struct hwtr_sideband_event *ev = hwtr_recording_event(rec, i);

		if (ev->kind == hwtr_ev_exec)
			return NULL;
		if (ev->kind == hwtr_ev_mmap && ev->path && ev->path[0] != '[')
			return ev->path;
	}
	return NULL;
}

/* Each exec the process did, as "Exec'd: PATH (FILE)", or into a JSON
 * array of {"path", "file"} when EXECS is set. */
/* S as a JSON string, or NULL for NULL: names are bytes, JSON is UTF-8. */
static json_t *text(const char *s)
{
	return s ? jfield_text(s) : NULL;
}

static void show_execs(const struct hwtr_recording *rec, json_t *execs)
{
	size_t n = hwtr_recording_nevents(rec), i;

	for (i = 0; i < n; i++) {
		const struct hwtr_sideband_event *ev = hwtr_recording_event(rec, i);
		const char *file;

		if (ev->kind != hwtr_ev_exec)
			continue;
		file = execd_file(rec, i);
		if (execs)
			json_array_append_new(execs, json_pack("{s:o?,s:o?}", "path",
							       text(ev->path), "file",
							       text(file)));
		else if (file && (!ev->path || strcmp(file, ev->path)))
			printf("Exec'd:        %s (%s)\n", ev->path ? ev->path : "?", file);
		else
			printf("Exec'd:        %s\n", ev->path ? ev->path : "?");
	}
}

/* Whether the recording carries its binaries (hwtrec pack): "packed" when
 * every mapped file with a build-id is in objects/, else which are not; the
 * files without a build-id, which cannot be packed, are named either way.
 * Into JSON when given, else printed. */
static void show_objects(struct hwtr_recording *rec, json_t *json)
{
	struct hwtr_pack *pack;
	size_t i, n, packed = 0, debug = 0, missing = 0;
	json_t *list = json ? json_array() : NULL;

	if (hwtr_pack(rec, NULL, false, &pack) < 0) {
		if (json)
			json_object_set_new(json, "objects_error",
					    text(hwtr_last_error()));
		else
			printf("Objects:       %s\n", hwtr_last_error());
		json_decref(list);
		return;
	}
	n = hwtr_pack_count(pack);
	for (i = 0; i < n; i++) {
		const struct hwtr_pack_file *f = hwtr_pack_file(pack, i);

		packed += f->packed;
		debug += f->has_debug;
		missing += f->build_id && !f->packed;
	}
	if (json)
		json_object_set_new(json, "packed", json_boolean(n && !missing));
	else if (n && !missing)
		printf("Objects:       packed: %zu mapped files in objects/ (%zu with "
		       "a separate debug file)\n", packed, debug);
	else
		printf("Objects:       not packed: %zu of %zu mapped files are not in "
		       "objects/ (hwtrec pack copies them)\n", n - packed, n);
	for (i = 0; i < n; i++) {
		const struct hwtr_pack_file *f = hwtr_pack_file(pack, i);

		if (!f->problem)
			continue;
		if (list)
			json_array_append_new(list, json_pack(
				"{s:o,s:s?,s:o}", "path", text(f->path), "build_id",
				f->build_id, "problem", text(f->problem)));
		else
			printf("  %s: %s\n", f->path, f->problem);
	}
	if (json)
		json_object_set_new(json, "not_packed", list);
	hwtr_pack_free(pack);
}

static double bits_per_insn(uint64_t bytes, uint64_t insns)
{
	return insns ? 8.0 * (double)bytes / (double)insns : 0.0;
}

/* "saved": read from the recording's history.idx; "built": decoded. */
static const char *index_source(const struct hwtr_history *history)
{
	return hwtr_history_index_source(history) == hwtr_index_saved ? "saved"
								      : "built";
}

/* The most threads a thread's chunks were decoded on at once. */
static unsigned build_threads(struct hwtr_history *history)
{
	unsigned most = 0;
	size_t i;

	for (i = 0; i < hwtr_history_nthreads(history); i++) {
		struct hwtr_thread_stats s;

		if (!hwtr_thread_stats(hwtr_history_thread(history, i), &s) &&
		    s.build_threads > most)
			most = s.build_threads;
	}
	return most;
}

int hwtrec_info_main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct hwtr_recording_info *info;
	struct opened_history o;
	bool json = false;
	char endbuf[1024];
	size_t i;
	int c;

	while ((c = getopt_long(argc, argv, "jh", options, NULL)) != -1) {
		if (c == 'j') {
			json = true;
		} else if (c == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	if (open_history("info", argv[optind], &o))
		return 1;
	info = hwtr_recording_info(o.recording);
	end_text(&info->end, info->end_reason, endbuf, sizeof(endbuf));
	if (json) {
		json_t *threads = json_array(), *problems = json_array(), *root;
		json_t *execs = json_array();

		for (i = 0; i < hwtr_history_nthreads(o.history); i++) {
			struct hwtr_thread_stats s;

			hwtr_thread_stats(hwtr_history_thread(o.history, i), &s);
			json_array_append_new(threads, json_pack(
				"{s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:I,s:i}", "tid",
				(json_int_t)s.tid, "instructions",
				(json_int_t)s.instructions, "segments",
				(json_int_t)s.segments, "gaps", (json_int_t)s.gaps,
				"chunks", (json_int_t)s.chunks, "trace_bytes",
				(json_int_t)s.trace_bytes, "bits_per_instruction",
				bits_per_insn(s.trace_bytes, s.instructions),
				"index_bytes", (json_int_t)s.index_bytes,
				"build_threads", (int)s.build_threads));
		}
		for (i = 0; i < hwtr_history_nproblems(o.history); i++)
			json_array_append_new(problems, text(
				hwtr_history_problem(o.history, i)));
		show_execs(o.recording, execs);
		root = json_pack("{s:o,s:i,s:s,s:s,s:s,s:i,s:o?,s:o,s:s,s:b,s:s?,s:o,s:o}",
				 "recording", text(argv[optind]), "version", info->version,
				 "trace_format", info->trace_format, "source",
				 info->source, "arch", info->arch, "pid", info->pid,
				 "executable", text(info->executable), "execs", execs,
				 "end", endbuf,
				 "complete", info->complete, "cut_off",
				 info->cut_off_reason, "threads", threads,
				 "problems", problems);
		if (root)
			show_objects(o.recording, root);
		if (root)
			json_object_set_new(root, "index", json_string(
				index_source(o.history)));
		if (!root ||
		    json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0) {
			fprintf(stderr, "hwtrec info: %s: cannot write it as JSON\n",
				argv[optind]);
			json_decref(root);
			close_history(&o);
			return 1;
		}
		putchar('\n');
		json_decref(root);
		close_history(&o);
		return 0;
	}
	printf("Recording:     %s\n", argv[optind]);
	printf("Format:        hwtrecord version %d, %s (%s)\n", info->version,
	       info->trace_format, info->arch);
	printf("Source:        %s\n", info->source);
	printf("Process:       %d %s", info->pid,
	       info->executable ? info->executable : "(unknown)");
	for (i = 1; i < info->argc; i++)
		printf(" %s", info->argv[i]);
	putchar('\n');
	show_execs(o.recording, NULL);
	printf("Ended:         %s\n", endbuf);
	if (info->core)
		printf("Core:          %s\n", info->core);
	if (info->cut_off)
		printf("Cut off:       %s\n", info->cut_off_reason);
	show_objects(o.recording, NULL);
	for (i = 0; i < hwtr_history_nproblems(o.history); i++)
		printf("Problem:       %s\n", hwtr_history_problem(o.history, i));
	printf("Index:         %s", index_source(o.history));
	if (build_threads(o.history) > 1)
		printf(" (chunks decoded on %u threads)",
		       build_threads(o.history));
	putchar('\n');
	printf("Threads:       %zu\n", hwtr_history_nthreads(o.history));
	for (i = 0; i < hwtr_history_nthreads(o.history); i++) {
		struct hwtr_thread_stats s;

		hwtr_thread_stats(hwtr_history_thread(o.history, i), &s);
		printf("  thread %" PRIu32 ": %" PRIu64 " instructions, %" PRIu64
		       " function segments, %" PRIu64 " gaps, %" PRIu64
		       " trace bytes (%.2f bits per instruction)\n",
		       s.tid, s.instructions, s.segments, s.gaps, s.trace_bytes,
		       bits_per_insn(s.trace_bytes, s.instructions));
		etm_source_line(info, s.tid);
	}
	close_history(&o);
	return 0;
}
