/* turns-prog.c: threads taking turns on shared data (values-turns*.scn).
 * Two workers deposit into shared accounts under a mutex, strictly in
 * turn (a condition variable hands the turn over), so the order of every
 * change is the same natively and under Valgrind; each keeps a running
 * sum of its own.  Worker 1 then waits in read() on a pipe nothing
 * writes, and once it does, worker 2 stores through a NULL pointer: at
 * the crash main waits for worker 2 in pthread_join.  The workers start
 * their turns only once main has created both and called start_turns
 * (where record full starts: it cannot record clone3). */
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <unistd.h>

struct account {
	long balance;
	int updates;
	char owner[8];
};

struct job {
	int id;
	int rounds;
	long step;
	long local_sum;
};

static struct account g_accounts[2] = {{100, 0, "alice"}, {200, 0, "bob"}};
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_turn_changed = PTHREAD_COND_INITIALIZER;
static int g_turn;
static int g_log[16];
static int g_log_len;
static pthread_t g_first;
static int g_parked;
static int g_never[2];

static void wait_turn(int id)
{
	while (g_turn != id)
		pthread_cond_wait(&g_turn_changed, &g_lock); /* L:wait */
}

static long deposit(struct job *job, int round)
{
	struct account *to = &g_accounts[(job->id + round) % 2];
	long amount = job->step * (round + 1);

	pthread_mutex_lock(&g_lock);
	wait_turn(job->id);
	to->balance += amount; /* L:deposit */
	to->updates++; /* L:counted */
	g_log[g_log_len++] = job->id * 100 + round;
	g_turn = 3 - job->id;
	pthread_cond_broadcast(&g_turn_changed);
	pthread_mutex_unlock(&g_lock);
	return amount; /* L:deposited */
}

static void *worker(void *arg)
{
	struct job *job = arg;
	long *audit = NULL;

	for (int round = 0; round < job->rounds; round++)
		job->local_sum += deposit(job, round); /* L:round */
	if (job->id == 1) {
		char byte;

		/* Parked for good in read(): nothing writes the pipe. */
		__atomic_store_n(&g_parked, 1, __ATOMIC_RELEASE);
		return read(g_never[0], &byte, 1) > 0 ? NULL : arg; /* L:parked */
	}
	/* Worker 2 crashes once worker 1 waits in read(): it has said so,
	 * and a tenth of a second lets it get there. */
	while (!__atomic_load_n(&g_parked, __ATOMIC_ACQUIRE))
		sched_yield();
	usleep(100000);
	*audit = job->local_sum; /* L:crash */
	return NULL;
}

__attribute__((noinline)) static void start_turns(void)
{
	pthread_mutex_lock(&g_lock);
	g_turn = 1; /* L:start */
	pthread_cond_broadcast(&g_turn_changed);
	pthread_mutex_unlock(&g_lock);
}

int main(void)
{
	struct job jobs[2] = {{1, 3, 10, 0}, {2, 3, 7, 0}};
	pthread_t second;

	if (pipe(g_never) != 0)
		return 1;
	pthread_create(&g_first, NULL, worker, &jobs[0]);
	pthread_create(&second, NULL, worker, &jobs[1]);
	start_turns();
	pthread_join(second, NULL); /* L:join */
	return (int)g_accounts[0].balance;
}
