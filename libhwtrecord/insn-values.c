/* insn-values.c: the registers and memory one instruction changed
 * (insn-values.h).
 *
 * Registers: those whose value just before the next instruction differs
 * from that just before this one (a write of the same value is not seen,
 * the log keeps changes).  The values after come from the log's register
 * records of the next position (stores_registers_after, values-stores.c),
 * which name every register that changed there; the values before are
 * those after the previous instruction, or, at the start of a listing and
 * after a gap, hwtr_values_register's.  The next instruction is the next
 * one the log holds: past a gap where tracing was only disabled (a
 * signal's delivery) the values are those at the instruction after it,
 * and the entry says "across_gap".  rip is left out: the next
 * instruction's address is the next line.  Registers the log does not
 * hold (x87, mxcsr, segment selectors) never appear; when the registers
 * after an instruction are not known (its thread's last instruction, one
 * before another kind of gap), "regs" is absent (as every unknown field of
 * the JSON output).  A listing reads the log about once.
 *
 * Memory: hwtr_stores_at (values-stores.c).
 */
#include "insn-values.h"
#include "values-stores.h"
#include "error.h"
#include "json-util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The registers listed, in GDB's order and names. */
static const struct {
	unsigned regno;
	const char *name;
	unsigned size;
} listed_regs[] = {
	{ hwtr_amd64_rax, "rax", 8 }, { hwtr_amd64_rbx, "rbx", 8 },
	{ hwtr_amd64_rcx, "rcx", 8 }, { hwtr_amd64_rdx, "rdx", 8 },
	{ hwtr_amd64_rsi, "rsi", 8 }, { hwtr_amd64_rdi, "rdi", 8 },
	{ hwtr_amd64_rbp, "rbp", 8 }, { hwtr_amd64_rsp, "rsp", 8 },
	{ hwtr_amd64_r8, "r8", 8 }, { hwtr_amd64_r8 + 1, "r9", 8 },
	{ hwtr_amd64_r8 + 2, "r10", 8 }, { hwtr_amd64_r8 + 3, "r11", 8 },
	{ hwtr_amd64_r8 + 4, "r12", 8 }, { hwtr_amd64_r8 + 5, "r13", 8 },
	{ hwtr_amd64_r8 + 6, "r14", 8 }, { hwtr_amd64_r15, "r15", 8 },
	{ hwtr_amd64_eflags, "eflags", 4 },
	{ hwtr_amd64_fs_base, "fs_base", 8 },
	{ hwtr_amd64_gs_base, "gs_base", 8 },
#define XMM(i) { hwtr_amd64_xmm0 + i, "xmm" #i, 16 }
	XMM(0), XMM(1), XMM(2), XMM(3), XMM(4), XMM(5), XMM(6), XMM(7),
	XMM(8), XMM(9), XMM(10), XMM(11), XMM(12), XMM(13), XMM(14), XMM(15),
#undef XMM
#define YMMH(i) { hwtr_amd64_ymm0h + i, "ymm" #i "h", 16 }
	YMMH(0), YMMH(1), YMMH(2), YMMH(3), YMMH(4), YMMH(5), YMMH(6), YMMH(7),
	YMMH(8), YMMH(9), YMMH(10), YMMH(11), YMMH(12), YMMH(13), YMMH(14),
	YMMH(15),
#undef YMMH
};
#define NLISTED (sizeof(listed_regs) / sizeof(listed_regs[0]))

/* Listed registers just before instruction NUMBER, those read so far. */
struct register_state {
	uint64_t number;	/* 0: none */
	bool known[NLISTED];
	uint8_t value[NLISTED][16];
};

struct insn_values {
	struct hwtr_values *values;
	struct hwtr_thread *thread;
	struct hwtr_stores *stores;
	struct register_state state;
	bool changed[NLISTED];	/* of the last instruction loaded */
	bool across_gap;	/* ... whose next instruction follows a gap */
	struct stores_registers after;	/* its registers after it */
	char *text;		/* formatting buffer */
	size_t text_cap;
};

