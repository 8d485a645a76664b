/* import-snapshot.c: `hwtrec import --opencsd-snapshot DIR`.
 *
 * An OpenCSD snapshot (the format of OpenCSD's test data and of DS-5 / perf
 * captures converted for it) is a directory: snapshot.ini lists device files
 * and names the trace metadata; each device_N.ini / cpu_N.ini describes a
 * trace source (its trace unit registers) or a core (its type and memory
 * dumps); trace.ini lists the trace buffers, which source writes to which
 * buffer, and which source traces which core.  We read them with a strict
 * ini reader (ini.c) and write a format 2 recording: each trace buffer is
 * saved whole (trace/NAME), each ETMv4/ETE source becomes a thread (its tid
 * is its trace ID) whose manifest entry holds its trace unit, and each memory
 * dump of a traced core is saved as objects/NAME and logged as an executable
 * mapping at its load address.  Sources of other protocols (STM, ITM, PTM,
 * ETMv3) are skipped with a message.
 *
 * A source whose trace unit traces context IDs (TRCCONFIGR.CID) and whose
 * trace names more than one becomes one thread per context ID instead
 * (tid: the context ID, which Linux sets to the running thread's ID; the
 * idle context 0 gets none): the buffers are read first, the context IDs
 * learnt from a scan of their packets (etm-contexts.c), and the recording
 * written once with those threads.
 *
 * Not done yet: memory spaces (EL1N, EL2...) are not kept: all dumps form
 * one address space, and dumps of different cores that overlap replace each
 * other (the later wins, with a warning).
 */
#define _GNU_SOURCE
#include "import-snapshot.h"

#include "coresight-frames.h"
#include "etm-contexts.h"
#include "ini.h"
#include "../libhwtrecord/progress.h"

#include <hwtrecord.h>

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

struct device {
	char *path;		/* DIR/device_N.ini, for messages */
	struct ini_file *ini;
	const struct ini_entry *name, *class, *type;
};

struct snapshot {
	const char *dir;
	bool dstream;		/* buffers are DSTREAM blocks (footers) */
	uint8_t known_ids[128];	/* trace IDs the snapshot's sources have */
	FILE *log;
	char *err;
	size_t errlen;
	struct progress progress;	/* bytes of trace buffers and dumps read */
	uint64_t progress_done;
	struct ini_file *snapshot_ini;
	struct ini_file *trace_ini;
	char *trace_path;
	struct device *devices;
	size_t ndevices;
};

/* A source we decode. */
struct source {
	const struct device *dev;
	uint32_t tid;		/* the thread (when not split by context) */
	bool skip;		/* another source's raw buffer */
	const struct device *core;
	const struct ini_section *buffer;	/* in trace.ini */
	struct hwtr_etm_config etm;
	uint32_t *contexts;	/* a thread for each, when not NULL */
	size_t ncontexts;
};

/* A trace buffer that at least one decoded source writes to. */
struct buffer {
	const struct ini_section *section;
	const struct ini_entry *file;	/* its file= entry */
	uint8_t *bytes;		/* the trace as the recording keeps it */
	size_t size;
	const char *stream;	/* trace/NAME in the recording */
	uint32_t frame_flags;
	bool formatted;
	int nsources;
};

