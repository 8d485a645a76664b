/* live-valgrind.c: the software trace source behind live mode (tracer.h).
 *
 * The program runs under the hwtrec Valgrind tool in live mode
 * (--hwtrec-live=yes) with Valgrind's gdbserver (--vgdb=yes
 * --vgdb-error=0: stopped before its first instruction); vgdb relays the
 * stub over a pipe.  A recording session is one `hwtrec _live-recorder`
 * process reading the tool's FIFO: it is started first, then the monitor
 * command "hwtrec start DIR/values" makes the tool open the FIFO and write
 * the data log straight into the recording (the recorder made it empty and
 * names it in the manifest; without the data log, --no-data, plain "hwtrec
 * start").  At a stop, "hwtrec flush" puts everything the tool holds into
 * the FIFO and the data log before its reply, and "sync N" to the recorder
 * returns once all of the trace is on disk.
 *
 * Every child gets PR_SET_PDEATHSIG, so that a server killed outright
 * leaves nothing behind; the program runs in its own process group, so a ^C
 * at the terminal reaches GDB (which sends it to us) and not the program
 * directly.  The scratch directory holds the FIFO, vgdb's FIFOs and
 * Valgrind's log.
 *
 * Not done: following forks and execs of the program (the tool traces the
 * first process only), attaching to a running process.
 */
#include "say.h"
#include "tracer.h"

#include <dirent.h>
#include <errno.h>
#include <hwtrecord.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct valgrind_tracer {
	struct tracer base;		/* first: live.c sees this */
	struct tracer_config config;
	struct rsp_conn *stub;
	char scratch[PATH_MAX];
	char fifo[PATH_MAX + 16];
	pid_t program, vgdb;
	bool program_done;
	/* the recorder of the current session */
	pid_t recorder;
	int to_recorder, from_recorder;
	char reply[PATH_MAX + 64];
	unsigned long long syncs;
	bool detached;
};

static void valgrind_close(struct tracer *base);

static struct valgrind_tracer *of(struct tracer *base)
{
	return (struct valgrind_tracer *)base;	/* base is the first member */
}

static pid_t valgrind_pid(const struct tracer *base)
{
	const struct valgrind_tracer *t = (const struct valgrind_tracer *)base;

	return t ? t->program : 0;
}

static bool valgrind_recording(const struct tracer *base)
{
	const struct valgrind_tracer *t = (const struct valgrind_tracer *)base;

	return t && t->recorder > 0;
}

/* The tool stops the program before it ends by itself while tracing
 * (tool.c: stop_before_exit) and says so in its status. */
static bool valgrind_at_exit(struct tracer *base)
{
	struct valgrind_tracer *t = of(base);
	char out[256];

	return t->recorder > 0 && !t->program_done &&
	       stub_monitor(t->stub, "hwtrec status", out, sizeof(out)) == 0 &&
	       strstr(out, "stopped before the program's exit") != NULL;
}

/* In a child: die with the server, and leave the terminal's signals to
 * GDB. */
static void child_setup(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGINT, SIG_IGN);
	signal(SIGPIPE, SIG_DFL);
}

static bool vgdb_ready(const struct valgrind_tracer *t)
{
	char name[64];
	DIR *d = opendir(t->scratch);
	struct dirent *e;
	bool found = false;

	snprintf(name, sizeof(name), "vgdb-from-vgdb-to-%d-", (int)t->program);
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, name, strlen(name)))
			found = true;
	if (d)
		closedir(d);
	return found;
}

