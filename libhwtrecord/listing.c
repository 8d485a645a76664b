/* listing.c: instruction and function-call history in GDB's btrace formats
 * (record-btrace.c: btrace_insn_history, btrace_call_history) and as JSON
 * lines (doc/json-schema.md).  Everything streams one entry at a time.
 */
#define _GNU_SOURCE /* fwrite_unlocked */
#include "chunk-cache.h"
#include "demangle.h"
#include "gaps.h"
#include "history.h"
#include "insn-values.h"
#include "segments.h"

#include "error.h"
#include "json-util.h"
#include "recording-file.h"

#include <capstone/capstone.h>
#include <ctype.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *class_name(enum hwtr_insn_class c)
{
	static const char *const names[] = {
		"other", "call", "return", "jump", "cond_jump",
		"far_call", "far_return", "far_jump", "unknown",
	};

	return (unsigned)c < sizeof(names) / sizeof(names[0]) ? names[c]
							      : "unknown";
}

/* GDB's btrace_ui_out_decode_error wording. */
static void gap_text(const struct hwtr_gap *gap, char *buf, size_t size)
{
	if (!gap)
		snprintf(buf, size, "[decode error]");
	else if (!strcmp(gap->kind, "overflow"))
		snprintf(buf, size, "[overflow]");
	else if (!strcmp(gap->kind, "disabled"))
		snprintf(buf, size, "[disabled]");
	else
		snprintf(buf, size, "[decode error (%d): %s]",
			 gap->error ? -gap->error : -1, gap->message);
}

static json_t *gap_json(const struct hwtr_gap *gap)
{
	/* The message may name a file, which is bytes. */
	return json_pack("{s:s,s:i,s:I,s:o}", "error",
			 gap ? gap->kind : "decode-error", "pt_error",
			 gap ? gap->pt_error : 0, "offset",
			 (json_int_t)(gap ? gap->offset : 0), "message",
			 jfield_text(gap ? gap->message : "unknown"));
}

