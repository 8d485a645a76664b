/* record-driver.c: one recording through one trace source, and the end
 * every recording shares, whatever its source: job-control signals while
 * the program runs, the wait status into the manifest's end, the exit
 * status (the program's, 128 + signal when a signal killed it, as a shell
 * reports it), finishing the recording and the summary line.
 *
 * The sources (under ../kernel) fill a record_source table
 * (../kernel/source.h) and never ask which driver they have.
 */
#include "record-driver.h"
#include "commands.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The recording the signal handlers act on. */
static const struct record_source *volatile signal_source;
static const struct source_run *volatile signal_run;

/* Passed on to the program; before there is one (a source that starts it
 * in drain), the signal does to us what it would without a handler. */
static void pass_on(int sig)
{
	pid_t pid = signal_source->program(signal_run);

	if (pid > 0) {
		kill(pid, sig);
	} else {
		signal(sig, SIG_DFL);
		raise(sig);
	}
}

static void interrupt(int sig)
{
	(void)sig;
	if (signal_source->interrupt)
		signal_source->interrupt();
}

struct saved_signals {
	struct sigaction intr, quit, term, hup;
};

/* Like a shell running a job: ^C and ^\ are for the program, and SIGTERM
 * or SIGHUP sent to us are passed on to it; attached (-p), ^C and SIGTERM
 * end the recording and the program runs on.  A write to a closed pipe or
 * past the file size limit is an error the writer reports, not a death. */
static void job_control_begin(const struct record_source *src,
			      const struct source_run *run, bool attached,
			      struct saved_signals *old)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	/* Passing a signal on is no reason to break off a wait. */
	struct sigaction fwd = { .sa_handler = pass_on, .sa_flags = SA_RESTART };
	struct sigaction intr = { .sa_handler = interrupt };

	signal_source = src;
	signal_run = run;
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	sigaction(SIGQUIT, &ign, &old->quit);
	sigaction(SIGHUP, NULL, &old->hup);
	if (attached) {
		sigaction(SIGINT, &intr, &old->intr);
		sigaction(SIGTERM, &intr, &old->term);
		return;
	}
	sigaction(SIGINT, &ign, &old->intr);
	sigaction(SIGTERM, NULL, &old->term);
	if (src->program) {
		sigaction(SIGTERM, &fwd, NULL);
		sigaction(SIGHUP, &fwd, NULL);
	}
}

static void job_control_end(const struct saved_signals *old)
{
	sigaction(SIGINT, &old->intr, NULL);
	sigaction(SIGQUIT, &old->quit, NULL);
	sigaction(SIGTERM, &old->term, NULL);
	sigaction(SIGHUP, &old->hup, NULL);
}

/* The manifest's end from the program's wait status. */
static struct hwtr_end end_of(const struct source_result *res)
{
	if (res->ended && WIFEXITED(res->status))
		return (struct hwtr_end){ .state = hwtr_end_exited,
					  .code = WEXITSTATUS(res->status) };
	if (res->ended && WIFSIGNALED(res->status))
		return (struct hwtr_end){
			.state = hwtr_end_signaled,
			.code = WTERMSIG(res->status),
			.has_fault_address = res->has_fault_address,
			.fault_address = res->fault_address };
	return (struct hwtr_end){ .state = hwtr_end_running };
}

/* The exit status: the source's when it set one, else the program's, else
 * (attached, and let go) 0. */
static int exit_status_of(const struct source_result *res,
			  const struct hwtr_end *end)
{
	if (res->exit_status)
		return res->exit_status;
	if (end->state == hwtr_end_signaled)
		return 128 + end->code;
	return end->state == hwtr_end_exited ? end->code : 0;
}

static void print_summary(const struct source_result *res,
			  const struct hwtr_end *end, int rc)
{
	char bytes[64] = "", seconds[32] = "", losses[64] = "", how[128];

	if (res->trace_bytes != UINT64_MAX)
		snprintf(bytes, sizeof(bytes), ", %.1f KiB of trace",
			 res->trace_bytes / 1024.0);
	if (res->seconds > 0)
		snprintf(seconds, sizeof(seconds), " in %.2f s", res->seconds);
	if (res->losses)
		snprintf(losses, sizeof(losses), ", %llu loss%s",
			 (unsigned long long)res->losses,
			 res->losses == 1 ? "" : "es");
	if (res->aborted)
		snprintf(how, sizeof(how), "cut short: exit status %d", rc);
	else if (end->state == hwtr_end_signaled && end->has_fault_address)
		snprintf(how, sizeof(how), "program died of signal %d (%s) "
			 "at address 0x%llx", end->code, strsignal(end->code),
			 (unsigned long long)end->fault_address);
	else if (end->state == hwtr_end_signaled)
		snprintf(how, sizeof(how), "program died of signal %d (%s)",
			 end->code, strsignal(end->code));
	else if (end->state == hwtr_end_exited)
		snprintf(how, sizeof(how), "program exited with %d", end->code);
	else
		snprintf(how, sizeof(how), "the program runs on");
	fprintf(stderr, "hwtrec record: %s: %zu thread%s%s%s, %s%s\n",
		res->name, res->threads, res->threads == 1 ? "" : "s", bytes,
		seconds, how, losses);
}

/* NAME has a manifest: there is something to pack. */
static bool recording_written(const char *name)
{
	char manifest[PATH_MAX + 16];

	snprintf(manifest, sizeof(manifest), "%s/manifest.json", name);
	return access(manifest, F_OK) == 0;
}

int record_drive(const struct record_source *src,
		 const struct record_request *req)
{
	struct source_result res = { .trace_bytes = UINT64_MAX };
	struct saved_signals old;
	struct source_run *run = NULL;
	struct hwtr_end end;
	int rc, err;

	if ((rc = src->start(req, &run)))
		return rc;
	job_control_begin(src, run, req->pid != 0, &old);
	src->drain(run, &res);
	job_control_end(&old);
	src->finish(run, &res);

	end = end_of(&res);
	rc = exit_status_of(&res, &end);
	if (res.writer) {
		err = res.aborted
		    ? hwtr_writer_finish_aborted(res.writer, res.aborted,
				end.state == hwtr_end_signaled ? end.code : 0)
		    : hwtr_writer_finish(res.writer, &end);
		if (err) {
			fprintf(stderr, "hwtrec record: %s\n", hwtr_last_error());
			rc = rc ? rc : EXIT_RECORDER;
		} else if (!req->quiet && isatty(2)) {
			print_summary(&res, &end, rc);
		}
	}
	/* --pack: whatever was recorded travels, complete or cut off; the
	 * program's status stays the exit status. */
	if (req->pack && res.name && recording_written(res.name))
		hwtrec_pack_recording("record --pack", res.name, NULL);
	src->free(run);
	return rc;
}
