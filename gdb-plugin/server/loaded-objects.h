/* loaded-objects.h: the program's ELF objects at the end of a recording
 * (the executable, its dynamic linker, the libraries) and where each was
 * loaded, from the recording's own mappings.
 *
 * A recording holds one image per program the process ran: image 0 before
 * the first exec, image N after the Nth.
 *
 * What a live process (or its core) tells GDB through the auxiliary vector
 * and the dynamic linker's link_map, a recording without a core does not
 * hold: only the sideband's mmap events.  From the mappings alive at the end
 * (after the last exec: the program running then) and the mapped ELF files'
 * program headers we find each object's load bias, and from it what the
 * kernel put in the auxv (AT_PHDR, AT_PHNUM, AT_ENTRY, AT_BASE,
 * AT_SYSINFO_EHDR, AT_PAGESZ) and what ld.so put in the link_map (l_addr,
 * l_ld).  Values a recording cannot know (AT_RANDOM, AT_HWCAP, uids) are left
 * out, not invented.
 *
 * The executable is the first file mapped after the exec (the kernel and
 * Valgrind map the program before its interpreter); the interpreter is the
 * object that the executable's PT_INTERP names (the same file, or the same
 * name).  Files that are not ELF, or not there (and not saved in
 * the recording), are left out, with a note in `problems`.
 */
#ifndef HWTREC_LOADED_OBJECTS_H
#define HWTREC_LOADED_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hwtr_recording;

struct loaded_segment {
	uint64_t addr, filesz;	/* in memory: [addr, addr + filesz) */
	uint64_t offset;	/* in the file */
	bool writable;
};

struct loaded_object {
	const char *path;	/* as the program saw it (the sideband's) */
	char *file;		/* the file read: saved copy, or the path */
	uint64_t bias;		/* load address minus the file's vaddr */
	uint64_t dynamic;	/* PT_DYNAMIC in memory (l_ld), or 0 */
	uint64_t entry;		/* e_entry in memory */
	uint64_t phdr;		/* program headers in memory, or 0 */
	uint64_t phnum;
	bool shared;		/* ET_DYN: can be in the library list */
	char *interp;		/* PT_INTERP, or NULL */
	size_t nsegments;
	struct loaded_segment *segments;	/* PT_LOAD */
};

struct loaded_objects {
	size_t n;
	struct loaded_object *objects;	/* in load order */
	size_t exe;			/* index, or (size_t)-1 */
	size_t interp;			/* index, or (size_t)-1 */
	uint64_t vdso;			/* the [vdso] mapping, or 0 */
	uint64_t page_size;		/* the architecture's, or 0 if it has several */
	bool execd;			/* the image was started by an exec */
	uint64_t first_ip;		/* where its code starts: the interpreter's
					 * entry, or a static program's; 0 if not
					 * known */
	char *problems;			/* what was left out and why, or NULL */
};

/* The number of images: the sideband's exec events plus one. */
size_t loaded_objects_nimages(const struct hwtr_recording *recording);

/* From RECORDING's sideband events: the objects of image IMAGE loaded at its
 * end (the last image: at the end of the recording).  Only out of memory
 * fails (-ENOMEM). */
int loaded_objects_build(const struct hwtr_recording *recording, size_t image,
			 struct loaded_objects **objects);
void loaded_objects_free(struct loaded_objects *objects);

/* The auxiliary vector the kernel gave the program that ran at the end, as
 * far as the objects tell it: (type, value) pairs of 8 bytes each, ending
 * with AT_NULL; malloc'd, its size in bytes in *SIZE.  NULL without an
 * executable. */
void *loaded_objects_auxv(const struct loaded_objects *objects, size_t *size);

#endif /* HWTREC_LOADED_OBJECTS_H */
