/* program-images.h: the programs a recorded process ran, one image per
 * exec, and where in a thread's history each one starts.
 *
 * Image 0 is what ran before the first exec, image N what ran after the
 * Nth.  Each has its loaded objects (loaded-objects.h), the auxv they imply
 * and, but for the last, its own memory: the files it mapped and the
 * read-only parts of its objects (the last image's memory is the replay's,
 * with the core).  GDB is shown one image at a time (the one the current
 * thread's position is in) and told of an exec when a resume crosses from
 * one to another.
 *
 * An image starts where its first instruction (loaded_objects.first_ip: the
 * dynamic linker's entry, or a static program's) was last executed before
 * the next image's start: an entry point runs once per image.
 */
#ifndef HWTREC_PROGRAM_IMAGES_H
#define HWTREC_PROGRAM_IMAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hwtr_cursor;
struct hwtr_recording;
struct loaded_objects;
struct memory;

struct program_images;

/* The images of RECORDING (whose directory is DIR, for saved copies).
 * Writes what was left out of each image to stderr.  -ENOMEM only. */
int program_images_build(const struct hwtr_recording *recording, const char *dir,
			 struct program_images **images);
void program_images_free(struct program_images *images);

size_t program_images_count(const struct program_images *images);
/* Whether the last image started before every position up to END of
 * SCRATCH's history, which then holds only the last program: the end of a
 * history (a tail) that does not hold the last image's first instruction.
 * True with one image; false when the last image's start is not known. */
bool program_images_last_started_before(const struct program_images *images,
				       struct hwtr_cursor *scratch, uint64_t end);
const struct loaded_objects *program_images_objects(const struct program_images *images,
						    size_t image);
/* The auxv IMAGE's objects imply, or NULL. */
const void *program_images_auxv(const struct program_images *images, size_t image,
				size_t *size);
/* IMAGE's own memory; NULL for the last image. */
struct memory *program_images_memory(const struct program_images *images,
				     size_t image);

/* Add the read-only parts of OBJECTS to MEMORY (the executable's program
 * headers, constants: the file holds what the program had; writable data
 * is left to a core, the file holds its first value only). */
int program_images_add_segments(struct memory *memory,
				const struct loaded_objects *objects);

/* Where each image starts in a thread's history: STARTS[k] is the position
 * of image k's first instruction (STARTS[0] = 1), or UINT64_MAX when the
 * history does not hold it.  SCRATCH is a cursor of the thread (it moves);
 * END its last position. */
void program_images_starts(const struct program_images *images,
			   struct hwtr_cursor *scratch, uint64_t end,
			   uint64_t *starts);

#endif /* HWTREC_PROGRAM_IMAGES_H */