int insn_values_open(struct hwtr_values *values, struct hwtr_thread *thread,
		     struct insn_values **out)
{
	struct insn_values *iv;
	int err;

	*out = NULL;
	iv = calloc(1, sizeof(*iv));
	if (!iv)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	iv->values = values;
	iv->thread = thread;
	if ((err = hwtr_stores_open(values, thread, &iv->stores))) {
		free(iv);
		return err;
	}
	*out = iv;
	return 0;
}

void insn_values_close(struct insn_values *iv)
{
	if (!iv)
		return;
	hwtr_stores_free(iv->stores);
	free(iv->text);
	free(iv);
}

/* Which listed registers instruction NUMBER changed (iv->changed) and
 * their values after it (iv->state, then just before the next instruction,
 * stores_next_insn); *KNOWN false when the registers after it are not
 * known. */
static int load_registers(struct insn_values *iv, uint64_t number, bool *known)
{
	struct register_state *st = &iv->state;
	struct stores_registers *after = &iv->after;
	uint64_t next;
	size_t i;
	int rc;

	*known = false;
	iv->across_gap = false;
	memset(iv->changed, 0, sizeof(iv->changed));
	rc = stores_next_insn(iv->stores, number, &next, &iv->across_gap);
	if (rc == -hwtr_err_notfound)
		goto unknown;
	if (rc)
		return rc;
	if (st->number != number) {
		memset(st->known, 0, sizeof(st->known));
		st->number = number;
	}
	rc = stores_registers_after(iv->stores, number, after);
	if (rc == -hwtr_err_notfound)
		goto unknown;
	if (rc)
		return rc;
	for (i = 0; i < NLISTED; i++) {
		unsigned regno = listed_regs[i].regno;

		if (!after->changed[regno])
			continue;
		if (!st->known[i]) {
			rc = hwtr_values_register(iv->values, iv->thread,
						  number, regno, st->value[i],
						  sizeof(st->value[i]));
			if (rc == -hwtr_err_notfound)
				goto unknown;
			if (rc < 0)
				return rc;
		}
		iv->changed[i] = memcmp(st->value[i], after->value[regno],
					listed_regs[i].size) != 0;
		memcpy(st->value[i], after->value[regno], listed_regs[i].size);
		st->known[i] = true;
	}
	st->number = next;
	*known = true;
	return 0;
unknown:
	st->number = 0;
	return 0;
}

/* "0x..." of a little-endian value, without leading zeros, as GDB prints
 * a register in hex. */
static void format_hex_number(char *buf, const uint8_t *value, unsigned size)
{
	static const char digits[] = "0123456789abcdef";
	unsigned i = size;
	char *p = buf;

	*p++ = '0';
	*p++ = 'x';
	while (i > 1 && value[i - 1] == 0)
		i--;
	if (value[i - 1] < 16)
		*p++ = digits[value[--i]];
	while (i-- > 0) {
		*p++ = digits[value[i] >> 4];
		*p++ = digits[value[i] & 15];
	}
	*p = 0;
}

/* Bytes in memory order as hex, "??" for a byte not known. */
static int format_bytes(struct insn_values *iv, const uint8_t *bytes,
			const uint8_t *known, uint64_t size, const char *sep)
{
	static const char digits[] = "0123456789abcdef";
	size_t step = 2 + strlen(sep), need, i;
	char *p;

	if (size > (SIZE_MAX - 1) / step)
		return hwtr_fail(hwtr_err_nomem, "a store of %llu bytes",
				 (unsigned long long)size);
	need = size * step + 1;
	if (need > iv->text_cap) {
		char *t = realloc(iv->text, need);

		if (!t)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		iv->text = t;
		iv->text_cap = need;
	}
	p = iv->text;
	for (i = 0; i < size; i++) {
		if (i && *sep)
			p = stpcpy(p, sep);
		if (known && !known[i]) {
			*p++ = '?';
			*p++ = '?';
		} else {
			*p++ = digits[bytes[i] >> 4];
			*p++ = digits[bytes[i] & 15];
		}
	}
	*p = 0;
	return 0;
}

