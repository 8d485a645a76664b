/* open-history.h: opening a recording and its history for a command, with
 * the messages every command prints the same way. */
#ifndef HWTREC_OPEN_HISTORY_H
#define HWTREC_OPEN_HISTORY_H

#include "hwtrecord.h"

struct opened_history {
	struct hwtr_recording *recording;
	struct hwtr_history *history;
};

/* Prints "hwtrec CMD: message" and returns non-zero on failure.  Progress
 * goes to the terminal only. */
int open_history(const char *cmd, const char *path, struct opened_history *o);
void close_history(struct opened_history *o);

#endif
