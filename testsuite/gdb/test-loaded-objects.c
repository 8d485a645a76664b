/* test-loaded-objects: the objects hwtrec-server finds loaded at the end of
 * a recording (gdb-plugin/server/loaded-objects.c), from sideband mappings
 * the test writes.  Expected addresses come from the files' symbol tables
 * (_start, _DYNAMIC) and ELF headers, not from their program headers, which
 * the code under test reads. */
#include "../unit/check-main.h"
#include "loaded-objects.h"

#include "fixture.h"

#include <check.h>
#include <elf.h>
#include <hwtrecord.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A PIE with an interpreter, a shared object, and a static program. */
#define PIE IMAGES_DIR "/images-prog"
#define SHARED IMAGES_DIR "/images-lib.so"
#define INTERP "/lib64/ld-linux-x86-64.so.2"

struct mapping {
	enum hwtr_event_kind kind;	/* mmap, munmap or exec */
	uint64_t addr, len, pgoff;
	const char *path;
};

static char dir[64];
static struct hwtr_recording *recording;
static struct loaded_objects *objects;

/* A recording whose sideband holds MAPS, and the objects built from it. */
static void build(const struct mapping *maps, size_t n)
{
	struct hwtr_writer_info info = { .source = "test", .pid = 1,
					  .executable = "prog" };
	struct hwtr_end end = { hwtr_end_exited, 0 };
	struct hwtr_writer *w;
	size_t i;

	strcpy(dir, "/tmp/hwtrec-objects-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(hwtr_writer_create(dir, &info, &w), 0);
	/* A finished recording lists at least one thread (an empty list is
	 * refused as damage); its stream may be empty. */
	ck_assert_int_eq(hwtr_writer_add_thread(w, 1, 0), 0);
	for (i = 0; i < n; i++) {
		struct hwtr_sideband_event ev = {
			.kind = maps[i].kind, .tsc = 10 * (i + 1), .addr = maps[i].addr,
			.len = maps[i].len, .pgoff = maps[i].pgoff,
			.prot = HWTR_PROT_READ | HWTR_PROT_EXEC, .path = maps[i].path,
		};
		ck_assert_int_eq(hwtr_writer_event(w, &ev), 0);
	}
	ck_assert_int_eq(hwtr_writer_finish(w, &end), 0);
	hwtr_writer_free(w);
	ck_assert_int_eq(hwtr_recording_open(dir, &recording), 0);
	ck_assert_int_eq(loaded_objects_build(recording, loaded_objects_nimages(recording) - 1, &objects), 0);
}

static void teardown(void)
{
	char cmd[128];

	loaded_objects_free(objects);
	objects = NULL;
	if (recording)
		hwtr_recording_close(recording);
	recording = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static uint64_t auxv_get(const uint64_t *auxv, size_t size, uint64_t type,
			 bool *found)
{
	size_t i;

	*found = false;
	for (i = 0; i + 1 < size / 8; i += 2)
		if (auxv[i] == type) {
			*found = true;
			return auxv[i + 1];
		}
	return 0;
}

static const struct loaded_object *object_named(const char *path)
{
	size_t i;

	for (i = 0; i < objects->n; i++)
		if (!strcmp(objects->objects[i].path, path))
			return &objects->objects[i];
	return NULL;
}

/* Each file mapped whole from offset 0: the first page of a file linked
 * at 0 (PIE, shared object) is its load bias. */
START_TEST(pie_interpreter_and_library_give_auxv_and_l_ld)
{
	const uint64_t exe = 0x555555554000, ld = 0x7ff7f0000000, lib = 0x7ff7e0000000;
	const struct mapping maps[] = {
		{ hwtr_ev_mmap, exe, 0x4000, 0, PIE },
		{ hwtr_ev_mmap, ld, 0x30000, 0, INTERP },
		{ hwtr_ev_mmap, lib, 0x4000, 0, SHARED },
	};
	const struct loaded_object *l;
	uint64_t *auxv;
	size_t size;
	bool found;

	build(maps, 3);
	ck_assert_uint_eq(objects->exe, 0);
	ck_assert_str_eq(objects->objects[0].path, PIE);
	ck_assert(!objects->execd);
	ck_assert_ptr_null(objects->problems);
	ck_assert_uint_eq(objects->interp, 1);
	auxv = loaded_objects_auxv(objects, &size);
	ck_assert_ptr_nonnull(auxv);
	ck_assert_uint_eq(auxv_get(auxv, size, AT_ENTRY, &found),
			  exe + fixture_symbol_in(PIE, "_start"));
	ck_assert(found);
	/* The headers follow the ELF header in the first page. */
	ck_assert_uint_eq(auxv_get(auxv, size, AT_PHDR, &found), exe + sizeof(Elf64_Ehdr));
	ck_assert_uint_eq(auxv_get(auxv, size, AT_PHENT, &found), sizeof(Elf64_Phdr));
	ck_assert_uint_eq(auxv_get(auxv, size, AT_BASE, &found), ld);
	ck_assert(found);
	ck_assert_uint_eq(auxv_get(auxv, size, AT_PAGESZ, &found), 4096);
	auxv_get(auxv, size, AT_SYSINFO_EHDR, &found);
	ck_assert(!found);	/* no [vdso] mapped */
	ck_assert_uint_eq(auxv[size / 8 - 2], AT_NULL);
	free(auxv);
	l = object_named(SHARED);
	ck_assert_ptr_nonnull(l);
	ck_assert(l->shared);
	ck_assert_uint_eq(l->bias, lib);
	ck_assert_uint_eq(l->dynamic, lib + fixture_symbol_in(SHARED, "_DYNAMIC"));
}
END_TEST

/* A mapping of the text alone, at its file offset: the same bias. */
START_TEST(text_mapping_alone_gives_the_same_bias)
{
	const uint64_t lib = 0x7ff7e0000000, text = fixture_symbol_in(SHARED, "images_lib_twice");
	const uint64_t page = text & ~0xfffull;
	const struct mapping maps[] = {
		{ hwtr_ev_mmap, 0x555555554000, 0x4000, 0, PIE },
		/* The shared object's code page, where a decoder sees it. */
		{ hwtr_ev_mmap, lib + page, 0x1000, page, SHARED },
	};

	build(maps, 2);
	ck_assert_ptr_nonnull(object_named(SHARED));
	ck_assert_uint_eq(object_named(SHARED)->bias, lib);
}
END_TEST

START_TEST(exec_forgets_the_first_program)
{
	const struct mapping maps[] = {
		{ hwtr_ev_mmap, 0x555555554000, 0x4000, 0, PIE },
		{ hwtr_ev_mmap, 0x7ff7e0000000, 0x4000, 0, SHARED },
		{ hwtr_ev_exec, 0, 0, 0, "./fixture-exec" },
		{ hwtr_ev_mmap, 0x400000, 0x2000, 0, FIXTURE_EXEC },
	};
	uint64_t *auxv;
	size_t size;
	bool found;

	build(maps, 4);
	ck_assert(objects->execd);
	ck_assert_uint_eq(objects->n, 1);
	ck_assert_uint_eq(objects->exe, 0);
	ck_assert_str_eq(objects->objects[0].path, FIXTURE_EXEC);
	ck_assert(!objects->objects[0].shared);
	ck_assert_uint_eq(objects->objects[0].bias, 0);
	auxv = loaded_objects_auxv(objects, &size);
	ck_assert_uint_eq(auxv_get(auxv, size, AT_ENTRY, &found),
			  fixture_symbol_in(FIXTURE_EXEC, "_start"));
	/* A static program: no interpreter; its code starts at its entry. */
	ck_assert_uint_eq(auxv_get(auxv, size, AT_BASE, &found), 0);
	ck_assert(found);
	free(auxv);
	ck_assert_uint_eq(objects->first_ip, fixture_symbol_in(FIXTURE_EXEC, "_start"));
	/* The program before the exec is image 0. */
	ck_assert_uint_eq(loaded_objects_nimages(recording), 2);
	loaded_objects_free(objects);
	objects = NULL;
	ck_assert_int_eq(loaded_objects_build(recording, 0, &objects), 0);
	ck_assert(!objects->execd);
	ck_assert_uint_eq(objects->n, 2);
	ck_assert_str_eq(objects->objects[objects->exe].path, PIE);
	ck_assert_ptr_nonnull(object_named(SHARED));
	ck_assert_uint_eq(objects->first_ip, 0);	/* its interpreter is not mapped */
}
END_TEST

START_TEST(munmap_and_a_later_mapping_end_an_object)
{
	const struct mapping maps[] = {
		{ hwtr_ev_mmap, 0x555555554000, 0x4000, 0, PIE },
		{ hwtr_ev_mmap, 0x7ff7e0000000, 0x4000, 0, SHARED },
		{ hwtr_ev_munmap, 0x7ff7e0000000, 0x4000, 0, NULL },	/* dlclose */
		{ hwtr_ev_mmap, 0x7ff7d0000000, 0x30000, 0, INTERP },
		{ hwtr_ev_mmap, 0x7ff7d0000000, 0x30000, 0, SHARED },	/* over it */
	};

	build(maps, 5);
	ck_assert_uint_eq(objects->n, 2);
	ck_assert_ptr_nonnull(object_named(SHARED));
	ck_assert_uint_eq(object_named(SHARED)->bias, 0x7ff7d0000000);
	ck_assert_ptr_null(object_named(INTERP));
}
END_TEST

/* Without the program's own file there is no executable, and no auxv:
 * the next file is its interpreter, not it. */
START_TEST(missing_and_foreign_files_are_named)
{
	const struct mapping maps[] = {
		{ hwtr_ev_mmap, 0x555555554000, 0x4000, 0, "/nonexistent/hwtrec/prog" },
		{ hwtr_ev_mmap, 0x7ff7f0000000, 0x30000, 0, INTERP },
		{ hwtr_ev_mmap, 0x7ff7e0000000, 0x1000, 0, IMAGES_SRC },
		{ hwtr_ev_mmap, 0x7fffff000000, 0x2000, 0, "[vdso]" },
	};
	size_t size;

	build(maps, 4);
	ck_assert_uint_eq(objects->exe, (size_t)-1);
	ck_assert_ptr_null(loaded_objects_auxv(objects, &size));
	ck_assert_ptr_nonnull(objects->problems);
	ck_assert_msg(strstr(objects->problems, "/nonexistent/hwtrec/prog (mapped at "
			     "0x555555554000): missing binary /nonexistent/hwtrec/prog"),
		      "%s", objects->problems);
	ck_assert_msg(strstr(objects->problems, IMAGES_SRC " (mapped at 0x7ff7e0000000): "
			     "not an ELF file"), "%s", objects->problems);
	ck_assert_uint_eq(objects->vdso, 0x7fffff000000);
	ck_assert_uint_eq(objects->n, 1);	/* the interpreter */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("loaded-objects");
	TCase *tc = tcase_create("objects");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, pie_interpreter_and_library_give_auxv_and_l_ld);
	tcase_add_test(tc, text_mapping_alone_gives_the_same_bias);
	tcase_add_test(tc, exec_forgets_the_first_program);
	tcase_add_test(tc, munmap_and_a_later_mapping_end_an_object);
	tcase_add_test(tc, missing_and_foreign_files_are_named);
	suite_add_tcase(s, tc);
	return check_run_suite(s);
}
