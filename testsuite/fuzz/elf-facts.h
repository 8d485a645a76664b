/* elf-facts.h: what the fuzzers and the benchmark need to know about a test
 * binary, read with libelf (independently of the library under test): where
 * the kernel would map its code, its build-id and its symbols. */
#ifndef ELF_FACTS_H
#define ELF_FACTS_H

#include <stddef.h>
#include <stdint.h>

/* The executable PT_LOAD segment, page-aligned as the kernel maps it. */
int elf_text_mapping(const char *path, uint64_t *addr, uint64_t *len,
		     uint64_t *pgoff);
/* The GNU build-id as lower-case hex into BUF; 0 on success. */
int elf_build_id(const char *path, char *buf, size_t size);
/* The value of symbol NAME, or 0 when it is missing. */
uint64_t elf_symbol(const char *path, const char *name);

#endif