static void show_valgrind_log(const struct valgrind_tracer *t)
{
	char path[PATH_MAX + 32], line[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/vglog", t->scratch);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		fprintf(stderr, "hwtrec-server: valgrind: %s", line);
	if (f)
		fclose(f);
}

/* In the program's child: GDB's `set environment`, `unset environment` and
 * `set cwd` (Valgrind passes its environment and directory on). */
static void program_setup(const struct tracer_config *c)
{
	size_t i;

	for (i = 0; c->env_unset && c->env_unset[i]; i++)
		unsetenv(c->env_unset[i]);
	for (i = 0; c->env_set && c->env_set[i]; i++)
		putenv(c->env_set[i]);
	if (c->cwd && chdir(c->cwd) < 0) {
		fprintf(stderr, "hwtrec-server: cannot run the program in %s: "
			"%s\n", c->cwd, strerror(errno));
		_exit(127);
	}
	if (c->valgrind_lib)
		setenv("VALGRIND_LIB", c->valgrind_lib, 1);
}

/* `run`'s redirections (after the chdir to cwd: paths are relative to
 * it), as the shell makes them for a native `run`. */
static void program_redirect(const struct tracer_config *c)
{
	int fd;

	for (fd = 0; fd < 3; fd++) {
		int flags = !fd ? O_RDONLY : O_WRONLY | O_CREAT |
			(c->redirect_append[fd] ? O_APPEND : O_TRUNC);
		int file;

		if (!c->redirect[fd])
			continue;
		file = open(c->redirect[fd], flags, 0666);
		if (file < 0) {
			fprintf(stderr, "hwtrec-server: cannot run the program "
				"with %s %s: %s\n", !fd ? "input from" :
				"output to", c->redirect[fd], strerror(errno));
			_exit(127);
		}
		if (file != fd) {
			dup2(file, fd);
			close(file);
		}
	}
	if (c->err_to_out)
		dup2(1, 2);
}

/* Run ARGV.  Its stdin and stdout are IN and OUT when >= 0 (we keep the
 * other ends), else /dev/null and our stderr (the program's output goes to
 * GDB's terminal); PROGRAM (its config): in its own process group, with
 * VALGRIND_LIB. */
static pid_t spawn(char *const *argv, const int in[2], const int out[2],
		   const struct tracer_config *program)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		say("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		child_setup();
		if (in) {
			dup2(in[0], 0);
			dup2(out[1], 1);
		} else {
			setpgid(0, 0);
			if (null >= 0)
				dup2(null, 0);
			dup2(2, 1);
		}
		/* Not left open for the program, whose own files would get
		 * other numbers than without us (fd 3 taken). */
		if (null > 2)
			close(null);
		if (program) {
			program_setup(program);
			program_redirect(program);
		}
		execv(argv[0], argv);
		fprintf(stderr, "hwtrec-server: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (!in)
		setpgid(pid, pid);
	return pid;
}

static pid_t spawn_valgrind(struct valgrind_tracer *t)
{
	const struct tracer_config *c = &t->config;
	char a_fifo[PATH_MAX + 32], a_prefix[PATH_MAX + 32], a_log[PATH_MAX + 32];
	char a_tool_log[PATH_MAX + 32];
	char a_psb[64];
	const char *argv[64 + 1024];
	size_t n = 0, i;

	snprintf(a_fifo, sizeof(a_fifo), "--hwtrec-fifo=%s", t->fifo);
	snprintf(a_prefix, sizeof(a_prefix), "--vgdb-prefix=%s/vgdb", t->scratch);
	snprintf(a_log, sizeof(a_log), "--log-file=%s/vglog", t->scratch);
	/* The tool closes the copy Valgrind leaves among the program's file
	 * descriptors (kernel/valgrind/tool.c). */
	snprintf(a_tool_log, sizeof(a_tool_log), "--hwtrec-log-file=%s/vglog",
		 t->scratch);
	snprintf(a_psb, sizeof(a_psb), "--psb-period=%u",
		 c->psb_period ? c->psb_period : 4096);
	argv[n++] = c->valgrind;
	argv[n++] = "-q";
	argv[n++] = "--tool=hwtrec";
	argv[n++] = "--hwtrec-live=yes";
	argv[n++] = a_fifo;
	argv[n++] = "--vgdb=yes";
	argv[n++] = "--vgdb-error=0";
	argv[n++] = a_prefix;
	argv[n++] = a_log;
	argv[n++] = a_tool_log;
	argv[n++] = "--vex-guest-chase=no";
	argv[n++] = "--run-libc-freeres=no";
	argv[n++] = "--run-cxx-freeres=no";
	argv[n++] = a_psb;
	if (c->no_ret_compression)
		argv[n++] = "--ret-compression=no";
	/* Every block instrumented for the data log from the start: a session
	 * may begin at any stop. */
	if (!c->no_data)
		argv[n++] = "--hwtrec-live-data=yes";
	for (i = 0; c->argv[i] && n < sizeof(argv) / sizeof(argv[0]) - 1; i++)
		argv[n++] = c->argv[i];
	argv[n] = NULL;
	return spawn((char *const *)argv, NULL, NULL, c);
}

/* Run ARGV with its stdin and stdout on pipes to us. */
static pid_t spawn_piped(char *const *argv, int *to, int *from)
{
	int in[2], out[2];
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0) {
		say("pipe: %s", strerror(errno));
		return -1;
	}
	pid = spawn(argv, in, out, NULL);
	close(in[0]);
	close(out[1]);
	if (pid < 0) {
		close(in[1]);
		close(out[0]);
		return -1;
	}
	*to = in[1];
	*from = out[0];
	return pid;
}

static bool vgdb_path(const char *valgrind, char *out, size_t size)
{
	const char *slash = strrchr(valgrind, '/');

	if (slash) {
		snprintf(out, size, "%.*s/vgdb", (int)(slash - valgrind), valgrind);
		if (access(out, X_OK) == 0)
			return true;
	}
	snprintf(out, size, "/usr/bin/vgdb");
	return access(out, X_OK) == 0;
}

static int valgrind_start(const struct tracer_config *config,
			  struct tracer **out, struct rsp_conn *stub)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct valgrind_tracer *t = calloc(1, sizeof(*t));
	char vgdb[PATH_MAX], a_prefix[PATH_MAX + 32], a_pid[32];
	char *vargv[6];
	int to, from, i;

	*out = NULL;
	if (!t) {
		say("out of memory");
		return -1;
	}
	t->base.ops = &tracer_valgrind;
	t->config = *config;
	t->stub = stub;
	t->to_recorder = t->from_recorder = -1;
	snprintf(t->scratch, sizeof(t->scratch), "%s/hwtrec-live-XXXXXX", tmp);
	if (!mkdtemp(t->scratch)) {
		say("cannot make a directory in %s: %s", tmp,
		    strerror(errno));
		free(t);
		return -1;
	}
	snprintf(t->fifo, sizeof(t->fifo), "%s/events", t->scratch);
	if (mkfifo(t->fifo, 0600) < 0) {
		say("%s: %s", t->fifo, strerror(errno));
		goto fail;
	}
	if (!vgdb_path(config->valgrind, vgdb, sizeof(vgdb))) {
		say("vgdb not found beside %s", config->valgrind);
		goto fail;
	}
	t->program = spawn_valgrind(t);
	if (t->program < 0)
		goto fail;
	/* Valgrind's gdbserver makes its FIFOs before the first instruction. */
	for (i = 0; i < 3000 && !vgdb_ready(t); i++) {
		int status;

		if (waitpid(t->program, &status, WNOHANG) == t->program) {
			t->program_done = true;
			show_valgrind_log(t);
			say("the program did not start under the "
			    "hwtrec Valgrind tool (%s %d)",
			    WIFEXITED(status) ? "exit status" : "signal",
			    WIFEXITED(status) ? WEXITSTATUS(status)
					      : WTERMSIG(status));
			goto fail;
		}
		usleep(10000);
	}
	if (!vgdb_ready(t)) {
		say("Valgrind's gdbserver did not start within 30 s");
		goto fail;
	}
	snprintf(a_prefix, sizeof(a_prefix), "--vgdb-prefix=%s/vgdb", t->scratch);
	snprintf(a_pid, sizeof(a_pid), "--pid=%d", (int)t->program);
	vargv[0] = vgdb;
	vargv[1] = a_prefix;
	vargv[2] = a_pid;
	vargv[3] = NULL;
	t->vgdb = spawn_piped(vargv, &to, &from);
	if (t->vgdb < 0)
		goto fail;
	rsp_conn_init(stub, from, to);
	stub->decode_rle = true;
	stub->log = config->log;
	stub->log_prefix = "stub ";
	if (stub_request(stub, "QStartNoAckMode", 15) < 0) {
		say("vgdb did not answer");
		goto fail;
	}
	if (!strcmp(stub->payload, "OK"))
		stub->ack_mode = false;
	*out = &t->base;
	return 0;
fail:
	valgrind_close(&t->base);
	return -1;
}

