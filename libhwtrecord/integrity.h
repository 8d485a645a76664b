/* integrity.h: what a finished recording says about its own files.
 *
 * When the recorder finishes, the writer puts each thread's stream length
 * and CRC-32 in the manifest (threads[].stream_size, stream_crc32), and those
 * of every other file it wrote ("files": the sideband, the core, saved
 * objects and trace buffers).  A reader of a finished recording checks them
 * all when it opens it (the data log when it is first read:
 * hwtr_values_open): a file cut (even on a packet boundary), grown,
 * changed, swapped with another or replaced is refused with its name, never
 * read as a shorter history that looks whole.  Recordings still being
 * written carry none of this and are read as they are.
 *
 * The checksum is zlib's CRC-32 (the gzip and PNG one, crc32_z): about
 * 4 GB/s on this machine, so a 1 GB stream costs a quarter of a second.
 */
#ifndef HWTR_INTEGRITY_H
#define HWTR_INTEGRITY_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32 of BYTES continued from CRC (0 to start). */
uint32_t integrity_crc32(uint32_t crc, const void *bytes, size_t size);

/* CRC-32 of A then B, from A's CRC1 and B's CRC2 and LEN2 bytes. */
uint32_t integrity_crc32_combine(uint32_t crc1, uint32_t crc2, uint64_t len2);

/* Length and CRC-32 of what FD holds from its start (PATH for messages). */
int integrity_crc32_of_fd(int fd, const char *path, uint64_t *size,
			  uint32_t *crc);

/* SIZE bytes at BYTES are what the manifest's FIELD says of file PATH:
 * WANT_SIZE bytes with CRC-32 WANT_CRC.  The refusal names the file, both
 * lengths or both checksums, and the field. */
int integrity_check(const char *path, const char *field, const uint8_t *bytes,
		    uint64_t size, uint64_t want_size, uint32_t want_crc);

/* The same for BYTES mapped read-only from the file: its pages are given
 * back as the checksum passes them (page-release.h), so that checking a
 * stream of gigabytes does not leave it resident. */
int integrity_check_mapped(const char *path, const char *field,
			   const uint8_t *bytes, uint64_t size,
			   uint64_t want_size, uint32_t want_crc);

/* The same for a file read from FD. */
int integrity_check_fd(int fd, const char *path, const char *field,
		       uint64_t want_size, uint32_t want_crc);

#endif
