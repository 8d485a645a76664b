/* integrity.c: lengths and checksums of a finished recording's files (see
 * the header). */
#define _LARGEFILE64_SOURCE	/* zlib's crc32_combine64 */
#include "integrity.h"

#include "error.h"
#include "page-release.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#ifdef HWTR_HAVE_ISAL
#include <isa-l/crc.h>
#endif

uint32_t integrity_crc32(uint32_t crc, const void *bytes, size_t size)
{
#ifdef HWTR_HAVE_ISAL
	/* zlib's crc32 (the same polynomial, reflected, inverted before and
	 * after), about 5 times faster: a 250 MB core is checked at every
	 * open.  As zlib's, no bytes at NULL are the initial value. */
	if (!bytes)
		return 0;
	return crc32_gzip_refl(crc, bytes, size);
#else
	return (uint32_t)crc32_z(crc, bytes, size);
#endif
}

uint32_t integrity_crc32_combine(uint32_t crc1, uint32_t crc2, uint64_t len2)
{
	return (uint32_t)crc32_combine64(crc1, crc2, (z_off64_t)len2);
}

int integrity_crc32_of_fd(int fd, const char *path, uint64_t *size,
			  uint32_t *crc)
{
	enum { chunk = 1 << 16 };
	unsigned char *buf = malloc(chunk);
	uint64_t done = 0;
	uint32_t c = 0;
	ssize_t n;

	if (!buf)
		return hwtr_fail(hwtr_err_nomem, "%s: out of memory", path);
	while ((n = pread(fd, buf, chunk, (off_t)done)) > 0) {
		c = integrity_crc32(c, buf, (size_t)n);
		done += (uint64_t)n;
	}
	free(buf);
	if (n < 0)
		return hwtr_fail(hwtr_err_io, "%s: read failed at offset %llu: %s",
				 path, (unsigned long long)done, strerror(errno));
	*size = done;
	*crc = c;
	return 0;
}

static int compare(const char *path, const char *field, uint64_t size,
		   uint32_t crc, uint64_t want_size, uint32_t want_crc)
{
	if (size != want_size)
		return hwtr_fail(hwtr_err_format,
				 "%s: %llu bytes, but the recorder finished it "
				 "at %llu bytes (manifest.json %s): the file was "
				 "%s after recording", path,
				 (unsigned long long)size,
				 (unsigned long long)want_size, field,
				 size < want_size ? "cut" : "extended");
	if (crc != want_crc)
		return hwtr_fail(hwtr_err_format,
				 "%s: CRC-32 0x%08x, but the recorder finished "
				 "it with 0x%08x (manifest.json %s): the file was "
				 "changed or replaced after recording", path, crc,
				 want_crc, field);
	return 0;
}

int integrity_check(const char *path, const char *field, const uint8_t *bytes,
		    uint64_t size, uint64_t want_size, uint32_t want_crc)
{
	/* The length first: a file cut is not worth a checksum. */
	if (size != want_size)
		return compare(path, field, size, 0, want_size, want_crc);
	return compare(path, field, size,
		       size ? integrity_crc32(0, bytes, (size_t)size) : 0,
		       want_size, want_crc);
}

int integrity_check_mapped(const char *path, const char *field,
			   const uint8_t *bytes, uint64_t size,
			   uint64_t want_size, uint32_t want_crc)
{
	if (size != want_size)
		return compare(path, field, size, 0, want_size, want_crc);
	return compare(path, field, size,
		       size ? page_release_crc32(0, bytes, (size_t)size) : 0,
		       want_size, want_crc);
}

int integrity_check_fd(int fd, const char *path, const char *field,
		       uint64_t want_size, uint32_t want_crc)
{
	uint64_t size = 0;
	uint32_t crc = 0;
	int err = integrity_crc32_of_fd(fd, path, &size, &crc);

	return err ? err : compare(path, field, size, crc, want_size, want_crc);
}