/* ------------------------------------------------------------- the stub */

int stub_request(struct rsp_conn *stub, const char *payload, size_t len)
{
	if (rsp_send(stub, payload, len) < 0)
		return -1;
	for (;;) {
		enum rsp_recv rc = rsp_receive(stub);

		if (rc == rsp_recv_eof)
			return -1;
		if (rc != rsp_recv_packet)
			continue;
		/* Console output of a monitor command ("O" + hex); "OK" is
		 * the end. */
		if (stub->payload[0] == 'O' && stub->payload_len > 1 &&
		    stub->payload[1] != 'K')
			continue;
		return 0;
	}
}

int stub_monitor(struct rsp_conn *stub, const char *command, char *out,
		 size_t outlen)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = strlen(command), i, used = 0;
	char *packet = malloc(6 + 2 * n + 1);	/* a command names a path */
	int written, rc;

	if (!packet) {
		say("out of memory");
		return -1;
	}
	written = snprintf(packet, 7, "qRcmd,");
	for (i = 0; i < n; i++) {
		packet[written++] = hex[(unsigned char)command[i] >> 4];
		packet[written++] = hex[(unsigned char)command[i] & 15];
	}
	if (outlen)
		out[0] = 0;
	rc = rsp_send(stub, packet, (size_t)written);
	free(packet);
	if (rc < 0)
		return -1;
	for (;;) {
		enum rsp_recv rc = rsp_receive(stub);
		const char *p;

		if (rc == rsp_recv_eof)
			return -1;
		if (rc != rsp_recv_packet)
			continue;
		p = stub->payload;
		if (p[0] == 'O' && p[1] != 'K' && stub->payload_len > 1) {
			for (p++; p[0] && p[1] && used + 1 < outlen; p += 2)
				out[used++] = (char)(rsp_hex_value(p[0]) << 4 |
						     rsp_hex_value(p[1]));
			if (outlen)
				out[used] = 0;
			continue;
		}
		return strcmp(stub->payload, "OK") ? -1 : 0;
	}
}

