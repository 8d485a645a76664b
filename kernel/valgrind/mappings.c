/* mappings.c: tell the recorder which file backs each executable mapping.
 *
 * Valgrind's callbacks give address ranges and permissions; the file and its
 * offset come from Valgrind's address-space manager (NSegment).  Code that
 * Valgrind itself puts in front of the program (the signal-return trampoline
 * in the tool executable, the preload objects) is caught when it is first
 * translated: hwtrec_note_code_address reports any mapping not reported yet.
 */
#include "hwtrec-tool.h"

#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"

#define MAX_REPORTED 1024

static struct { Addr start, end; } reported[MAX_REPORTED];
static UInt nreported;

static Bool is_reported(Addr a)
{
	UInt i;

	for (i = 0; i < nreported; i++)
		if (a >= reported[i].start && a < reported[i].end)
			return True;
	return False;
}

static void remember(Addr start, Addr end)
{
	if (nreported < MAX_REPORTED) {
		reported[nreported].start = start;
		reported[nreported].end = end;
		nreported++;
	}
}

void hwtrec_forget_mappings(Addr a, SizeT len)
{
	UInt i = 0;

	while (i < nreported) {
		if (reported[i].start < a + len && reported[i].end > a)
			reported[i] = reported[--nreported];
		else
			i++;
	}
}

/* A new live session: every mapping is reported again. */
void hwtrec_forget_all_mappings(void)
{
	nreported = 0;
}

/* Report the executable parts of [a, a+len). */
void hwtrec_report_range(Addr a, SizeT len)
{
	Addr p = a, end = a + len;

	while (p < end) {
		NSegment const *seg = VG_(am_find_nsegment)(p);
		Addr s, e;

		if (!seg)
			break;
		s = p;
		e = seg->end + 1 < end ? seg->end + 1 : end;
		if (seg->hasX && !is_reported(s)) {
			const HChar *path = NULL;
			ULong off = 0;

			if (seg->kind == SkFileC || seg->kind == SkFileV) {
				path = VG_(am_get_filename)(seg);
				off = (ULong)seg->offset + (s - seg->start);
			}
			hwtrec_log_mmap(s, e - s, off,
				     (seg->hasR ? 1 : 0) | (seg->hasW ? 2 : 0) | 4,
				     path);
			remember(s, e);
		}
		p = seg->end + 1;
	}
}

void hwtrec_note_code_address(Addr addr)
{
	NSegment const *seg;

	if (is_reported(addr))
		return;
	seg = VG_(am_find_nsegment)(addr);
	if (seg)
		hwtrec_report_range(seg->start, seg->end + 1 - seg->start);
}
