/* tracer.c: live mode's calls into the trace source, through its
 * tracer_ops (tracer.h).  NULL stands for no tracer where live.c holds none
 * (between a kill and the next run). */
#include "tracer.h"

int tracer_start(const struct tracer_config *config, struct tracer **tracer,
		 struct rsp_conn *stub)
{
	return config->ops->start(config, tracer, stub);
}

pid_t tracer_pid(const struct tracer *t)
{
	return t ? t->ops->pid(t) : 0;
}

int tracer_record_start(struct tracer *t, const char *dir)
{
	return t->ops->record_start(t, dir);
}

int tracer_sync(struct tracer *t)
{
	return t->ops->sync(t);
}

int tracer_save(struct tracer *t, const char *dir)
{
	return t->ops->save(t, dir);
}

int tracer_record_end(struct tracer *t, const char *state, int code)
{
	return t->ops->record_end(t, state, code);
}

bool tracer_recording(const struct tracer *t)
{
	return t && t->ops->recording(t);
}

bool tracer_at_exit(struct tracer *t)
{
	return t && t->ops->at_exit && t->ops->at_exit(t);
}

void tracer_program_done(struct tracer *t)
{
	t->ops->program_done(t);
}

void tracer_detach(struct tracer *t)
{
	t->ops->detach(t);
}

void tracer_close(struct tracer *t)
{
	if (t)
		t->ops->close(t);
}
