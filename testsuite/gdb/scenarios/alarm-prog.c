/* alarm-prog.c: a value scenario's program (values-alarm.scn): a SIGALRM
 * handler installed with SA_SIGINFO and sent with raise() (so that it
 * arrives at the same instruction in every run, unlike a timer; not with
 * sigqueue(), whose signals to the process itself Valgrind 3.19 loses after
 * the first), which reads the value main left for it and what siginfo says
 * of the sender, and changes sig_atomic_t globals; a
 * plain SIGUSR1 handler sent by kill(); the main loop reads the flags the
 * handlers set, and crashes through a pointer the last handler cleared.
 * Static, not PIE, like values-prog.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t g_alarms;
static volatile sig_atomic_t g_pending;
static volatile sig_atomic_t g_user;
static int g_carried[4];
static int g_cell = 7;
static int *volatile g_target = &g_cell;
static volatile sig_atomic_t g_next_value;

static void on_alarm(int sig, siginfo_t *info, void *context)
{
	int carried = g_next_value;
	int sender_code = info->si_code;

	(void)context;
	g_carried[g_alarms & 3] = carried * sig + sender_code; /* L:on_alarm */
	g_alarms = g_alarms + 1;
	g_pending = carried;
	if (carried == 30)
		g_target = 0; /* L:clear_target */
}

static void on_user(int sig)
{
	g_user = g_user + sig; /* L:on_user */
}

static int consume(int round)
{
	int seen = g_pending;

	g_pending = 0;
	return seen + round; /* L:consume */
}

int main(void)
{
	struct sigaction alarm_action, user_action;
	int total = 0;

	memset(&alarm_action, 0, sizeof(alarm_action));
	alarm_action.sa_sigaction = on_alarm;
	alarm_action.sa_flags = SA_SIGINFO;
	sigaction(SIGALRM, &alarm_action, 0);
	memset(&user_action, 0, sizeof(user_action));
	user_action.sa_handler = on_user;
	sigaction(SIGUSR1, &user_action, 0);

	for (int round = 1; round <= 3; round++) {
		g_next_value = round * 10;
		raise(SIGALRM); /* L:send_alarm */
		total += consume(round); /* L:after_alarm */
		if (round == 2)
			kill(getpid(), SIGUSR1); /* L:send_user */
	}
	total += g_user; /* L:main_done */
	*g_target = total; /* L:crash */
	return 0;
}