static int fail(struct snapshot *ss, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ss->err, ss->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static void warn(struct snapshot *ss, const char *fmt, ...)
{
	va_list ap;

	if (!ss->log)
		return;
	progress_finish(&ss->progress);	/* the warning on a line of its own */
	fputs("hwtrec import: ", ss->log);
	va_start(ap, fmt);
	vfprintf(ss->log, fmt, ap);
	va_end(ap);
	fputc('\n', ss->log);
}

/* A number as the snapshot writes it (0x hex or decimal), whole. */
static int parse_number(const char *text, uint64_t *out)
{
	char *end;

	if (!*text || *text == '-' || *text == '+' || isspace((unsigned char)*text))
		return -1;
	errno = 0;
	*out = strtoull(text, &end, 0);
	return errno || *end ? -1 : 0;
}

/* ENTRY's value as a number, or an error naming FILE:LINE. */
static int entry_number(struct snapshot *ss, const char *file,
			const struct ini_entry *e, uint64_t max, uint64_t *out)
{
	if (parse_number(e->value, out) < 0 || *out > max)
		return fail(ss, "%s:%d: %s=\"%s\" is not a number%s", file, e->line,
			    e->key, e->value,
			    max == UINT32_MAX ? " of 32 bits" : "");
	return 0;
}

/* A required key of a section. */
static const struct ini_entry *need(struct snapshot *ss, const char *file,
				    const struct ini_section *s, const char *key)
{
	const struct ini_entry *e = ini_get(s, key);

	if (!e)
		fail(ss, "%s:%d: [%s] has no %s=", file, s->line, s->name, key);
	else if (!*e->value)
		fail(ss, "%s:%d: %s= is empty", file, e->line, key);
	return e && *e->value ? e : NULL;
}

static void snapshot_free(struct snapshot *ss)
{
	size_t i;

	for (i = 0; i < ss->ndevices; i++) {
		free(ss->devices[i].path);
		ini_free(ss->devices[i].ini);
	}
	free(ss->devices);
	ini_free(ss->snapshot_ini);
	ini_free(ss->trace_ini);
	free(ss->trace_path);
}

static const struct device *find_device(const struct snapshot *ss,
					const char *name)
{
	size_t i;

	for (i = 0; i < ss->ndevices; i++)
		if (!strcmp(ss->devices[i].name->value, name))
			return &ss->devices[i];
	return NULL;
}

static int load_device(struct snapshot *ss, const struct ini_entry *listed,
		       const char *list_path)
{
	struct device *d;
	const struct ini_section *s;
	void *p = realloc(ss->devices, (ss->ndevices + 1) * sizeof(*ss->devices));

	if (!p)
		return fail(ss, "out of memory");
	ss->devices = p;
	d = &ss->devices[ss->ndevices];
	memset(d, 0, sizeof(*d));
	d->path = hwtr_path_join(ss->dir, listed->value);
	if (!d->path)
		return fail(ss, "out of memory");
	ss->ndevices++;
	if (ini_read(d->path, &d->ini, ss->err, ss->errlen) < 0) {
		size_t n = strlen(ss->err);

		snprintf(ss->err + n, ss->errlen - n, " (listed at %s:%d)",
			 list_path, listed->line);
		return -1;
	}
	s = ini_section(d->ini, "device");
	if (!s)
		return fail(ss, "%s: no [device] section", d->path);
	if (!(d->name = need(ss, d->path, s, "name")) ||
	    !(d->class = need(ss, d->path, s, "class")) ||
	    !(d->type = need(ss, d->path, s, "type")))
		return -1;
	if (find_device(ss, d->name->value) != d)
		return fail(ss, "%s:%d: a second device named \"%s\" (the first is in "
			    "%s)", d->path, d->name->line, d->name->value,
			    find_device(ss, d->name->value)->path);
	return 0;
}

static int load_snapshot(struct snapshot *ss)
{
	char *path = hwtr_path_join(ss->dir, "snapshot.ini");
	const struct ini_section *s, *list, *trace;
	const struct ini_entry *e;
	size_t i;
	int rc = -1;

	if (!path)
		return fail(ss, "out of memory");
	if (ini_read(path, &ss->snapshot_ini, ss->err, ss->errlen) < 0)
		goto out;
	s = ini_section(ss->snapshot_ini, "snapshot");
	e = ini_get(s, "version");
	if (e && strcmp(e->value, "1.0") && strcmp(e->value, "1")) {
		fail(ss, "%s:%d: snapshot version \"%s\" (this reader reads 1.0)",
		     path, e->line, e->value);
		goto out;
	}
	list = ini_section(ss->snapshot_ini, "device_list");
	if (!list || !list->nentries) {
		fail(ss, "%s: no devices ([device_list] is missing or empty)", path);
		goto out;
	}
	for (i = 0; i < list->nentries; i++)
		if (load_device(ss, &list->entries[i], path) < 0)
			goto out;
	trace = ini_section(ss->snapshot_ini, "trace");
	if (!trace) {
		fail(ss, "%s: no [trace] section: the snapshot holds no trace", path);
		goto out;
	}
	if (!(e = need(ss, path, trace, "metadata")))
		goto out;
	ss->trace_path = hwtr_path_join(ss->dir, e->value);
	if (!ss->trace_path) {
		fail(ss, "out of memory");
		goto out;
	}
	if (ini_read(ss->trace_path, &ss->trace_ini, ss->err, ss->errlen) < 0)
		goto out;
	rc = 0;
out:
	free(path);
	return rc;
}

/* -------------------------------------------------- cores and trace units */

/* Arm cores by name: architecture version (OpenCSD's values) and profile,
 * which OpenCSD's instruction decoder needs.  The same facts OpenCSD's
 * snapshot reader knows, and its ARMvN[.m]-P and ARM-AA64 names. */
static const struct core_arch {
	const char *name;
	uint16_t arch;
	char profile;
} core_archs[] = {
	{ "Cortex-A5", 0x700, 'A' }, { "Cortex-A7", 0x700, 'A' },
	{ "Cortex-A8", 0x700, 'A' }, { "Cortex-A9", 0x700, 'A' },
	{ "Cortex-A12", 0x700, 'A' }, { "Cortex-A15", 0x700, 'A' },
	{ "Cortex-A17", 0x700, 'A' },
	{ "Cortex-A32", 0x800, 'A' }, { "Cortex-A35", 0x800, 'A' },
	{ "Cortex-A53", 0x800, 'A' }, { "Cortex-A57", 0x800, 'A' },
	{ "Cortex-A72", 0x800, 'A' }, { "Cortex-A73", 0x800, 'A' },
	{ "Cortex-A78", 0x800, 'A' },
	{ "Cortex-A55", 0x803, 'A' }, { "Cortex-A65", 0x803, 'A' },
	{ "Cortex-A75", 0x803, 'A' }, { "Cortex-A76", 0x803, 'A' },
	{ "Cortex-A77", 0x803, 'A' },
	{ "Cortex-R4", 0x700, 'R' }, { "Cortex-R5", 0x700, 'R' },
	{ "Cortex-R7", 0x700, 'R' }, { "Cortex-R8", 0x700, 'R' },
	{ "Cortex-R52", 0x800, 'R' },
	{ "Cortex-M0", 0x700, 'M' }, { "Cortex-M0+", 0x700, 'M' },
	{ "Cortex-M3", 0x700, 'M' }, { "Cortex-M4", 0x700, 'M' },
	{ "Cortex-M23", 0x800, 'M' }, { "Cortex-M33", 0x800, 'M' },
};

static int core_arch(const char *name, uint16_t *arch, char *profile)
{
	size_t i;
	int major, minor = 0, n = 0;
	char p = 0;

	for (i = 0; i < sizeof(core_archs) / sizeof(core_archs[0]); i++)
		if (!strcmp(core_archs[i].name, name)) {
			*arch = core_archs[i].arch;
			*profile = core_archs[i].profile;
			return 0;
		}
	/* ARMv8-A, ARMv8.3-A, ARMv7-M ... */
	if ((sscanf(name, "ARMv%d.%d-%c%n", &major, &minor, &p, &n) == 3 ||
	     (minor = 0, sscanf(name, "ARMv%d-%c%n", &major, &p, &n) == 2)) &&
	    !name[n] && strchr("ARM", p) && major >= 7 && minor >= 0) {
		*arch = major == 7 ? 0x700
			: major == 8 && minor < 3 ? 0x800
			: major == 8 && minor == 3 ? 0x803 : 0x864;
		*profile = p;
		return 0;
	}
	if (!strncasecmp(name, "ARM-AA64", 8) && (!name[8] ||
	    (name[8] == '-' && name[9] && strchr("ARM", name[9]) && !name[10]))) {
		*arch = 0x864;
		*profile = name[8] ? name[9] : 'A';
		return 0;
	}
	return -1;
}

/* [regs] keys are "NAME(0xOFFSET)" or "NAME". */
static const struct ini_entry *find_reg(const struct ini_section *regs,
					const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; regs && i < regs->nentries; i++) {
		const char *k = regs->entries[i].key;

		if (!strncasecmp(k, name, n) && (!k[n] || k[n] == '(' ||
						 isspace((unsigned char)k[n])))
			return &regs->entries[i];
	}
	return NULL;
}

