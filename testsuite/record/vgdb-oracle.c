/* vgdb-oracle.c: reading values-oracle.py's file (vgdb-oracle.h). */
#include "vgdb-oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const oracle_reg_names[ORACLE_NREGS] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9",
	"r10", "r11", "r12", "r13", "r14", "r15", "eflags",
};

static int hexval(int c)
{
	return c >= 'a' ? c - 'a' + 10 : c - '0';
}

/* "0x" and up to 32 hex digits: the low and high 64 bits. */
static void read_xmm(const char *hex, uint64_t xmm[2])
{
	size_t len = strlen(hex + 2);
	char lo[17] = "0", hi[17] = "0";

	if (len > 32)
		return;
	if (len > 16) {
		memcpy(hi, hex + 2, len - 16);
		hi[len - 16] = 0;
		strcpy(lo, hex + 2 + len - 16);
	} else {
		strcpy(lo, hex + 2);
	}
	xmm[0] = strtoull(lo, NULL, 16);
	xmm[1] = strtoull(hi, NULL, 16);
}

static void read_register(struct oracle_step *s, const char *name,
			  const char *hex)
{
	int i;

	if (!strncmp(name, "xmm", 3)) {
		i = atoi(name + 3);
		if (i >= 0 && i < 16 && !strncmp(hex, "0x", 2))
			read_xmm(hex, s->xmm[i]);
		return;
	}
	for (i = 0; i < ORACLE_NREGS; i++)
		if (!strcmp(name, oracle_reg_names[i]))
			s->reg[i] = strtoull(hex, NULL, 16);
}

/* 0, 1 (line left out) or -1 (out of memory). */
static int read_global(struct oracle *o, struct oracle_step *s,
		       const char *name, uint64_t addr, const char *hex)
{
	size_t g, k;

	for (g = 0; g < o->nglobals; g++)
		if (!strcmp(o->globals[g].name, name))
			break;
	if (g == o->nglobals) {
		if (g == ORACLE_MAX_GLOBALS)
			return 1;
		snprintf(o->globals[g].name, sizeof(o->globals[g].name), "%s",
			 name);
		o->globals[g].addr = addr;
		o->globals[g].size = strlen(hex) / 2;
		o->nglobals++;
	}
	if (strlen(hex) < 2 * o->globals[g].size)
		return 1;
	if (!s->mem[g] && !(s->mem[g] = malloc(o->globals[g].size ?
						   o->globals[g].size : 1)))
		return -1;
	for (k = 0; k < o->globals[g].size; k++)
		s->mem[g][k] = (uint8_t)(hexval(hex[2 * k]) * 16 +
					 hexval(hex[2 * k + 1]));
	return 0;
}

int oracle_read(const char *path, struct oracle *o)
{
	FILE *f = fopen(path, "r");
	char line[4096], name[64], hex[1024];
	struct oracle_step *s = NULL;
	size_t cap = 0;

	memset(o, 0, sizeof(*o));
	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b;

		if (sscanf(line, "I %llu %llx", &a, &b) == 2) {
			if (o->nsteps == cap) {
				struct oracle_step *more;

				cap = cap ? 2 * cap : 1024;
				more = realloc(o->steps, cap * sizeof(*more));
				if (!more)
					goto nomem;
				o->steps = more;
			}
			s = &o->steps[o->nsteps++];
			memset(s, 0, sizeof(*s));
			s->pos = a;
			s->pc = b;
		} else if (s && sscanf(line, "R %63s %1023s", name, hex) == 2) {
			read_register(s, name, hex);
		} else if (s && sscanf(line, "M %63s %llx %1023s", name, &a,
				       hex) == 3) {
			if (read_global(o, s, name, a, hex) < 0)
				goto nomem;
		} else if (sscanf(line, "E %llu", &a) == 1) {
			o->end = a;
		}
	}
	fclose(f);
	return 0;
nomem:
	fclose(f);
	fprintf(stderr, "%s: out of memory\n", path);
	oracle_free(o);
	return -1;
}

void oracle_free(struct oracle *o)
{
	size_t i, g;

	for (i = 0; i < o->nsteps; i++)
		for (g = 0; g < ORACLE_MAX_GLOBALS; g++)
			free(o->steps[i].mem[g]);
	free(o->steps);
	memset(o, 0, sizeof(*o));
}
