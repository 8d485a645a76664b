/* values-registers.c: GDB's registers in the data log
 * (values-registers.h). */
#include "values-registers.h"
#include "values-format.h"
#include "values-x87.h"

#include <hwtrecord.h>
#include <string.h>

/* x86 eflags bits that are set whenever user code runs: IF, bit 1.  VEX
 * computes the arithmetic flags, DF, ID and AC; these it does not keep. */
#define USER_EFLAGS_ALWAYS 0x202u

bool values_register_bit(unsigned regno, unsigned *bit, unsigned *offset,
			 unsigned *size)
{
	*offset = 0;
	*size = 8;
	if (regno <= hwtr_amd64_r15)
		*bit = HWTR_VREG_GPR0 + regno;
	else if (regno == hwtr_amd64_eflags) {
		*bit = HWTR_VREG_RFLAGS;
		*size = 4;	/* GDB's eflags is 32 bits */
	} else if (regno == hwtr_amd64_fs_base)
		*bit = HWTR_VREG_FS_BASE;
	else if (regno == hwtr_amd64_gs_base)
		*bit = HWTR_VREG_GS_BASE;
	else if (regno >= hwtr_amd64_xmm0 && regno < hwtr_amd64_xmm0 + 16) {
		*bit = HWTR_VREG_YMM0 + (regno - hwtr_amd64_xmm0);
		*size = 16;
	} else if (regno >= hwtr_amd64_ymm0h && regno < hwtr_amd64_ymm0h + 16) {
		*bit = HWTR_VREG_YMM0 + (regno - hwtr_amd64_ymm0h);
		*offset = 16;
		*size = 16;
	} else if (regno >= hwtr_amd64_st0 && regno < hwtr_amd64_st0 + 8) {
		*bit = HWTR_VREG_FPU;
		*size = 10;
	} else if (regno == hwtr_amd64_fctrl || regno == hwtr_amd64_fstat ||
		   regno == hwtr_amd64_ftag) {
		*bit = HWTR_VREG_FPU;
		*size = 4;
	} else
		return false;
	return true;
}

unsigned values_bit_gdb_register(unsigned regno,
				 const uint8_t value[HWTR_VREG_MAX_SIZE],
				 uint8_t *buf)
{
	unsigned bit, offset, size;

	if (!values_register_bit(regno, &bit, &offset, &size))
		return 0;
	if (bit == HWTR_VREG_FPU)
		return values_x87_register(value, regno, buf);
	memcpy(buf, value + offset, size);
	if (bit == HWTR_VREG_RFLAGS) {
		uint32_t eflags;

		memcpy(&eflags, buf, 4);
		eflags |= USER_EFLAGS_ALWAYS;
		memcpy(buf, &eflags, 4);
	}
	return size;
}

unsigned values_record_gdb_register(const struct values_record *r,
				    unsigned regno, uint8_t *buf)
{
	unsigned bit, offset, size;
	uint8_t value[HWTR_VREG_MAX_SIZE];

	if (!values_register_bit(regno, &bit, &offset, &size) ||
	    !values_record_register(r, bit, value))
		return 0;
	return values_bit_gdb_register(regno, value, buf);
}
