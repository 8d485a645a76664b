/* manifest.c: the manifest of a recording (DESIGN.md section 4).
 *
 * Writing and reading live together so the two cannot drift apart.  The
 * reader is strict about types and required fields and names the field in
 * its message; unknown fields are ignored so that later minor additions do
 * not break older readers.
 */
#define _GNU_SOURCE	/* qsort_r */
#include "manifest.h"

#include "error.h"
#include "recording-file.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *end_state_name(enum hwtr_end_state state)
{
	switch (state) {
	case hwtr_end_exited: return "exited";
	case hwtr_end_signaled: return "signaled";
	case hwtr_end_aborted: return "aborted";
	case hwtr_end_running: break;
	}
	return "running";
}

bool manifest_lists_file(const struct hwtr_recording_info *info,
			 const char *name)
{
	size_t i;

	for (i = 0; i < info->nfiles; i++)
		if (!strcmp(info->files[i].name, name))
			return true;
	return false;
}

static json_t *manifest_encode_pt_fixed(const struct hwtr_pt_config *pt);

static json_t *manifest_encode_pt(const struct hwtr_pt_config *pt)
{
	json_t *o = manifest_encode_pt_fixed(pt);

	if (o && pt->address_filter &&
	    json_object_set_new(o, "address_filter",
				json_string(pt->address_filter)) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *manifest_encode_pt_fixed(const struct hwtr_pt_config *pt)
{
	return json_pack("{s:{s:s,s:i,s:i,s:i},s:i,s:i,s:I,s:I,s:I,s:I,s:b,s:b,s:I}",
			 "cpu", "vendor", pt->vendor[0] ? pt->vendor : "unknown",
			 "family", pt->family, "model", pt->model,
			 "stepping", pt->stepping,
			 "mtc_freq", pt->mtc_freq, "nom_freq", pt->nom_freq,
			 "cpuid_0x15_eax", (json_int_t)pt->cpuid_0x15_eax,
			 "cpuid_0x15_ebx", (json_int_t)pt->cpuid_0x15_ebx,
			 "cpuid_0x14_ebx", (json_int_t)pt->cpuid_0x14_ebx,
			 "cpuid_0x14_ecx", (json_int_t)pt->cpuid_0x14_ecx,
			 "tsc", pt->tsc, "return_compression",
			 pt->return_compression, "psb_period",
			 (json_int_t)pt->psb_period);
}

/* The trace unit registers by their names in OpenCSD snapshots. */
static const struct {
	const char *name;
	size_t offset;
} etm_regs[] = {
#define REG(name, field) { name, offsetof(struct hwtr_etm_config, field) }
	REG("TRCCONFIGR", trcconfigr),
	REG("TRCTRACEIDR", trctraceidr),
	REG("TRCAUTHSTATUS", trcauthstatus),
	REG("TRCDEVARCH", trcdevarch),
	REG("TRCIDR0", trcidr[0]), REG("TRCIDR1", trcidr[1]),
	REG("TRCIDR2", trcidr[2]), REG("TRCIDR3", trcidr[3]),
	REG("TRCIDR4", trcidr[4]), REG("TRCIDR5", trcidr[5]),
	REG("TRCIDR6", trcidr[6]), REG("TRCIDR7", trcidr[7]),
	REG("TRCIDR8", trcidr[8]), REG("TRCIDR9", trcidr[9]),
	REG("TRCIDR10", trcidr[10]), REG("TRCIDR11", trcidr[11]),
	REG("TRCIDR12", trcidr[12]), REG("TRCIDR13", trcidr[13]),
#undef REG
};

static json_t *hex32(uint32_t v)
{
	char text[16];

	snprintf(text, sizeof(text), "0x%08x", v);
	return json_string(text);
}

static json_t *etm_encode(const struct hwtr_etm_config *e)
{
	json_t *o = json_object(), *regs = json_object(), *frame;
	char profile[2] = { e->profile ? e->profile : 'A', 0 };
	size_t i;

	json_object_set_new(o, "protocol", json_string(e->ete ? "ete" : "etm4"));
	json_object_set_new(o, "trace_id", json_integer(e->trace_id));
	json_object_set_new(o, "formatted", json_boolean(e->formatted));
	if (e->formatted) {
		frame = json_pack("{s:b,s:b,s:b}",
				  "mem_align", !!(e->frame_flags & HWTR_ETM_FRAME_MEM_ALIGN),
				  "fsyncs", !!(e->frame_flags & HWTR_ETM_FRAME_FSYNCS),
				  "hsyncs", !!(e->frame_flags & HWTR_ETM_FRAME_HSYNCS));
		json_object_set_new(o, "frame", frame);
	}
	json_object_set_new(o, "arch_version", hex32(e->arch_version));
	json_object_set_new(o, "profile", json_string(profile));
	if (e->source)
		json_object_set_new(o, "source", json_string(e->source));
	if (e->core)
		json_object_set_new(o, "core", json_string(e->core));
	if (e->core_type)
		json_object_set_new(o, "core_type", json_string(e->core_type));
	json_object_set_new(o, "cpu", json_integer(e->cpu));
	if (e->has_context_id)
		json_object_set_new(o, "context_id", json_integer(e->context_id));
	for (i = 0; i < sizeof(etm_regs) / sizeof(etm_regs[0]); i++)
		json_object_set_new(regs, etm_regs[i].name,
				    hex32(*(const uint32_t *)((const char *)e +
							      etm_regs[i].offset)));
	json_object_set_new(o, "regs", regs);
	return o;
}

json_t *manifest_encode(const struct hwtr_recording_info *info)
{
	json_t *root, *argv, *threads, *end;
	size_t i;

	argv = json_array();
	for (i = 0; i < info->argc; i++)
		/* Shown to people, never executed: text is enough. */
		json_array_append_new(argv, jfield_text(info->argv[i]));
	threads = json_array();
	for (i = 0; i < info->nthreads; i++) {
		json_t *t = json_pack("{s:I,s:s,s:I}", "tid",
				      (json_int_t)info->threads[i].tid, "stream",
				      info->threads[i].stream, "trace_start",
				      (json_int_t)info->threads[i].trace_start);

		if (t && info->threads[i].etm)
			json_object_set_new(t, "etm", etm_encode(info->threads[i].etm));
		if (t && info->threads[i].has_stream_check) {
			json_object_set_new(t, "stream_size",
					    json_integer((json_int_t)info->threads[i].stream_size));
			json_object_set_new(t, "stream_crc32",
					    json_integer(info->threads[i].stream_crc32));
		}
		json_array_append_new(threads, t);
	}
	end = json_pack("{s:s}", "state", end_state_name(info->end.state));
	if (info->end.state == hwtr_end_exited)
		json_object_set_new(end, "exit_code", json_integer(info->end.code));
	if (info->end.state == hwtr_end_signaled ||
	    (info->end.state == hwtr_end_aborted && info->end.code))
		json_object_set_new(end, "signal", json_integer(info->end.code));
	if (info->end.state == hwtr_end_signaled && info->end.has_fault_address) {
		char hex[24];

		/* A string: si_addr may be any 64-bit value. */
		snprintf(hex, sizeof(hex), "0x%" PRIx64, info->end.fault_address);
		json_object_set_new(end, "fault_address", json_string(hex));
	}
	if (info->end.state == hwtr_end_aborted)
		json_object_set_new(end, "reason", json_string(
			info->end_reason ? info->end_reason : "unknown"));

	/* Only Intel PT recordings have a "pt" object (an ETM one has "etm"
	 * per thread). */
	root = json_pack("{s:s,s:i,s:s,s:s,s:s,s:o*,s:{s:i,s:o},s:o,s:o,s:b}",
			 "format", HWTR_FORMAT_NAME, "version", info->version,
			 "arch", info->arch, "trace_format", info->trace_format,
			 "source", info->source, "pt",
			 strcmp(info->trace_format, "intel-pt") ? NULL
								: manifest_encode_pt(&info->pt),
			 "process", "pid", info->pid, "argv", argv, "threads",
			 threads,
			 "end", end, "complete", info->complete);
	/* The executable is any bytes (jfield_set_path): not in json_pack. */
	if (root && info->executable &&
	    jfield_set_path(json_object_get(root, "process"), "executable",
			    info->executable)) {
		json_decref(root);
		return NULL;
	}
	if (root && info->core)
		json_object_set_new(root, "core", json_string(info->core));
	if (root && info->values)
		json_object_set_new(root, "values",
				    json_pack("{s:s,s:i}", "path", info->values,
					      "version", info->values_version));
	if (root && info->nfiles) {
		json_t *files = json_object();

		for (i = 0; i < info->nfiles; i++)
			json_object_set_new(files, info->files[i].name,
					    json_pack("{s:I,s:I}", "size",
						      (json_int_t)info->files[i].size,
						      "crc32",
						      (json_int_t)info->files[i].crc32));
		json_object_set_new(root, "files", files);
	}
	return root;
}

static int manifest_decode_pt(json_t *obj, const struct jfield_where *w,
		              struct hwtr_pt_config *pt)
{
	json_t *cpu = json_object_get(obj, "cpu");
	uint64_t v;
	const char *vendor = "unknown";
	bool b;
	int err = 0;

	memset(pt, 0, sizeof(*pt));
	if (!json_is_object(cpu))
		return hwtr_fail(hwtr_err_format,
				 "%s: field \"pt.cpu\" is missing or not an object",
				 w->file);
	err = jfield_get_string_opt(cpu, "vendor", w, &vendor);
	if (err)
		return err;
	snprintf(pt->vendor, sizeof(pt->vendor), "%s", vendor);
#define FIELD(o, name, dst, max)                                              \
	do {                                                                  \
		v = 0;                                                        \
		err = jfield_get_u64_opt(o, name, w, &v);                       \
		if (err)                                                      \
			return err;                                           \
		if (v > (max))                                                \
			return hwtr_fail(hwtr_err_format,                     \
					 "%s: field \"pt.%s\" is out of range", \
					 w->file, name);                      \
		dst = v;                                                      \
	} while (0)
	FIELD(cpu, "family", pt->family, 0xffff);
	FIELD(cpu, "model", pt->model, 0xff);
	FIELD(cpu, "stepping", pt->stepping, 0xff);
	FIELD(obj, "mtc_freq", pt->mtc_freq, 0xf);
	FIELD(obj, "nom_freq", pt->nom_freq, 0xff);
	FIELD(obj, "cpuid_0x15_eax", pt->cpuid_0x15_eax, 0xffffffffu);
	FIELD(obj, "cpuid_0x15_ebx", pt->cpuid_0x15_ebx, 0xffffffffu);
	FIELD(obj, "cpuid_0x14_ebx", pt->cpuid_0x14_ebx, 0xffffffffu);
	FIELD(obj, "cpuid_0x14_ecx", pt->cpuid_0x14_ecx, 0xffffffffu);
	FIELD(obj, "psb_period", pt->psb_period, 0xffffffffu);
#undef FIELD
	b = false;
	if ((err = jfield_get_bool_opt(obj, "tsc", w, &b)))
		return err;
	pt->tsc = b;
	b = false;
	if ((err = jfield_get_bool_opt(obj, "return_compression", w, &b)))
		return err;
	pt->return_compression = b;
	return jfield_get_string_opt(obj, "address_filter", w, &pt->address_filter);
}

/* end.fault_address: "0x" and 1-16 hex digits, or absent. */
static int fault_address_decode(json_t *obj, const struct jfield_where *w,
				struct hwtr_end *end)
{
	const char *s = NULL, *p;
	int err = jfield_get_string_opt(obj, "fault_address", w, &s);

	if (err || !s)
		return err;
	p = s + 2;
	if (strncmp(s, "0x", 2) || !*p || strlen(p) > 16 ||
	    strspn(p, "0123456789abcdef") != strlen(p))
		return hwtr_fail(hwtr_err_format,
				 "%s: field \"end.fault_address\" is \"%s\", "
				 "expected 0x and 1 to 16 lower-case hex digits",
				 w->file, s);
	end->fault_address = strtoull(p, NULL, 16);
	end->has_fault_address = true;
	return 0;
}

static int end_decode(json_t *obj, const struct jfield_where *w,
		      struct hwtr_end *end, const char **reason)
{
	const char *state = "running";
	int64_t code = 0;
	int err;

	memset(end, 0, sizeof(*end));
	if (!obj)
		return 0;
	if (!json_is_object(obj))
		return hwtr_fail(hwtr_err_format,
				 "%s: field \"end\" is not an object", w->file);
	if ((err = jfield_get_string_opt(obj, "state", w, &state)))
		return err;
	if (!strcmp(state, "exited")) {
		end->state = hwtr_end_exited;
		err = jfield_get_i64_opt(obj, "exit_code", w, &code);
	} else if (!strcmp(state, "signaled")) {
		end->state = hwtr_end_signaled;
		err = jfield_get_i64_opt(obj, "signal", w, &code);
		if (!err)
			err = fault_address_decode(obj, w, end);
	} else if (!strcmp(state, "running")) {
		end->state = hwtr_end_running;
	} else if (!strcmp(state, "aborted")) {
		end->state = hwtr_end_aborted;
		err = jfield_get_i64_opt(obj, "signal", w, &code);
		if (!err)
			err = jfield_get_string_opt(obj, "reason", w, reason);
	} else {
		return hwtr_fail(hwtr_err_format,
				 "%s: field \"end.state\" is \"%s\", expected "
				 "\"exited\", \"signaled\", \"aborted\" or "
				 "\"running\"", w->file, state);
	}
	end->code = (int)code;
	return err;
}

/* threads[I].etm: strict, every field named in the message. */
static int etm_decode(json_t *obj, const struct jfield_where *w, size_t i,
		      struct hwtr_etm_config *e)
{
	const char *protocol = NULL, *profile = "A";
	json_t *regs, *frame;
	uint64_t v = 0;
	int64_t cpu = -1;
	size_t k;
	int err;

	memset(e, 0, sizeof(*e));
	if (!json_is_object(obj))
		return hwtr_fail(hwtr_err_format,
				 "%s: threads[%zu].etm is missing or not an object "
				 "(an ETM recording needs each source's trace unit)",
				 w->file, i);
	if ((err = jfield_get_string(obj, "protocol", w, &protocol)) ||
	    (err = jfield_get_u64(obj, "trace_id", w, &v)))
		return hwtr_fail_context(err, "threads[%zu].etm: ", i);
	if (strcmp(protocol, "etm4") && strcmp(protocol, "ete"))
		return hwtr_fail(hwtr_err_format,
				 "%s: threads[%zu].etm.protocol is \"%s\"; only "
				 "ETMv4 (\"etm4\") and ETE (\"ete\") are decoded",
				 w->file, i, protocol);
	e->ete = !strcmp(protocol, "ete");
	if ((err = jfield_get_bool_opt(obj, "formatted", w, &e->formatted)))
		return hwtr_fail_context(err, "threads[%zu].etm: ", i);
	/* A source's raw trace alone may have trace ID 0 (OpenCSD decodes
	 * it); in frames 0 is no source's. */
	if ((v == 0 && e->formatted) || v >= 0x70)
		return hwtr_fail(hwtr_err_format,
				 "%s: threads[%zu].etm.trace_id %llu is not a "
				 "CoreSight trace ID (1 to 0x6f%s)",
				 w->file, i, (unsigned long long)v,
				 e->formatted ? "" : ", or 0 for a raw stream");
	e->trace_id = (uint8_t)v;
	frame = json_object_get(obj, "frame");
	if (e->formatted && !json_is_object(frame))
		return hwtr_fail(hwtr_err_format,
				 "%s: threads[%zu].etm.frame is missing or not an "
				 "object (a formatted stream needs its framing)",
				 w->file, i);
	if (e->formatted) {
		bool b;

		b = false;
		if ((err = jfield_get_bool_opt(frame, "mem_align", w, &b)))
			return hwtr_fail_context(err, "threads[%zu].etm.frame: ", i);
		e->frame_flags |= b ? HWTR_ETM_FRAME_MEM_ALIGN : 0;
		b = false;
		if ((err = jfield_get_bool_opt(frame, "fsyncs", w, &b)))
			return hwtr_fail_context(err, "threads[%zu].etm.frame: ", i);
		e->frame_flags |= b ? HWTR_ETM_FRAME_FSYNCS : 0;
		b = false;
		if ((err = jfield_get_bool_opt(frame, "hsyncs", w, &b)))
			return hwtr_fail_context(err, "threads[%zu].etm.frame: ", i);
		e->frame_flags |= b ? HWTR_ETM_FRAME_HSYNCS : 0;
	}
	v = 0x800;
	if ((err = jfield_get_u64_opt(obj, "arch_version", w, &v)) ||
	    (err = jfield_get_string_opt(obj, "profile", w, &profile)) ||
	    (err = jfield_get_string_opt(obj, "source", w, &e->source)) ||
	    (err = jfield_get_string_opt(obj, "core", w, &e->core)) ||
	    (err = jfield_get_string_opt(obj, "core_type", w, &e->core_type)) ||
	    (err = jfield_get_i64_opt(obj, "cpu", w, &cpu)))
		return hwtr_fail_context(err, "threads[%zu].etm: ", i);
	if (v != 0x700 && v != 0x800 && v != 0x803 && v != 0x864)
		return hwtr_fail(hwtr_err_format,
				 "%s: threads[%zu].etm.arch_version 0x%llx is not "
				 "0x700, 0x800, 0x803 or 0x864", w->file, i,
				 (unsigned long long)v);
	e->arch_version = (uint16_t)v;
	if (strlen(profile) != 1 || !strchr("ARM", profile[0]))
		return hwtr_fail(hwtr_err_format,
				 "%s: threads[%zu].etm.profile is \"%s\", expected "
				 "\"A\", \"R\" or \"M\"", w->file, i, profile);
	e->profile = profile[0];
	e->cpu = cpu < INT32_MIN || cpu > INT32_MAX ? -1 : (int32_t)cpu;
	if (json_object_get(obj, "context_id")) {
		v = 0;
		if ((err = jfield_get_u64(obj, "context_id", w, &v)))
			return hwtr_fail_context(err, "threads[%zu].etm: ", i);
		if (v > UINT32_MAX)
			return hwtr_fail(hwtr_err_format,
					 "%s: threads[%zu].etm.context_id is not a "
					 "32-bit value", w->file, i);
		e->has_context_id = true;
		e->context_id = (uint32_t)v;
	}
	regs = json_object_get(obj, "regs");
	if (!json_is_object(regs))
		return hwtr_fail(hwtr_err_format,
				 "%s: threads[%zu].etm.regs is missing or not an "
				 "object", w->file, i);
	for (k = 0; k < sizeof(etm_regs) / sizeof(etm_regs[0]); k++) {
		v = 0;
		if ((err = jfield_get_u64_opt(regs, etm_regs[k].name, w, &v)))
			return hwtr_fail_context(err, "threads[%zu].etm.regs: ", i);
		if (v > 0xffffffffu)
			return hwtr_fail(hwtr_err_format,
					 "%s: threads[%zu].etm.regs.%s is not a "
					 "32-bit value", w->file, i, etm_regs[k].name);
		*(uint32_t *)((char *)e + etm_regs[k].offset) = (uint32_t)v;
	}
	/* OpenCSD needs these to configure its decoder. */
	if (!json_object_get(regs, "TRCCONFIGR") || !json_object_get(regs, "TRCIDR0") ||
	    !json_object_get(regs, "TRCIDR2") || !json_object_get(regs, "TRCTRACEIDR"))
		return hwtr_fail(hwtr_err_format,
				 "%s: threads[%zu].etm.regs needs TRCCONFIGR, "
				 "TRCTRACEIDR, TRCIDR0 and TRCIDR2", w->file, i);
	return 0;
}

/* threads[I].stream_size and stream_crc32: both or neither. */
static int stream_check_decode(json_t *t, const struct jfield_where *w, size_t i,
			       struct hwtr_thread_info *thread)
{
	bool has_size = json_object_get(t, "stream_size") != NULL;
	uint64_t crc = 0;
	int err;

	if (has_size != (json_object_get(t, "stream_crc32") != NULL))
		return hwtr_fail(hwtr_err_format,
				 "%s: threads[%zu] has only one of \"stream_size\" "
				 "and \"stream_crc32\"", w->file, i);
	if (!has_size)
		return 0;
	if ((err = jfield_get_u64(t, "stream_size", w, &thread->stream_size)) ||
	    (err = jfield_get_u64(t, "stream_crc32", w, &crc)))
		return hwtr_fail_context(err, "threads[%zu]: ", i);
	if (crc > UINT32_MAX)
		return hwtr_fail(hwtr_err_format,
				 "%s: threads[%zu].stream_crc32 is not a 32-bit "
				 "value", w->file, i);
	thread->stream_crc32 = (uint32_t)crc;
	thread->has_stream_check = true;
	return 0;
}

/* Each thread's trace once: a tid listed twice, or one source's trace
 * named twice (a stream of its own, or the same trace ID and context of a
 * shared buffer), would be decoded twice and shown as two histories. */
static int compare_sources(const void *a, const void *b, void *threads)
{
	const struct hwtr_thread_info *x =
		&((const struct hwtr_thread_info *)threads)[*(const size_t *)a];
	const struct hwtr_thread_info *y =
		&((const struct hwtr_thread_info *)threads)[*(const size_t *)b];
	int c = strcmp(x->stream, y->stream);

	if (c || !x->etm || !y->etm)
		return c ? c : (*(const size_t *)a < *(const size_t *)b ? -1 : 1);
	if (x->etm->trace_id != y->etm->trace_id)
		return x->etm->trace_id < y->etm->trace_id ? -1 : 1;
	if (x->etm->has_context_id != y->etm->has_context_id)
		return x->etm->has_context_id ? 1 : -1;
	if (x->etm->context_id != y->etm->context_id)
		return x->etm->context_id < y->etm->context_id ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int compare_tids(const void *a, const void *b, void *threads)
{
	const struct hwtr_thread_info *x =
		&((const struct hwtr_thread_info *)threads)[*(const size_t *)a];
	const struct hwtr_thread_info *y =
		&((const struct hwtr_thread_info *)threads)[*(const size_t *)b];

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static bool same_source(const struct hwtr_thread_info *x,
			const struct hwtr_thread_info *y)
{
	if (strcmp(x->stream, y->stream))
		return false;
	if (!x->etm || !y->etm)
		return true;
	return x->etm->trace_id == y->etm->trace_id &&
	       x->etm->has_context_id == y->etm->has_context_id &&
	       x->etm->context_id == y->etm->context_id;
}

static int threads_check_unique(const struct hwtr_recording_info *info,
				const char *file)
{
	size_t n = info->nthreads, k, *order;
	int err = 0;

	if (n < 2)
		return 0;
	if (!(order = malloc(n * sizeof(*order))))
		return hwtr_fail(hwtr_err_nomem, "%s: out of memory", file);
	for (k = 0; k < n; k++)
		order[k] = k;
	qsort_r(order, n, sizeof(*order), compare_tids, (void *)info->threads);
	for (k = 1; k < n && !err; k++)
		if (info->threads[order[k]].tid == info->threads[order[k - 1]].tid)
			err = hwtr_fail(hwtr_err_format,
					"%s: threads[%zu] and threads[%zu] are both "
					"thread %u", file, order[k - 1], order[k],
					info->threads[order[k]].tid);
	qsort_r(order, n, sizeof(*order), compare_sources, (void *)info->threads);
	for (k = 1; k < n && !err; k++)
		if (same_source(&info->threads[order[k - 1]], &info->threads[order[k]]))
			err = hwtr_fail(hwtr_err_format,
					"%s: threads[%zu] and threads[%zu] both name "
					"the trace of stream \"%s\"%s", file,
					order[k - 1], order[k],
					info->threads[order[k]].stream,
					info->threads[order[k]].etm
						? " under the same trace ID and context"
						: "");
	free(order);
	return err;
}

/* "values": {"path": NAME, "version": N}: the data log.  Its version is
 * checked by hwtr_values_open, so that a reader too old for it still opens
 * the control flow. */
static int values_decode(json_t *obj, const struct jfield_where *w,
			 const char *file, struct hwtr_recording_info *info)
{
	uint64_t version = 0;
	int err;

	if (!obj)
		return 0;
	if (!json_is_object(obj))
		return hwtr_fail(hwtr_err_format,
				 "%s: field \"values\" is not an object", file);
	if ((err = jfield_get_string(obj, "path", w, &info->values)) ||
	    (err = jfield_get_u64(obj, "version", w, &version)))
		return err;
	if (!recording_name_inside(info->values))
		return hwtr_fail(hwtr_err_format,
				 "%s: values.path (\"%s\") leaves the "
				 "recording directory", file, info->values);
	if (version == 0 || version > 1000000)
		return hwtr_fail(hwtr_err_format,
				 "%s: values.version %llu is not a version",
				 file, (unsigned long long)version);
	info->values_version = (int)version;
	return 0;
}

/* "files": {NAME: {"size": N, "crc32": N}, ...}. */
static int files_decode(json_t *obj, const struct jfield_where *w,
			struct hwtr_recording_info *info)
{
	struct hwtr_file_check *files;
	const char *name;
	json_t *v;
	size_t n = 0;
	int err;

	if (!obj)
		return 0;
	if (!json_is_object(obj))
		return hwtr_fail(hwtr_err_format,
				 "%s: field \"files\" is not an object", w->file);
	files = calloc(json_object_size(obj) + 1, sizeof(*files));
	if (!files)
		return hwtr_fail(hwtr_err_nomem, "%s: out of memory", w->file);
	info->files = files;
	json_object_foreach(obj, name, v) {
		uint64_t crc = 0;

		if (!recording_name_inside(name))
			return hwtr_fail(hwtr_err_format,
					 "%s: files: \"%s\" leaves the recording "
					 "directory", w->file, name);
		if (!json_is_object(v))
			return hwtr_fail(hwtr_err_format,
					 "%s: files.\"%s\" is not an object",
					 w->file, name);
		if ((err = jfield_get_u64(v, "size", w, &files[n].size)) ||
		    (err = jfield_get_u64(v, "crc32", w, &crc)))
			return hwtr_fail_context(err, "files.\"%s\": ", name);
		if (crc > UINT32_MAX)
			return hwtr_fail(hwtr_err_format,
					 "%s: files.\"%s\".crc32 is not a 32-bit "
					 "value", w->file, name);
		files[n].name = name;
		files[n].crc32 = (uint32_t)crc;
		info->nfiles = ++n;
	}
	return 0;
}

static int threads_decode(json_t *arr, const struct jfield_where *w,
			  bool etm, struct hwtr_recording_info *info)
{
	struct hwtr_thread_info *threads;
	struct hwtr_etm_config *etms;
	size_t i, n;
	int err;

	if (!json_is_array(arr))
		return hwtr_fail(hwtr_err_format,
				 "%s: field \"threads\" is missing or not an array",
				 w->file);
	/* The ETM configurations live right after the threads, in one block
	 * freed with them. */
	n = json_array_size(arr);
	threads = calloc(1, (n + 1) * (sizeof(*threads) + sizeof(*etms)));
	if (!threads)
		return hwtr_fail(hwtr_err_nomem, "%s: out of memory", w->file);
	etms = (struct hwtr_etm_config *)(threads + n + 1);
	info->threads = threads;
	info->nthreads = n;
	for (i = 0; i < info->nthreads; i++) {
		json_t *t = json_array_get(arr, i);
		uint64_t tid = 0;

		if (!json_is_object(t))
			return hwtr_fail(hwtr_err_format,
					 "%s: threads[%zu] is not an object",
					 w->file, i);
		if ((err = jfield_get_u64(t, "tid", w, &tid)) ||
		    (err = jfield_get_string(t, "stream", w, &threads[i].stream)) ||
		    (err = jfield_get_u64_opt(t, "trace_start", w,
					      &threads[i].trace_start)))
			return hwtr_fail_context(err, "threads[%zu]: ", i);
		if (tid > UINT32_MAX)
			return hwtr_fail(hwtr_err_format,
					 "%s: threads[%zu].tid is out of range",
					 w->file, i);
		if (!recording_name_inside(threads[i].stream))
			return hwtr_fail(hwtr_err_format,
					 "%s: threads[%zu].stream \"%s\" leaves the "
					 "recording directory",
					 w->file, i, threads[i].stream);
		if ((err = stream_check_decode(t, w, i, &threads[i])))
			return err;
		threads[i].tid = (uint32_t)tid;
		if (etm) {
			if ((err = etm_decode(json_object_get(t, "etm"), w, i,
					      &etms[i])))
				return err;
			threads[i].etm = &etms[i];
		}
	}
	return 0;
}

int manifest_decode(json_t *root, const char *file,
		    struct hwtr_recording_info *info)
{
	struct jfield_where w = { file, 0 };
	const char *format = NULL;
	json_t *process, *argv, *pt;
	int64_t version = 0;
	int64_t pid = 0;
	bool complete = false, etm;
	int err;
	size_t i;

	memset(info, 0, sizeof(*info));
	if (!json_is_object(root))
		return hwtr_fail(hwtr_err_format, "%s: not a JSON object", file);
	if ((err = jfield_get_string(root, "format", &w, &format)))
		return err;
	if (strcmp(format, HWTR_FORMAT_NAME))
		return hwtr_fail(hwtr_err_format,
				 "%s: field \"format\" is \"%s\", not \"%s\"",
				 file, format, HWTR_FORMAT_NAME);
	if ((err = jfield_get_i64_opt(root, "version", &w, &version)))
		return err;
	if (!json_object_get(root, "version"))
		return hwtr_fail(hwtr_err_format, "%s: field \"version\" is missing",
				 file);
	if (version < 1 || version > HWTR_FORMAT_VERSION)
		return hwtr_fail(hwtr_err_version,
				 "%s: format version %lld is not supported (this "
				 "reader reads version 1 to %d)",
				 file, (long long)version, HWTR_FORMAT_VERSION);
	info->version = (int)version;
	if ((err = jfield_get_string(root, "arch", &w, &info->arch)) ||
	    (err = jfield_get_string(root, "trace_format", &w, &info->trace_format)) ||
	    (err = jfield_get_string(root, "source", &w, &info->source)))
		return err;
	/* Version 1 is Intel PT only; version 2 adds ETMv4 and ETE. */
	etm = !strcmp(info->trace_format, "etm4") || !strcmp(info->trace_format, "ete");
	if (strcmp(info->trace_format, "intel-pt") && !(etm && version >= 2))
		return hwtr_fail(hwtr_err_format,
				 "%s: trace format \"%s\" is not supported by "
				 "this reader in version %lld (it reads "
				 "\"intel-pt\"%s)", file, info->trace_format,
				 (long long)version,
				 version >= 2 ? ", \"etm4\" and \"ete\"" : "");
	if (etm && strcmp(info->arch, "aarch64") && strcmp(info->arch, "arm"))
		return hwtr_fail(hwtr_err_format,
				 "%s: an %s recording of arch \"%s\" (expected "
				 "\"aarch64\" or \"arm\")", file,
				 info->trace_format, info->arch);
	pt = json_object_get(root, "pt");
	if (!pt && !etm)
		return hwtr_fail(hwtr_err_format,
				 "%s: field \"pt\" is missing (an intel-pt "
				 "recording needs its trace configuration)",
				 file);
	if (!etm && (err = manifest_decode_pt(pt, &w, &info->pt)))
		return err;

	process = json_object_get(root, "process");
	if (!json_is_object(process))
		return hwtr_fail(hwtr_err_format,
				 "%s: field \"process\" is missing or not an object",
				 file);
	if ((err = jfield_get_i64_opt(process, "pid", &w, &pid)) ||
	    (err = jfield_get_path_opt(process, "executable", &w,
				       &info->executable)))
		return err;
	info->pid = (int32_t)pid;
	argv = json_object_get(process, "argv");
	if (argv && !json_is_array(argv))
		return hwtr_fail(hwtr_err_format,
				 "%s: field \"process.argv\" is not an array", file);
	info->argc = argv ? json_array_size(argv) : 0;
	info->argv = calloc(info->argc + 1, sizeof(char *));
	if (!info->argv)
		return hwtr_fail(hwtr_err_nomem, "%s: out of memory", file);
	for (i = 0; i < info->argc; i++) {
		json_t *a = json_array_get(argv, i);

		if (!json_is_string(a))
			return hwtr_fail(hwtr_err_format,
					 "%s: process.argv[%zu] is not a string",
					 file, i);
		((const char **)info->argv)[i] = json_string_value(a);
	}
	if ((err = threads_decode(json_object_get(root, "threads"), &w, etm, info)))
		return err;
	if ((err = end_decode(json_object_get(root, "end"), &w, &info->end,
			      &info->end_reason)))
		return err;
	if ((err = threads_check_unique(info, file)))
		return err;
	if ((err = jfield_get_string_opt(root, "core", &w, &info->core)))
		return err;
	if (info->core && !recording_name_inside(info->core))
		return hwtr_fail(hwtr_err_format,
				 "%s: field \"core\" (\"%s\") leaves the "
				 "recording directory", file, info->core);
	if ((err = values_decode(json_object_get(root, "values"), &w, file,
				 info)))
		return err;
	if ((err = files_decode(json_object_get(root, "files"), &w, info)))
		return err;
	if ((err = jfield_get_bool_opt(root, "complete", &w, &complete)))
		return err;
	info->complete = complete;
	/* Live recordings start with no thread; a finished one has some. */
	if (complete && !info->nthreads)
		return hwtr_fail(hwtr_err_format,
				 "%s: field \"threads\" is empty, but the recording "
				 "is finished: it names no trace", file);
	return 0;
}

void manifest_release(struct hwtr_recording_info *info)
{
	free((void *)info->threads);
	free((void *)info->argv);
	free((void *)info->files);
	info->threads = NULL;
	info->argv = NULL;
	info->files = NULL;
}