/* Whether buffer section B holds CoreSight frames (not one source's raw
 * trace: format=source_data). */
static bool buffer_formatted(const struct ini_section *b)
{
	const struct ini_entry *f = ini_get(b, "format");

	return !f || strcmp(f->value, "source_data");
}

static int trace_unit(struct snapshot *ss, struct source *src, bool ete)
{
	static const struct {
		const char *name;
		bool required;
		uint32_t fallback;	/* OpenCSD's default when missing */
	} regs_wanted[] = {
		{ "TRCCONFIGR", true, 0 }, { "TRCTRACEIDR", true, 0 },
		{ "TRCIDR0", true, 0 }, { "TRCIDR1", false, 0x4100f403 },
		{ "TRCIDR2", true, 0 }, { "TRCIDR8", false, 0 },
		{ "TRCIDR9", false, 0 }, { "TRCIDR10", false, 0 },
		{ "TRCIDR11", false, 0 }, { "TRCIDR12", false, 0 },
		{ "TRCIDR13", false, 0 }, { "TRCAUTHSTATUS", false, 0 },
		{ "TRCDEVARCH", false, 0x47705a13 },
	};
	const struct device *d = src->dev;
	const struct ini_section *regs = ini_section(d->ini, "regs");
	struct hwtr_etm_config *e = &src->etm;
	uint32_t values[sizeof(regs_wanted) / sizeof(regs_wanted[0])];
	size_t i;

	if (!regs)
		return fail(ss, "%s: no [regs] section: the trace unit's registers "
			    "are needed to decode", d->path);
	for (i = 0; i < sizeof(regs_wanted) / sizeof(regs_wanted[0]); i++) {
		const struct ini_entry *r = find_reg(regs, regs_wanted[i].name);
		uint64_t v;

		if (!r && regs_wanted[i].required)
			return fail(ss, "%s:%d: [regs] has no %s (needed to decode)",
				    d->path, regs->line, regs_wanted[i].name);
		if (!r) {
			values[i] = regs_wanted[i].fallback;
			if (regs_wanted[i].fallback &&
			    (ete || strcmp(regs_wanted[i].name, "TRCDEVARCH")))
				warn(ss, "warning: %s:%d: [regs] has no %s; using "
				     "0x%08x as OpenCSD does", d->path, regs->line,
				     regs_wanted[i].name, regs_wanted[i].fallback);
			continue;
		}
		if (entry_number(ss, d->path, r, UINT32_MAX, &v) < 0)
			return -1;
		values[i] = (uint32_t)v;
	}
	e->ete = ete;
	e->trcconfigr = values[0];
	e->trctraceidr = values[1];
	e->trcidr[0] = values[2];
	e->trcidr[1] = values[3];
	e->trcidr[2] = values[4];
	for (i = 0; i < 6; i++)
		e->trcidr[8 + i] = values[5 + i];
	e->trcauthstatus = values[11];
	e->trcdevarch = ete ? values[12] : 0;
	e->trace_id = (uint8_t)(e->trctraceidr & 0x7f);
	/* A buffer of one source's raw trace needs no ID to tell sources
	 * apart: OpenCSD decodes it with any. */
	if ((e->trace_id == 0 && buffer_formatted(src->buffer)) ||
	    e->trace_id >= 0x70)
		return fail(ss, "%s:%d: TRCTRACEIDR 0x%x gives trace ID 0x%x, which "
			    "is reserved (1 to 0x6f are sources)", d->path,
			    find_reg(regs, "TRCTRACEIDR")->line, e->trctraceidr,
			    e->trace_id);
	e->source = d->name->value;
	e->cpu = -1;
	return 0;
}

/* The core SOURCE traces (trace.ini's [core_trace_sources]), its type. */
static int source_core(struct snapshot *ss, struct source *src)
{
	const struct ini_section *cores = ini_section(ss->trace_ini,
						       "core_trace_sources");
	const struct ini_entry *link = NULL;
	const char *type;
	size_t i;
	int cpu;

	for (i = 0; cores && i < cores->nentries; i++)
		if (!strcmp(cores->entries[i].value, src->dev->name->value)) {
			if (link)
				return fail(ss, "%s:%d: source %s traces a second core "
					    "(%s, after %s at line %d)",
					    ss->trace_path, cores->entries[i].line,
					    src->dev->name->value,
					    cores->entries[i].key, link->key,
					    link->line);
			link = &cores->entries[i];
		}
	if (!link)
		return fail(ss, "%s: no [core_trace_sources] entry names source %s "
			    "(its core gives the architecture to decode with)",
			    ss->trace_path, src->dev->name->value);
	src->core = find_device(ss, link->key);
	if (!src->core)
		return fail(ss, "%s:%d: core \"%s\" is not a device of the "
			    "snapshot", ss->trace_path, link->line, link->key);
	type = src->core->type->value;
	if (core_arch(type, &src->etm.arch_version, &src->etm.profile) < 0)
		return fail(ss, "%s:%d: core type \"%s\" is not one we know the "
			    "architecture of (a Cortex name, ARMvN[.m]-P or ARM-AA64)",
			    src->core->path, src->core->type->line, type);
	src->etm.core = src->core->name->value;
	src->etm.core_type = type;
	/* cpu_N: the CPU number, when the name says it. */
	if (sscanf(src->etm.core, "cpu_%d", &cpu) == 1 && cpu >= 0)
		src->etm.cpu = cpu;
	return 0;
}

/* --------------------------------------------------------- trace buffers */

