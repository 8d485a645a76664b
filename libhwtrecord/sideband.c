/* sideband.c: sideband events, one JSON object a line (DESIGN.md section 4).
 *
 * {"event":"mmap","tsc":N,"addr":"0x..","len":N,"pgoff":N,"prot":"r-x",
 *  "path":"..","build_id":"..","saved":"objects/.."}
 * {"event":"munmap","tsc":N,"addr":"0x..","len":N}
 * {"event":"exec","tsc":N,"path":".."}
 * {"event":"thread-start"|"thread-exit","tsc":N,"tid":N}
 * {"event":"loss","tsc":N,"tid":N,"offset":N,"len":N,"reason":".."}
 */
#include "sideband.h"

#include "error.h"
#include "recording-file.h"

#include <ctype.h>
#include <string.h>

static const char *const kind_names[] = {
	[hwtr_ev_mmap] = "mmap",
	[hwtr_ev_munmap] = "munmap",
	[hwtr_ev_exec] = "exec",
	[hwtr_ev_thread_start] = "thread-start",
	[hwtr_ev_thread_exit] = "thread-exit",
	[hwtr_ev_loss] = "loss",
};

static void prot_text(int prot, char text[4])
{
	text[0] = prot & HWTR_PROT_READ ? 'r' : '-';
	text[1] = prot & HWTR_PROT_WRITE ? 'w' : '-';
	text[2] = prot & HWTR_PROT_EXEC ? 'x' : '-';
	text[3] = 0;
}

json_t *sideband_encode(const struct hwtr_sideband_event *e)
{
	json_t *o;
	char prot[4];

	if ((unsigned)e->kind >= sizeof(kind_names) / sizeof(kind_names[0]))
		return NULL;
	o = json_pack("{s:s,s:I}", "event", kind_names[e->kind], "tsc",
		      (json_int_t)e->tsc);
	if (!o)
		return NULL;
	switch (e->kind) {
	case hwtr_ev_mmap:
		prot_text(e->prot, prot);
		json_object_set_new(o, "addr", jfield_address(e->addr));
		json_object_set_new(o, "len", json_integer((json_int_t)e->len));
		json_object_set_new(o, "pgoff", json_integer((json_int_t)e->pgoff));
		json_object_set_new(o, "prot", json_string(prot));
		if (e->path && jfield_set_path(o, "path", e->path)) {
			json_decref(o);
			return NULL;
		}
		if (e->build_id)
			json_object_set_new(o, "build_id", json_string(e->build_id));
		if (e->saved)
			json_object_set_new(o, "saved", json_string(e->saved));
		break;
	case hwtr_ev_munmap:
		json_object_set_new(o, "addr", jfield_address(e->addr));
		json_object_set_new(o, "len", json_integer((json_int_t)e->len));
		break;
	case hwtr_ev_exec:
		if (jfield_set_path(o, "path", e->path ? e->path : "")) {
			json_decref(o);
			return NULL;
		}
		break;
	case hwtr_ev_thread_start:
	case hwtr_ev_thread_exit:
		json_object_set_new(o, "tid", json_integer(e->tid));
		break;
	case hwtr_ev_loss:
		json_object_set_new(o, "tid", json_integer(e->tid));
		json_object_set_new(o, "offset", json_integer((json_int_t)e->offset));
		json_object_set_new(o, "len", json_integer((json_int_t)e->len));
		json_object_set_new(o, "reason",
				    jfield_text(e->reason ? e->reason : ""));
		break;
	}
	return o;
}

static int prot_parse(const char *text, int *prot)
{
	if (strlen(text) != 3)
		return -1;
	*prot = 0;
	if (text[0] == 'r')
		*prot |= HWTR_PROT_READ;
	else if (text[0] != '-')
		return -1;
	if (text[1] == 'w')
		*prot |= HWTR_PROT_WRITE;
	else if (text[1] != '-')
		return -1;
	if (text[2] == 'x')
		*prot |= HWTR_PROT_EXEC;
	else if (text[2] != '-')
		return -1;
	return 0;
}

/* A build-id names objects/BUILD_ID and DEBUG_DIR/.build-id/xx/rest: hex
 * digits only, so that it cannot name anything else. */
static bool build_id_ok(const char *id)
{
	size_t n = strlen(id), i;

	if (n < 2 || n > 128 || n % 2)
		return false;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)id[i]))
			return false;
	return true;
}

/* A mapping or unmapping covers at least a byte and ends inside the
 * address space. */
