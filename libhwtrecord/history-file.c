/* history-file.c: the history index saved inside a finished recording.
 *
 * Building a history decodes the whole trace (1-2 s per 100 M
 * instructions); what it makes is small beside the trace: per thread the
 * chunk index, the function segments, the gaps and the index pass's last
 * block.  A finished recording keeps them in NAME.hwtrec/history.idx so
 * that the next open reads them back instead of decoding.  Layout
 * (doc/recording-format.md): a 64-byte header, a table of sections, and the
 * sections, each at a 64-byte aligned offset with its own CRC-32; the
 * chunks (struct chunk) are stored as they are in memory, little-endian,
 * and the segments as a compact store's saved form (segment_store_pack,
 * or a first build's segment_store_finish: runs of groups, each
 * LZ4-compressed), so that a reader maps the file
 * (read-only, private) and uses them in place: no copy, no anonymous
 * memory but the few runs decompressed.  The header carries this file's format, the
 * library's HISTORY_INDEX_VERSION and the sizes of the stored structs:
 * another layout is another version.
 *
 * The file is never trusted blindly.  Its identity section binds it to
 * everything the history is made of: manifest.json's bytes (which carry each
 * stream's length and CRC-32, checked when the recording is opened), the
 * streams, the sideband events, the binaries the image found (path, size,
 * modification time, build-id) and the symbol table whose ids the segments
 * hold (symbolizer_digest: ids are given in the order files are read, so
 * the same files give the same ids).  A difference, a bad checksum, a cut
 * file or another version: one line on stderr names the file and the
 * reason, and the history is built (and saved) again.  Contents are checked
 * too (links and numbers in range), so a crafted file with good checksums
 * cannot make a lookup read out of bounds.
 *
 * Decoder state comes back from the decoder's own chunk scan
 * (history_thread_open: a packet scan, not a decode).  The last block's
 * image epoch is kept as the chunk it was decoded in and asked again of the
 * image: epochs are numbered in the order they are asked for.
 *
 * Change HISTORY_INDEX_VERSION whenever what the index pass computes
 * changes (segment rules, the chunk filter's hashing, gap messages).
 */
#define _GNU_SOURCE	/* mkostemp */
#include "history-file.h"

#include "error.h"
#include "index-builder.h"
#include "integrity.h"
#include "manifest.h"
#include "page-release.h"
#include "recording-file.h"
#include "segments.h"
#include "spill-append.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HISTORY_FILE_FORMAT 2	/* 2: segments in LZ4 runs */
#define HISTORY_INDEX_VERSION 8	/* 2: chunks filter executed code lines;
				 * 3: segments change function at any
				 * instruction, not only at a block's start;
				 * 4: chunks keep their code ranges;
				 * 5: segments compact (segment-store.c);
				 * 6: callers across a signal's delivery
				 * and return (segments.c);
				 * 7: a call to the next instruction is a
				 * call where a function starts there;
				 * 8: a jump to a function's own .cold
				 * part is no tail call */
#define FILE_MAGIC "HWTRIDX\n"
#define SECTION_ALIGN 64

struct file_header {
	char magic[8];
	uint32_t format;		/* HISTORY_FILE_FORMAT */
	uint32_t index_version;		/* HISTORY_INDEX_VERSION */
	uint32_t chunk_size;
	uint32_t segment_size;		/* segments a group (SEGMENT_GROUP) */
	uint32_t gap_size, thread_size;
	uint32_t identity_size, nsections;
	uint64_t file_size;
	uint32_t table_crc;		/* of the section table */
	uint32_t header_crc;		/* of this header with this field 0 */
	uint64_t reserved;
};

enum section_kind {
	section_identity = 1,
	section_thread,		/* struct saved_thread */
	section_chunks,		/* struct chunk[nchunks] */
	section_segments,	/* a segment store's block (segment-store.c) */
	section_gaps,		/* struct saved_gap[ngaps] */
	section_gap_text,	/* each gap's message and kind, NUL-ended */
};
#define SECTIONS_PER_THREAD 5

struct section_entry {
	uint32_t kind;
	uint32_t thread;
	uint64_t offset, size;
	uint32_t crc;
	uint32_t reserved;
};

/* What the history is made of (see the top). */
struct identity {
	uint64_t manifest_size;
	uint64_t nevents, nmappings, nfunctions;
	uint32_t manifest_crc, sideband_crc, image_crc, symbols_crc;
	uint32_t nthreads, reserved;
};

struct stream_identity {
	uint64_t size;
	uint32_t crc;
	uint32_t reserved;
};

struct saved_thread {
	uint32_t tid;
	int32_t level_base;
	uint64_t ninsns, nchunks, nsegments, ngaps;
	/* The index pass's last block (struct last_block), its epoch as the
	 * chunk it was decoded in. */
	uint64_t last_end_ip;
	uint64_t last_chunk;
	uint8_t has_stream, have_last, last_iclass, last_isa;
	uint32_t reserved;
};

struct saved_gap {
	uint64_t insn, segment, offset;
	int32_t pt_error, error;
	uint32_t message_len, kind_len;	/* in the gap text, each + NUL */
};

_Static_assert(sizeof(struct file_header) == 64, "header layout");
_Static_assert(sizeof(struct section_entry) == 32, "section table layout");
_Static_assert(sizeof(struct chunk) % 8 == 0, "chunk layout");

/* Host order is the file's: little-endian only. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SAVED_INDEX_SUPPORTED 1
#else
#define SAVED_INDEX_SUPPORTED 0
#endif

/* ---------------------------------------------------------- identity */

