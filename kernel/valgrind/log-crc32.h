/* log-crc32.h: CRC-32 (IEEE, as zlib's crc32) of the data log, which the
 * seek table carries (values-format.h, "Seeking").  No libc: the Valgrind
 * tool uses it, and a unit test checks it against zlib. */
#ifndef HWTREC_LOG_CRC32_H
#define HWTREC_LOG_CRC32_H

/* Once before the first update: the tables, and whether the CPU has
 * PCLMULQDQ. */
void log_crc32_init(void);

/* CRC after the N bytes at P, CRC before them (0 at the start), as zlib's
 * crc32(CRC, P, N). */
unsigned int log_crc32_update(unsigned int crc, const unsigned char *p,
			      unsigned long n);

#endif
