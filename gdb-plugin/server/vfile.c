/* vfile.c: GDB's host I/O packets (see vfile.h), as GDB's manual, "Host
 * I/O Packets" and "struct stat", describes them. */
#include "vfile.h"

#include "rsp.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool starts(const char *p, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(p, prefix, n);
}

/* Up to MAX comma-separated hex numbers from P (to END), a leading '-'
 * allowed; the count, or -1 if malformed. */
static int hex_list(const char *p, const char *end, int64_t *v, int max)
{
	int n = 0;

	while (p < end && n < max) {
		bool negative = *p == '-';
		uint64_t x = 0;
		int digits = 0;

		p += negative;
		for (; p < end && rsp_hex_value(*p) >= 0; p++, digits++) {
			if (x >> 60)
				return -1;
			x = x << 4 | (uint64_t)rsp_hex_value(*p);
		}
		if (!digits || x > INT64_MAX)
			return -1;
		v[n++] = negative ? -(int64_t)x : (int64_t)x;
		if (p < end && *p++ != ',')
			return -1;
		if (p == end && p[-1] == ',')
			return -1;
	}
	return p == end ? n : -1;
}

/* A hex-encoded path from P up to the first ',' or END into R->path; where
 * it ended, or NULL. */
static const char *hex_path(const char *p, const char *end,
			    struct vfile_request *r)
{
	const char *stop = memchr(p, ',', (size_t)(end - p));
	size_t n;

	if (!stop)
		stop = end;
	n = (size_t)(stop - p);
	if (n % 2 || n / 2 >= sizeof(r->path) ||
	    !rsp_unhex(p, n / 2, (uint8_t *)r->path))
		return NULL;
	r->path[n / 2] = '\0';
	if (strlen(r->path) != n / 2)	/* a NUL inside */
		return NULL;
	return stop;
}

static void malformed(struct vfile_request *r, const char *why)
{
	r->kind = vfile_malformed;
	r->error = why;
}

void vfile_parse(const char *payload, size_t len, struct vfile_request *r)
{
	const char *end = payload + len, *p;
	int64_t v[3];

	memset(r, 0, offsetof(struct vfile_request, path));
	r->path[0] = '\0';
	r->kind = vfile_unknown;
	if (starts(payload, len, "vFile:setfs:")) {
		p = payload + strlen("vFile:setfs:");
		if (hex_list(p, end, v, 1) != 1)
			return malformed(r, "vFile:setfs: bad pid");
		r->kind = vfile_setfs;
		r->pid = v[0];
	} else if (starts(payload, len, "vFile:open:")) {
		p = hex_path(payload + strlen("vFile:open:"), end, r);
		if (!p || p == end || hex_list(p + 1, end, v, 2) != 2 || v[0] < 0 ||
		    v[1] < 0)
			return malformed(r, "vFile:open: bad path, flags or mode");
		r->kind = vfile_open;
		r->flags = (uint64_t)v[0];
		r->mode = (uint64_t)v[1];
	} else if (starts(payload, len, "vFile:pread:")) {
		p = payload + strlen("vFile:pread:");
		if (hex_list(p, end, v, 3) != 3 || v[1] < 0 || v[2] < 0)
			return malformed(r, "vFile:pread: bad fd, count or offset");
		r->kind = vfile_pread;
		r->fd = v[0];
		r->count = (uint64_t)v[1];
		r->offset = (uint64_t)v[2];
	} else if (starts(payload, len, "vFile:pwrite:")) {
		r->kind = vfile_pwrite;	/* refused whatever it says */
	} else if (starts(payload, len, "vFile:close:") ||
		   starts(payload, len, "vFile:fstat:")) {
		bool close = payload[6] == 'c';

		p = payload + strlen(close ? "vFile:close:" : "vFile:fstat:");
		if (hex_list(p, end, v, 1) != 1)
			return malformed(r, "vFile: bad fd");
		r->kind = close ? vfile_close : vfile_fstat;
		r->fd = v[0];
	} else if (starts(payload, len, "vFile:unlink:") ||
		   starts(payload, len, "vFile:readlink:")) {
		bool unlink = payload[6] == 'u';

		p = payload + strlen(unlink ? "vFile:unlink:" : "vFile:readlink:");
		if (hex_path(p, end, r) != end)
			return malformed(r, "vFile: bad path");
		r->kind = unlink ? vfile_unlink : vfile_readlink;
	}
}

