/* plugin-packets.c: the plugin's packets (see plugin-packets.h), as
 * doc/gdb-packets.md describes them.
 *
 * Replies are hex-encoded text; the documents are compact JSON (jansson,
 * which keeps the keys in the order they are set: the plugin does not care,
 * the tests that look for "position":5,"end":29 do).
 */
#include "plugin-packets.h"
#include "replay.h"

#include "rsp.h"
#include "../../libhwtrecord/json-text.h"

#include <hwtrecord.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- requests */

static const struct {
	const char *name;
	enum plugin_kind kind;
} commands[] = {
	{ "info", plugin_info },
	{ "insn-history", plugin_insn_history },
	{ "call-history", plugin_call_history },
	{ "goto", plugin_goto },
	{ "frames", plugin_frames },
	{ "end-frames", plugin_end_frames },
	{ "end-register", plugin_end_register },
	{ "record-start", plugin_record_start },
	{ "record-stop", plugin_record_stop },
};

void plugin_parse(const struct rsp_request *r, struct plugin_request *p)
{
	const uint64_t *a = r->hwtr_args;
	size_t n = r->hwtr_nargs, i;

	memset(p, 0, offsetof(struct plugin_request, path));
	p->path[0] = 0;
	p->kind = plugin_unknown;
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(r->hwtr_command, commands[i].name))
			p->kind = commands[i].kind;
	switch (p->kind) {
	case plugin_unknown:
	case plugin_save:
	case plugin_record_start:	/* arguments are ignored */
	case plugin_record_stop:
		return;
	case plugin_info:
		if (n > 1)
			break;
		p->wait = n && a[0];
		return;
	case plugin_insn_history:
	case plugin_call_history:
		if (n != 4)
			break;
		if (a[0] > UINT32_MAX || a[3] > UINT32_MAX) {
			p->error = "thread or flags out of range";
			return;
		}
		p->tid = (uint32_t)a[0];
		p->first = a[1];
		p->last = a[2];
		p->flags = (unsigned)a[3];
		return;
	case plugin_goto:
		if (n != 2)
			break;
		if (a[0] > UINT32_MAX) {
			p->error = "bad thread";
			return;
		}
		p->tid = (uint32_t)a[0];
		p->number = a[1];
		return;
	case plugin_frames:
		if (n != 1 && n != 2)
			break;
		if (a[0] > UINT32_MAX) {
			p->error = "thread out of range";
			return;
		}
		p->tid = (uint32_t)a[0];
		p->has_at = n == 2;
		p->at = n == 2 ? a[1] : 0;
		return;
	case plugin_end_register:
		if (n != 4)
			break;
		if (a[0] > UINT32_MAX || a[1] < 1 || a[1] >= REPLAY_END_FRAMES ||
		    a[2] > 16) {
			p->error = "thread, frame or register out of range";
			return;
		}
		p->tid = (uint32_t)a[0];
		p->frame = (unsigned)a[1];
		p->regno = (unsigned)a[2];
		p->value = a[3];
		return;
	case plugin_end_frames:
		if (n != 1)
			break;
		if (a[0] > UINT32_MAX) {
			p->error = "thread out of range";
			return;
		}
		p->tid = (uint32_t)a[0];
		return;
	}
	p->error = "wrong number of arguments";
}

bool plugin_parse_save(const char *payload, size_t len, struct plugin_request *p)
{
	static const char prefix[] = "qHwtr:save:";
	const size_t plen = sizeof(prefix) - 1;
	size_t n;

	if (len <= plen || strncmp(payload, prefix, plen))
		return false;
	memset(p, 0, offsetof(struct plugin_request, path));
	p->kind = plugin_save;
	n = len - plen;
	if (n % 2 || n / 2 >= sizeof(p->path) ||
	    !rsp_unhex(payload + plen, n / 2, (uint8_t *)p->path)) {
		p->error = "qHwtr:save: bad file name";
		p->path[0] = 0;
		return true;
	}
	p->path[n / 2] = 0;
	return true;
}

