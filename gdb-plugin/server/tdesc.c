/* tdesc.c: the amd64-linux target description (see tdesc.h).  The XML is the
 * one GDB 13 itself prints (`maint print xml-tdesc`) for an x86-64 Linux
 * process, without the AVX features, so that GDB's own amd64-linux code
 * recognises every register. */
#include "tdesc.h"

#include <string.h>

const char tdesc_target_xml[] =
	"<?xml version=\"1.0\"?>\n"
	"<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
	"<target>\n"
	"  <architecture>i386:x86-64</architecture>\n"
	"  <osabi>GNU/Linux</osabi>\n"
	"  <feature name=\"org.gnu.gdb.i386.core\">\n"
	"    <flags id=\"i386_eflags\" size=\"4\">\n"
	"      <field name=\"CF\" start=\"0\" end=\"0\" type=\"bool\"/>\n"
	"      <field name=\"\" start=\"1\" end=\"1\" type=\"bool\"/>\n"
	"      <field name=\"PF\" start=\"2\" end=\"2\" type=\"bool\"/>\n"
	"      <field name=\"AF\" start=\"4\" end=\"4\" type=\"bool\"/>\n"
	"      <field name=\"ZF\" start=\"6\" end=\"6\" type=\"bool\"/>\n"
	"      <field name=\"SF\" start=\"7\" end=\"7\" type=\"bool\"/>\n"
	"      <field name=\"TF\" start=\"8\" end=\"8\" type=\"bool\"/>\n"
	"      <field name=\"IF\" start=\"9\" end=\"9\" type=\"bool\"/>\n"
	"      <field name=\"DF\" start=\"10\" end=\"10\" type=\"bool\"/>\n"
	"      <field name=\"OF\" start=\"11\" end=\"11\" type=\"bool\"/>\n"
	"      <field name=\"NT\" start=\"14\" end=\"14\" type=\"bool\"/>\n"
	"      <field name=\"RF\" start=\"16\" end=\"16\" type=\"bool\"/>\n"
	"      <field name=\"VM\" start=\"17\" end=\"17\" type=\"bool\"/>\n"
	"      <field name=\"AC\" start=\"18\" end=\"18\" type=\"bool\"/>\n"
	"      <field name=\"VIF\" start=\"19\" end=\"19\" type=\"bool\"/>\n"
	"      <field name=\"VIP\" start=\"20\" end=\"20\" type=\"bool\"/>\n"
	"      <field name=\"ID\" start=\"21\" end=\"21\" type=\"bool\"/>\n"
	"    </flags>\n"
	"    <reg name=\"rax\" bitsize=\"64\" type=\"int64\" regnum=\"0\"/>\n"
	"    <reg name=\"rbx\" bitsize=\"64\" type=\"int64\" regnum=\"1\"/>\n"
	"    <reg name=\"rcx\" bitsize=\"64\" type=\"int64\" regnum=\"2\"/>\n"
	"    <reg name=\"rdx\" bitsize=\"64\" type=\"int64\" regnum=\"3\"/>\n"
	"    <reg name=\"rsi\" bitsize=\"64\" type=\"int64\" regnum=\"4\"/>\n"
	"    <reg name=\"rdi\" bitsize=\"64\" type=\"int64\" regnum=\"5\"/>\n"
	"    <reg name=\"rbp\" bitsize=\"64\" type=\"data_ptr\" regnum=\"6\"/>\n"
	"    <reg name=\"rsp\" bitsize=\"64\" type=\"data_ptr\" regnum=\"7\"/>\n"
	"    <reg name=\"r8\" bitsize=\"64\" type=\"int64\" regnum=\"8\"/>\n"
	"    <reg name=\"r9\" bitsize=\"64\" type=\"int64\" regnum=\"9\"/>\n"
	"    <reg name=\"r10\" bitsize=\"64\" type=\"int64\" regnum=\"10\"/>\n"
	"    <reg name=\"r11\" bitsize=\"64\" type=\"int64\" regnum=\"11\"/>\n"
	"    <reg name=\"r12\" bitsize=\"64\" type=\"int64\" regnum=\"12\"/>\n"
	"    <reg name=\"r13\" bitsize=\"64\" type=\"int64\" regnum=\"13\"/>\n"
	"    <reg name=\"r14\" bitsize=\"64\" type=\"int64\" regnum=\"14\"/>\n"
	"    <reg name=\"r15\" bitsize=\"64\" type=\"int64\" regnum=\"15\"/>\n"
	"    <reg name=\"rip\" bitsize=\"64\" type=\"code_ptr\" regnum=\"16\"/>\n"
	"    <reg name=\"eflags\" bitsize=\"32\" type=\"i386_eflags\" regnum=\"17\"/>\n"
	"    <reg name=\"cs\" bitsize=\"32\" type=\"int32\" regnum=\"18\"/>\n"
	"    <reg name=\"ss\" bitsize=\"32\" type=\"int32\" regnum=\"19\"/>\n"
	"    <reg name=\"ds\" bitsize=\"32\" type=\"int32\" regnum=\"20\"/>\n"
	"    <reg name=\"es\" bitsize=\"32\" type=\"int32\" regnum=\"21\"/>\n"
	"    <reg name=\"fs\" bitsize=\"32\" type=\"int32\" regnum=\"22\"/>\n"
	"    <reg name=\"gs\" bitsize=\"32\" type=\"int32\" regnum=\"23\"/>\n"
	"    <reg name=\"st0\" bitsize=\"80\" type=\"i387_ext\" regnum=\"24\"/>\n"
	"    <reg name=\"st1\" bitsize=\"80\" type=\"i387_ext\" regnum=\"25\"/>\n"
	"    <reg name=\"st2\" bitsize=\"80\" type=\"i387_ext\" regnum=\"26\"/>\n"
	"    <reg name=\"st3\" bitsize=\"80\" type=\"i387_ext\" regnum=\"27\"/>\n"
	"    <reg name=\"st4\" bitsize=\"80\" type=\"i387_ext\" regnum=\"28\"/>\n"
	"    <reg name=\"st5\" bitsize=\"80\" type=\"i387_ext\" regnum=\"29\"/>\n"
	"    <reg name=\"st6\" bitsize=\"80\" type=\"i387_ext\" regnum=\"30\"/>\n"
	"    <reg name=\"st7\" bitsize=\"80\" type=\"i387_ext\" regnum=\"31\"/>\n"
	"    <reg name=\"fctrl\" bitsize=\"32\" type=\"int\" regnum=\"32\" group=\"float\"/>\n"
	"    <reg name=\"fstat\" bitsize=\"32\" type=\"int\" regnum=\"33\" group=\"float\"/>\n"
	"    <reg name=\"ftag\" bitsize=\"32\" type=\"int\" regnum=\"34\" group=\"float\"/>\n"
	"    <reg name=\"fiseg\" bitsize=\"32\" type=\"int\" regnum=\"35\" group=\"float\"/>\n"
	"    <reg name=\"fioff\" bitsize=\"32\" type=\"int\" regnum=\"36\" group=\"float\"/>\n"
	"    <reg name=\"foseg\" bitsize=\"32\" type=\"int\" regnum=\"37\" group=\"float\"/>\n"
	"    <reg name=\"fooff\" bitsize=\"32\" type=\"int\" regnum=\"38\" group=\"float\"/>\n"
	"    <reg name=\"fop\" bitsize=\"32\" type=\"int\" regnum=\"39\" group=\"float\"/>\n"
	"  </feature>\n"
	"  <feature name=\"org.gnu.gdb.i386.sse\">\n"
	"    <vector id=\"v8bf16\" type=\"bfloat16\" count=\"8\"/>\n"
	"    <vector id=\"v8h\" type=\"ieee_half\" count=\"8\"/>\n"
	"    <vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/>\n"
	"    <vector id=\"v2d\" type=\"ieee_double\" count=\"2\"/>\n"
	"    <vector id=\"v16i8\" type=\"int8\" count=\"16\"/>\n"
	"    <vector id=\"v8i16\" type=\"int16\" count=\"8\"/>\n"
	"    <vector id=\"v4i32\" type=\"int32\" count=\"4\"/>\n"
	"    <vector id=\"v2i64\" type=\"int64\" count=\"2\"/>\n"
	"    <union id=\"vec128\">\n"
	"      <field name=\"v8_bfloat16\" type=\"v8bf16\"/>\n"
	"      <field name=\"v8_half\" type=\"v8h\"/>\n"
	"      <field name=\"v4_float\" type=\"v4f\"/>\n"
	"      <field name=\"v2_double\" type=\"v2d\"/>\n"
	"      <field name=\"v16_int8\" type=\"v16i8\"/>\n"
	"      <field name=\"v8_int16\" type=\"v8i16\"/>\n"
	"      <field name=\"v4_int32\" type=\"v4i32\"/>\n"
	"      <field name=\"v2_int64\" type=\"v2i64\"/>\n"
	"      <field name=\"uint128\" type=\"uint128\"/>\n"
	"    </union>\n"
	"    <flags id=\"i386_mxcsr\" size=\"4\">\n"
	"      <field name=\"IE\" start=\"0\" end=\"0\" type=\"bool\"/>\n"
	"      <field name=\"DE\" start=\"1\" end=\"1\" type=\"bool\"/>\n"
	"      <field name=\"ZE\" start=\"2\" end=\"2\" type=\"bool\"/>\n"
	"      <field name=\"OE\" start=\"3\" end=\"3\" type=\"bool\"/>\n"
	"      <field name=\"UE\" start=\"4\" end=\"4\" type=\"bool\"/>\n"
	"      <field name=\"PE\" start=\"5\" end=\"5\" type=\"bool\"/>\n"
	"      <field name=\"DAZ\" start=\"6\" end=\"6\" type=\"bool\"/>\n"
	"      <field name=\"IM\" start=\"7\" end=\"7\" type=\"bool\"/>\n"
	"      <field name=\"DM\" start=\"8\" end=\"8\" type=\"bool\"/>\n"
	"      <field name=\"ZM\" start=\"9\" end=\"9\" type=\"bool\"/>\n"
	"      <field name=\"OM\" start=\"10\" end=\"10\" type=\"bool\"/>\n"
	"      <field name=\"UM\" start=\"11\" end=\"11\" type=\"bool\"/>\n"
	"      <field name=\"PM\" start=\"12\" end=\"12\" type=\"bool\"/>\n"
	"      <field name=\"FZ\" start=\"15\" end=\"15\" type=\"bool\"/>\n"
	"    </flags>\n"
	"    <reg name=\"xmm0\" bitsize=\"128\" type=\"vec128\" regnum=\"40\"/>\n"
	"    <reg name=\"xmm1\" bitsize=\"128\" type=\"vec128\" regnum=\"41\"/>\n"
	"    <reg name=\"xmm2\" bitsize=\"128\" type=\"vec128\" regnum=\"42\"/>\n"
	"    <reg name=\"xmm3\" bitsize=\"128\" type=\"vec128\" regnum=\"43\"/>\n"
	"    <reg name=\"xmm4\" bitsize=\"128\" type=\"vec128\" regnum=\"44\"/>\n"
	"    <reg name=\"xmm5\" bitsize=\"128\" type=\"vec128\" regnum=\"45\"/>\n"
	"    <reg name=\"xmm6\" bitsize=\"128\" type=\"vec128\" regnum=\"46\"/>\n"
	"    <reg name=\"xmm7\" bitsize=\"128\" type=\"vec128\" regnum=\"47\"/>\n"
	"    <reg name=\"xmm8\" bitsize=\"128\" type=\"vec128\" regnum=\"48\"/>\n"
	"    <reg name=\"xmm9\" bitsize=\"128\" type=\"vec128\" regnum=\"49\"/>\n"
	"    <reg name=\"xmm10\" bitsize=\"128\" type=\"vec128\" regnum=\"50\"/>\n"
	"    <reg name=\"xmm11\" bitsize=\"128\" type=\"vec128\" regnum=\"51\"/>\n"
	"    <reg name=\"xmm12\" bitsize=\"128\" type=\"vec128\" regnum=\"52\"/>\n"
	"    <reg name=\"xmm13\" bitsize=\"128\" type=\"vec128\" regnum=\"53\"/>\n"
	"    <reg name=\"xmm14\" bitsize=\"128\" type=\"vec128\" regnum=\"54\"/>\n"
	"    <reg name=\"xmm15\" bitsize=\"128\" type=\"vec128\" regnum=\"55\"/>\n"
	"    <reg name=\"mxcsr\" bitsize=\"32\" type=\"i386_mxcsr\" regnum=\"56\" group=\"vector\"/>\n"
	"  </feature>\n"
	"  <feature name=\"org.gnu.gdb.i386.linux\">\n"
	"    <reg name=\"orig_rax\" bitsize=\"64\" type=\"int\" regnum=\"57\"/>\n"
	"  </feature>\n"
	"  <feature name=\"org.gnu.gdb.i386.segments\">\n"
	"    <reg name=\"fs_base\" bitsize=\"64\" type=\"int\" regnum=\"58\"/>\n"
	"    <reg name=\"gs_base\" bitsize=\"64\" type=\"int\" regnum=\"59\"/>\n"
	"  </feature>\n"
	"</target>\n";