int insn_values_json(struct insn_values *iv, uint64_t number, json_t *obj)
{
	const struct hwtr_store *stores;
	size_t count, i;
	bool known;
	int err;

	if ((err = load_registers(iv, number, &known)))
		return err;
	if (known) {
		json_t *regs = json_object();

		for (i = 0; i < NLISTED; i++) {
			char hex[2 + 2 * 16 + 1];

			if (!iv->changed[i])
				continue;
			format_hex_number(hex, iv->state.value[i],
					  listed_regs[i].size);
			json_object_set_new(regs, listed_regs[i].name,
					    json_string(hex));
		}
		json_object_set_new(obj, "regs", regs);
		if (iv->across_gap)
			json_object_set_new(obj, "across_gap", json_true());
	}
	err = hwtr_stores_at(iv->stores, number, &stores, &count);
	if (err == -hwtr_err_notfound)
		return 0;	/* not known: absent */
	if (err)
		return err;
	{
		json_t *list = json_array();

		for (i = 0; i < count; i++) {
			const struct hwtr_store *st = &stores[i];
			json_t *o = json_pack("{s:o,s:I}", "addr",
					      jfield_address(st->addr), "size",
					      (json_int_t)st->size);

			if (!st->known) {
				json_object_set_new(o, "unknown", json_true());
			} else {
				if ((err = format_bytes(iv, st->old, NULL,
							st->size, "")))
					break;
				json_object_set_new(o, "old",
						    json_string(iv->text));
				if ((err = format_bytes(iv, st->new_bytes,
							st->new_known,
							st->size, "")))
					break;
				json_object_set_new(o, "new",
						    json_string(iv->text));
			}
			json_array_append_new(list, o);
		}
		json_object_set_new(obj, "stores", list);
	}
	return err;
}

int insn_values_text(struct insn_values *iv, uint64_t number, FILE *out)
{
	const struct hwtr_store *stores;
	size_t count, i;
	bool known, any = false;
	int err;

	if ((err = load_registers(iv, number, &known)))
		return err;
	if (!known) {
		fprintf(out, "\t\tregisters after it: not known\n");
	} else {
		for (i = 0; i < NLISTED; i++) {
			char hex[2 + 2 * 16 + 1];

			if (!iv->changed[i])
				continue;
			format_hex_number(hex, iv->state.value[i],
					  listed_regs[i].size);
			fprintf(out, "%s%s = %s", any ? ", " : "\t\t",
				listed_regs[i].name, hex);
			any = true;
		}
		if (any)
			fputc('\n', out);
		if (iv->across_gap)
			fprintf(out, "\t\t(values up to the instruction after "
				"the gap)\n");
	}
	err = hwtr_stores_at(iv->stores, number, &stores, &count);
	if (err == -hwtr_err_notfound) {
		fprintf(out, "\t\tmemory it changed: not known\n");
		return 0;
	}
	if (err)
		return err;
	for (i = 0; i < count; i++) {
		const struct hwtr_store *st = &stores[i];

		fprintf(out, "\t\t[0x%" PRIx64 ", %" PRIu64 " byte%s] ",
			st->addr, st->size, st->size == 1 ? "" : "s");
		if (!st->known) {
			fprintf(out, "mapped or unmapped: not known\n");
			continue;
		}
		if ((err = format_bytes(iv, st->new_bytes, st->new_known,
					st->size, " ")))
			return err;
		fprintf(out, "= %s (was ", iv->text);
		if ((err = format_bytes(iv, st->old, NULL, st->size, " ")))
			return err;
		fprintf(out, "%s)\n", iv->text);
	}
	return 0;
}