static uint32_t crc_string(uint32_t crc, const char *s)
{
	if (!s)
		return integrity_crc32(crc, "\xff", 1);	/* NULL is not "" */
	return integrity_crc32(crc, s, strlen(s) + 1);
}

static uint32_t sideband_digest(const struct hwtr_recording *rec)
{
	size_t n = hwtr_recording_nevents(rec), i;
	uint32_t crc = 0;

	for (i = 0; i < n; i++) {
		const struct hwtr_sideband_event *ev = hwtr_recording_event(rec, i);
		uint64_t fields[9] = { ev->kind, ev->tsc, ev->tid, ev->addr, ev->len,
				       ev->pgoff, (uint64_t)ev->prot, ev->offset, i };

		crc = integrity_crc32(crc, fields, sizeof(fields));
		crc = crc_string(crc, ev->path);
		crc = crc_string(crc, ev->build_id);
		crc = crc_string(crc, ev->saved);
		crc = crc_string(crc, ev->reason);
	}
	return crc;
}

/* FILE's name inside recording directory DIR ("objects/ID"), or NULL when
 * it lies outside the recording. */
static const char *name_in_recording(const char *dir, const char *file)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (!file || strncmp(file, dir, n) || file[n] != '/')
		return NULL;
	file += n;
	while (*file == '/')
		file++;
	return file;
}

/* The CRC-32 of FILE's bytes (0 when it cannot be read: the mapping's
 * problem says so, and is part of the identity). */
static uint32_t content_crc(const char *file)
{
	struct stat st;
	uint64_t size;
	uint32_t crc = 0;
	int fd;

	if (regular_file_open(file, &fd, &st))
		return 0;
	if (integrity_crc32_of_fd(fd, file, &size, &crc) < 0)
		crc = 0;
	close(fd);
	return crc;
}

/* The files the image reads and why others are missing: a binary found
 * elsewhere, rebuilt or installed since changes the history.  The
 * recording's own copies (objects/) count by their name in the recording
 * and their size: a packed recording that was moved or copied (new path,
 * inode and mtime) keeps its index.  Their bytes count too: through the
 * manifest's CRC-32s, which are part of the identity and were checked at
 * open, or, for a copy the manifest does not list (a recording cut off
 * before its end, or made by hand), read here: a copy rewritten with the
 * same size within one tick of the file system's clock is then still seen
 * as changed. */
static uint32_t image_digest(const struct image_set *images, const char *dir,
			     const struct hwtr_recording_info *info)
{
	size_t n = image_set_count(images), i;
	uint32_t crc = 0;

	for (i = 0; i < n; i++) {
		const struct image_mapping *m = image_set_mapping(images, i);
		uint64_t fields[10] = { m->addr, m->len, m->pgoff, m->tsc_begin,
					m->tsc_end, m->code_size, 0, 0, 0, 0 };
		const char *inside = name_in_recording(dir, m->file);
		struct stat st;

		if (m->file && stat(m->file, &st) == 0) {
			fields[6] = (uint64_t)st.st_size;
			if (!inside) {
				fields[7] = (uint64_t)st.st_mtim.tv_sec;
				fields[8] = (uint64_t)st.st_mtim.tv_nsec;
				fields[9] = (uint64_t)st.st_ino;
			} else if (!manifest_lists_file(info, inside)) {
				fields[7] = content_crc(m->file);
			}
		}
		crc = integrity_crc32(crc, fields, sizeof(fields));
		crc = crc_string(crc, m->path);
		crc = crc_string(crc, m->build_id);
		crc = crc_string(crc, inside ? inside : m->file);
		crc = crc_string(crc, m->problem);
	}
	return crc;
}

/* The identity of H's recording as it is now; *STREAMS malloc'ed. */
static int identity_now(const struct hwtr_history *h, struct identity *id,
			struct stream_identity **streams)
{
	const struct hwtr_recording *rec = h->recording;
	const struct hwtr_recording_info *info = hwtr_recording_info(rec);
	const char *dir = hwtr_recording_path(rec);
	struct stat st;
	size_t i;
	int fd, err;

	memset(id, 0, sizeof(*id));
	*streams = calloc(info->nthreads ? info->nthreads : 1, sizeof(**streams));
	if (!*streams)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if ((err = recording_file_open(dir, "manifest.json", &fd, &st)))
		return err;
	err = integrity_crc32_of_fd(fd, "manifest.json", &id->manifest_size,
				    &id->manifest_crc);
	close(fd);
	if (err)
		return err;
	for (i = 0; i < info->nthreads; i++) {
		const struct hwtr_thread_info *ti = &info->threads[i];
		const uint8_t *bytes = NULL;
		size_t size = 0;

		if (ti->has_stream_check) {
			/* Checked against the bytes when the recording opened. */
			(*streams)[i].size = ti->stream_size;
			(*streams)[i].crc = ti->stream_crc32;
			continue;
		}
		hwtr_recording_trace(rec, i, &bytes, &size);
		(*streams)[i].size = size;
		(*streams)[i].crc = size ? integrity_crc32(0, bytes, size) : 0;
	}
	id->nthreads = (uint32_t)info->nthreads;
	id->nevents = hwtr_recording_nevents(rec);
	id->sideband_crc = sideband_digest(rec);
	id->nmappings = image_set_count(h->images);
	id->image_crc = image_digest(h->images, dir, info);
	id->symbols_crc = symbolizer_digest(h->symbols, &id->nfunctions);
	return 0;
}