static void emit_json(json_t *obj, FILE *out)
{
	json_dumpf(obj, out, JSON_COMPACT | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(obj);
}

/* Mnemonics whose operand size suffix GDB (objdump) leaves out. */
static bool drop_suffix(const char *mnemonic, bool has_register)
{
	static const char *const always[] = { "call", "ret", "jmp", "push", "pop",
					      "leave", NULL };
	static const char *const with_register[] = {
		"mov", "add", "sub", "and", "or", "xor", "cmp", "test", "lea",
		"inc", "dec", "neg", "not", "imul", "shl", "shr", "sar", "adc",
		"sbb", "xchg", NULL,
	};
	size_t n = strlen(mnemonic), i;

	if (n < 2 || !strchr("bwlq", mnemonic[n - 1]))
		return false;
	for (i = 0; always[i] && mnemonic[n - 1] == 'q'; i++)
		if (strlen(always[i]) == n - 1 && !strncmp(mnemonic, always[i], n - 1))
			return true;
	for (i = 0; has_register && with_register[i]; i++)
		if (strlen(with_register[i]) == n - 1 &&
		    !strncmp(mnemonic, with_register[i], n - 1))
			return true;
	return false;
}

/* One capstone handle per instruction set, opened when first needed. */
struct disassembler {
	csh cs[4];		/* by enum hwtr_isa */
	bool opened[4], failed[4];
};

static bool disassembler_get(struct disassembler *d, enum hwtr_isa set, csh *cs)
{
	static const struct { cs_arch arch; cs_mode mode; } modes[4] = {
		[hwtr_isa_x86_64] = { CS_ARCH_X86, CS_MODE_64 },
		[hwtr_isa_a64] = { CS_ARCH_ARM64, CS_MODE_ARM },
		[hwtr_isa_a32] = { CS_ARCH_ARM, CS_MODE_ARM },
		[hwtr_isa_t32] = { CS_ARCH_ARM, CS_MODE_THUMB },
	};

	if ((unsigned)set >= 4 || d->failed[set])
		return false;
	if (!d->opened[set]) {
		if (cs_open(modes[set].arch, modes[set].mode, &d->cs[set]) != CS_ERR_OK) {
			d->failed[set] = true;
			return false;
		}
		/* GDB prints x86 in AT&T syntax by default. */
		if (set == hwtr_isa_x86_64)
			cs_option(d->cs[set], CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
		d->opened[set] = true;
	}
	*cs = d->cs[set];
	return true;
}

static void disassembler_close(struct disassembler *d)
{
	unsigned i;

	for (i = 0; i < 4; i++)
		if (d->opened[i])
			cs_close(&d->cs[i]);
}

/* The function at IP in the image of EPOCH (the instruction's: before an
 * exec another program held the same addresses), and its start. */
static const char *function_at(struct hwtr_symbolizer *sym, unsigned epoch,
			       uint64_t ip, uint64_t *start)
{
	uint32_t id = symbolizer_function(sym, epoch, ip);

	*start = symbolizer_function_start(sym, id);
	return symbolizer_function_name(sym, id);
}

/* " <function+offset>" for a code address, as GDB appends it. */
static void append_symbol(struct hwtr_symbolizer *sym, unsigned epoch,
			  uint64_t target, char *buf, size_t size)
{
	uint64_t start = 0;
	const char *fn = function_at(sym, epoch, target, &start);
	size_t n = strlen(buf);

	if (!fn)
		return;
	if (target == start)
		snprintf(buf + n, size - n, " <%s>", fn);
	else
		snprintf(buf + n, size - n, " <%s+%llu>", fn,
			 (unsigned long long)(target - start));
}

/* Arm code as capstone prints it, with GDB's layout: mnemonic, a tab, the
 * operands; a branch's target without capstone's '#' and followed by
 * <function+offset>. */
static void disassemble_arm(csh cs, struct hwtr_symbolizer *sym, unsigned epoch,
			    const struct hwtr_insn *insn, char *buf, size_t size)
{
	cs_insn *ci = NULL;
	const char *target;

	if (!insn->size ||
	    cs_disasm(cs, insn->raw, insn->size, insn->ip, 1, &ci) != 1) {
		snprintf(buf, size, "(bad)");
		return;
	}
	target = strrchr(ci->op_str, '#');
	if (target && !strncmp(target, "#0x", 3) && target[strlen(target) - 1] != ']' &&
	    (ci->mnemonic[0] == 'b' || !strncmp(ci->mnemonic, "cb", 2) ||
	     !strncmp(ci->mnemonic, "tb", 2) || !strncmp(ci->mnemonic, "adr", 3))) {
		snprintf(buf, size, "%s\t%.*s%s", ci->mnemonic,
			 (int)(target - ci->op_str), ci->op_str, target + 1);
		append_symbol(sym, epoch, strtoull(target + 1, NULL, 16), buf,
			      size);
	} else if (ci->op_str[0]) {
		snprintf(buf, size, "%s\t%s", ci->mnemonic, ci->op_str);
	} else {
		snprintf(buf, size, "%s", ci->mnemonic);
	}
	cs_free(ci, 1);
}

/* Capstone's AT&T syntax, spelled as GDB spells it: no size suffix where a
 * register gives the size, no space after commas, and direct branch targets
 * followed by <function+offset>. */
static void disassemble_x86(csh cs, struct hwtr_symbolizer *sym, unsigned epoch,
			    const struct hwtr_insn *insn, char *buf, size_t size)
{
	char mnemonic[32], operands[160];
	const char *p;
	cs_insn *ci = NULL;
	size_t o = 0;
	bool has_register;

	if (!insn->size ||
	    cs_disasm(cs, insn->raw, insn->size, insn->ip, 1, &ci) != 1) {
		snprintf(buf, size, "(bad)");
		return;
	}
	for (p = ci->op_str; *p && o + 16 < sizeof(operands); p++) {
		if (p[0] == ' ' && p > ci->op_str && p[-1] == ',')
			continue;
		/* capstone writes small numbers in decimal; GDB always in hex */
		if (isdigit((unsigned char)*p) && (p == ci->op_str ||
		    strchr(",$-*(", p[-1])) && strncmp(p, "0x", 2)) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);

			if (*end == '(' || *end == ',' || !*end || *end == ')') {
				o += (size_t)snprintf(operands + o, sizeof(operands) - o,
						      "0x%llx", v);
				p = end - 1;
				continue;
			}
		}
		operands[o++] = *p;
	}
	operands[o] = 0;
	has_register = operands[0] == '%' || strstr(operands, ",%") ||
		       !strncmp(operands, "*%", 2);
	snprintf(mnemonic, sizeof(mnemonic), "%s", ci->mnemonic);
	if (drop_suffix(mnemonic, has_register))
		mnemonic[strlen(mnemonic) - 1] = 0;
	if (!operands[0])
		snprintf(buf, size, "%s", mnemonic);
	else
		snprintf(buf, size, "%-6s %s", mnemonic, operands);
	if (strstr(operands, "(%rip)")) {
		/* GDB shows where a rip-relative operand points. */
		const char *disp = strstr(operands, "(%rip)");
		uint64_t target, start = 0;
		const char *fn;
		size_t n;

		while (disp > operands && (isxdigit((unsigned char)disp[-1]) ||
					   disp[-1] == 'x' || disp[-1] == '-'))
			disp--;
		target = insn->ip + insn->size +
			 (uint64_t)strtoll(disp, NULL, 0);
		fn = function_at(sym, epoch, target, &start);
		n = strlen(buf);
		if (fn && target == start)
			snprintf(buf + n, size - n, "        # 0x%llx <%s>",
				 (unsigned long long)target, fn);
		else if (fn)
			snprintf(buf + n, size - n, "        # 0x%llx <%s+%llu>",
				 (unsigned long long)target, fn,
				 (unsigned long long)(target - start));
		else
			snprintf(buf + n, size - n, "        # 0x%llx",
				 (unsigned long long)target);
	}
	if (!strncmp(operands, "0x", 2) && !strchr(operands, ',') &&
	    (ci->id == X86_INS_CALL || ci->id == X86_INS_JMP ||
	     mnemonic[0] == 'j' || !strncmp(mnemonic, "loop", 4)))
		append_symbol(sym, epoch, strtoull(operands, NULL, 16), buf, size);
	cs_free(ci, 1);
}

