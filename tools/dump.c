/* dump.c: `hwtrec dump REC --insn|--calls [FROM,TO] [/MODIFIERS] [--json]
 * [--values] [--thread TID]`: the histories in GDB's `record
 * instruction-history` and `record function-call-history` formats, or as
 * JSON lines; --values adds what each instruction changed, from the data
 * log.  Streams. */
#include "commands.h"
#include "open-history.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hwtrec dump REC.hwtrec --insn  [FROM,TO] [/m /r /f /p] "
		"[--json] [--values] [--thread TID]\n"
		"       hwtrec dump REC.hwtrec --calls [FROM,TO] [/l /i /c] "
		"[--json] [--thread TID]\n"
		"--insn lists instructions as GDB's record instruction-history;\n"
		"--calls lists function segments as record function-call-history.\n"
		"FROM,TO are instruction (or segment) numbers, inclusive; either may\n"
		"be left out.  Modifiers may be combined (/rf).  --json prints one\n"
		"JSON object per line (doc/json-schema.md).  --values adds the\n"
		"registers each instruction changed and the memory it stored, from\n"
		"the recording's data log.\n");
}

static int parse_number(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	return errno || end == s || *end ? -1 : 0;
}

/* "FROM,TO", "FROM,", ",TO" */
static int parse_range(const char *arg, uint64_t *from, uint64_t *to)
{
	char buf[64], *comma;

	if (strlen(arg) >= sizeof(buf) || !(comma = strchr(arg, ',')))
		return -1;
	strcpy(buf, arg);
	comma = buf + (comma - arg);
	*comma = 0;
	if (buf[0] && parse_number(buf, from) < 0)
		return -1;
	if (comma[1] && parse_number(comma + 1, to) < 0)
		return -1;
	return 0;
}

static int parse_modifiers(const char *arg, bool insn, unsigned *flags)
{
	const char *p;

	for (p = arg + 1; *p; p++) {
		switch (insn ? *p : *p | 0x100) {
		case 'm': case 's': *flags |= HWTR_INSN_SOURCE; break;
		case 'r': *flags |= HWTR_INSN_RAW; break;
		case 'f': *flags |= HWTR_INSN_NO_FUNCTION; break;
		case 'p': *flags |= HWTR_INSN_OMIT_PC; break;
		case 'l' | 0x100: *flags |= HWTR_CALL_LINES; break;
		case 'i' | 0x100: *flags |= HWTR_CALL_INSNS; break;
		case 'c' | 0x100: *flags |= HWTR_CALL_INDENT; break;
		default: return -1;
		}
	}
	return 0;
}

/* "/rf" is a modifier; "/tmp/x.hwtrec" (or an existing "/rec") is a path. */
static bool is_modifier(const char *arg)
{
	size_t i;

	if (arg[0] != '/' || !arg[1] || access(arg, F_OK) == 0)
		return false;
	for (i = 1; arg[i]; i++)
		if (arg[i] < 'a' || arg[i] > 'z')
			return false;
	return true;
}

int hwtrec_dump_main(int argc, char **argv)
{
	const char *rec = NULL, *modifiers = NULL;
	uint64_t from = 1, to = UINT64_MAX, tid = 0;
	bool insn = false, calls = false, json = false, have_tid = false;
	bool with_values = false;
	struct hwtr_values *values = NULL;
	struct opened_history o;
	unsigned flags = 0;
	int i, status = 0;
	size_t t;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--insn")) {
			insn = true;
		} else if (!strcmp(a, "--calls")) {
			calls = true;
		} else if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--values")) {
			with_values = true;
		} else if (!strcmp(a, "--thread") && i + 1 < argc) {
			if (parse_number(argv[++i], &tid) < 0) {
				fprintf(stderr, "hwtrec dump: bad thread id '%s'\n",
					argv[i]);
				return 2;
			}
			have_tid = true;
		} else if (is_modifier(a)) {
			modifiers = a;
			if (parse_modifiers(a, true, &(unsigned){ 0 }) < 0 &&
			    parse_modifiers(a, false, &(unsigned){ 0 }) < 0) {
				fprintf(stderr, "hwtrec dump: unknown modifier '%s'\n", a);
				return 2;
			}
		} else if (strchr(a, ',') && a[0] != '-') {
			if (parse_range(a, &from, &to) < 0) {
				fprintf(stderr, "hwtrec dump: bad range '%s' (expected "
					"FROM,TO)\n", a);
				return 2;
			}
		} else if (a[0] != '-' && !rec) {
			rec = a;
		} else {
			fprintf(stderr, "hwtrec dump: unexpected argument '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (!rec || insn == calls) {
		fprintf(stderr, "hwtrec dump: %s\n",
			!rec ? "which recording? (REC.hwtrec)"
			: insn ? "--insn and --calls list different things: "
				 "give one"
			       : "what to list? --insn (instructions) or "
				 "--calls (function segments)");
		usage(stderr);
		return 2;
	}
	if (with_values && !insn) {
		fprintf(stderr, "hwtrec dump: --values applies to --insn\n");
		return 2;
	}
	if (modifiers && parse_modifiers(modifiers, insn, &flags) < 0) {
		fprintf(stderr, "hwtrec dump: modifier '%s' does not apply to %s\n",
			modifiers, insn ? "--insn" : "--calls");
		return 2;
	}
	if (open_history("dump", rec, &o))
		return 1;
	if (have_tid && !hwtr_history_find_thread(o.history, (uint32_t)tid)) {
		fprintf(stderr, "hwtrec dump: %s has no thread %" PRIu64 "\n", rec, tid);
		close_history(&o);
		return 1;
	}
	if (with_values && hwtr_values_open(o.history, &values)) {
		fprintf(stderr, "hwtrec dump: %s\n", hwtr_last_error());
		close_history(&o);
		return 1;
	}
	if (with_values && !values) {
		fprintf(stderr, "hwtrec dump: %s has no data log (it was recorded "
			"with --no-data, or by a source that records control flow "
			"only): --values needs one\n", rec);
		close_history(&o);
		return 1;
	}
	for (t = 0; t < hwtr_history_nthreads(o.history) && !status; t++) {
		struct hwtr_thread *th = hwtr_history_thread(o.history, t);
		struct hwtr_thread_stats s;
		uint64_t count, last;
		int err;

		hwtr_thread_stats(th, &s);
		if (have_tid && s.tid != tid)
			continue;
		count = insn ? s.instructions : s.segments;
		if (!json && (hwtr_history_nthreads(o.history) > 1 || have_tid))
			printf("Thread %" PRIu32 ":\n", s.tid);
		if (count == 0) {
			if (!json)
				printf("No trace.\n");
			continue;
		}
		last = to > count ? count : to;
		if (from > last) {
			fprintf(stderr, "hwtrec dump: thread %" PRIu32 " has %" PRIu64
				" %s; range starts at %" PRIu64 "\n", s.tid, count,
				insn ? "instructions" : "function segments", from);
			status = 1;
			break;
		}
		err = values ? hwtr_list_insns_values(th, values, from, last, flags,
						      json, stdout)
		      : insn ? hwtr_list_insns(th, from, last, flags, json, 0, stdout)
			     : hwtr_list_calls(th, from, last, flags, json, stdout);
		if (err) {
			fprintf(stderr, "hwtrec dump: %s\n", hwtr_last_error());
			status = 1;
		}
	}
	if (fflush(stdout) == EOF && !status) {
		fprintf(stderr, "hwtrec dump: write error: %s\n", strerror(errno));
		status = 1;
	}
	hwtr_values_free(values);
	close_history(&o);
	return status;
}