int tdesc_register_size(unsigned regnum)
{
	if (regnum < tdesc_rip + 1)
		return 8;
	if (regnum < tdesc_st0)
		return 4;	/* eflags and the segment selectors */
	if (regnum < tdesc_fctrl)
		return 10;	/* st0-st7 */
	if (regnum < tdesc_xmm0)
		return 4;	/* x87 control */
	if (regnum < tdesc_mxcsr)
		return 16;	/* xmm0-xmm15 */
	if (regnum == tdesc_mxcsr)
		return 4;
	if (regnum < tdesc_nregs)
		return 8;	/* orig_rax, fs_base, gs_base */
	return -1;
}

int tdesc_register_offset(unsigned regnum)
{
	int offset = 0;
	unsigned i;

	if (regnum >= tdesc_nregs)
		return -1;
	for (i = 0; i < regnum; i++)
		offset += tdesc_register_size(i);
	return offset;
}

static const unsigned amd64_expedite[] = { tdesc_rbp, tdesc_rsp, tdesc_rip };

const struct tdesc tdesc_amd64_linux = {
	.arch = "x86_64",
	.xml = tdesc_target_xml,
	.nregs = tdesc_nregs,
	.g_size = TDESC_G_SIZE,
	.pc = tdesc_rip,
	.expedite = amd64_expedite,
	.nexpedite = sizeof(amd64_expedite) / sizeof(amd64_expedite[0]),
	.size = tdesc_register_size,
};

const struct tdesc *tdesc_for_arch(const char *arch)
{
	static const struct tdesc *const all[] = { &tdesc_amd64_linux, &tdesc_aarch64 };
	size_t i;

	for (i = 0; arch && i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->arch, arch))
			return all[i];
	return NULL;
}

int tdesc_offset(const struct tdesc *d, unsigned regnum)
{
	int offset = 0;
	unsigned i;

	if (regnum >= d->nregs)
		return -1;
	for (i = 0; i < regnum; i++)
		offset += d->size(i);
	return offset;
}
