/* recover-resolver.c: glibc's lazy-binding resolver as one operation
 * (recover-resolver.h says what it keeps and how it is recognised). */
#include "recover-resolver.h"

#include <string.h>

bool recover_resolver_name(const char *name)
{
	/* (glibc 2.26 and later; sysdeps/x86_64/dl-trampoline.h) */
	return name && (!strcmp(name, "_dl_runtime_resolve_xsavec") ||
			!strcmp(name, "_dl_runtime_resolve_xsave") ||
			!strcmp(name, "_dl_runtime_resolve_fxsave"));
}

static int32_t disp32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			 (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

bool recover_resolver_plt0(uint64_t ip1, const uint8_t *push, size_t size1,
			   uint64_t ip2, const uint8_t *jmp, size_t size2)
{
	uint64_t got1, got2, end2 = ip2 + size2;

	/* push disp32(%rip): ff 35; jmp *disp32(%rip): ff 25, bnd: f2. */
	if (size1 != 6 || push[0] != 0xff || push[1] != 0x35 ||
	    ip2 != ip1 + size1)
		return false;
	if (size2 == 7 && jmp[0] == 0xf2) {
		jmp++;
		size2--;
	}
	if (size2 != 6 || jmp[0] != 0xff || jmp[1] != 0x25)
		return false;
	/* GOT[1] and GOT[2]: one word apart. */
	got1 = ip1 + 6 + (uint64_t)(int64_t)disp32(push + 2);
	got2 = end2 + (uint64_t)(int64_t)disp32(jmp + 2);
	return got2 == got1 + 8;
}

bool recover_resolver_exit(const uint8_t *const code[4], const size_t size[4])
{
	static const uint8_t mov_rbx_rsp[2][3] = {
		{ 0x48, 0x89, 0xdc }, { 0x48, 0x8b, 0xe3 },
	};
	static const uint8_t load_rbx[4] = { 0x48, 0x8b, 0x1c, 0x24 };
	static const uint8_t add_rsp_24[4] = { 0x48, 0x83, 0xc4, 0x18 };
	static const uint8_t jmp_r11[3] = { 0x41, 0xff, 0xe3 };
	const uint8_t *j = code[3];
	size_t jsize = size[3];

	if (jsize == 4 && j[0] == 0xf2) {	/* bnd jmp */
		j++;
		jsize--;
	}
	return size[0] == 3 && (!memcmp(code[0], mov_rbx_rsp[0], 3) ||
				!memcmp(code[0], mov_rbx_rsp[1], 3)) &&
	       size[1] == 4 && !memcmp(code[1], load_rbx, 4) &&
	       size[2] == 4 && !memcmp(code[2], add_rsp_24, 4) &&
	       jsize == 3 && !memcmp(j, jmp_r11, 3);
}

size_t recover_resolver_facts(const uint32_t *entry, const uint32_t *exit,
			     struct recover_equality *out)
{
	size_t n = 0;
	unsigned r;

	for (r = 0; r < RECOVER_NREGS; r++) {
		struct recover_equality *e = &out[n];

		if (r != RECOVER_RESOLVER_RSP_REG &&
		    !(RECOVER_RESOLVER_KEEPS >> r & 1))
			continue;
		memset(e, 0, sizeof(*e));
		e->reg = e->src_reg = (uint8_t)r;
		e->slot = exit[r];
		e->src_slot = entry[r];
		if (r == RECOVER_RESOLVER_RSP_REG)
			e->offset = RECOVER_RESOLVER_RSP;
		e->at = UINT32_MAX;
		n++;
	}
	return n;
}
