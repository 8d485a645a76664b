/* tdesc-aarch64.c: the AArch64 target description (see tdesc.h): GDB's
 * org.gnu.gdb.aarch64.core feature, the one gdbserver sends first, written
 * out here with the same register names, sizes and order.  The FP/SIMD
 * feature is left out: GDB takes it as optional, and nothing in a trace
 * recovers those registers. */
#include "tdesc.h"

#include <assert.h>

static const char aarch64_xml[] =
	"<?xml version=\"1.0\"?>\n"
	"<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
	"<target>\n"
	"  <architecture>aarch64</architecture>\n"
	"  <osabi>GNU/Linux</osabi>\n"
	"  <feature name=\"org.gnu.gdb.aarch64.core\">\n"
	"    <reg name=\"x0\" bitsize=\"64\" regnum=\"0\"/>\n"
	"    <reg name=\"x1\" bitsize=\"64\"/>\n"
	"    <reg name=\"x2\" bitsize=\"64\"/>\n"
	"    <reg name=\"x3\" bitsize=\"64\"/>\n"
	"    <reg name=\"x4\" bitsize=\"64\"/>\n"
	"    <reg name=\"x5\" bitsize=\"64\"/>\n"
	"    <reg name=\"x6\" bitsize=\"64\"/>\n"
	"    <reg name=\"x7\" bitsize=\"64\"/>\n"
	"    <reg name=\"x8\" bitsize=\"64\"/>\n"
	"    <reg name=\"x9\" bitsize=\"64\"/>\n"
	"    <reg name=\"x10\" bitsize=\"64\"/>\n"
	"    <reg name=\"x11\" bitsize=\"64\"/>\n"
	"    <reg name=\"x12\" bitsize=\"64\"/>\n"
	"    <reg name=\"x13\" bitsize=\"64\"/>\n"
	"    <reg name=\"x14\" bitsize=\"64\"/>\n"
	"    <reg name=\"x15\" bitsize=\"64\"/>\n"
	"    <reg name=\"x16\" bitsize=\"64\"/>\n"
	"    <reg name=\"x17\" bitsize=\"64\"/>\n"
	"    <reg name=\"x18\" bitsize=\"64\"/>\n"
	"    <reg name=\"x19\" bitsize=\"64\"/>\n"
	"    <reg name=\"x20\" bitsize=\"64\"/>\n"
	"    <reg name=\"x21\" bitsize=\"64\"/>\n"
	"    <reg name=\"x22\" bitsize=\"64\"/>\n"
	"    <reg name=\"x23\" bitsize=\"64\"/>\n"
	"    <reg name=\"x24\" bitsize=\"64\"/>\n"
	"    <reg name=\"x25\" bitsize=\"64\"/>\n"
	"    <reg name=\"x26\" bitsize=\"64\"/>\n"
	"    <reg name=\"x27\" bitsize=\"64\"/>\n"
	"    <reg name=\"x28\" bitsize=\"64\"/>\n"
	"    <reg name=\"x29\" bitsize=\"64\"/>\n"
	"    <reg name=\"x30\" bitsize=\"64\"/>\n"
	"    <reg name=\"sp\" bitsize=\"64\" type=\"data_ptr\"/>\n"
	"    <reg name=\"pc\" bitsize=\"64\" type=\"code_ptr\"/>\n"
	"    <flags id=\"cpsr_flags\" size=\"4\">\n"
	"      <field name=\"SP\" start=\"0\" end=\"0\"/>\n"
	"      <field name=\"EL\" start=\"2\" end=\"3\"/>\n"
	"      <field name=\"nRW\" start=\"4\" end=\"4\"/>\n"
	"      <field name=\"F\" start=\"6\" end=\"6\"/>\n"
	"      <field name=\"I\" start=\"7\" end=\"7\"/>\n"
	"      <field name=\"A\" start=\"8\" end=\"8\"/>\n"
	"      <field name=\"D\" start=\"9\" end=\"9\"/>\n"
	"      <field name=\"IL\" start=\"20\" end=\"20\"/>\n"
	"      <field name=\"SS\" start=\"21\" end=\"21\"/>\n"
	"      <field name=\"V\" start=\"28\" end=\"28\"/>\n"
	"      <field name=\"C\" start=\"29\" end=\"29\"/>\n"
	"      <field name=\"Z\" start=\"30\" end=\"30\"/>\n"
	"      <field name=\"N\" start=\"31\" end=\"31\"/>\n"
	"    </flags>\n"
	"    <reg name=\"cpsr\" bitsize=\"32\" type=\"cpsr_flags\"/>\n"
	"  </feature>\n"
	"</target>\n";

static int aarch64_size(unsigned regnum)
{
	if (regnum < tdesc_aarch64_cpsr)
		return 8;	/* x0-x30, sp, pc */
	if (regnum == tdesc_aarch64_cpsr)
		return 4;
	return -1;
}

static const unsigned aarch64_expedite[] = {
	tdesc_aarch64_fp, tdesc_aarch64_sp, tdesc_aarch64_pc,
};

/* 33 registers of 8 bytes and cpsr's 4. */
static_assert(33 * 8 + 4 <= TDESC_G_SIZE, "the 'g' buffers hold AArch64's");

const struct tdesc tdesc_aarch64 = {
	.arch = "aarch64",
	.xml = aarch64_xml,
	.nregs = tdesc_aarch64_nregs,
	.g_size = 33 * 8 + 4,
	.pc = tdesc_aarch64_pc,
	.expedite = aarch64_expedite,
	.nexpedite = sizeof(aarch64_expedite) / sizeof(aarch64_expedite[0]),
	.size = aarch64_size,
};
