/* say.h: the server's error messages.  They read as the library's
 * (hwtr_last_error()); the server's return codes stay its own (negative
 * errno values). */
#ifndef HWTREC_SERVER_SAY_H
#define HWTREC_SERVER_SAY_H

/* Set hwtr_last_error()'s message (cut at 1 KiB); returns -1. */
int say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