/* ----------------------------------------------------------------- replies */

static int reply_json(struct rsp_conn *conn, json_t *v)
{
	char *text = v ? json_dumps(v, JSON_COMPACT) : NULL;
	int rc;

	json_decref(v);
	if (!text)
		return rsp_reply_error_text(conn, "out of memory");
	rc = rsp_reply_hex(conn, (const uint8_t *)text, NULL, strlen(text));
	free(text);
	return rc;
}

static json_t *thread_json(const struct plugin_thread_info *t)
{
	json_t *j = json_object();

	json_object_set_new(j, "tid", json_integer(t->tid));
	json_object_set_new(j, "at_end", json_boolean(t->at_end));
	json_object_set_new(j, "registers_at_end", json_boolean(t->registers_at_end));
	if (t->counted) {
		json_object_set_new(j, "instructions", json_integer((json_int_t)t->instructions));
		json_object_set_new(j, "segments", json_integer((json_int_t)t->segments));
		json_object_set_new(j, "gaps", json_integer((json_int_t)t->gaps));
		json_object_set_new(j, "position", json_integer((json_int_t)t->position));
		json_object_set_new(j, "end", json_integer((json_int_t)t->end));
	}
	/* Known while building too: in the tail the data log answers. */
	if (t->registers_logged)
		json_object_set_new(j, "registers_logged", json_true());
	return j;
}

/* Names and paths are bytes; a JSON string must be UTF-8 (json_string
 * returns NULL otherwise and the field would silently go missing). */
static json_t *string_or_null(const char *s)
{
	return s ? jfield_text(s) : json_null();
}

int plugin_reply_info(struct rsp_conn *conn, const struct plugin_info *info)
{
	json_t *o = json_object(), *threads = json_array();
	size_t i;

	if (!o || !threads) {
		json_decref(o);
		json_decref(threads);
		return rsp_reply_error_text(conn, "out of memory");
	}
	for (i = 0; i < info->nthreads; i++)
		json_array_append_new(threads, thread_json(&info->threads[i]));
	if (info->has_history) {
		json_object_set_new(o, "recording", string_or_null(info->recording));
		json_object_set_new(o, "source", json_string(info->source));
		json_object_set_new(o, "format", json_string(info->format));
		json_object_set_new(o, "replaying", json_boolean(info->replaying));
		json_object_set_new(o, "building", json_boolean(info->building));
	} else {
		json_object_set_new(o, "source", json_string(info->source));
		json_object_set_new(o, "format", json_string(info->format));
	}
	json_object_set_new(o, "threads", threads);
	if (info->watchpoints)
		json_object_set_new(o, "watchpoints", json_true());
	if (info->live) {
		json_object_set_new(o, "live", json_true());
		json_object_set_new(o, "tracing", json_boolean(info->tracing));
		json_object_set_new(o, "replaying", json_boolean(info->replaying));
		json_object_set_new(o, "history_pending",
				    json_boolean(info->history_pending));
		json_object_set_new(o, "recording", string_or_null(info->recording));
		if (info->history_error)
			json_object_set_new(o, "history_error",
					    string_or_null(info->history_error));
	}
	return reply_json(conn, o);
}

static json_t *hex64(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return json_string(buf);
}