static int buffer_of(struct snapshot *ss, const char *name,
		     const struct ini_section **out, int line)
{
	const struct ini_section *list = ini_section(ss->trace_ini, "trace_buffers");
	const struct ini_entry *names = ini_get(list, "buffers");
	size_t i;

	if (!names)
		return fail(ss, "%s: [trace_buffers] buffers= is missing",
			    ss->trace_path);
	/* The buffer whose name= is NAME, among those listed. */
	for (i = 0; i < ss->trace_ini->nsections; i++) {
		const struct ini_section *s = &ss->trace_ini->sections[i];
		const struct ini_entry *n = ini_get(s, "name");
		const char *listed = names->value;
		size_t len = strlen(s->name);
		bool in_list = false;

		if (!n || strcmp(n->value, name))
			continue;
		/* buffers=buffer0,buffer1: is this section listed? */
		while (*listed) {
			while (*listed == ',' || isspace((unsigned char)*listed))
				listed++;
			if (!strncasecmp(listed, s->name, len) &&
			    (!listed[len] || listed[len] == ',' ||
			     isspace((unsigned char)listed[len])))
				in_list = true;
			while (*listed && *listed != ',')
				listed++;
		}
		if (!in_list)
			continue;
		*out = s;
		return 0;
	}
	return fail(ss, "%s:%d: no buffer named \"%s\" in [trace_buffers]",
		    ss->trace_path, line, name);
}

#define READ_PIECE (8u << 20)

/* SIZE bytes read or copied into the recording: the progress line. */
static void copied(struct snapshot *ss, uint64_t size)
{
	ss->progress_done += size;
	progress_update(&ss->progress, ss->progress_done, 0);
}

static int read_whole(struct snapshot *ss, const char *path, uint8_t **bytes,
		      size_t *size, const char *named_at)
{
	FILE *f = fopen(path, "rb");
	struct stat st;

	*bytes = NULL;
	*size = 0;
	if (!f)
		return fail(ss, "%s: %s (named at %s)", path, strerror(errno),
			    named_at);
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return fail(ss, "%s: not a regular file (named at %s)", path,
			    named_at);
	}
	*bytes = malloc((size_t)st.st_size + 1);
	if (!*bytes) {
		fclose(f);
		return fail(ss, "%s: out of memory", path);
	}
	/* In pieces, for the progress line. */
	while (*size < (size_t)st.st_size) {
		size_t want = (size_t)st.st_size - *size, got;

		if (want > READ_PIECE)
			want = READ_PIECE;
		got = fread(*bytes + *size, 1, want, f);
		*size += got;
		copied(ss, got);
		if (got < want)
			break;
	}
	fclose(f);
	if (*size != (size_t)st.st_size) {
		free(*bytes);
		*bytes = NULL;
		return fail(ss, "%s: read error", path);
	}
	return 0;
}

/* File names given out in the recording so far. */
struct names {
	char **list;
	size_t count;
};

static int names_add(struct names *n, const char *name)
{
	void *p = realloc(n->list, (n->count + 1) * sizeof(*n->list));

	if (!p)
		return -1;
	n->list = p;
	if (!(n->list[n->count] = strdup(name)))
		return -1;
	n->count++;
	return 0;
}

static void names_free(struct names *n)
{
	while (n->count)
		free(n->list[--n->count]);
	free(n->list);
}

/* A file name for NAME's basename in SUBDIR that no earlier one took. */
static void unique_name(const char *path, char **taken, size_t ntaken,
			char *out, size_t size)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int k = 1;
	size_t i;

	snprintf(out, size, "%s", *base ? base : "file");
	for (;;) {
		for (i = 0; i < ntaken && strcmp(taken[i], out); i++)
			;
		if (i == ntaken)
			return;
		snprintf(out, size, "%d-%s", ++k, *base ? base : "file");
	}
}

/* Frames that carry trace IDs no source of the snapshot has are never
 * decoded: say so.  When they are a DSTREAM capture's (none are left once
 * its footers are stripped), strip them, as trc_pkt_lister -dstream_format
 * does.  Returns the size to keep. */
static size_t check_frames(struct snapshot *ss, const char *path, uint8_t *bytes,
			   size_t size, bool fsyncs)
{
	size_t first, first_stripped;
	uint64_t unknown = cs_frames_unknown_bytes(bytes, size, fsyncs,
						   ss->known_ids, &first);
	uint8_t *copy;
	size_t n;

	if (!unknown)
		return size;
	copy = size > DSTREAM_BLOCK ? malloc(size) : NULL;
	if (copy) {
		memcpy(copy, bytes, size);
		n = dstream_strip_footers(copy, size);
		if (!cs_frames_unknown_bytes(copy, n, fsyncs, ss->known_ids,
					     &first_stripped)) {
			warn(ss, "warning: %s: a DSTREAM capture (frames carry trace "
			     "IDs no source has from offset %zu, none once an "
			     "8-byte footer is taken out of every 512 bytes): "
			     "footers taken out, as trc_pkt_lister -dstream_format "
			     "does; offsets are those without them", path, first);
			memcpy(bytes, copy, n);
			free(copy);
			return n;
		}
		free(copy);
	}
	warn(ss, "warning: %s: %llu bytes in frames from offset %zu carry trace "
	     "IDs no source of the snapshot has, and are not decoded (a DSTREAM "
	     "capture? --dstream-format)", path, (unsigned long long)unknown,
	     first);
	return size;
}

/* Read buffer B's trace (as the recording will keep it: DSTREAM footers
 * stripped, frames checked), saying what is wrong with it. */