/* Why the saved identity SAVED is not NOW's, or NULL when it is. */
static const char *identity_differs(const struct identity *saved,
				    const struct stream_identity *saved_streams,
				    const struct identity *now,
				    const struct stream_identity *streams,
				    const struct hwtr_recording_info *info,
				    char *buf, size_t size)
{
	uint32_t i;

	if (saved->manifest_size != now->manifest_size ||
	    saved->manifest_crc != now->manifest_crc ||
	    saved->nthreads != now->nthreads)
		return "stale: manifest.json changed since it was saved";
	for (i = 0; i < now->nthreads; i++)
		if (saved_streams[i].size != streams[i].size ||
		    saved_streams[i].crc != streams[i].crc) {
			snprintf(buf, size, "stale: stream %s changed since it "
				 "was saved", info->threads[i].stream);
			return buf;
		}
	if (saved->nevents != now->nevents || saved->sideband_crc != now->sideband_crc)
		return "stale: the sideband changed since it was saved";
	if (saved->nmappings != now->nmappings || saved->image_crc != now->image_crc)
		return "stale: a binary the history reads changed, or is found "
		       "elsewhere, since it was saved";
	if (saved->nfunctions != now->nfunctions ||
	    saved->symbols_crc != now->symbols_crc)
		return "stale: the symbols changed since it was saved";
	return NULL;
}

/* -------------------------------------------------------------- saving */

struct out_section {
	struct section_entry entry;
	const void *bytes;
	bool in_file;		/* a file's mapping: pages go as they are read */
	int fd;			/* >= 0: BYTES are this file's from offset 0 */
	bool crc_known;		/* entry.crc is already its bytes' */
};

/* The chunk whose image epoch the thread's last block was decoded with,
 * checked: false when it cannot be told (the index is then not saved). */
static bool last_block_chunk(struct hwtr_thread *t, uint64_t *chunk)
{
	unsigned epoch = 0;
	size_t k;

	*chunk = 0;
	if (!t->builder || !t->builder->last.have_last)
		return true;
	k = history_chunk_of(t, t->ninsns);
	if (t->chunks[k].offset == NO_START ||
	    history_chunk_image(t, t->chunks[k].offset, &epoch) < 0 ||
	    epoch != t->builder->last.last_epoch)
		return false;
	*chunk = k;
	return true;
}

static int write_at(int fd, uint64_t offset, const void *bytes, size_t size)
{
	return spill_pwrite(fd, offset, bytes, size);
}

/* The first SIZE bytes of file FROM at OFFSET in file TO, copied by the
 * kernel (page cache to page cache: no page of either is mapped here): -1
 * when it cannot (then written from the mapping). */