/* --------------------------------------------------------- the recorder */

/* Send LINE to the recorder and read its one-line answer into t->reply. */
static int recorder_command(struct valgrind_tracer *t, const char *line)
{
	size_t n = 0;

	if (t->config.log)
		fprintf(t->config.log, "recorder <- %s", line);
	if (line[0] && write(t->to_recorder, line, strlen(line)) < 0) {
		say("the recorder went away: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		struct pollfd p = { .fd = t->from_recorder, .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, 120000) <= 0) {
			say("the recorder did not answer");
			return -1;
		}
		r = read(t->from_recorder, t->reply + n, 1);
		if (r <= 0) {
			say("the recorder went away");
			return -1;
		}
		if (t->reply[n] == '\n' || n + 2 >= sizeof(t->reply))
			break;
		n++;
	}
	t->reply[n] = 0;
	if (t->config.log)
		fprintf(t->config.log, "recorder -> %s\n", t->reply);
	if (!strncmp(t->reply, "error ", 6)) {
		say("%s", t->reply + 6);
		return -1;
	}
	return 0;
}

static void recorder_reap(struct valgrind_tracer *t)
{
	if (t->to_recorder >= 0)
		close(t->to_recorder);
	if (t->from_recorder >= 0)
		close(t->from_recorder);
	t->to_recorder = t->from_recorder = -1;
	if (t->recorder > 0)
		waitpid(t->recorder, NULL, 0);
	t->recorder = 0;
}

static int valgrind_record_start(struct tracer *base, const char *dir)
{
	struct valgrind_tracer *t = of(base);
	const struct tracer_config *c = &t->config;
	char a_pid[32], a_psb[64], out[256], start[PATH_MAX + 32], abs[PATH_MAX];
	char *argv[32 + 1024];
	size_t n = 0, i;

	if (t->recorder > 0) {
		say("already recording");
		return -1;
	}
	snprintf(a_pid, sizeof(a_pid), "%d", (int)t->program);
	snprintf(a_psb, sizeof(a_psb), "--psb-period=%u",
		 c->psb_period ? c->psb_period : 4096);
	argv[n++] = (char *)c->recorder;
	argv[n++] = "_live-recorder";
	argv[n++] = a_psb;
	if (c->no_ret_compression)
		argv[n++] = "--no-ret-compression";
	if (!c->no_data)
		argv[n++] = "--data";	/* it makes DIR/values */
	argv[n++] = t->fifo;
	argv[n++] = a_pid;
	argv[n++] = (char *)dir;
	argv[n++] = "--";
	for (i = 0; c->argv[i] && n < sizeof(argv) / sizeof(argv[0]) - 1; i++)
		argv[n++] = c->argv[i];
	argv[n] = NULL;
	t->recorder = spawn_piped(argv, &t->to_recorder, &t->from_recorder);
	if (t->recorder < 0) {
		t->recorder = 0;
		return -1;
	}
	/* "ready": the recorder holds the FIFO open, the tool may open it. */
	if (recorder_command(t, "") < 0) {
		recorder_reap(t);
		return -1;
	}
	if (strcmp(t->reply, "ready")) {
		say("the recorder said: %s", t->reply);
		recorder_reap(t);
		return -1;
	}
	/* The tool writes the data log in place, into the recording (the
	 * program may run in another directory: `set cwd`). */
	if (c->no_data || !realpath(dir, abs))
		snprintf(start, sizeof(start), "hwtrec start");
	else
		snprintf(start, sizeof(start), "hwtrec start %s/values", abs);
	if (stub_monitor(t->stub, start, out, sizeof(out)) < 0 ||
	    strncmp(out, "hwtrec: tracing", 15)) {
		say("the Valgrind tool did not start tracing: %s",
		    out[0] ? out : "no answer");
		recorder_reap(t);
		return -1;
	}
	return 0;
}

