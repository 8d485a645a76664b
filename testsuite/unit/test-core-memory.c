/* test-core-memory.c: the memory an ELF core holds (core-memory.c), the one
 * reader the data log's end state and hwtrec-server share.
 *
 * Oracle: a core written here byte by byte (ELF header, program headers,
 * segment contents of a known pattern), so that every address's byte, every
 * segment's bounds and permissions, and where the file was cut are known
 * without the reader. */
#include "check-main.h"
#include "core-memory.h"

#include <hwtrecord.h>

#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The core: A (writable) and B (read-only) adjacent, C with no file part,
 * D (writable) whose file part the file holds only half of. */
#define A_VADDR 0x10000u
#define A_SIZE 0x100u
#define B_VADDR (A_VADDR + A_SIZE)
#define B_SIZE 0x80u
#define C_VADDR 0x20000u
#define D_VADDR 0x30000u
#define D_SIZE 0x100u
#define D_HELD 0x80u
#define DATA_OFFSET 0x200u
#define FILE_SIZE (DATA_OFFSET + A_SIZE + B_SIZE + D_HELD)

static char dir[64], core_path[96];

/* The byte the core holds at ADDR. */
static uint8_t pattern(uint64_t addr)
{
	return (uint8_t)(addr * 7 + (addr >> 8));
}

static void write_core(void)
{
	static uint8_t file[FILE_SIZE];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)file;
	Elf64_Phdr *ph = (Elf64_Phdr *)(file + sizeof(*eh));
	const struct { uint64_t vaddr, filesz, memsz, offset; uint32_t flags; }
	seg[4] = {
		{ A_VADDR, A_SIZE, A_SIZE, DATA_OFFSET, PF_R | PF_W },
		{ B_VADDR, B_SIZE, B_SIZE, DATA_OFFSET + A_SIZE, PF_R },
		{ C_VADDR, 0, 0x1000, DATA_OFFSET + A_SIZE + B_SIZE, PF_R | PF_W },
		{ D_VADDR, D_SIZE, D_SIZE, DATA_OFFSET + A_SIZE + B_SIZE,
		  PF_R | PF_W },
	};
	FILE *f;
	size_t i, j;

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_CORE;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 4;
	for (i = 0; i < 4; i++) {
		ph[i] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = seg[i].flags,
				      .p_offset = seg[i].offset,
				      .p_vaddr = seg[i].vaddr,
				      .p_filesz = seg[i].filesz,
				      .p_memsz = seg[i].memsz, .p_align = 1 };
		for (j = 0; j < seg[i].filesz &&
			    seg[i].offset + j < FILE_SIZE; j++)
			file[seg[i].offset + j] = pattern(seg[i].vaddr + j);
	}
	f = fopen(core_path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(file, 1, sizeof(file), f), sizeof(file));
	ck_assert_int_eq(fclose(f), 0);
}