static int copy_file(int from, int to, uint64_t offset, uint64_t size)
{
	loff_t in = 0, out = (loff_t)offset;

	while ((uint64_t)in < size) {
		ssize_t n = copy_file_range(from, &in, to, &out,
					    (size_t)(size - (uint64_t)in), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
	}
	return 0;
}

/* Section SEC's bytes at its offset in FD: -1 (errno) when not written.
 * A section in a file (a spilled segment store) is read a few megabytes at
 * a time, whose pages then go: saving leaves none of it resident. */
static int write_section(int fd, const struct out_section *sec)
{
	const size_t step = (size_t)4 << 20;
	struct page_release pass = { 0 };
	const uint8_t *p = sec->bytes;
	uint64_t done;

	if (sec->fd >= 0 && copy_file(sec->fd, fd, sec->entry.offset,
				      sec->entry.size) == 0)
		return 0;
	if (!sec->in_file)
		return write_at(fd, sec->entry.offset, sec->bytes, sec->entry.size);
	for (done = 0; done < sec->entry.size; done += step) {
		size_t n = sec->entry.size - done < step ? sec->entry.size - done : step;

		if (write_at(fd, sec->entry.offset + done, p + done, n))
			return -1;
		page_release_before(&pass, p, p + done + n);
	}
	page_release_all_before(&pass, p, p + sec->entry.size);
	return 0;
}

/* The gap records and their text for thread T (malloc'ed). */
static int gaps_out(const struct hwtr_thread *t, struct saved_gap **records,
		    char **text, size_t *text_size)
{
	size_t i, total = 0, at = 0;

	*records = calloc(t->ngaps ? t->ngaps : 1, sizeof(**records));
	for (i = 0; i < t->ngaps; i++)
		total += strlen(t->gaps[i].gap.message) +
			 strlen(t->gaps[i].gap.kind) + 2;
	*text = malloc(total ? total : 1);
	if (!*records || !*text)
		return -1;
	for (i = 0; i < t->ngaps; i++) {
		const struct gap_entry *g = &t->gaps[i];
		struct saved_gap *r = &(*records)[i];
		size_t ml = strlen(g->gap.message), kl = strlen(g->gap.kind);

		r->insn = g->insn;
		r->segment = g->segment;
		r->offset = g->gap.offset;
		r->pt_error = g->gap.pt_error;
		r->error = g->gap.error;
		r->message_len = (uint32_t)ml;
		r->kind_len = (uint32_t)kl;
		memcpy(*text + at, g->gap.message, ml + 1);
		at += ml + 1;
		memcpy(*text + at, g->gap.kind, kl + 1);
		at += kl + 1;
	}
	*text_size = total;
	return 0;
}

static void say(const struct hwtr_history *h, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s/%s: ", hwtr_recording_path(h->recording),
		HISTORY_FILE_NAME);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The largest index saved, in bytes: HWTREC_INDEX_MAX_MB (megabytes; 0
 * saves none), else 1 GB. */
static uint64_t saved_index_limit(void)
{
	const char *s = getenv("HWTREC_INDEX_MAX_MB");
	char *end;
	unsigned long long mb;

	if (s && *s) {
		errno = 0;
		mb = strtoull(s, &end, 10);
		if (!*end && !errno && mb <= UINT64_MAX / 1000000)
			return mb * 1000000;
	}
	return 1000000000ull;
}

void history_file_save(const struct hwtr_history *h)
{
	const char *dir = hwtr_recording_path(h->recording);
	size_t nthreads = h->nthreads, nsec = 1 + SECTIONS_PER_THREAD * nthreads;
	struct out_section *secs = calloc(nsec, sizeof(*secs));
	struct saved_thread *threads = calloc(nthreads ? nthreads : 1, sizeof(*threads));
	struct saved_gap **gap_records = calloc(nthreads ? nthreads : 1, sizeof(void *));
	char **gap_text = calloc(nthreads ? nthreads : 1, sizeof(char *));
	struct section_entry *table = calloc(nsec, sizeof(*table));
	struct segment_store **packed = calloc(nthreads ? nthreads : 1, sizeof(*packed));
	struct stream_identity *streams = NULL;
	struct identity id;
	uint8_t *identity = NULL;
	struct file_header header;
	char *tmp = NULL, *path = NULL;
	uint64_t offset;
	size_t i, k = 0;
	int fd = -1;
	bool ok = false;

	if (!SAVED_INDEX_SUPPORTED || !secs || !threads || !gap_records ||
	    !gap_text || !table || !packed || identity_now(h, &id, &streams) < 0)
		goto out;
	identity = malloc(sizeof(id) + nthreads * sizeof(*streams));
	if (!identity)
		goto out;
	memcpy(identity, &id, sizeof(id));
	memcpy(identity + sizeof(id), streams, nthreads * sizeof(*streams));
	secs[k++] = (struct out_section){
		{ section_identity, 0, 0, sizeof(id) + nthreads * sizeof(*streams), 0, 0 },
		identity, false, -1, false };
	for (i = 0; i < nthreads; i++) {
		struct hwtr_thread *t = h->threads[i];
		struct saved_thread *st = &threads[i];
		struct segment_store *saved;
		size_t text_size = 0;

		st->tid = t->tid;
		st->level_base = t->level_base;
		st->ninsns = t->ninsns;
		st->nchunks = t->nchunks;
		st->nsegments = t->nsegments;
		st->ngaps = t->ngaps;
		st->has_stream = t->stream != NULL;
		if (!last_block_chunk(t, &st->last_chunk))
			goto out;	/* cannot be saved exactly */
		if (t->builder && t->builder->last.have_last) {
			st->have_last = 1;
			st->last_end_ip = t->builder->last.last_end_ip;
			st->last_iclass = (uint8_t)t->builder->last.last_iclass;
			st->last_isa = (uint8_t)t->builder->last.last_isa;
		}
		if (gaps_out(t, &gap_records[i], &gap_text[i], &text_size) < 0)
			goto out;
		secs[k++] = (struct out_section){
			{ section_thread, (uint32_t)i, 0, sizeof(*st), 0, 0 }, st, false, -1, false };
		secs[k++] = (struct out_section){
			{ section_chunks, (uint32_t)i, 0, t->nchunks * sizeof(*t->chunks), 0, 0 },
			t->chunks, false, -1, false };
		if (!t->segment_store)
			goto out;	/* only a finished history is saved */
		/* Saved compressed: a call-heavy history's segments take a
		 * ninth of their size in memory (segment-store.c).  A first
		 * build's store is in that form already. */
		saved = t->segment_store;
		if (!segment_store_packed(saved)) {
			if (segment_store_pack(saved, dir, &packed[i]) < 0) {
				say(h, "not saved: %s", hwtr_last_error());
				goto out;
			}
			saved = packed[i];
		}
		secs[k] = (struct out_section){
			{ section_segments, (uint32_t)i, 0,
			  segment_store_size(saved), 0, 0 },
			segment_store_bytes(saved),
			segment_store_in_file(saved),
			segment_store_fd(saved), false };
		secs[k].crc_known = segment_store_crc(saved, &secs[k].entry.crc);
		k++;
		secs[k++] = (struct out_section){
			{ section_gaps, (uint32_t)i, 0, t->ngaps * sizeof(struct saved_gap), 0, 0 },
			gap_records[i], false, -1, false };
		secs[k++] = (struct out_section){
			{ section_gap_text, (uint32_t)i, 0, text_size, 0, 0 }, gap_text[i], false,
			-1, false };
	}
	offset = sizeof(header) + nsec * sizeof(*table);
	for (i = 0; i < nsec; i++) {
		offset = (offset + SECTION_ALIGN - 1) & ~(uint64_t)(SECTION_ALIGN - 1);
		secs[i].entry.offset = offset;
		offset += secs[i].entry.size;
	}
	if (offset > saved_index_limit()) {
		/* A call-heavy history's segments: do not fill the user's disk
		 * behind their back (5 GB for a 28 MB trace of 1.2 G calls).
		 * Said before the checksums, which would read it all (0.35 s
		 * of a 1.5 GB index). */
		say(h, "not saved: it would take %.1f MB, more than the limit of "
		    "%.1f MB (HWTREC_INDEX_MAX_MB)", (double)offset / 1e6,
		    (double)saved_index_limit() / 1e6);
		goto out;
	}
	for (i = 0; i < nsec; i++) {
		if (!secs[i].crc_known)
			secs[i].entry.crc = !secs[i].entry.size ? 0
			: secs[i].in_file
			? page_release_crc32(0, secs[i].bytes, secs[i].entry.size)
			: integrity_crc32(0, secs[i].bytes, secs[i].entry.size);
		table[i] = secs[i].entry;
	}
	memset(&header, 0, sizeof(header));
	memcpy(header.magic, FILE_MAGIC, sizeof(header.magic));
	header.format = HISTORY_FILE_FORMAT;
	header.index_version = HISTORY_INDEX_VERSION;
	header.chunk_size = sizeof(struct chunk);
	header.segment_size = SEGMENT_GROUP;
	header.gap_size = sizeof(struct saved_gap);
	header.thread_size = sizeof(struct saved_thread);
	header.identity_size = sizeof(struct identity);
	header.nsections = (uint32_t)nsec;
	header.file_size = offset;
	header.table_crc = integrity_crc32(0, table, nsec * sizeof(*table));
	header.header_crc = integrity_crc32(0, &header, sizeof(header));

	if (!(path = hwtr_path_join(dir, HISTORY_FILE_NAME)) ||
	    !(tmp = hwtr_path_join(dir, HISTORY_FILE_NAME ".XXXXXX")))
		goto out;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		/* A recording the user may only read keeps no index. */
		if (errno != EACCES && errno != EROFS && errno != EPERM)
			say(h, "not saved: %s", strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	for (i = 0; i < nsec; i++)
		if (secs[i].entry.size && write_section(fd, &secs[i]))
			goto write_failed;
	if (write_at(fd, sizeof(header), table, nsec * sizeof(*table)) ||
	    write_at(fd, 0, &header, sizeof(header)) ||
	    ftruncate(fd, (off_t)header.file_size) || fchmod(fd, 0644) ||
	    close(fd)) {
		fd = -1;
		goto write_failed;
	}
	fd = -1;
	if (rename(tmp, path) == 0) {
		ok = true;
		goto out;
	}
write_failed:
	say(h, "not saved: %s", strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	if (tmp && !ok)
		unlink(tmp);
	free(tmp);
	free(path);
	for (i = 0; gap_records && gap_text && i < nthreads; i++) {
		free(gap_records[i]);
		free(gap_text[i]);
	}
	for (i = 0; packed && i < nthreads; i++)
		segment_store_free(packed[i]);
	free(packed);
	free(gap_records);
	free(gap_text);
	free(threads);
	free(secs);
	free(table);
	free(streams);
	free(identity);
}

/* ------------------------------------------------------------- loading */

struct in_file {
	int fd;
	struct file_header header;
	struct section_entry *table;
	uint8_t *map;		/* the whole file, read-only */
	char *reason;		/* why it cannot be used, for the message */
};

static int reject(struct in_file *f, const char *fmt, ...)
{
	va_list ap;

	if (!f->reason) {
		va_start(ap, fmt);
		if (vasprintf(&f->reason, fmt, ap) < 0)
			f->reason = NULL;
		va_end(ap);
	}
	return -1;
}

static const char *section_name(uint32_t kind)
{
	static const char *const names[] = {
		"?", "identity", "thread", "chunks", "segments", "gaps", "gap text"
	};

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

/* Section K, which must be of KIND for THREAD and SIZE bytes: where it is
 * in the mapped file, its checksum checked; NULL if it is not so. */
static const uint8_t *section(struct in_file *f, size_t k, uint32_t kind,
			      uint32_t thread, uint64_t size)
{
	const struct section_entry *e = &f->table[k];
	uint32_t crc;

	if (e->kind != kind || e->thread != thread || e->size != size)
		return reject(f, "damaged: section %zu is not the %s of thread %u "
			      "(%llu bytes) it should be", k, section_name(kind),
			      thread, (unsigned long long)size), NULL;
	if (e->offset < sizeof(f->header) || e->offset % SECTION_ALIGN ||
	    e->offset > f->header.file_size || size > f->header.file_size - e->offset)
		return reject(f, "damaged: section %zu (%s) at offset %llu is not "
			      "aligned or runs past the end", k, section_name(kind),
			      (unsigned long long)e->offset), NULL;
	/* Its pages are given back as they are checked: a saved index is
	 * used where it is needed, never read whole into memory. */
	crc = size ? page_release_crc32(0, f->map + e->offset, (size_t)size) : 0;
	if (crc != e->crc)
		return reject(f, "damaged: section %zu (%s of thread %u) at offset "
			      "%llu has CRC-32 0x%08x, the table says 0x%08x", k,
			      section_name(kind), thread,
			      (unsigned long long)e->offset, crc, e->crc), NULL;
	return f->map + e->offset;
}

/* The same, copied to DST. */
static int read_section(struct in_file *f, size_t k, uint32_t kind,
			uint32_t thread, void *dst, uint64_t size)
{
	const uint8_t *p = section(f, k, kind, thread, size);

	if (!p)
		return -1;
	memcpy(dst, p, (size_t)size);
	return 0;
}

static int read_header(struct in_file *f, const struct stat *st)
{
	struct file_header *hd = &f->header;
	uint32_t crc, want;
	ssize_t n = pread(f->fd, hd, sizeof(*hd), 0);
	size_t table_size;

	if (n != (ssize_t)sizeof(*hd) || memcmp(hd->magic, FILE_MAGIC, sizeof(hd->magic)))
		return reject(f, "damaged: not a history index (%lld bytes, no "
			      "header)", (long long)st->st_size);
	want = hd->header_crc;
	hd->header_crc = 0;
	crc = integrity_crc32(0, hd, sizeof(*hd));
	hd->header_crc = want;
	if (crc != want)
		return reject(f, "damaged: header CRC-32 0x%08x, it says 0x%08x", crc,
			      want);
	if (hd->format != HISTORY_FILE_FORMAT || hd->index_version != HISTORY_INDEX_VERSION)
		return reject(f, "another version: format %u, index version %u (this "
			      "library: format %u, index version %u)", hd->format,
			      hd->index_version, HISTORY_FILE_FORMAT,
			      HISTORY_INDEX_VERSION);
	if (hd->chunk_size != sizeof(struct chunk) ||
	    hd->segment_size != SEGMENT_GROUP ||
	    hd->gap_size != sizeof(struct saved_gap) ||
	    hd->thread_size != sizeof(struct saved_thread) ||
	    hd->identity_size != sizeof(struct identity))
		return reject(f, "another version: record sizes chunk %u, segment "
			      "group %u (this library: %zu, %d)", hd->chunk_size,
			      hd->segment_size, sizeof(struct chunk),
			      SEGMENT_GROUP);
	if ((uint64_t)st->st_size != hd->file_size)
		return reject(f, "damaged: %lld bytes, the header says %llu (%s)",
			      (long long)st->st_size,
			      (unsigned long long)hd->file_size,
			      (uint64_t)st->st_size < hd->file_size ? "cut"
								    : "extended");
	if (hd->nsections == 0 || hd->nsections > (hd->file_size - sizeof(*hd)) /
							  sizeof(*f->table))
		return reject(f, "damaged: %u sections in %llu bytes", hd->nsections,
			      (unsigned long long)hd->file_size);
	/* The arrays are used where they are in the file, read-only, and only
	 * the pages in use stay resident (the checks give theirs back).  The
	 * saver replaces the file (rename), never writes into it, so what
	 * was checked is what is read later; a file written into in place
	 * while it is open is not guarded against (Linux shows such writes
	 * in a private mapping too), beyond reads staying in bounds. */
	f->map = mmap(NULL, (size_t)hd->file_size, PROT_READ, MAP_PRIVATE, f->fd, 0);
	if (f->map == MAP_FAILED) {
		f->map = NULL;
		return reject(f, "cannot map it: %s", strerror(errno));
	}
	table_size = hd->nsections * sizeof(*f->table);
	f->table = (struct section_entry *)(f->map + sizeof(*hd));
	crc = integrity_crc32(0, f->table, table_size);
	if (crc != hd->table_crc)
		return reject(f, "damaged: section table CRC-32 0x%08x, the header "
			      "says 0x%08x", crc, hd->table_crc);
	return 0;
}

static int read_identity(struct in_file *f, const struct hwtr_history *h)
{
	const struct hwtr_recording_info *info = hwtr_recording_info(h->recording);
	struct stream_identity *now_streams = NULL;
	struct identity now, *saved;
	uint8_t *bytes;
	uint64_t size;
	const char *why;
	char buf[512];
	int err;

	if (f->table[0].kind != section_identity ||
	    f->table[0].size < sizeof(struct identity) ||
	    (f->table[0].size - sizeof(struct identity)) % sizeof(*now_streams) ||
	    f->table[0].size > f->header.file_size)
		return reject(f, "damaged: no identity section");
	size = f->table[0].size;
	if (!(bytes = malloc(size)))
		return reject(f, "out of memory");
	if (read_section(f, 0, section_identity, 0, bytes, size)) {
		free(bytes);
		return -1;
	}
	saved = (struct identity *)bytes;
	if ((err = identity_now(h, &now, &now_streams)) < 0) {
		err = reject(f, "%s", hwtr_last_error());
	} else if (saved->nthreads != now.nthreads ||
		   size != sizeof(now) + now.nthreads * sizeof(*now_streams)) {
		err = reject(f, "stale: manifest.json changed since it was saved");
	} else if ((why = identity_differs(saved,
					   (const struct stream_identity *)(bytes + sizeof(now)),
					   &now, now_streams, info, buf, sizeof(buf)))) {
		err = reject(f, "%s", why);
	}
	free(now_streams);
	free(bytes);
	return err;
}

/* The saved gaps of thread T (records read), their strings from TEXT. */
static int gaps_in(struct in_file *f, struct hwtr_thread *t,
		   const struct saved_gap *records, const char *text, size_t size)
{
	size_t i, at = 0;

	for (i = 0; i < t->ngaps; i++) {
		const struct saved_gap *r = &records[i];
		struct gap_entry *g = &t->gaps[i];
		size_t need = (size_t)r->message_len + r->kind_len + 2;
		char *s;

		if (need > size - at || text[at + r->message_len] ||
		    text[at + r->message_len + 1 + r->kind_len])
			return reject(f, "damaged: gap %zu of thread %u: text out of "
				      "bounds", i, t->tid);
		/* One allocation holds both: releasing the message (gaps.c,
		 * history.c) releases the kind with it. */
		if (!(s = malloc(need)))
			return reject(f, "out of memory");
		memcpy(s, text + at, need);
		at += need;
		g->insn = r->insn;
		g->segment = r->segment;
		g->gap.offset = r->offset;
		g->gap.pt_error = r->pt_error;
		g->gap.error = r->error;
		g->gap.message = s;
		g->gap.kind = s + r->message_len + 1;
	}
	if (at != size)
		return reject(f, "damaged: thread %u's gap text has %zu bytes, its "
			      "gaps use %zu", t->tid, size, at);
	return 0;
}

static bool link_ok(uint32_t link, uint64_t nsegments)
{
	return link <= nsegments;
}

/* What the lookups rely on holds for segment NUMBER of thread CTX (the
 * store checks the order): numbers and links in range, and a level that
 * the thread's level base keeps at 0 or more.  Each group of segments is
 * checked at its first read, not when the file is opened: decoding them all
 * took about 15 ns a segment, seconds for a call-heavy billion
 * instructions; the checksums were checked at the open. */
static int segment_ok(void *ctx, uint64_t number, const struct segment *s)
{
	const struct hwtr_thread *t = ctx;

	if (s->insn_begin < 1 || s->insn_begin > t->ninsns + 1 ||
	    !link_ok(s->up, t->nsegments) || !link_ok(s->prev, t->nsegments) ||
	    !link_ok(s->next, t->nsegments))
		return hwtr_fail(hwtr_err_format, "segment %llu out of order or "
				 "range", (unsigned long long)number);
	/* A level moves by one per call or return at most. */
	if ((uint64_t)(s->level < 0 ? -(int64_t)s->level : s->level) > number ||
	    (int64_t)s->level + t->level_base < 0)
		return hwtr_fail(hwtr_err_format, "segment %llu at level %d "
				 "(level base %d)", (unsigned long long)number,
				 s->level, t->level_base);
	return 0;
}

/* A group of thread CTX's segments did not pass (WHY): its segments read
 * as empty.  Said once; the file goes, so that the next open builds the
 * history again. */
static void segments_damaged(void *ctx, const char *why)
{
	struct hwtr_thread *t = ctx;
	struct hwtr_history *h = t->history;
	char *path;

	if (h->index_damage_told)
		return;
	h->index_damage_told = true;
	say(h, "damaged: thread %u's segments: %s (under good checksums); the "
	    "history shown may be wrong from here: the file is removed and "
	    "will be built again at the next open", t->tid, why);
	if ((path = hwtr_path_join(hwtr_recording_path(h->recording),
				   HISTORY_FILE_NAME))) {
		unlink(path);
		free(path);
	}
}

static int contents_ok(struct in_file *f, const struct hwtr_thread *t)
{
	struct page_release chunks_read = { 0 };
	size_t i, k;

	for (i = 0; i < t->nchunks; i++) {
		const struct chunk *c = &t->chunks[i];

		page_release_before(&chunks_read, t->chunks, c);

		if (c->first_insn < 1 || c->first_insn > t->ninsns + 1 ||
		    (i && c->first_insn < t->chunks[i - 1].first_insn) ||
		    (c->offset != NO_START && c->offset >= t->stream_size))
			return reject(f, "damaged: thread %u chunk %zu out of order "
				      "or range", t->tid, i);
		if (!code_ranges_valid(&c->ranges))
			return reject(f, "damaged: thread %u chunk %zu: its code "
				      "ranges are not sorted or too many", t->tid, i);
	}
	page_release_all_before(&chunks_read, t->chunks, &t->chunks[t->nchunks]);
	if (t->ninsns && !t->nchunks)
		return reject(f, "damaged: thread %u has instructions but no chunk",
			      t->tid);
	for (i = 0; i < t->ngaps; i++) {
		const struct gap_entry *g = &t->gaps[i];
		struct segment s;

		if (g->insn < 1 || g->insn > t->ninsns || g->segment < 1 ||
		    g->segment > t->nsegments || (i && g->insn <= t->gaps[i - 1].insn))
			return reject(f, "damaged: thread %u gap %zu out of order or "
				      "range", t->tid, i);
		segment_read(t, g->segment, &s);
		if (!(s.flags & HWTR_SEG_GAP) || s.insn_begin != g->insn)
			return reject(f, "damaged: thread %u gap %zu out of order or "
				      "range", t->tid, i);
	}
	/* A chunk with no trace holds gaps only, as many as its
	 * instructions: a reader fills them from the gaps, not a decode. */
	for (i = 0, k = 0; i < t->nchunks; i++) {
		uint64_t first = t->chunks[i].first_insn;
		uint64_t end = i + 1 < t->nchunks ? t->chunks[i + 1].first_insn
						  : t->ninsns + 1;
		size_t n = 0;

		while (k < t->ngaps && t->gaps[k].insn < first)
			k++;
		while (k + n < t->ngaps && t->gaps[k + n].insn < end)
			n++;
		if (t->chunks[i].offset == NO_START && n != end - first)
			return reject(f, "damaged: thread %u chunk %zu has no trace "
				      "but %llu instructions and %zu gaps", t->tid,
				      i, (unsigned long long)(end - first), n);
	}
	return 0;
}

/* Array of COUNT elements of SIZE, unless the file's counts are absurd. */
static void *alloc_array(struct in_file *f, uint64_t count, size_t size)
{
	if (count > f->header.file_size / (size ? size : 1) + 1)
		return reject(f, "damaged: counts larger than the file"), NULL;
	return calloc(count ? count : 1, size);
}

static int thread_in(struct in_file *f, struct hwtr_thread *t, size_t i)
{
	size_t k = 1 + i * SECTIONS_PER_THREAD;
	struct saved_gap *records = NULL;
	char *text = NULL;
	const uint8_t *segments;
	struct saved_thread st;
	struct builder *b;
	int opened;

	if (read_section(f, k, section_thread, (uint32_t)i, &st, sizeof(st)))
		return -1;
	if (st.tid != t->tid)
		return reject(f, "stale: thread %zu is tid %u, the manifest says %u",
			      i, st.tid, t->tid);
	if ((opened = history_thread_open(t)) < 0)
		return reject(f, "%s", hwtr_last_error());
	if ((opened == 0) != (st.has_stream != 0))
		return reject(f, "stale: thread %u's stream changed", t->tid);
	if (opened == 1 && (st.ninsns || st.nchunks || st.nsegments || st.ngaps))
		return reject(f, "damaged: thread %u has no trace but a history",
			      t->tid);
	t->ninsns = st.ninsns;
	t->level_base = st.level_base;
	if (st.nchunks > f->header.file_size / sizeof(*t->chunks) ||
	    st.nsegments > UINT32_MAX) {
		reject(f, "damaged: counts larger than the file");
		goto fail;
	}
	t->arrays_mapped = true;
	if (!(t->chunks = (struct chunk *)section(f, k + 1, section_chunks, (uint32_t)i,
						  st.nchunks * sizeof(*t->chunks))) ||
	    !(segments = section(f, k + 2, section_segments, (uint32_t)i,
				 f->table[k + 2].size)))
		goto fail;
	t->nchunks = st.nchunks;
	t->nsegments = st.nsegments;
	if (st.level_base < 0) {
		reject(f, "damaged: thread %u's level base %d", t->tid,
		       st.level_base);
		goto fail;
	}
	if (segment_store_open_mapped(segments, f->table[k + 2].size,
				      st.nsegments, &(struct segment_checker){
					      segment_ok, segments_damaged, t,
					      true },
				      &t->segment_store) < 0) {
		reject(f, "damaged: thread %u's segments: %s", t->tid,
		       hwtr_last_error());
		goto fail;
	}
	if (!(t->gaps = alloc_array(f, st.ngaps, sizeof(*t->gaps))) ||
	    !(records = alloc_array(f, st.ngaps, sizeof(*records))))
		goto fail;
	if (read_section(f, k + 3, section_gaps, (uint32_t)i, records,
			 st.ngaps * sizeof(*records)) ||
	    f->table[k + 4].size > f->header.file_size ||
	    !(text = malloc(f->table[k + 4].size + 1)) ||
	    read_section(f, k + 4, section_gap_text, (uint32_t)i, text,
			 f->table[k + 4].size))
		goto fail;
	t->ngaps = st.ngaps;
	if (gaps_in(f, t, records, text, f->table[k + 4].size) ||
	    contents_ok(f, t))
		goto fail;
	free(records);
	free(text);
	if (!(b = t->builder))
		return 0;
	/* Enough of the index pass for hwtr_thread_callstack_next; no restart
	 * point, so hwtr_history_extend builds such a thread again (releasing
	 * the mapped arrays first: they are never grown or written). */
	b->cap_gaps = t->ngaps;
	b->min_level = -t->level_base;
	b->min_upto = t->nsegments;
	if (st.have_last) {
		unsigned epoch = 0;

		if (st.last_chunk >= t->nchunks ||
		    t->chunks[st.last_chunk].offset == NO_START ||
		    history_chunk_image(t, t->chunks[st.last_chunk].offset, &epoch) < 0)
			return reject(f, "damaged: thread %u's last block", t->tid);
		b->last.have_last = true;
		b->last.last_end_ip = st.last_end_ip;
		b->last.last_iclass = (enum hwtr_insn_class)st.last_iclass;
		b->last.last_isa = (enum hwtr_isa)st.last_isa;
		b->last.last_epoch = epoch;
	}
	return 0;
fail:
	if (!f->reason)
		reject(f, "out of memory");
	free(records);
	free(text);
	return -1;
}

int history_file_load(struct hwtr_history *h)
{
	const struct hwtr_recording_info *info = hwtr_recording_info(h->recording);
	struct in_file f = { .fd = -1 };
	struct stat st;
	size_t i;
	int err;

	if (!SAVED_INDEX_SUPPORTED)
		return 0;
	err = recording_file_open(hwtr_recording_path(h->recording),
				  HISTORY_FILE_NAME, &f.fd, &st);
	if (err == -hwtr_err_notfound)
		return 0;
	if (err < 0)
		reject(&f, "%s", hwtr_last_error());
	else if (!read_header(&f, &st) && !read_identity(&f, h) &&
		 f.header.nsections == 1 + SECTIONS_PER_THREAD * info->nthreads) {
		for (i = 0; i < info->nthreads; i++)
			if (history_add_thread(h, i) < 0 ||
			    thread_in(&f, h->threads[i], i) < 0)
				break;
	} else {
		reject(&f, "damaged: %u sections for %zu threads",
		       f.header.nsections, info->nthreads);
	}
	if (f.fd >= 0)
		close(f.fd);
	if (f.reason || h->nthreads != info->nthreads) {
		say(h, "saved index not used (%s); building it again",
		    f.reason ? f.reason : "out of memory");
		free(f.reason);
		for (i = 0; i < h->nthreads; i++) {
			history_thread_release(h->threads[i]);
			free(h->threads[i]);
		}
		h->nthreads = 0;
		if (f.map)
			munmap(f.map, (size_t)f.header.file_size);
		return 0;
	}
	h->index_map = f.map;
	h->index_map_size = (size_t)f.header.file_size;
	h->index_source = hwtr_index_saved;
	return 1;
}