static int valgrind_sync(struct tracer *base)
{
	struct valgrind_tracer *t = of(base);
	char out[256], line[64];

	if (t->recorder <= 0)
		return 0;
	if (!t->program_done &&
	    (stub_monitor(t->stub, "hwtrec flush", out, sizeof(out)) < 0 ||
	     strncmp(out, "hwtrec: flushed", 15))) {
		say("the Valgrind tool did not flush: %s",
		    out[0] ? out : "no answer");
		return -1;
	}
	snprintf(line, sizeof(line), "sync %llu\n", ++t->syncs);
	return recorder_command(t, line);
}

static int valgrind_save(struct tracer *base, const char *dir)
{
	struct valgrind_tracer *t = of(base);
	char line[PATH_MAX + 16];

	if (t->recorder <= 0) {
		say("not recording");
		return -1;
	}
	if (strchr(dir, '\n')) {
		say("a file name with a newline");
		return -1;
	}
	if (valgrind_sync(base) < 0)
		return -1;
	snprintf(line, sizeof(line), "save %s\n", dir);
	return recorder_command(t, line);
}

static int valgrind_record_end(struct tracer *base, const char *state,
			       int code)
{
	struct valgrind_tracer *t = of(base);
	char out[256], line[64];
	int rc;

	if (t->recorder <= 0)
		return 0;
	if (!t->program_done && !strcmp(state, "running") &&
	    stub_monitor(t->stub, "hwtrec stop", out, sizeof(out)) < 0) {
		say("the Valgrind tool did not stop tracing");
		recorder_reap(t);
		return -1;
	}
	snprintf(line, sizeof(line), "end %s %d\n", state, code);
	rc = recorder_command(t, line);
	recorder_reap(t);
	return rc;
}

static void valgrind_detach(struct tracer *base)
{
	struct valgrind_tracer *t = of(base);
	t->detached = true;
	/* Nothing more to say to the stub: vgdb ends when its input does,
	 * Valgrind's gdbserver lets the program run on. */
	if (t->stub && t->vgdb > 0) {
		close(t->stub->in_fd);
		close(t->stub->out_fd);
	}
	t->stub = NULL;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	return remove(path);
}

void remove_directory(const char *dir)
{
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void valgrind_close(struct tracer *base)
{
	struct valgrind_tracer *t = of(base);
	if (!t)
		return;
	if (t->program > 0 && !t->program_done) {
		if (!t->detached)
			kill(-t->program, SIGKILL);
		waitpid(t->program, NULL, 0);
	}
	if (t->vgdb > 0) {
		kill(t->vgdb, SIGKILL);
		waitpid(t->vgdb, NULL, 0);
	}
	/* A recorder still in a session sees the end of its input: it keeps
	 * the recording, marked cut off. */
	recorder_reap(t);
	if (t->stub && t->vgdb > 0) {
		close(t->stub->in_fd);
		close(t->stub->out_fd);
	}
	remove_directory(t->scratch);
	free(t);
}

/* The program ended (the stub said W or X): reap it. */
static void valgrind_program_done(struct tracer *base)
{
	struct valgrind_tracer *t = of(base);
	if (t->program > 0 && !t->program_done) {
		waitpid(t->program, NULL, 0);
		t->program_done = true;
	}
}

const struct tracer_ops tracer_valgrind = {
	.name = "valgrind",
	.start = valgrind_start,
	.pid = valgrind_pid,
	.record_start = valgrind_record_start,
	.sync = valgrind_sync,
	.save = valgrind_save,
	.record_end = valgrind_record_end,
	.recording = valgrind_recording,
	.at_exit = valgrind_at_exit,
	.program_done = valgrind_program_done,
	.detach = valgrind_detach,
	.close = valgrind_close,
};