static void setup(void)
{
	strcpy(dir, "/tmp/hwtr-core-memory-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(core_path, sizeof(core_path), "%s/core", dir);
	write_core();
}

static void teardown(void)
{
	char path[128];

	unlink(core_path);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	unlink(path);
	rmdir(dir);
}

static void assert_pattern(const uint8_t *buf, uint64_t addr, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ck_assert_msg(buf[i] == pattern(addr + i),
			      "byte at 0x%llx: 0x%02x, the core holds 0x%02x",
			      (unsigned long long)(addr + i), buf[i],
			      pattern(addr + i));
}

START_TEST(read_runs_on_through_adjacent_segments_and_stops_at_a_hole)
{
	struct hwtr_core_memory *cm;
	uint8_t buf[0x200];

	ck_assert_int_eq(hwtr_core_memory_open(core_path, &cm), 0);
	/* From A's last 0x10 bytes on into B. */
	ck_assert_uint_eq(hwtr_core_memory_read(cm, B_VADDR - 0x10, buf, 0x40),
			  0x40);
	assert_pattern(buf, B_VADDR - 0x10, 0x40);
	/* B's last 0x10 bytes, then nothing held. */
	ck_assert_uint_eq(hwtr_core_memory_read(cm, B_VADDR + B_SIZE - 0x10,
						buf, 0x100), 0x10);
	assert_pattern(buf, B_VADDR + B_SIZE - 0x10, 0x10);
	ck_assert_uint_eq(hwtr_core_memory_read(cm, B_VADDR + B_SIZE, buf, 1), 0);
	ck_assert_uint_eq(hwtr_core_memory_read(cm, A_VADDR - 1, buf, 0x10), 0);
	/* A segment without a file part holds nothing. */
	ck_assert_uint_eq(hwtr_core_memory_read(cm, C_VADDR, buf, 0x10), 0);
	hwtr_core_memory_close(cm);
}
END_TEST

START_TEST(a_core_cut_short_holds_what_is_left)
{
	struct hwtr_core_memory *cm;
	uint8_t buf[0x100];

	ck_assert_int_eq(hwtr_core_memory_open(core_path, &cm), 0);
	ck_assert_uint_eq(hwtr_core_memory_read(cm, D_VADDR + D_HELD - 0x10,
						buf, 0x40), 0x10);
	assert_pattern(buf, D_VADDR + D_HELD - 0x10, 0x10);
	ck_assert_uint_eq(hwtr_core_memory_read(cm, D_VADDR + D_HELD, buf, 1), 0);
	ck_assert(hwtr_core_memory_writable(cm, D_VADDR + D_HELD - 1));
	ck_assert(!hwtr_core_memory_writable(cm, D_VADDR + D_HELD));
	hwtr_core_memory_close(cm);
}
END_TEST

START_TEST(writable_is_the_segment_flag_of_held_bytes)
{
	struct hwtr_core_memory *cm;

	ck_assert_int_eq(hwtr_core_memory_open(core_path, &cm), 0);
	ck_assert(hwtr_core_memory_writable(cm, A_VADDR));
	ck_assert(hwtr_core_memory_writable(cm, A_VADDR + A_SIZE - 1));
	ck_assert(!hwtr_core_memory_writable(cm, B_VADDR));
	ck_assert(!hwtr_core_memory_writable(cm, C_VADDR));
	ck_assert(!hwtr_core_memory_writable(cm, A_VADDR - 1));
	hwtr_core_memory_close(cm);
}
END_TEST

/* Read-only: held bytes of a segment without PF_W (what recovery trusts
 * back to the last change of a mapping), not a writable one, not bytes
 * the core does not hold. */
START_TEST(read_only_is_a_held_segment_without_pf_w)
{
	struct hwtr_core_memory *cm;

	ck_assert_int_eq(hwtr_core_memory_open(core_path, &cm), 0);
	ck_assert(hwtr_core_memory_read_only(cm, B_VADDR));
	ck_assert(hwtr_core_memory_read_only(cm, B_VADDR + B_SIZE - 1));
	ck_assert(!hwtr_core_memory_read_only(cm, B_VADDR + B_SIZE));
	ck_assert(!hwtr_core_memory_read_only(cm, A_VADDR));
	ck_assert(!hwtr_core_memory_read_only(cm, A_VADDR + A_SIZE - 1));
	ck_assert(!hwtr_core_memory_read_only(cm, C_VADDR));
	ck_assert(!hwtr_core_memory_read_only(cm, A_VADDR - 1));
	hwtr_core_memory_close(cm);
}
END_TEST

START_TEST(read_known_marks_held_bytes_and_refuses_a_cut_segment)
{
	struct hwtr_core_memory *cm;
	uint8_t buf[0xa0], known[0xa0];

	ck_assert_int_eq(hwtr_core_memory_open(core_path, &cm), 0);
	/* A's end, all of B, then 0x10 bytes past B: unknown, untouched. */
	memset(buf, 0xee, sizeof(buf));
	memset(known, 0, sizeof(known));
	ck_assert_int_eq(core_memory_read_known(cm, A_VADDR + A_SIZE - 0x10, buf,
						known, sizeof(buf)), 0);
	assert_pattern(buf, A_VADDR + A_SIZE - 0x10, 0x90);
	for (size_t i = 0; i < sizeof(buf); i++) {
		ck_assert_uint_eq(known[i], i < 0x90);
		if (i >= 0x90)
			ck_assert_uint_eq(buf[i], 0xee);
	}
	/* The part of D the file holds reads; past it the core is refused,
	 * naming it, rather than the bytes shown as unknown. */
	memset(known, 0, sizeof(known));
	ck_assert_int_eq(core_memory_read_known(cm, D_VADDR, buf, known, D_HELD),
			 0);
	assert_pattern(buf, D_VADDR, D_HELD);
	ck_assert_int_eq(core_memory_read_known(cm, D_VADDR + D_HELD - 8, buf,
						known, 0x10), -hwtr_err_io);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), core_path));
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "the core is cut short"));
	hwtr_core_memory_close(cm);
}
END_TEST

START_TEST(what_is_not_a_core_is_refused_naming_it)
{
	struct hwtr_core_memory *cm = (void *)1;
	char path[128];
	FILE *f;

	/* A FIFO: refused at once, not waited on for a writer. */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(hwtr_core_memory_open(path, &cm), -hwtr_err_format);
	ck_assert_ptr_null(cm);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "not a regular file"));
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), path));
	/* Not ELF. */
	f = fopen(core_path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("not a core\n", f);
	fclose(f);
	ck_assert_int_eq(hwtr_core_memory_open(core_path, &cm), -hwtr_err_format);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "not an ELF core"));
	/* Missing. */
	snprintf(path, sizeof(path), "%s/none", dir);
	ck_assert_int_eq(hwtr_core_memory_open(path, &cm), -hwtr_err_io);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "No such file"));
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("core-memory");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, read_runs_on_through_adjacent_segments_and_stops_at_a_hole);
	tcase_add_test(tc, a_core_cut_short_holds_what_is_left);
	tcase_add_test(tc, writable_is_the_segment_flag_of_held_bytes);
	tcase_add_test(tc, read_only_is_a_held_segment_without_pf_w);
	tcase_add_test(tc, read_known_marks_held_bytes_and_refuses_a_cut_segment);
	tcase_add_test(tc, what_is_not_a_core_is_refused_naming_it);
	return check_run_tcase("core-memory", tc);
}
