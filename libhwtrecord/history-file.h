/* history-file.h: the history index saved inside a finished recording
 * (history.idx, doc/recording-format.md); internal. */
#ifndef HWTR_HISTORY_FILE_H
#define HWTR_HISTORY_FILE_H

#include "history.h"

#define HISTORY_FILE_NAME "history.idx"

/* Fill history H (images, symbols and decoder ready, no threads yet) from
 * its recording's saved index: 1 when it did, 0 when there is none or it
 * cannot be used (a line on stderr says why, but for a missing file), H
 * then again without threads. */
int history_file_load(struct hwtr_history *h);

/* Save H's index (just built) into its recording, atomically.  A directory
 * the user cannot write is left alone; other failures are one line on
 * stderr.  H is not changed. */
void history_file_save(const struct hwtr_history *h);

#endif
