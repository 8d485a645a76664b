/* listen.c: see listen.h. */
#include "listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define SOCKET_NAME "gdb.sock"

/* ------------------------------------------------------------ Unix socket */

/* The directory of PATH must be ours and closed to everyone else. */
static int check_private_dir(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (stat(dir, &st) < 0) {
		fprintf(stderr, "hwtrec-server: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		fprintf(stderr, "hwtrec-server: %s: the socket's directory must be "
			"yours and closed to others (mode 0700), so that no other "
			"user can reach the recording\n", dir);
		return -1;
	}
	return 0;
}

/* A new directory of our own (mode 0700) for the socket. */
static char *private_socket_path(char **dir_out)
{
	const char *base = getenv("XDG_RUNTIME_DIR");
	char *dir = NULL, *path = NULL;

	if (!base || access(base, W_OK) < 0)
		base = getenv("TMPDIR");
	if (!base || access(base, W_OK) < 0)
		base = "/tmp";
	if (asprintf(&dir, "%s/hwtrec-server-XXXXXX", base) < 0)
		return NULL;
	if (!mkdtemp(dir)) {	/* mode 0700 */
		fprintf(stderr, "hwtrec-server: %s: %s\n", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	if (asprintf(&path, "%s/" SOCKET_NAME, dir) < 0) {
		rmdir(dir);
		free(dir);
		return NULL;
	}
	*dir_out = dir;
	return path;
}

static bool unix_peer_is_owner(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return false;
	if (cred.uid == geteuid())
		return true;
	fprintf(stderr, "hwtrec-server: refused a connection from uid %u "
		"(pid %d): only uid %u may connect\n", (unsigned)cred.uid,
		(int)cred.pid, (unsigned)geteuid());
	return false;
}

static int unix_listener(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "hwtrec-server: %s: socket path too long\n", path);
		return -1;
	}
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		fprintf(stderr, "hwtrec-server: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (chmod(path, 0600) < 0 || listen(fd, 4) < 0) {
		fprintf(stderr, "hwtrec-server: %s: %s\n", path, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	return fd;
}

/* Killed while waiting (^C, SIGTERM, a closed terminal): the socket and
 * the directory made for it go first.  Paths copied for the handler. */
static char cleanup_socket[PATH_MAX], cleanup_dir[PATH_MAX];
static const int cleanup_signals[3] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction saved_actions[3];

static void cleanup_and_die(int sig)
{
	if (cleanup_socket[0])
		unlink(cleanup_socket);
	if (cleanup_dir[0])
		rmdir(cleanup_dir);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void cleanup_on_signals(const char *socket_path, const char *dir)
{
	struct sigaction sa = { .sa_handler = cleanup_and_die };
	int i;

	snprintf(cleanup_socket, sizeof(cleanup_socket), "%s", socket_path);
	snprintf(cleanup_dir, sizeof(cleanup_dir), "%s", dir ? dir : "");
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 3; i++) {
		sigaction(cleanup_signals[i], NULL, &saved_actions[i]);
		/* A signal the caller ignores stays ignored. */
		if (saved_actions[i].sa_handler != SIG_IGN)
			sigaction(cleanup_signals[i], &sa, NULL);
	}
}

static void cleanup_done(void)
{
	int i;

	for (i = 0; i < 3; i++)
		sigaction(cleanup_signals[i], &saved_actions[i], NULL);
	cleanup_socket[0] = cleanup_dir[0] = '\0';
}

/* ------------------------------------------------------------ loopback TCP */

/* ADDR as /proc/net/tcp6 prints it (the in6_addr's four words; an IPv4
 * address as IPv4-mapped) and its port; *V4 for an IPv4 address. */
static void proc_words(const struct sockaddr_storage *addr, uint32_t words[4],
		       unsigned *port, bool *v4)
{
	memset(words, 0, 16);
	*v4 = addr->ss_family == AF_INET;
	if (*v4) {
		const struct sockaddr_in *a = (const void *)addr;

		words[2] = htonl(0xffff);
		words[3] = a->sin_addr.s_addr;
		*port = ntohs(a->sin_port);
	} else {
		const struct sockaddr_in6 *a = (const void *)addr;

		memcpy(words, &a->sin6_addr, 16);
		*port = ntohs(a->sin6_port);
	}
}

/* The owner of the socket whose local end is LOCAL and remote end REMOTE,
 * from /proc/net/tcp (IPv4) or tcp6 (IPv6, and IPv4 through an IPv6
 * socket, as IPv4-mapped addresses). */
static bool tcp_socket_owner(const struct sockaddr_storage *local,
			     const struct sockaddr_storage *remote, uid_t *uid)
{
	static const char *const tables[2] = { "/proc/net/tcp", "/proc/net/tcp6" };
	uint32_t want_local[4], want_remote[4];
	unsigned want_lport, want_rport;
	bool v4, remote_v4;
	char line[512];
	int t;

	proc_words(local, want_local, &want_lport, &v4);
	proc_words(remote, want_remote, &want_rport, &remote_v4);
	for (t = v4 && remote_v4 ? 0 : 1; t < 2; t++) {
		FILE *f = fopen(tables[t], "r");

		if (!f)
			continue;
		if (!fgets(line, sizeof(line), f)) {	/* the header */
			fclose(f);
			continue;
		}
		while (fgets(line, sizeof(line), f)) {
			uint32_t la[4] = { 0, 0, htonl(0xffff), 0 };
			uint32_t ra[4] = { 0, 0, htonl(0xffff), 0 };
			unsigned lport, rport, state, u;
			int n;

			/* "sl: LOCAL:PORT REMOTE:PORT st tx:rx tr:when retr uid";
			 * an address is the kernel's words in hex, as stored. */
			if (t == 0)
				n = sscanf(line, " %*d: %8X:%X %8X:%X %X %*X:%*X %*X:%*X %*X %u",
					   &la[3], &lport, &ra[3], &rport, &state, &u) == 6;
			else
				n = sscanf(line, " %*d: %8X%8X%8X%8X:%X %8X%8X%8X%8X:%X %X "
					   "%*X:%*X %*X:%*X %*X %u",
					   &la[0], &la[1], &la[2], &la[3], &lport,
					   &ra[0], &ra[1], &ra[2], &ra[3], &rport, &state,
					   &u) == 12;
			if (!n || lport != want_lport || rport != want_rport ||
			    memcmp(la, want_local, sizeof(la)) ||
			    memcmp(ra, want_remote, sizeof(ra)))
				continue;
			fclose(f);
			*uid = (uid_t)u;
			return true;
		}
		fclose(f);
	}
	return false;
}

/* Our connection's peer is the socket whose local end is our remote one. */
static bool tcp_peer_is_owner(int fd)
{
	struct sockaddr_storage ours, theirs;
	socklen_t l1 = sizeof(ours), l2 = sizeof(theirs);
	uid_t uid;

	if (getsockname(fd, (struct sockaddr *)&ours, &l1) < 0 ||
	    getpeername(fd, (struct sockaddr *)&theirs, &l2) < 0)
		return false;
	if (!tcp_socket_owner(&theirs, &ours, &uid)) {
		fprintf(stderr, "hwtrec-server: refused a connection whose owner "
			"is not in /proc/net/tcp: only uid %u may connect\n",
			(unsigned)geteuid());
		return false;
	}
	if (uid == geteuid())
		return true;
	fprintf(stderr, "hwtrec-server: refused a connection from uid %u: only "
		"uid %u may connect\n", (unsigned)uid, (unsigned)geteuid());
	return false;
}

static int tcp_listener(long port)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t len = sizeof(addr);
	int one = 1, fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("hwtrec-server: socket");
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	addr.sin_port = htons((uint16_t)port);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(fd, 4) < 0 ||
	    getsockname(fd, (struct sockaddr *)&addr, &len) < 0) {
		fprintf(stderr, "hwtrec-server: 127.0.0.1:%ld: %s\n", port, strerror(errno));
		close(fd);
		return -1;
	}
	fprintf(stderr, "hwtrec-server: listening on 127.0.0.1:%u (uid %u only)\n",
		ntohs(addr.sin_port), (unsigned)geteuid());
	return fd;
}

