/* tls-key-prog: two threads count into a __thread counter and keep a
 * per-thread session through pthread_key_create; the key's destructor
 * runs at each thread's exit and the second session's log pointer was
 * cleared, so the destructor dies of SIGSEGV inside start_thread. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct session {
	int owner;
	int events;
	char *log;
};

static __thread int t_count;
static __thread struct session *t_session;
static pthread_key_t g_key;
static int g_closed;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static void
close_session(void *p)
{
	struct session *s = p;
	size_t n = strlen(s->log);

	pthread_mutex_lock(&g_lock);
	g_closed += (int)n + s->events;
	pthread_mutex_unlock(&g_lock);
	free(s->log);
	free(s);
}

static void
note_event(int v)
{
	t_count += v;
	t_session->events++;
}

static void *
session_thread(void *arg)
{
	int owner = (int)(long)arg;
	struct session *s = calloc(1, sizeof(*s));
	int i;

	s->owner = owner;
	s->log = strdup("opened");
	t_session = s;
	pthread_setspecific(g_key, s);
	for (i = 0; i < 5; i++)
		note_event(owner * 10 + i);
	if (owner == 2) {
		free(s->log);
		s->log = NULL;
	}
	return NULL;
}

int
main(void)
{
	pthread_t t1, t2;

	pthread_key_create(&g_key, close_session);
	t_count = 100;
	pthread_create(&t1, NULL, session_thread, (void *)1L);
	pthread_join(t1, NULL);
	pthread_create(&t2, NULL, session_thread, (void *)2L);
	pthread_join(t2, NULL);
	printf("closed %d count %d\n", g_closed, t_count);
	return 0;
}