static int load_buffer(struct snapshot *ss, struct buffer *b)
{
	const struct ini_section *s = b->section;
	const struct ini_entry *file, *format;
	char *path, where[600];
	int rc;

	if (!(file = need(ss, ss->trace_path, s, "file")) ||
	    !(format = need(ss, ss->trace_path, s, "format")))
		return -1;
	if (!strcmp(format->value, "coresight")) {
		b->formatted = true;
		b->frame_flags = HWTR_ETM_FRAME_MEM_ALIGN;
	} else if (!strcmp(format->value, "dstream_coresight")) {
		b->formatted = true;
		b->frame_flags = HWTR_ETM_FRAME_FSYNCS;
	} else if (!strcmp(format->value, "source_data")) {
		b->formatted = false;
	} else {
		return fail(ss, "%s:%d: buffer format \"%s\" (expected coresight, "
			    "dstream_coresight or source_data)", ss->trace_path,
			    format->line, format->value);
	}
	b->file = file;
	path = hwtr_path_join(ss->dir, file->value);
	if (!path)
		return fail(ss, "out of memory");
	snprintf(where, sizeof(where), "%s:%d", ss->trace_path, file->line);
	rc = read_whole(ss, path, &b->bytes, &b->size, where);
	if (rc == 0 && ss->dstream)
		b->size = dstream_strip_footers(b->bytes, b->size);
	else if (rc == 0 && b->formatted)
		b->size = check_frames(ss, path, b->bytes, b->size,
				       b->frame_flags & HWTR_ETM_FRAME_FSYNCS);
	if (rc == 0 && b->formatted && !(b->frame_flags & HWTR_ETM_FRAME_FSYNCS) &&
	    b->size % 16)
		warn(ss, "warning: %s: %zu bytes is not a whole number of 16-byte "
		     "CoreSight frames: the buffer was cut short; the last %zu "
		     "bytes (from offset %zu) are not decoded", path, b->size,
		     b->size % 16, b->size - b->size % 16);
	if (rc == 0 && !b->size)
		warn(ss, "warning: %s: empty trace buffer", path);
	free(path);
	return rc;
}

static int save_buffer(struct snapshot *ss, struct hwtr_writer *w,
		       struct buffer *b, struct names *names)
{
	char name[256];

	unique_name(b->file->value, names->list, names->count, name, sizeof(name));
	if (hwtr_writer_save_trace(w, name, b->bytes, b->size, &b->stream) < 0)
		return fail(ss, "%s", hwtr_last_error());
	copied(ss, b->size);
	if (names_add(names, name) < 0)
		return fail(ss, "out of memory");
	return 0;
}

/* -------------------------------------------------------- memory images */

struct saved_dump {
	char *path;		/* the dump file */
	const char *object;	/* objects/NAME */
	uint64_t addr, len, offset;
	const char *device;	/* where it was named, for overlaps */
};

static int save_dumps(struct snapshot *ss, struct hwtr_writer *w,
		      const struct device *core, struct saved_dump **dumps,
		      size_t *ndumps, struct names *names)
{
	size_t i, k;

	for (i = 0; i < core->ini->nsections; i++) {
		const struct ini_section *s = &core->ini->sections[i];
		const struct ini_entry *file, *addr, *len, *off, *space;
		struct hwtr_sideband_event ev = { .kind = hwtr_ev_mmap };
		uint64_t a, l = 0, o = 0;
		struct saved_dump *d = NULL;
		struct stat st;
		char *path;

		if (strncasecmp(s->name, "dump", 4))
			continue;
		if (!(file = need(ss, core->path, s, "file")) ||
		    !(addr = need(ss, core->path, s, "address")))
			return -1;
		for (k = 0; k < s->nentries; k++)
			if (strcasecmp(s->entries[k].key, "file") &&
			    strcasecmp(s->entries[k].key, "address") &&
			    strcasecmp(s->entries[k].key, "length") &&
			    strcasecmp(s->entries[k].key, "offset") &&
			    strcasecmp(s->entries[k].key, "space"))
				return fail(ss, "%s:%d: unknown key \"%s\" in [%s]",
					    core->path, s->entries[k].line,
					    s->entries[k].key, s->name);
		len = ini_get(s, "length");
		off = ini_get(s, "offset");
		space = ini_get(s, "space");
		if (entry_number(ss, core->path, addr, UINT64_MAX, &a) < 0 ||
		    (len && entry_number(ss, core->path, len, UINT64_MAX, &l) < 0) ||
		    (off && entry_number(ss, core->path, off, UINT64_MAX, &o) < 0))
			return -1;
		if (space && *space->value && strcasecmp(space->value, "ANY"))
			warn(ss, "warning: %s:%d: memory space \"%s\" is not kept: "
			     "all dumps share one address space", core->path,
			     space->line, space->value);
		path = hwtr_path_join(ss->dir, file->value);
		if (!path)
			return fail(ss, "out of memory");
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			fail(ss, "%s:%d: memory image %s: %s", core->path, file->line,
			     path, stat(path, &st) < 0 ? strerror(errno)
						       : "not a regular file");
			free(path);
			return -1;
		}
		if (o > (uint64_t)st.st_size) {
			fail(ss, "%s:%d: offset 0x%llx is past the end of %s (%lld "
			     "bytes)", core->path, off->line, (unsigned long long)o,
			     path, (long long)st.st_size);
			free(path);
			return -1;
		}
		if (!len)
			l = (uint64_t)st.st_size - o;
		if (l > (uint64_t)st.st_size - o) {
			warn(ss, "warning: %s:%d: memory image %s holds %llu bytes "
			     "from offset 0x%llx, the ini says 0x%llx: the last %llu "
			     "bytes (from 0x%llx) are not mapped", core->path,
			     len->line, path,
			     (unsigned long long)((uint64_t)st.st_size - o),
			     (unsigned long long)o, (unsigned long long)l,
			     (unsigned long long)(l - ((uint64_t)st.st_size - o)),
			     (unsigned long long)(a + (uint64_t)st.st_size - o));
			l = (uint64_t)st.st_size - o;
		}
		if (!l) {
			warn(ss, "warning: %s:%d: memory image %s is empty there; "
			     "skipped", core->path, s->line, path);
			free(path);
			continue;
		}
		if (a + l < a) {
			fail(ss, "%s:%d: address 0x%llx + length 0x%llx wraps "
			     "around", core->path, addr->line,
			     (unsigned long long)a, (unsigned long long)l);
			free(path);
			return -1;
		}
		/* The same dump for another core: already mapped. */
		for (k = 0; k < *ndumps; k++) {
			struct saved_dump *o2 = &(*dumps)[k];

			if (!strcmp(o2->path, path) && o2->addr == a && o2->len == l &&
			    o2->offset == o)
				break;
			if (o2->addr < a + l && a < o2->addr + o2->len)
				warn(ss, "warning: %s:%d: %s at 0x%llx overlaps %s "
				     "from %s: one address space, the later wins",
				     core->path, s->line, file->value,
				     (unsigned long long)a, o2->path, o2->device);
		}
		if (k < *ndumps) {
			free(path);
			continue;
		}
		/* Save each file once, even when mapped twice. */
		for (k = 0; k < *ndumps && strcmp((*dumps)[k].path, path); k++)
			;
		{
			void *p = realloc(*dumps, (*ndumps + 1) * sizeof(**dumps));

			if (!p) {
				free(path);
				return fail(ss, "out of memory");
			}
			*dumps = p;
		}
		d = &(*dumps)[*ndumps];
		memset(d, 0, sizeof(*d));
		d->path = path;
		d->addr = a;
		d->len = l;
		d->offset = o;
		d->device = core->path;
		if (k < *ndumps) {
			d->object = (*dumps)[k].object;
		} else {
			uint8_t *bytes;
			size_t size;
			char name[256], where[600];
			int rc;

			snprintf(where, sizeof(where), "%s:%d", core->path, file->line);
			if (read_whole(ss, path, &bytes, &size, where) < 0) {
				free(path);
				return -1;
			}
			unique_name(file->value, names->list, names->count, name,
				    sizeof(name));
			rc = hwtr_writer_save_object(w, name, bytes, size, &d->object);
			free(bytes);
			copied(ss, size);
			if (rc < 0) {
				free(path);
				return fail(ss, "%s", hwtr_last_error());
			}
			if (names_add(names, name) < 0) {
				free(path);
				return fail(ss, "out of memory");
			}
		}
		(*ndumps)++;
		ev.addr = a;
		ev.len = l;
		ev.pgoff = o;
		ev.prot = HWTR_PROT_READ | HWTR_PROT_EXEC;
		ev.path = file->value;
		ev.saved = d->object;
		if (hwtr_writer_event(w, &ev) < 0)
			return fail(ss, "%s", hwtr_last_error());
	}
	return 0;
}