/* ------------------------------------------------------------------ both */

int listen_accept_owner(const struct listen_spec *spec)
{
	char *made_dir = NULL, *made_path = NULL;
	const char *path = spec->path;
	int listener, fd = -1;

	if (spec->kind == listen_unix) {
		if (!path) {
			path = made_path = private_socket_path(&made_dir);
			if (!path)
				return -1;
		} else if (check_private_dir(path) < 0) {
			return -1;
		}
		listener = unix_listener(path);
		if (listener >= 0)
			cleanup_on_signals(path, made_dir);
		if (listener >= 0)
			fprintf(stderr, "hwtrec-server: listening on %s (uid %u only)\n"
				"  (gdb) target remote %s\n", path,
				(unsigned)geteuid(), path);
	} else {
		listener = tcp_listener(spec->port);
	}
	while (listener >= 0) {
		fd = accept(listener, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			perror("hwtrec-server: accept");
			break;
		}
		if (spec->kind == listen_unix ? unix_peer_is_owner(fd)
					      : tcp_peer_is_owner(fd))
			break;
		close(fd);	/* unanswered */
		fd = -1;
	}
	if (listener >= 0) {
		close(listener);
		if (spec->kind == listen_unix) {
			unlink(path);
			cleanup_done();
		}
	}
	if (made_dir)
		rmdir(made_dir);
	free(made_dir);
	free(made_path);
	return fd;
}
