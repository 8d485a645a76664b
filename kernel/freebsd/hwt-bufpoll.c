/* hwt-bufpoll.c: a thread that follows a buffer's write pointer
 * (hwt-bufpoll.h).  One mutex guards the count; the thread and hwt_bufpoll_now
 * both read the pointer and add the distance from the count's place in the
 * buffer.  Not done: telling that the thread was kept from running for a
 * whole lap (nothing in the ABI can).
 */
#include "hwt-bufpoll.h"
#include "hwt-context.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

struct hwt_bufpoll {
	const struct hwt_sys *sys;
	int fd;
	uint64_t size;
	unsigned period_us;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	uint64_t written;	/* absolute */
	int err;		/* the errno that stopped the polling */
};

/* One reading, counted in (lock held while counting). */
static int poll_once(struct hwt_bufpoll *p)
{
	uint64_t pos = 0, at;
	int err = hwt_node_bufptr(p->sys, p->fd, &pos);

	pthread_mutex_lock(&p->lock);
	if (err) {
		p->err = err;
	} else {
		at = p->written % p->size;
		p->written += (pos % p->size + p->size - at) % p->size;
	}
	pthread_mutex_unlock(&p->lock);
	return err;
}

static void *poller(void *arg)
{
	struct hwt_bufpoll *p = arg;

	pthread_mutex_lock(&p->lock);
	while (!p->stop && !p->err) {
		struct timespec until;

		pthread_mutex_unlock(&p->lock);
		poll_once(p);
		pthread_mutex_lock(&p->lock);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += (long)p->period_us * 1000;
		while (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		if (!p->stop)
			pthread_cond_timedwait(&p->wake, &p->lock, &until);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int hwt_bufpoll_start(const struct hwt_sys *sys, int fd, uint64_t size,
		      unsigned period_us, struct hwt_bufpoll **out)
{
	struct hwt_bufpoll *p = calloc(1, sizeof(*p));
	int err;

	if (!p || !size)
		return free(p), ENOMEM;
	p->sys = sys;
	p->fd = fd;
	p->size = size;
	p->period_us = period_us;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	if ((err = poll_once(p)) || (err = pthread_create(&p->thread, NULL,
							  poller, p))) {
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->wake);
		free(p);
		return err;
	}
	*out = p;
	return 0;
}

uint64_t hwt_bufpoll_written(struct hwt_bufpoll *p, uint64_t *position)
{
	uint64_t w;

	pthread_mutex_lock(&p->lock);
	w = p->written;
	pthread_mutex_unlock(&p->lock);
	if (position)
		*position = w % p->size;
	return w;
}

int hwt_bufpoll_now(struct hwt_bufpoll *p)
{
	return poll_once(p);
}

int hwt_bufpoll_stop(struct hwt_bufpoll *p)
{
	int err;

	if (!p)
		return 0;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	err = p->err;
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->wake);
	free(p);
	return err;
}