/* ------------------------------------------------------------ the import */

/* The buffers the sources write to (SOURCES[i].buffer), each read once,
 * in BUFFERS (*NBUFFERS of them; at most one per source). */
static int load_buffers(struct snapshot *ss, struct source *sources,
			size_t nsources, struct buffer *buffers, size_t *nbuffers)
{
	size_t i, j;

	for (i = 0; i < nsources; i++) {
		struct source *src = &sources[i];
		struct buffer *b = NULL;

		for (j = 0; j < *nbuffers; j++)
			if (buffers[j].section == src->buffer)
				b = &buffers[j];
		if (!b) {
			b = &buffers[(*nbuffers)++];
			b->section = src->buffer;
			if (load_buffer(ss, b) < 0)
				return -1;
		}
		if (!b->formatted && b->nsources)
			return fail(ss, "%s:%d: buffer %s holds one source's raw trace "
				    "(source_data), yet %s writes to it too",
				    ss->trace_path, src->buffer->line,
				    src->buffer->name, src->dev->name->value);
		b->nsources++;
		src->etm.formatted = b->formatted;
		src->etm.frame_flags = b->frame_flags;
	}
	return 0;
}

static struct buffer *buffer_of_source(struct buffer *buffers, size_t nbuffers,
				       const struct source *src)
{
	size_t j;

	for (j = 0; j < nbuffers && buffers[j].section != src->buffer; j++)
		;
	return &buffers[j];
}

/* The context IDs of each source that traces them and names several, from
 * its buffer's trace (one packet scan), before anything is written. */
static int learn_contexts(struct snapshot *ss, struct source *sources,
			  size_t nsources, struct buffer *buffers, size_t nbuffers)
{
	struct etm_source_trace *traces = calloc(nsources, sizeof(*traces));
	struct etm_context_ids *ids = calloc(nsources, sizeof(*ids));
	size_t i;
	int rc = -1;

	if (!traces || !ids) {
		fail(ss, "out of memory");
		goto out;
	}
	for (i = 0; i < nsources; i++) {
		const struct buffer *b = buffer_of_source(buffers, nbuffers, &sources[i]);

		traces[i] = (struct etm_source_trace){ .etm = &sources[i].etm,
			.stream = b->bytes, .size = b->size };
	}
	if (etm_context_ids(traces, nsources, ids) < 0) {
		fail(ss, "%s: %s", ss->trace_path, hwtr_last_error());
		goto out;
	}
	for (i = 0; i < nsources; i++) {
		if (!ids[i].ids)
			continue;
		sources[i].contexts = ids[i].ids;
		sources[i].ncontexts = ids[i].n;
		ids[i].ids = NULL;
		warn(ss, "source %s traces %zu context IDs: a thread for each",
		     sources[i].dev->name->value, sources[i].ncontexts);
	}
	rc = 0;
out:
	if (ids)
		etm_context_ids_release(ids, nsources);
	free(ids);
	free(traces);
	return rc;
}

/* The recording OUT of the sources (each a thread, or a thread for each of
 * its context IDs) and their loaded buffers. */