size_t vfile_max_data(void)
{
	/* "F" + count + ";" and every byte escaped in the worst case. */
	return RSP_MAX_PAYLOAD / 2 - 32;
}

int vfile_reply_result(struct rsp_conn *conn, int64_t result)
{
	char text[32];

	if (result < 0)
		snprintf(text, sizeof(text), "F-%" PRIx64, (uint64_t)-result);
	else
		snprintf(text, sizeof(text), "F%" PRIx64, (uint64_t)result);
	return rsp_reply_text(conn, text);
}

/* GDB's File-I/O errno values are Linux's for the ones they share, but
 * for ENOSYS and ENAMETOOLONG; anything else is EUNKNOWN. */
static int fileio_errno(int e)
{
	switch (e) {
	case EPERM: case ENOENT: case EINTR: case EIO: case EBADF:
	case EACCES: case EFAULT: case EBUSY: case EEXIST: case ENODEV:
	case ENOTDIR: case EISDIR: case EINVAL: case ENFILE: case EMFILE:
	case EFBIG: case ENOSPC: case ESPIPE: case EROFS:
		return e;
	case ENOSYS:
		return 88;
	case ENAMETOOLONG:
		return 91;
	default:
		return 9999;
	}
}

int vfile_reply_errno(struct rsp_conn *conn, int host_errno)
{
	char text[32];

	snprintf(text, sizeof(text), "F-1,%x", fileio_errno(host_errno));
	return rsp_reply_text(conn, text);
}

int vfile_reply_data(struct rsp_conn *conn, const void *bytes, size_t size)
{
	char head[32];
	size_t n = (size_t)snprintf(head, sizeof(head), "F%zx;", size);
	char *payload = malloc(n + size + 1);
	int rc;

	if (!payload)
		return vfile_reply_errno(conn, ENOMEM);
	memcpy(payload, head, n);
	if (size)
		memcpy(payload + n, bytes, size);
	rc = rsp_send(conn, payload, n + size);	/* rsp_frame escapes */
	free(payload);
	return rc;
}

static void be32(uint8_t *p, uint64_t v)
{
	if (v > UINT32_MAX)
		v = UINT32_MAX;
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void be64(uint8_t *p, uint64_t v)
{
	be32(p, v >> 32);
	be32(p + 4, v & UINT32_MAX);
}

/* GDB's struct stat (its manual, "struct stat"): 64 bytes, big-endian:
 * dev, ino, mode, nlink, uid, gid, rdev (4 each), size, blksize, blocks
 * (8 each), atime, mtime, ctime (4 each). */
int vfile_reply_stat(struct rsp_conn *conn, const struct stat *st)
{
	uint8_t s[64];

	memset(s, 0, sizeof(s));
	be32(s + 0, (uint64_t)st->st_dev);
	be32(s + 4, (uint64_t)st->st_ino);
	be32(s + 8, (uint64_t)st->st_mode & (S_IFMT | 0777));
	be32(s + 12, (uint64_t)st->st_nlink);
	be64(s + 28, (uint64_t)st->st_size);
	be64(s + 36, (uint64_t)st->st_blksize);
	be64(s + 44, (uint64_t)st->st_blocks);
	be32(s + 52, (uint64_t)st->st_atime);
	be32(s + 56, (uint64_t)st->st_mtime);
	be32(s + 60, (uint64_t)st->st_ctime);
	return vfile_reply_data(conn, s, sizeof(s));
}