/* INSN, of the image of EPOCH (which names its branch targets). */
static void disassemble(struct disassembler *d, struct hwtr_symbolizer *sym,
			unsigned epoch, const struct hwtr_insn *insn, char *buf,
			size_t size)
{
	csh cs;

	if (!disassembler_get(d, insn->isa, &cs))
		snprintf(buf, size, "(bad)");
	else if (insn->isa == hwtr_isa_x86_64)
		disassemble_x86(cs, sym, epoch, insn, buf, size);
	else
		disassemble_arm(cs, sym, epoch, insn, buf, size);
}

static void print_source_line(FILE *out, const char *file, const char *path,
			      int line)
{
	char text[512];
	struct stat st;
	FILE *src = NULL;
	int n = 0, fd;

	/* A path from debug information: a FIFO there must not block. */
	if (regular_file_open(path ? path : file, &fd, &st) == 0 &&
	    !(src = fdopen(fd, "r")))
		close(fd);
	fprintf(out, "%s:%d", file, line);
	if (src) {
		while (fgets(text, sizeof(text), src))
			if (++n == line) {
				fprintf(out, "\t%s", text);
				if (!strchr(text, '\n'))
					fputc('\n', out);
				fclose(src);
				return;
			}
		fclose(src);
	}
	fputc('\n', out);
}

/* Text listings repeat the same few instructions (loops), and formatting
 * one (capstone, symbol, printf) costs far more than decoding it: the text
 * after the number and the mark is kept per instruction, keyed by what it
 * depends on: the IP, the image epoch and the length (which fix its bytes
 * and, with the IP, its symbols), and the instruction set (which fixes how
 * they read).  Direct mapped; a collision only costs a new formatting. */
#define LINE_CACHE_SLOTS 8192

struct line_cache_entry {
	uint64_t ip;
	uint32_t epoch_plus_1;	/* 0: empty */
	uint8_t size;
	uint8_t isa;
	uint16_t len;
	char text[240];
};