static int write_recording(struct snapshot *ss, struct source *sources,
			   size_t nsources, struct buffer *buffers,
			   size_t nbuffers, const struct hwtr_writer_info *winfo,
			   const char *out)
{
	struct saved_dump *dumps = NULL;
	struct hwtr_writer *w = NULL;
	struct names names = { 0 };
	size_t ndumps = 0, i, j;
	int rc = -1;

	if (hwtr_writer_create(out, winfo, &w) < 0) {
		fail(ss, "%s", hwtr_last_error());
		goto out;
	}
	for (i = 0; i < nsources; i++) {
		struct source *src = &sources[i];
		struct buffer *b = buffer_of_source(buffers, nbuffers, src);

		/* Each buffer saved where its first source comes. */
		if (!b->stream && save_buffer(ss, w, b, &names) < 0)
			goto out;
		if (save_dumps(ss, w, src->core, &dumps, &ndumps, &names) < 0)
			goto out;
		for (j = 0; j < (src->contexts ? src->ncontexts : 1); j++) {
			struct hwtr_etm_config e = src->etm;
			uint32_t tid = src->tid;

			if (src->contexts) {
				e.has_context_id = true;
				e.context_id = tid = src->contexts[j];
			}
			if (hwtr_writer_add_source(w, tid, 0, b->stream, &e) < 0) {
				fail(ss, "%s: thread %u: %s", src->dev->path, tid,
				     hwtr_last_error());
				goto out;
			}
		}
	}
	if (hwtr_writer_finish(w, NULL) < 0) {
		fail(ss, "%s", hwtr_last_error());
		goto out;
	}
	rc = 0;
out:
	hwtr_writer_free(w);
	names_free(&names);
	for (i = 0; i < ndumps; i++)
		free(dumps[i].path);
	free(dumps);
	return rc;
}

/* Whether ENTRY of [source_buffers] is overridden by a later line for the
 * same source (OpenCSD keeps the last). */
static const struct ini_entry *later_link(const struct ini_section *links,
					  size_t i)
{
	size_t j;

	for (j = links->nentries; j-- > i + 1;)
		if (!strcmp(links->entries[j].key, links->entries[i].key))
			return &links->entries[j];
	return NULL;
}

/* The position of buffer section B in [trace_buffers] buffers= (sessions
 * of a multi-session snapshot are its buffers, in this order). */
static unsigned buffer_ordinal(const struct snapshot *ss,
			       const struct ini_section *b)
{
	const struct ini_section *list = ini_section(ss->trace_ini, "trace_buffers");
	const struct ini_entry *names = ini_get(list, "buffers");
	const char *p = names ? names->value : "";
	size_t len = strlen(b->name);
	unsigned k = 0;

	while (*p) {
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		if (!strncasecmp(p, b->name, len) &&
		    (!p[len] || p[len] == ',' || isspace((unsigned char)p[len])))
			return k;
		while (*p && *p != ',')
			p++;
		k++;
	}
	return k;
}

/* A buffer of one source's raw trace (source_data) is decoded as the
 * source OpenCSD takes for it: the first by name.  0, or -1: SRC is not. */
static int raw_buffer_owner(struct snapshot *ss, const struct source *sources,
			    size_t n, const struct source *src)
{
	size_t i;

	if (buffer_formatted(src->buffer))
		return 0;
	for (i = 0; i < n; i++)
		if (&sources[i] != src && sources[i].buffer == src->buffer &&
		    strcmp(sources[i].dev->name->value, src->dev->name->value) < 0) {
			warn(ss, "skipping trace source %s: buffer %s holds one "
			     "source's raw trace (source_data), and OpenCSD decodes "
			     "it as %s's", src->dev->name->value, src->buffer->name,
			     sources[i].dev->name->value);
			return -1;
		}
	return 0;
}

/* Threads: a source's tid is its trace ID; a source of a later session (a
 * buffer after the first) whose trace ID an earlier source has, or a raw
 * source with trace ID 0, gets (session + 1) << 8 | trace ID. */
static int number_threads(struct snapshot *ss, struct source *sources, size_t n)
{
	bool renumbered = false;
	size_t i, j;

	for (i = 0; i < n; i++) {
		struct source *src = &sources[i];

		src->tid = src->etm.trace_id;
		for (j = 0; j < i; j++) {
			if (sources[j].etm.trace_id != src->etm.trace_id)
				continue;
			if (sources[j].buffer == src->buffer)
				return fail(ss, "%s and %s both have trace ID 0x%x in "
					    "buffer %s", src->dev->path,
					    sources[j].dev->path, src->etm.trace_id,
					    src->buffer->name);
			src->tid = 0;
		}
		if (!src->tid) {
			src->tid = (buffer_ordinal(ss, src->buffer) + 1) << 8 |
				   src->etm.trace_id;
			renumbered = true;
		}
	}
	if (renumbered)
		warn(ss, "sources share trace IDs across sessions (buffers), or have "
		     "trace ID 0: their threads are numbered (session + 1) << 8 | "
		     "trace ID, session 0 being the first buffer of buffers=");
	return 0;
}

/* The trace IDs of the snapshot's trace sources of any protocol (ETMv4 and
 * ETE: TRCTRACEIDR; ETMv3, PTM: ETMTRACEIDR; STM: STMTCSR; ITM: ITMTCR). */
static void note_known_ids(struct snapshot *ss)
{
	static const struct { const char *reg; unsigned shift; } id_regs[] = {
		{ "TRCTRACEIDR", 0 }, { "ETMTRACEIDR", 0 }, { "STMTCSR", 16 },
		{ "ITMTCR", 16 },
	};
	size_t i, k;

	for (i = 0; i < ss->ndevices; i++) {
		const struct ini_section *regs = ini_section(ss->devices[i].ini, "regs");

		for (k = 0; k < sizeof(id_regs) / sizeof(id_regs[0]); k++) {
			const struct ini_entry *r = find_reg(regs, id_regs[k].reg);
			uint64_t v;

			if (r && parse_number(r->value, &v) == 0)
				ss->known_ids[(v >> id_regs[k].shift) & 0x7f] = 1;
		}
	}
}

/* Add the size of the file FILE names to *TOTAL unless SEEN (N paths) has it. */
static void count_file(const struct snapshot *ss, const struct ini_entry *file,
		       char ***seen, size_t *n, uint64_t *total)
{
	char *path = hwtr_path_join(ss->dir, file->value), **more;
	struct stat st;
	size_t j;

	if (!path)
		return;
	for (j = 0; j < *n && strcmp((*seen)[j], path); j++)
		;
	if (j < *n || stat(path, &st) < 0 || !S_ISREG(st.st_mode) ||
	    !(more = realloc(*seen, (*n + 1) * sizeof(**seen)))) {
		free(path);
		return;
	}
	*seen = more;
	(*seen)[(*n)++] = path;
	*total += (uint64_t)st.st_size;
}

