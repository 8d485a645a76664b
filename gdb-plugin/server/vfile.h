/* vfile.h: GDB's host I/O packets (vFile:), typed.
 *
 * GDB reads the target's files through these when its sysroot is
 * "target:" (its default on a remote target): the executable, the shared
 * libraries and their separate debug files.  A stub that does not answer
 * vFile:open makes GDB warn "remote target does not support file
 * transfer, attempting to access files from local filesystem" and read
 * whatever sits at those paths here.  The one place that knows the
 * packets' syntax (GDB's manual, "Host I/O Packets"): a request becomes a
 * struct vfile_request, each reply a typed call.  What a request does is
 * served-files.c's; which file a name stands for, too.
 *
 *   vFile:setfs:PID          -> F0 (one file system: the recording's)
 *   vFile:open:HEX,FLAGS,MODE -> Ffd | F-1,errno
 *   vFile:pread:FD,COUNT,OFF -> Fcount;BYTES (binary, escaped)
 *   vFile:fstat:FD           -> F40;STRUCT (GDB's struct stat, big-endian)
 *   vFile:close:FD           -> F0
 *   vFile:readlink:HEX       -> F-1,errno (nothing is a link)
 *   vFile:pwrite, vFile:unlink -> F-1,EROFS (the recording does not change)
 *
 * Numbers are hex; errno values are GDB's File-I/O ones.
 */
#ifndef HWTREC_VFILE_H
#define HWTREC_VFILE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

struct rsp_conn;

enum vfile_kind {
	vfile_unknown = 0,	/* another vFile: packet: an empty reply */
	vfile_malformed,	/* bad arguments: F-1,EINVAL */
	vfile_setfs,
	vfile_open,
	vfile_pread,
	vfile_pwrite,
	vfile_close,
	vfile_fstat,
	vfile_unlink,
	vfile_readlink,
};

/* File-I/O open flags (GDB's, not the host's). */
#define VFILE_O_ACCMODE 0x3	/* O_RDONLY is 0 */
#define VFILE_O_WRITING 0xe0b	/* WRONLY, RDWR, APPEND, CREAT, TRUNC, EXCL */

struct vfile_request {
	enum vfile_kind kind;
	const char *error;	/* vfile_malformed: what was wrong */
	int64_t pid;		/* setfs */
	char path[PATH_MAX];	/* open, unlink, readlink */
	uint64_t flags, mode;	/* open */
	int64_t fd;		/* pread, pwrite, close, fstat */
	uint64_t count, offset;	/* pread */
};

/* The typed form of a vFile: packet's PAYLOAD (LEN bytes). */
void vfile_parse(const char *payload, size_t len, struct vfile_request *request);

/* The most bytes one pread reply carries (escaped, they may double). */
size_t vfile_max_data(void);

/* Each sends one reply and returns 0, or -1 if the connection failed. */
int vfile_reply_result(struct rsp_conn *conn, int64_t result);
/* F-1,ERRNO: ERRNO is the host's, translated to GDB's File-I/O value. */
int vfile_reply_errno(struct rsp_conn *conn, int host_errno);
int vfile_reply_data(struct rsp_conn *conn, const void *bytes, size_t size);
int vfile_reply_stat(struct rsp_conn *conn, const struct stat *st);

#endif /* HWTREC_VFILE_H */