static int range_check(const struct hwtr_sideband_event *e,
		       const struct jfield_where *w, const char *kind)
{
	if (e->len == 0)
		return hwtr_fail(hwtr_err_format,
				 "%s:%ld: %s at 0x%llx has length 0", w->file,
				 w->line, kind, (unsigned long long)e->addr);
	if (e->addr + e->len < e->addr && e->addr + e->len != 0)
		return hwtr_fail(hwtr_err_format,
				 "%s:%ld: %s at 0x%llx of length 0x%llx wraps "
				 "past the end of the address space", w->file,
				 w->line, kind, (unsigned long long)e->addr,
				 (unsigned long long)e->len);
	return 0;
}

static int tid_get(json_t *obj, const struct jfield_where *w, uint32_t *tid)
{
	uint64_t v = 0;
	int err = jfield_get_u64(obj, "tid", w, &v);

	if (err)
		return err;
	if (v > UINT32_MAX)
		return hwtr_fail(hwtr_err_format, "%s:%ld: tid %llu is out of range",
				 w->file, w->line, (unsigned long long)v);
	*tid = (uint32_t)v;
	return 0;
}

int sideband_decode(json_t *obj, const struct jfield_where *w,
		    struct hwtr_sideband_event *e)
{
	const char *kind, *prot = "r-x";
	size_t k;
	int err;

	memset(e, 0, sizeof(*e));
	if (!json_is_object(obj))
		return hwtr_fail(hwtr_err_format, "%s:%ld: not a JSON object",
				 w->file, w->line);
	if ((err = jfield_get_string(obj, "event", w, &kind)) ||
	    (err = jfield_get_u64_opt(obj, "tsc", w, &e->tsc)))
		return err;
	for (k = 0; k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
		if (!strcmp(kind, kind_names[k]))
			break;
	if (k == sizeof(kind_names) / sizeof(kind_names[0]))
		return hwtr_fail(hwtr_err_format, "%s:%ld: unknown event \"%s\"",
				 w->file, w->line, kind);
	e->kind = (enum hwtr_event_kind)k;
	switch (e->kind) {
	case hwtr_ev_mmap:
		if ((err = jfield_get_u64(obj, "addr", w, &e->addr)) ||
		    (err = jfield_get_u64(obj, "len", w, &e->len)) ||
		    (err = jfield_get_u64_opt(obj, "pgoff", w, &e->pgoff)) ||
		    (err = jfield_get_string_opt(obj, "prot", w, &prot)) ||
		    (err = jfield_get_path_opt(obj, "path", w, &e->path)) ||
		    (err = jfield_get_string_opt(obj, "build_id", w, &e->build_id)) ||
		    (err = jfield_get_string_opt(obj, "saved", w, &e->saved)))
			return err;
		if (prot_parse(prot, &e->prot) < 0)
			return hwtr_fail(hwtr_err_format,
					 "%s:%ld: field \"prot\" is \"%s\", "
					 "expected three of r/w/x or -",
					 w->file, w->line, prot);
		if (e->saved && !recording_name_inside(e->saved))
			return hwtr_fail(hwtr_err_format,
					 "%s:%ld: field \"saved\" (\"%s\") leaves "
					 "the recording directory", w->file,
					 w->line, e->saved);
		if (e->build_id && !build_id_ok(e->build_id))
			return hwtr_fail(hwtr_err_format,
					 "%s:%ld: field \"build_id\" (\"%.140s\") is "
					 "not a build-id (2 to 128 hex digits)",
					 w->file, w->line, e->build_id);
		if ((err = range_check(e, w, "mmap")))
			return err;
		break;
	case hwtr_ev_munmap:
		if ((err = jfield_get_u64(obj, "addr", w, &e->addr)) ||
		    (err = jfield_get_u64(obj, "len", w, &e->len)) ||
		    (err = range_check(e, w, "munmap")))
			return err;
		break;
	case hwtr_ev_exec:
		if ((err = jfield_get_path(obj, "path", w, &e->path)))
			return err;
		break;
	case hwtr_ev_thread_start:
	case hwtr_ev_thread_exit:
		if ((err = tid_get(obj, w, &e->tid)))
			return err;
		break;
	case hwtr_ev_loss:
		if ((err = tid_get(obj, w, &e->tid)) ||
		    (err = jfield_get_u64_opt(obj, "offset", w, &e->offset)) ||
		    (err = jfield_get_u64_opt(obj, "len", w, &e->len)) ||
		    (err = jfield_get_string_opt(obj, "reason", w, &e->reason)))
			return err;
		break;
	}
	return 0;
}
