/* progress.h: the line that says how far long work has come, on a
 * terminal: building a history (hwtr_history_options.progress), with the
 * instructions decoded, importing a perf.data (formats/import-perf.c),
 * where only the bytes of trace are known, and writing out a built history
 * (formats/timeline.c), where only instructions are counted.
 *
 * Nothing shows for work that ends within the first quarter second; after
 * that the line is rewritten in place at most four times a second with the
 * trace bytes (and instructions) done so far and an estimate of the time
 * left (from the rate so far), and erased at the end, so that what the
 * command prints next starts on a clean line.  HWTREC_PROGRESS_MS changes
 * the quarter second. */
#ifndef HWTR_PROGRESS_H
#define HWTR_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct progress {
	FILE *out;		/* NULL: progress_update does nothing */
	const char *what;	/* "building the history" */
	const char *noun;	/* what the bytes are of; NULL: "trace" */
	bool count_insns;	/* the line says the instructions */
	bool of_insns;		/* the work is counted in instructions: the
				 * "bytes" below are instructions */
	uint64_t total_bytes;	/* trace bytes of every thread */
	uint64_t done_bytes;	/* of the threads decoded before this one */
	uint64_t done_insns;	/* likewise */
	struct timespec start, last;
	int64_t interval_ns;	/* before the first line, and between two */
	bool shown;		/* the line is on the terminal */
};

/* Building a history: bytes and instructions. */
void progress_start(struct progress *p, FILE *out, uint64_t total_bytes);
/* Work on TOTAL_BYTES of trace that counts bytes only; WHAT (static
 * storage) names it on the line: "hwtrec: WHAT: 1.2 MB of 5.0 MB ...". */
void progress_start_bytes(struct progress *p, FILE *out, const char *what,
			  uint64_t total_bytes);
/* Work on TOTAL_INSNS instructions of a built history, WHAT naming it:
 * "hwtrec: WHAT: 1200000 of 5000000 instructions (24%), about 3 s left";
 * progress_update's BYTES are then instructions done. */
void progress_start_insns(struct progress *p, FILE *out, const char *what,
			  uint64_t total_insns);
/* The current thread has decoded BYTES of its trace and INSNS
 * instructions; shown when a quarter second passed since the last time. */
void progress_update(struct progress *p, uint64_t bytes, uint64_t insns);
/* The current thread is done with BYTES and INSNS. */
void progress_thread_done(struct progress *p, uint64_t bytes, uint64_t insns);
/* Erase the line, if shown. */
void progress_finish(struct progress *p);

#endif