static struct line_cache_entry *line_cache_slot(struct line_cache_entry *cache,
						const struct decoded_insn *d,
						bool *hit)
{
	uint64_t h = (d->ip ^ (d->ip >> 13)) * UINT64_C(0x9e3779b97f4a7c15);
	struct line_cache_entry *e = &cache[(h >> 40) % LINE_CACHE_SLOTS];

	*hit = e->epoch_plus_1 == d->epoch + 1 && e->ip == d->ip &&
	       e->size == d->size && e->isa == d->isa;
	return e;
}

/* snprintf at BUF + O that goes on counting once BUF (SIZE bytes) is full. */
#define APPEND(buf, size, o, ...) \
	((o) += (size_t)snprintf((o) < (size) ? (buf) + (o) : NULL, \
				 (o) < (size) ? (size) - (o) : 0, __VA_ARGS__))

/* The line's text after the mark: address, function, bytes, instruction.
 * Returns its length; it is all in BUF only if that is less than SIZE. */
static size_t format_insn_text(char *buf, size_t size, const struct hwtr_insn *insn,
			       const char *fn, uint64_t start, unsigned flags,
			       const char *text)
{
	size_t o = 0;
	int i;

	APPEND(buf, size, o, "0x%016" PRIx64, insn->ip);
	if (fn && !(flags & HWTR_INSN_NO_FUNCTION))
		APPEND(buf, size, o, " <%s+%" PRIu64 ">:\t", fn, insn->ip - start);
	else if (fn)
		APPEND(buf, size, o, " <+%" PRIu64 ">:\t", insn->ip - start);
	else
		APPEND(buf, size, o, ":\t");
	if (flags & HWTR_INSN_RAW) {
		for (i = 0; i < insn->size; i++)
			APPEND(buf, size, o, "%s%02x", i ? " " : "", insn->raw[i]);
		APPEND(buf, size, o, "\t");
	}
	APPEND(buf, size, o, "%s\n", text);
	return o;
}

/* Write HEAD and the line's text (a C++ name can make it long). */
static int write_insn_line(FILE *out, const char *head, size_t k,
			   const struct hwtr_insn *insn, const char *fn,
			   uint64_t start, unsigned flags, const char *text)
{
	char buf[512], *line = buf;
	size_t len = format_insn_text(buf, sizeof(buf), insn, fn, start, flags,
				      text);

	if (len >= sizeof(buf)) {
		line = malloc(len + 1);
		if (!line)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		format_insn_text(line, len + 1, insn, fn, start, flags, text);
	}
	fwrite_unlocked(head, 1, k, out);
	fwrite_unlocked(line, 1, len, out);
	if (line != buf)
		free(line);
	return 0;
}

/* N in decimal, then a tab; returns the length. */
static size_t format_number(char *buf, uint64_t n)
{
	char tmp[24];
	size_t k = 0, i;

	do
		tmp[k++] = (char)('0' + n % 10);
	while ((n /= 10));
	for (i = 0; i < k; i++)
		buf[i] = tmp[k - 1 - i];
	buf[k] = '\t';
	return k + 1;
}

/* The line's number and mark ("=> " at the marked PC, "?" for speculative
 * instructions). */
static size_t format_head(char *buf, uint64_t n, bool speculative, bool mark)
{
	size_t k = format_number(buf, n);

	memcpy(buf + k, speculative ? (mark ? "?> " : "?  ")
				    : (mark ? "=> " : "   "), 3);
	return k + 3;
}

/* The text listing without source lines: straight from the decoded
 * chunks, each line's text from the cache when the instruction was seen. */
static int list_text(struct hwtr_thread *t, uint64_t first, uint64_t last,
		     unsigned flags, uint64_t mark_pc, FILE *out,
		     struct disassembler *dis)
{
	struct hwtr_symbolizer *sym = t->history->symbols;
	struct line_cache_entry *cache = calloc(LINE_CACHE_SLOTS, sizeof(*cache));
	size_t olen = 0, ocap = 1 << 16;
	char *obuf = malloc(ocap);
	uint64_t n = first;
	int err = 0;