/* The bytes the import reads at most (for the progress line): the files
 * trace.ini's buffers and the devices' memory dumps name, each once; a
 * missing file counts 0 here and is reported where it is read. */
static uint64_t snapshot_file_bytes(const struct snapshot *ss)
{
	char **seen = NULL;
	size_t nseen = 0, i, d;
	uint64_t total = 0;

	for (i = 0; ss->trace_ini && i < ss->trace_ini->nsections; i++) {
		const struct ini_entry *file =
			ini_get(&ss->trace_ini->sections[i], "file");

		if (file)
			count_file(ss, file, &seen, &nseen, &total);
	}
	for (d = 0; d < ss->ndevices; d++) {
		const struct ini_file *ini = ss->devices[d].ini;

		for (i = 0; ini && i < ini->nsections; i++) {
			const struct ini_entry *file =
				ini_get(&ini->sections[i], "file");

			if (file && !strncasecmp(ini->sections[i].name, "dump", 4))
				count_file(ss, file, &seen, &nseen, &total);
		}
	}
	for (i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	return total;
}

int import_opencsd_snapshot(const char *dir, const char *out, bool dstream,
			    FILE *log, FILE *progress, char *err, size_t errlen)
{
	struct snapshot ss = { .dir = dir, .dstream = dstream, .log = log,
			       .err = err, .errlen = errlen };
	struct hwtr_writer_info winfo = { .source = "opencsd-snapshot" };
	const struct ini_section *links;
	struct source *sources = NULL;
	struct buffer *buffers = NULL;
	size_t nsources = 0, nbuffers = 0, i, j;
	bool all_ete = true, any_v7 = false;
	int rc = -1;

	if (load_snapshot(&ss) < 0)
		goto out;
	/* Each file is read, then copied into the recording. */
	progress_start_bytes(&ss.progress, progress, "reading and copying the snapshot",
			     2 * snapshot_file_bytes(&ss));
	ss.progress.noun = "buffers and memory images";
	note_known_ids(&ss);
	links = ini_section(ss.trace_ini, "source_buffers");
	if (!links || !links->nentries) {
		fail(&ss, "%s: no [source_buffers]: no trace source writes to a "
		     "buffer", ss.trace_path);
		goto out;
	}
	sources = calloc(links->nentries, sizeof(*sources));
	if (!sources) {
		fail(&ss, "out of memory");
		goto out;
	}
	for (i = 0; i < links->nentries; i++) {
		const struct ini_entry *link = &links->entries[i];
		const struct ini_entry *later = later_link(links, i);
		const struct device *dev = find_device(&ss, link->key);
		struct source *src = &sources[nsources];
		char protocol[64];
		const char *dot;
		bool ete;

		if (later) {
			warn(&ss, "%s:%d: source %s is listed again at line %d, which "
			     "wins (as in OpenCSD)", ss.trace_path, link->line,
			     link->key, later->line);
			continue;
		}
		/* OpenCSD logs a source with no device and decodes the rest. */
		if (!dev) {
			warn(&ss, "skipping trace source %s (%s:%d): no device of the "
			     "snapshot is named so", link->key, ss.trace_path,
			     link->line);
			continue;
		}
		dot = strchr(dev->type->value, '.');
		snprintf(protocol, sizeof(protocol), "%.*s",
			 (int)(dot ? (size_t)(dot - dev->type->value)
				   : strlen(dev->type->value)), dev->type->value);
		if (strcasecmp(protocol, "ETM4") && strcasecmp(protocol, "ETE")) {
			warn(&ss, "skipping trace source %s (%s, %s): only ETMv4 and "
			     "ETE are decoded", dev->name->value, dev->type->value,
			     dev->path);
			continue;
		}
		ete = !strcasecmp(protocol, "ETE");
		src->dev = dev;
		if (buffer_of(&ss, link->value, &src->buffer, link->line) < 0 ||
		    trace_unit(&ss, src, ete) < 0 || source_core(&ss, src) < 0)
			goto out;
		if (hwtr_etm_decodable(&src->etm) < 0) {
			warn(&ss, "skipping trace source %s (%s, %s): %s",
			     dev->name->value, dev->type->value, dev->path,
			     hwtr_last_error());
			continue;
		}
		nsources++;
	}
	/* One source per raw buffer, as OpenCSD decodes it. */
	for (i = 0; i < nsources; i++)
		sources[i].skip = raw_buffer_owner(&ss, sources, nsources,
						   &sources[i]) < 0;
	for (i = j = 0; i < nsources; i++)
		if (!sources[i].skip)
			sources[j++] = sources[i];
	nsources = j;
	if (!nsources) {
		fail(&ss, "%s: no ETMv4 or ETE trace source: nothing to decode",
		     ss.trace_path);
		goto out;
	}
	if (number_threads(&ss, sources, nsources) < 0)
		goto out;
	for (i = 0; i < nsources; i++) {
		all_ete = all_ete && sources[i].etm.ete;
		any_v7 = any_v7 || sources[i].etm.arch_version == 0x700;
	}
	winfo.trace_format = all_ete ? "ete" : "etm4";
	winfo.arch = any_v7 ? "arm" : "aarch64";
	buffers = calloc(nsources, sizeof(*buffers));
	if (!buffers) {
		fail(&ss, "out of memory");
		goto out;
	}
	if (load_buffers(&ss, sources, nsources, buffers, &nbuffers) < 0 ||
	    learn_contexts(&ss, sources, nsources, buffers, nbuffers) < 0 ||
	    write_recording(&ss, sources, nsources, buffers, nbuffers, &winfo,
			    out) < 0)
		goto out;
	rc = 0;
out:
	progress_finish(&ss.progress);
	for (i = 0; sources && i < nsources; i++)
		free(sources[i].contexts);
	for (i = 0; i < nbuffers; i++)
		free(buffers[i].bytes);
	free(buffers);
	free(sources);
	snapshot_free(&ss);
	return rc;
}
