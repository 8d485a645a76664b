/* log-crc32.c: the CRC-32 of the data log (log-crc32.h).
 *
 * Every byte of the log passes through it (values-format.h, "Seeking"), so
 * where the CPU has carry-less multiplication (PCLMULQDQ) it folds 64 bytes
 * at a time, as Intel's "Fast CRC Computation for Generic Polynomials Using
 * PCLMULQDQ Instruction" (Gopal et al., 2009) describes for the
 * bit-reflected CRC-32; elsewhere, and for the bytes that do not fill 16,
 * slice-by-8 tables.  Plain C with no headers: the tool has no libc, and
 * testsuite/unit/test-log-crc32.c checks it against zlib on the host.
 */
#include "log-crc32.h"

/* A 128-bit vector as two 64-bit halves, element 0 the earlier bytes. */
typedef long long v2di __attribute__((vector_size(16)));

static unsigned int crc_table[8][256];
static int have_clmul;

void log_crc32_init(void)
{
	unsigned int i, k, c, a, b, cx, d;

	if (crc_table[0][1])
		return;
	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			crc_table[k][i] = (crc_table[k - 1][i] >> 8) ^
					  crc_table[0][crc_table[k - 1][i] & 0xff];
	__asm__ volatile ("cpuid" : "=a" (a), "=b" (b), "=c" (cx), "=d" (d)
			  : "a" (1), "c" (0));
	have_clmul = (cx >> 1) & 1;	/* CPUID.1:ECX.PCLMULQDQ */
}

/* The CRC register C (not inverted) after the N bytes at P. */
static unsigned int crc_tables(unsigned int c, const unsigned char *p,
			       unsigned long n)
{
	while (n >= 8) {
		unsigned int lo, hi;

		__builtin_memcpy(&lo, p, 4);
		__builtin_memcpy(&hi, p + 4, 4);
		lo ^= c;
		c = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		    crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		    crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
		    crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
		p += 8;
		n -= 8;
	}
	while (n--)
		c = crc_table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

static inline v2di load16(const unsigned char *p)
{
	v2di v;

	__builtin_memcpy(&v, p, 16);
	return v;
}

/* X moved forward by the distance K's constants stand for, to be added
 * to the bytes there: the low half times one, the high half times the
 * other (both 33-bit constants, bit-reflected, as in the paper). */
__attribute__((target("pclmul")))
static inline v2di fold(v2di x, v2di k)
{
	return __builtin_ia32_pclmulqdq128(x, k, 0x00) ^
	       __builtin_ia32_pclmulqdq128(x, k, 0x11);
}

/* The CRC register C (not inverted) after the N bytes at P, N >= 64 and
 * a multiple of 16.  Folding keeps the message's remainder modulo the
 * polynomial, so the 16 bytes left at the end have the same CRC (from 0)
 * as the whole message with C added to its first four bytes: the tables
 * finish it. */
__attribute__((target("pclmul")))
static unsigned int crc_clmul(unsigned int c, const unsigned char *p,
			      unsigned long n)
{
	/* x^(512+32) and x^(512-32) mod P: 64 bytes ahead; x^(128+32) and
	 * x^(128-32): 16 bytes ahead (bit-reflected, shifted left once). */
	const v2di k64 = { 0x154442bd4ll, 0x1c6e41596ll };
	const v2di k16 = { 0x1751997d0ll, 0x0ccaa009ell };
	v2di x0 = load16(p), x1 = load16(p + 16), x2 = load16(p + 32),
	     x3 = load16(p + 48);
	unsigned char rest[16];

	x0 ^= (v2di){ (long long)c, 0 };
	for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
		x0 = fold(x0, k64) ^ load16(p);
		x1 = fold(x1, k64) ^ load16(p + 16);
		x2 = fold(x2, k64) ^ load16(p + 32);
		x3 = fold(x3, k64) ^ load16(p + 48);
	}
	x0 = fold(x0, k16) ^ x1;
	x0 = fold(x0, k16) ^ x2;
	x0 = fold(x0, k16) ^ x3;
	for (; n >= 16; p += 16, n -= 16)
		x0 = fold(x0, k16) ^ load16(p);
	__builtin_memcpy(rest, &x0, 16);
	return crc_tables(0, rest, 16);
}

unsigned int log_crc32_update(unsigned int crc, const unsigned char *p,
			      unsigned long n)
{
	unsigned int c = ~crc;

	if (have_clmul && n >= 64) {
		unsigned long whole = n & ~15ul;

		c = crc_clmul(c, p, whole);
		p += whole;
		n -= whole;
	}
	return ~crc_tables(c, p, n);
}
