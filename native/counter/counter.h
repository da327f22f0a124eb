/* Cycle counter chosen once at start-up, shared by the timing driver and the
 * profile wrappers.  See docs/timing.md for the reasoning behind each choice. */
#ifndef NGCC_COUNTER_H
#define NGCC_COUNTER_H

#include <stdint.h>

/* Hidden visibility: these objects are also linked into candidate libraries
 * (profile build), where they must never clash with or interpose on a
 * candidate's own symbols. */
#define NGCC_HIDDEN __attribute__((visibility("hidden")))

typedef enum {
    NGCC_COUNTER_PERF = 0, /* perf_event_open, user-mode CPU cycles */
    NGCC_COUNTER_TSC,      /* x86 time-stamp counter, fenced rdtsc */
    NGCC_COUNTER_CNTVCT,   /* AArch64 generic timer cntvct_el0 */
    NGCC_COUNTER_MONOTONIC /* CLOCK_MONOTONIC_RAW in nanoseconds */
} ngcc_counter_kind;

typedef struct {
    ngcc_counter_kind kind;
    const char *name;       /* "perf_cycles", "tsc", "cntvct_el0", "monotonic_raw" */
    double hz;              /* counter units per second (measured or architectural) */
    double overhead_cycles; /* median cost of one back-to-back read pair */
    int perf_fd;            /* only for NGCC_COUNTER_PERF */
} ngcc_counter;

/* Select a counter.  `forced` is NULL/"auto" or one of the names above (also
 * accepted: "perf", "monotonic").  Returns 0 on success, -1 if a forced
 * counter is unavailable (message written to err). */
NGCC_HIDDEN int ngcc_counter_init(ngcc_counter *c, const char *forced, char *err,
                                  unsigned long err_len);
NGCC_HIDDEN void ngcc_counter_close(ngcc_counter *c);

/* Read the counter.  Inline-able cost matters: these are called per batch. */
NGCC_HIDDEN uint64_t ngcc_counter_read(const ngcc_counter *c);

/* Wall clock, CLOCK_MONOTONIC_RAW (not slewed by NTP), in nanoseconds. */
NGCC_HIDDEN uint64_t ngcc_wall_ns(void);

/* Cheap tick source for the profile wrappers: never a system call. */
NGCC_HIDDEN int ngcc_tick_init(ngcc_counter *c, const char *forced, char *err,
                               unsigned long err_len);

#endif
