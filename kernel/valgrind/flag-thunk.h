/* flag-thunk.h: rflags from VEX's flag thunk, for the thunk operations
 * that are most of them (add, sub and the logical ones, in their four
 * widths: 91% of the thunks gzip's recording evaluates), without
 * LibVEX_GuestAMD64_get_rflags's two calls and switch over all 53
 * operations.  The same arithmetic as VEX's ACTIONS_ADD, ACTIONS_SUB and
 * ACTIONS_LOGIC (guest_amd64_helpers.c); the operation numbers are VEX's
 * AMD64G_CC_OP_* (guest_amd64_defs.h, not installed).  Plain C, no libc:
 * the Valgrind tool inlines it (data-log.c) and testsuite/unit/
 * test-flag-thunk checks it against the CPU's own flags. */
#ifndef HWTREC_FLAG_THUNK_H
#define HWTREC_FLAG_THUNK_H

enum {
	FLAG_THUNK_ADDB = 1,	/* ADDB ADDW ADDL ADDQ: DEP1 argL, DEP2 argR */
	FLAG_THUNK_SUBB = 5,	/* SUBB ... SUBQ: the same */
	FLAG_THUNK_LOGICB = 17,	/* LOGICB ... LOGICQ: DEP1 the result */
};

/* P, Z and S of a result RES of BITS bits. */
static inline unsigned long long flag_thunk_result(unsigned long long res,
						   unsigned bits)
{
	unsigned long long mask = bits == 64 ? ~0ull : (1ull << bits) - 1;

	return (__builtin_parity((unsigned)(res & 0xff)) ? 0 : 1ull << 2) |
	       ((unsigned long long)((res & mask) == 0) << 6) |
	       (((res >> (bits - 1)) & 1) << 7);
}

/* Sets *FLAGS to the arithmetic flags (C P A Z S O) thunk OP, DEP1, DEP2
 * gives and returns 1, or returns 0 for an operation not handled here. */
static inline int flag_thunk_flags(unsigned long long op,
				   unsigned long long l, unsigned long long r,
				   unsigned long long *flags)
{
	unsigned long long res, mask, of;
	unsigned bits;

	if (op - FLAG_THUNK_ADDB < 8) {
		bits = 8u << ((op - FLAG_THUNK_ADDB) & 3);
		mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
		if (op < FLAG_THUNK_SUBB) {
			res = l + r;
			of = ~(l ^ r) & (l ^ res);
			*flags = ((res & mask) < (l & mask));
		} else {
			res = l - r;
			of = (l ^ r) & (l ^ res);
			*flags = ((l & mask) < (r & mask));
		}
		*flags |= ((res ^ l ^ r) & 0x10) | flag_thunk_result(res, bits) |
			  (((of >> (bits - 1)) & 1) << 11);
		return 1;
	}
	if (op - FLAG_THUNK_LOGICB < 4) {
		*flags = flag_thunk_result(l, 8u << (op - FLAG_THUNK_LOGICB));
		return 1;
	}
	return 0;
}

#endif
