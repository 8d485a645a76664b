/* listen.h: hwtrec-server's listening transports, open to its owner only.
 *
 * A recording holds the program's memory (its core), readable by its owner
 * alone; the server must not hand it to another local user.
 *
 * - A Unix socket (the default for --listen): in a directory of its own,
 *   mode 0700, so no other user can reach it, and the peer's uid
 *   (SO_PEERCRED) must be ours as well.
 * - Loopback TCP (--listen PORT): any local user can connect to 127.0.0.1,
 *   so the peer's socket is looked up in /proc/net/tcp and tcp6 (on
 *   loopback both ends are on this machine, and the kernel lists each
 *   socket's owner): a connection from another uid, or one whose owner
 *   cannot be found, is closed unanswered.
 *
 * Refused connections are reported on stderr and the server waits on for
 * its owner's. */
#ifndef HWTREC_LISTEN_H
#define HWTREC_LISTEN_H

#include <stdint.h>

struct listen_spec {
	enum { listen_unix, listen_tcp } kind;
	/* listen_unix: the socket's path, or NULL for one in a new private
	 * directory; it must be in a directory only we can enter. */
	const char *path;
	long port;		/* listen_tcp: 0 for any free port */
};

/* Announce where on stderr, accept connections until one from our own uid
 * comes, and return it (the listening socket, and a socket made in a new
 * directory with the directory, are gone by then); -1 after a message. */
int listen_accept_owner(const struct listen_spec *spec);

#endif /* HWTREC_LISTEN_H */
