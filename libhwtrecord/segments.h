/* segments.h: a thread's function segments (GDB's btrace model); internal. */
#ifndef HWTR_SEGMENTS_H
#define HWTR_SEGMENTS_H

#include "history.h"
#include "segment-store.h"

#define SEG_ENDS_WITH_CALL 0x100u	/* internal: last instruction is a call */

struct builder;

/* Segment NUMBER of the builder's that is no longer in its array. */
void segment_read_sealed(const struct hwtr_thread *t, uint64_t number,
			 struct segment *out);

/* The one way to read a thread's segment NUMBER (1..nsegments): a copy,
 * from the builder's array, the part of it already compacted or, once the
 * history is finished, from the compact store. */
static inline void segment_read(const struct hwtr_thread *t, uint64_t number,
				struct segment *out)
{
	if (t->segment_store)
		segment_store_read(t->segment_store, number, out);
	else if (number > t->segments_sealed)
		*out = t->segments[number - 1 - t->segments_sealed];
	else
		segment_read_sealed(t, number, out);
}

/* The index pass's way to change segment NUMBER: where it is, valid until
 * the next segment_new or segment_change; NULL when out of memory. */
struct segment *segment_change(struct hwtr_thread *t, uint64_t number);

/* Segment NUMBER into *OUT, unless NUMBER is 0 (no segment): whether it
 * was read.  For walks along links. */
static inline bool segment_load(const struct hwtr_thread *t, uint64_t number,
				struct segment *out)
{
	if (number)
		segment_read(t, number, out);
	return number != 0;
}

/* A new segment of FUNCTION (a symbolizer id) after the last, at the next
 * instruction, at the last one's level; the array may move. */
int segment_new(struct builder *b, uint32_t function, struct segment **out);
/* The first instruction of a block, at IP in the image of EPOCH: extend the
 * last segment or start a new one. */
int segment_update_function(struct builder *b, uint64_t ip, unsigned epoch);
/* Whether UP, the caller of segment NUMBER, was linked to it across the gap
 * after UP in which tracing was disabled: a signal's delivery, with NUMBER
 * in the handler or the signal return trampoline it returns to. */
bool segment_signal_link(const struct hwtr_thread *t, uint64_t up,
			 uint64_t number);
/* The function of the instruction at IP in the image of EPOCH, after the
 * last one the pass saw (block-functions.h). */
uint32_t segment_function_at(struct builder *b, uint64_t ip, unsigned epoch);
/* The segment number holding instruction NUMBER. */
uint64_t history_segment_of(const struct hwtr_thread *thread, uint64_t number);
/* Keep thread T's segments (its history finished) in a compact store
 * instead of its array, which is freed; it is then never extended in
 * place (hwtr_history_extend builds it again).  0, or an error (out of
 * memory), after which T has no segments: the history is not usable. */
int segments_compact(struct hwtr_thread *t);
/* The memory T's segments take. */
size_t segments_resident(const struct hwtr_thread *t);
/* Free what the index pass keeps of T's segments (array, compacted part,
 * changes): T has none after. */
void segments_release(struct hwtr_thread *t);
/* Fill a public segment view. */
void history_segment_view(const struct hwtr_thread *thread, uint64_t number,
			  struct hwtr_segment *out);

#endif