/* {"rbx": "0x...", ...}: the registers F's callee preserves for it. */
static json_t *preserved_json(const struct plugin_frame *f)
{
	static const char *const names[16] = {
		"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	};
	json_t *o = json_object();
	unsigned regno;

	for (regno = 0; o && regno < 16; regno++)
		if (f->preserved_known & (1u << regno))
			json_object_set_new(o, names[regno],
					    hex64(f->preserved[regno]));
	return o;
}

int plugin_reply_frames(struct rsp_conn *conn, const struct plugin_frame *frames,
			size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < n; i++) {
		const struct plugin_frame *f = &frames[i];
		json_t *j = json_object();

		json_object_set_new(j, "segment", json_integer((json_int_t)f->segment));
		json_object_set_new(j, "function", string_or_null(f->function));
		json_object_set_new(j, "function_start", hex64(f->function_start));
		json_object_set_new(j, "pc", f->has_pc ? hex64(f->pc) : json_null());
		json_object_set_new(j, "level", json_integer(f->level));
		if (f->exit_target)
			json_object_set_new(j, "exit_target", json_true());
		if (f->sigtramp)
			json_object_set_new(j, "sigtramp", json_true());
		if (f->in_sigtramp)
			json_object_set_new(j, "in_sigtramp", json_true());
		if (f->has_sp)
			json_object_set_new(j, "sp", hex64(f->sp));
		if (f->has_activation)
			json_object_set_new(j, "activation", hex64(f->activation));
		if (f->has_cfa)
			json_object_set_new(j, "cfa", hex64(f->cfa));
		if (f->has_call_cfa_offset)
			json_object_set_new(j, "call_cfa_offset",
					    json_integer(f->call_cfa_offset));
		if (f->outermost)
			json_object_set_new(j, "outermost", json_true());
		if (f->has_cfi_unwind) {
			json_object_set_new(j, "cfi_cfa", hex64(f->cfi_cfa));
			json_object_set_new(j, "cfi_return",
					    hex64(f->cfi_return));
		}
		if (f->preserved_known)
			json_object_set_new(j, "preserved", preserved_json(f));
		json_array_append_new(a, j);
	}
	return reply_json(conn, a);
}

/* A listing of any length streams out: the server's memory must not grow
 * with the range (a whole thread is billions of instructions).  A failure
 * part-way ends the text with a line that says so. */
int plugin_reply_listing(struct rsp_conn *conn,
			 int (*list)(void *context, FILE *out), void *context)
{
	char err[512], note[600];
	FILE *out = rsp_reply_hex_begin(conn);

	if (!out)
		return rsp_reply_error(conn, 12);
	if (list(context, out) == 0)
		return rsp_reply_hex_end(conn, out, NULL);
	snprintf(err, sizeof(err), "%s", hwtr_last_error()[0] ? hwtr_last_error() : "failed");
	fflush(out);
	if (!conn->stream_started)	/* nothing went out: an error reply */
		return rsp_reply_hex_end(conn, out, err);
	snprintf(note, sizeof(note), "[listing cut short: %s]\n", err);
	return rsp_reply_hex_end(conn, out, note);
}

int plugin_reply_ok(struct rsp_conn *conn)
{
	return rsp_reply_ok(conn);
}

int plugin_reply_error(struct rsp_conn *conn, const char *message)
{
	return rsp_reply_error_text(conn, message && message[0] ? message : "failed");
}

int plugin_reply_unknown(struct rsp_conn *conn)
{
	return rsp_reply_empty(conn);
}

int plugin_reply_thread_extra(struct rsp_conn *conn, const char *stub_hex,
			      size_t stub_len, uint64_t position, uint64_t end)
{
	char text[512] = "";
	size_t n = 0, i;

	if (stub_hex[0] != 'E')
		for (i = 0; i + 1 < stub_len && n + 1 < 256; i += 2)
			text[n++] = (char)(rsp_hex_value(stub_hex[i]) << 4 |
					   rsp_hex_value(stub_hex[i + 1]));
	text[n] = 0;
	if (!end)
		snprintf(text + n, sizeof(text) - n, "%sno history", n ? ", " : "");
	else if (position >= end)
		snprintf(text + n, sizeof(text) - n, "%sat the end of its "
			 "history (live), instruction %llu", n ? ", " : "",
			 (unsigned long long)end);
	else
		snprintf(text + n, sizeof(text) - n, "%sreplaying: instruction "
			 "%llu of %llu", n ? ", " : "", (unsigned long long)position,
			 (unsigned long long)end);
	return rsp_reply_hex(conn, (const uint8_t *)text, NULL, strlen(text));
}