	if (!cache || !obuf) {
		free(cache);
		free(obuf);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	while (n <= last && !err) {
		const struct decoded_chunk *d;
		size_t i;

		if ((err = history_decode_chunk(t, history_chunk_of(t, n), &d)))
			break;
		if (n < d->first_insn || n - d->first_insn >= d->count) {
			err = hwtr_fail(hwtr_err_range, "instruction %llu not in "
					"its chunk", (unsigned long long)n);
			break;
		}
		for (i = n - d->first_insn; i < d->count && n <= last; i++, n++) {
			const struct decoded_insn *di = &d->insns[i];
			struct line_cache_entry *e;
			char head[32], buf[sizeof(e->text)], text[256];
			const char *body = buf;
			size_t k, len;
			bool hit;

			if (ocap - olen < sizeof(head) + sizeof(e->text)) {
				fwrite_unlocked(obuf, 1, olen, out);
				olen = 0;
			}
			if (di->flags & INSN_GAP) {
				const struct gap_entry *g = history_gap_at(t, n);

				gap_text(g ? &g->gap : NULL, text, sizeof(text));
				fwrite_unlocked(obuf, 1, olen, out);
				olen = 0;
				fprintf(out, "%" PRIu64 "\t%s\n", n, text);
				continue;
			}
			k = format_head(head, n, di->flags & INSN_SPECULATIVE,
					mark_pc && di->ip == mark_pc &&
					!(flags & HWTR_INSN_OMIT_PC));
			e = line_cache_slot(cache, di, &hit);
			if (hit) {
				body = e->text;
				len = e->len;
			} else {
				struct hwtr_insn insn = {
					.number = n, .ip = di->ip, .size = di->size,
					.iclass = (enum hwtr_insn_class)di->iclass,
					.isa = (enum hwtr_isa)di->isa,
				};
				uint64_t start = 0;
				const char *fn = function_at(sym, di->epoch, di->ip,
							     &start);

				/* The bytes as the cursor reads them. */
				if (di->size)
					image_epoch_read(t->history->images, di->epoch,
							 di->ip, insn.raw, di->size);
				disassemble(dis, sym, di->epoch, &insn, text,
					    sizeof(text));
				len = format_insn_text(buf, sizeof(buf), &insn, fn,
						       start, flags, text);
				if (len >= sizeof(buf)) {
					/* Too long to keep: written as it is. */
					fwrite_unlocked(obuf, 1, olen, out);
					olen = 0;
					if ((err = write_insn_line(out, head, k, &insn,
								   fn, start, flags,
								   text)))
						break;
					continue;
				}
				e->ip = di->ip;
				e->epoch_plus_1 = di->epoch + 1;
				e->size = di->size;
				e->isa = di->isa;
				memcpy(e->text, buf, len);
				e->len = (uint16_t)len;
			}
			memcpy(obuf + olen, head, k);
			memcpy(obuf + olen + k, body, len);
			olen += k + len;
		}
	}
	fwrite_unlocked(obuf, 1, olen, out);
	free(obuf);
	free(cache);
	return err;
}

static int list_insns(struct hwtr_thread *t, struct hwtr_values *values,
		      uint64_t first, uint64_t last, unsigned flags, bool json,
		      uint64_t mark_pc, FILE *out)
{
	struct insn_values *iv = NULL;
	struct hwtr_symbolizer *sym;
	const char *last_file = NULL;
	int last_line = 0;
	struct disassembler dis = { 0 };
	struct hwtr_cursor *cur;
	uint64_t n;
	int err;

	if (!t || !out || first < 1 || last < first || last > t->ninsns)
		return hwtr_fail(hwtr_err_range,
				 "instruction range %llu,%llu is outside the history "
				 "of thread %u (1 to %llu)", (unsigned long long)first,
				 (unsigned long long)last, t ? t->tid : 0,
				 (unsigned long long)(t ? t->ninsns : 0));
	sym = t->history->symbols;
	if (!json && !(flags & HWTR_INSN_SOURCE) && !values) {
		err = list_text(t, first, last, flags, mark_pc, out, &dis);
		disassembler_close(&dis);
		return err;
	}
	if (values && (err = insn_values_open(values, t, &iv)))
		return err;
	if ((err = hwtr_cursor_alloc(t, &cur))) {
		insn_values_close(iv);
		return err;
	}
	for (n = first; n <= last; n++) {
		struct hwtr_source_line line = { 0 };
		struct hwtr_insn insn;
		uint64_t start = 0;
		const char *fn;
		char text[256];
		unsigned epoch = 0;

		if ((err = hwtr_cursor_goto(cur, n)) ||
		    (err = hwtr_cursor_insn(cur, &insn)) ||
		    (!insn.gap && (err = history_insn_epoch(t, n, &epoch))))
			break;
		if (insn.gap) {
			if (json) {
				emit_json(json_pack("{s:I,s:I,s:o}", "thread",
						    (json_int_t)t->tid, "number",
						    (json_int_t)n, "gap",
						    gap_json(insn.gap)), out);
			} else {
				gap_text(insn.gap, text, sizeof(text));
				fprintf(out, "%" PRIu64 "\t%s\n", n, text);
			}
			continue;
		}
		fn = function_at(sym, epoch, insn.ip, &start);
		if (json || (flags & HWTR_INSN_SOURCE))
			symbolizer_line(sym, epoch, insn.ip, &line);
		disassemble(&dis, sym, epoch, &insn, text, sizeof(text));
		if (json) {
			/* The file the code was read from (as its symbols). */
			long map = image_epoch_mapping(t->history->images, epoch,
						       insn.ip);
			const struct image_mapping *m = map >= 0
				? image_set_mapping(t->history->images, (size_t)map)
				: image_set_lookup(t->history->images, insn.ip,
						   t->chunks[history_chunk_of(t, n)].tsc_begin);
			char raw[3 * 16] = "";
			json_t *o;
			int i;

			for (i = 0; i < insn.size; i++)
				snprintf(raw + 2 * i, 3, "%02x", insn.raw[i]);
			/* The text names symbols, which are bytes. */
			o = json_pack("{s:I,s:I,s:o,s:i,s:s,s:o,s:s}", "thread",
				      (json_int_t)t->tid, "number", (json_int_t)n,
				      "ip", jfield_address(insn.ip), "size", insn.size,
				      "raw", raw, "insn", jfield_text(text), "class",
				      class_name(insn.iclass));
			if (m && m->path) {
				json_object_set_new(o, "object", jfield_text(m->path));
				json_object_set_new(o, "object_offset",
						    json_integer((json_int_t)(insn.ip - m->addr + m->pgoff)));
			}
			if (fn) {
				json_object_set_new(o, "function", jfield_text(fn));
				json_object_set_new(o, "offset",
						    json_integer((json_int_t)(insn.ip - start)));
			}
			if (line.file) {
				json_object_set_new(o, "file", jfield_text(line.file));
				json_object_set_new(o, "line", json_integer(line.line));
			}
			if (insn.speculative)
				json_object_set_new(o, "speculative", json_true());
			if (iv && (err = insn_values_json(iv, n, o))) {
				json_decref(o);
				break;
			}
			emit_json(o, out);
			continue;
		}
		if ((flags & HWTR_INSN_SOURCE) && line.file &&
		    (line.line != last_line || !last_file ||
		     strcmp(line.file, last_file))) {
			print_source_line(out, line.file, line.path, line.line);
			last_file = line.file;
			last_line = line.line;
		}
		{
			char head[32];
			size_t k = format_head(head, n, insn.speculative,
					       mark_pc && insn.ip == mark_pc &&
					       !(flags & HWTR_INSN_OMIT_PC));

			if ((err = write_insn_line(out, head, k, &insn, fn, start,
						   flags, text)) ||
			    (iv && (err = insn_values_text(iv, n, out))))
				break;
		}
	}
	disassembler_close(&dis);
	hwtr_cursor_free(cur);
	insn_values_close(iv);
	return err;
}

int hwtr_list_insns(struct hwtr_thread *t, uint64_t first, uint64_t last,
		    unsigned flags, bool json, uint64_t mark_pc, FILE *out)
{
	return list_insns(t, NULL, first, last, flags, json, mark_pc, out);
}

int hwtr_list_insns_values(struct hwtr_thread *t, struct hwtr_values *values,
			   uint64_t first, uint64_t last, unsigned flags,
			   bool json, FILE *out)
{
	if (!values)
		return hwtr_fail(hwtr_err_invalid, "hwtr_list_insns_values: "
				 "no data log");
	return list_insns(t, values, first, last, flags, json, 0, out);
}

/* The source line range of a segment's instructions (GDB's
 * btrace_compute_src_line_range), for /l. */
static void segment_lines(struct hwtr_thread *t, const struct hwtr_segment *s,
			  const char **file, int *begin, int *end)
{
	struct hwtr_cursor *cur;
	uint64_t n;

	*file = NULL;
	*begin = INT32_MAX;
	*end = 0;
	if (hwtr_cursor_alloc(t, &cur))
		return;
	for (n = s->insn_begin; n < s->insn_end; n++) {
		struct hwtr_source_line line;
		struct hwtr_insn insn;
		unsigned epoch;

		if (hwtr_cursor_goto(cur, n) || hwtr_cursor_insn(cur, &insn) ||
		    insn.gap || history_insn_epoch(t, n, &epoch))
			continue;
		if (symbolizer_line(t->history->symbols, epoch, insn.ip, &line) <= 0)
			continue;
		if (!*file)
			*file = line.file;
		if (line.line < *begin)
			*begin = line.line;
		if (line.line > *end)
			*end = line.line;
	}
	hwtr_cursor_free(cur);
}

int hwtr_list_calls(struct hwtr_thread *t, uint64_t first, uint64_t last,
		    unsigned flags, bool json, FILE *out)
{
	uint64_t n;

	if (!t || !out || first < 1 || last < first || last > t->nsegments)
		return hwtr_fail(hwtr_err_range,
				 "function segment range %llu,%llu is outside the "
				 "history of thread %u (1 to %zu)",
				 (unsigned long long)first, (unsigned long long)last,
				 t ? t->tid : 0, t ? t->nsegments : 0);
	for (n = first; n <= last; n++) {
		struct hwtr_segment s;
		const char *file = NULL;
		int begin = 0, end = 0, i;

		history_segment_view(t, n, &s);
		if ((flags & HWTR_CALL_LINES) || json)
			if (!s.gap)
				segment_lines(t, &s, &file, &begin, &end);
		if (json) {
			json_t *o = json_pack("{s:I,s:I,s:i,s:I,s:I}", "thread",
					      (json_int_t)t->tid, "number",
					      (json_int_t)n, "level", s.level,
					      "insn_begin", (json_int_t)s.insn_begin,
					      "insn_end", (json_int_t)(s.insn_end - 1));

			if (s.function)
				json_object_set_new(o, "function", jfield_text(s.function));
			if (file && end >= begin) {
				json_object_set_new(o, "file", jfield_text(file));
				json_object_set_new(o, "line_begin", json_integer(begin));
				json_object_set_new(o, "line_end", json_integer(end));
			}
			if (s.up)
				json_object_set_new(o, "up", json_integer((json_int_t)s.up));
			if (s.prev)
				json_object_set_new(o, "prev", json_integer((json_int_t)s.prev));
			if (s.next)
				json_object_set_new(o, "next", json_integer((json_int_t)s.next));
			if (s.gap)
				json_object_set_new(o, "gap", gap_json(s.gap));
			emit_json(o, out);
			continue;
		}
		fprintf(out, "%" PRIu64 "\t", n);
		if (s.flags & HWTR_SEG_GAP) {
			char text[1200];

			gap_text(s.gap, text, sizeof(text));
			fprintf(out, "%s\n", text);
			continue;
		}
		if (flags & HWTR_CALL_INDENT)
			for (i = 0; i < s.level; i++)
				fputs("  ", out);
		if (s.function) {
			char *shown = demangle_function(s.function);

			fputs(shown ? shown : s.function, out);
			free(shown);
		} else {
			fputs("??", out);
		}
		if (flags & HWTR_CALL_INSNS)
			fprintf(out, "\tinst %" PRIu64 ",%" PRIu64, s.insn_begin,
				s.insn_end - 1);
		if (flags & HWTR_CALL_LINES) {
			/* GDB prints "at" even when it knows no line. */
			fputs("\tat ", out);
			if (file) {
				fputs(file, out);
				if (end >= begin) {
					fprintf(out, ":%d", begin);
					if (end != begin)
						fprintf(out, ",%d", end);
				}
			}
		}
		fputc('\n', out);
	}
	return 0;
}
