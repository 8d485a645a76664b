/* tls.c: thread-local variables' addresses through glibc's libthread_db
 * (tls.h).  libthread_db reads the process through the proc_service
 * callbacks below (struct ps_prochandle is ours): memory and fs_base at
 * the thread's position in the replay, symbols from the ELF files of the
 * objects loaded at the end (their .dynsym, where libc exports the
 * `_thread_db_*` layout descriptors libthread_db needs). */
#include "tls.h"

#include "loaded-objects.h"
#include "replay.h"
#include "say.h"
#include "tdesc.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <proc_service.h>
#include <pthread.h>
#include <string.h>
#if defined(__x86_64__)
#include <sys/reg.h>		/* FS */
#endif
#include <thread_db.h>
#include <unistd.h>

struct ps_prochandle {
	struct replay *replay;
	uint32_t tid;		/* whose position memory is read at */
};

/* NAME's value in FILE's symbol tables (.dynsym, then .symtab), or false. */
static bool file_symbol(const char *file, const char *name, uint64_t *value)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	Elf_Scn *scn = NULL;
	bool found = false;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && !found && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;
		Elf_Data *data;
		size_t i, n;

		if (!gelf_getshdr(scn, &shdr) ||
		    (shdr.sh_type != SHT_DYNSYM && shdr.sh_type != SHT_SYMTAB) ||
		    !shdr.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		n = shdr.sh_size / shdr.sh_entsize;
		for (i = 1; i < n && !found; i++) {
			GElf_Sym sym;
			const char *s;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			s = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (s && !strcmp(s, name)) {
				*value = sym.st_value;
				found = true;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

/* libthread_db names the object it expects a symbol in (libc, ld.so);
 * like gdbserver, which asks GDB, we look in every loaded object. */
ps_err_e ps_pglobal_lookup(struct ps_prochandle *ph, const char *object_name,
			   const char *name, psaddr_t *addr)
{
	const struct loaded_objects *objects = replay_loaded_objects(ph->replay);
	size_t i;

	for (i = 0; objects && i < objects->n; i++) {
		const struct loaded_object *o = &objects->objects[i];
		uint64_t value;

		if (o->file && file_symbol(o->file, name, &value)) {
			*addr = (psaddr_t)(uintptr_t)(o->bias + value);
			return PS_OK;
		}
	}
	return PS_NOSYM;
}

ps_err_e ps_pdread(struct ps_prochandle *ph, psaddr_t addr, void *buf, size_t size)
{
	return replay_read_memory_at(ph->replay, ph->tid, (uint64_t)(uintptr_t)addr,
				     buf, size) == size ? PS_OK : PS_ERR;
}

/* A recording is read-only, and libthread_db needs no registers for what
 * we ask of it but fs_base (ps_get_thread_area). */
ps_err_e ps_pdwrite(struct ps_prochandle *ph, psaddr_t addr, const void *buf,
		    size_t size)
{
	return PS_ERR;
}

ps_err_e ps_lgetregs(struct ps_prochandle *ph, lwpid_t lwp, prgregset_t regs)
{
	return PS_ERR;
}

ps_err_e ps_lsetregs(struct ps_prochandle *ph, lwpid_t lwp, const prgregset_t regs)
{
	return PS_ERR;
}

ps_err_e ps_lgetfpregs(struct ps_prochandle *ph, lwpid_t lwp, prfpregset_t *regs)
{
	return PS_ERR;
}

ps_err_e ps_lsetfpregs(struct ps_prochandle *ph, lwpid_t lwp,
		       const prfpregset_t *regs)
{
	return PS_ERR;
}

pid_t ps_getpid(struct ps_prochandle *ph)
{
	return (pid_t)replay_pid(ph->replay);
}

/* x86-64: the thread pointer is fs_base (libthread_db asks for FS). */
ps_err_e ps_get_thread_area(struct ps_prochandle *ph, lwpid_t lwp, int idx,
			    psaddr_t *base)
{
	const struct tdesc *d = replay_tdesc(ph->replay);
	uint8_t regs[TDESC_G_SIZE], valid[TDESC_G_SIZE];
	uint64_t fs_base;
	int off;

#if defined(__x86_64__)
	if (idx != FS)
		return PS_BADADDR;
#else
	return PS_BADADDR;	/* a server built for another host */
#endif
	if (lwp <= 0 || !replay_has_thread(ph->replay, (uint32_t)lwp))
		return PS_BADADDR;
	off = tdesc_offset(d, tdesc_fs_base);
	if (off < 0 || replay_registers(ph->replay, (uint32_t)lwp, regs, valid) < 0)
		return PS_ERR;
	for (size_t i = 0; i < sizeof(fs_base); i++)
		if (!valid[off + i])
			return PS_ERR;	/* not known at this position */
	memcpy(&fs_base, regs + off, sizeof(fs_base));
	*base = (psaddr_t)(uintptr_t)fs_base;
	return PS_OK;
}

static pthread_once_t td_once = PTHREAD_ONCE_INIT;
static td_err_e td_init_result;

static void init_thread_db(void)
{
	td_init_result = td_init();
}

/* Why libthread_db could not place the variable, for the message. */
static const char *why(td_err_e err)
{
	switch (err) {
	case TD_TLSDEFER:
		return "its block is not allocated yet at this position";
	case TD_NOTLS:
		return "that module has no TLS segment";
	case TD_VERSION:
	case TD_NOLIBTHREAD:
		return "libthread_db does not match this program's libc";
	default:
		return "the thread's fs_base or memory is not known at this position";
	}
}

int tls_address(struct replay *replay, uint32_t tid, uint64_t lm,
		uint64_t offset, uint64_t *addr)
{
	struct ps_prochandle ph = { .replay = replay, .tid = tid };
	td_thragent_t *agent;
	td_thrhandle_t thread;
	psaddr_t where;
	td_err_e err;

	if (strcmp(replay_tdesc(replay)->arch, "x86_64"))
		return say("thread-local storage: only x86-64 recordings"), -ENOTSUP;
	pthread_once(&td_once, init_thread_db);
	if (td_init_result != TD_OK)
		return say("thread-local storage: libthread_db failed to start (%d)",
			   td_init_result), -EIO;
	err = td_ta_new(&ph, &agent);
	if (err != TD_OK)
		return say("thread-local storage of thread %u: %s (td_ta_new: %d)",
			   tid, why(err == TD_ERR || err == TD_DBERR ? err : TD_VERSION),
			   err), -ENOENT;
	err = td_ta_map_lwp2thr(agent, (lwpid_t)tid, &thread);
	if (err == TD_OK)
		err = td_thr_tls_get_addr(&thread, (psaddr_t)(uintptr_t)lm,
					  (size_t)offset, &where);
	td_ta_delete(agent);
	if (err != TD_OK)
		return say("thread-local storage of thread %u: %s (libthread_db: %d)",
			   tid, why(err), err), -ENOENT;
	*addr = (uint64_t)(uintptr_t)where;
	return 0;
}
