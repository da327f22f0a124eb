/* The timed loop: one trial = `iterations` calls in contiguous batches. */
#ifndef NGCC_MEASURE_H
#define NGCC_MEASURE_H

#include <stdint.h>

#include "../counter/counter.h"
#include "ops.h"

typedef struct {
    ull measurements;  /* calls timed */
    double seconds;    /* CLOCK_MONOTONIC_RAW over the whole trial */
    uint64_t cycles;   /* counter units over the whole trial */
    ull batch_calls;   /* calls per sample */
    size_t n_samples;  /* full batches only */
    uint64_t *samples; /* counter units per batch */
    ull nonzero;       /* calls that returned non-zero */
    int last_ret;
    int cpu;           /* CPU at the end of the trial */
    /* Interference the OS reports over the trial (the Python side decides what
     * counts as disturbed): context switches of this thread, and the 1-minute
     * load average before and after (-1 / NaN when unavailable). */
    long involuntary_switches;
    long voluntary_switches;
    double loadavg_start;
    double loadavg_end;
    /* CPU time of this thread over the same window as `seconds` (NaN when the
     * clock is unavailable): evidence of the trial, which the parent checks
     * against its wall time and against the process's CPU time. */
    double cpu_seconds;
    /* Time this thread spent runnable but waiting for a core over the same
     * window (run_delay of /proc/thread-self/schedstat; NaN when unreadable):
     * the time a competitor held the core while the counter kept running. */
    double wait_seconds;
} ngcc_trial;

/* Calls per batch giving at least `min_samples` samples (one call per batch
 * when there are fewer calls than that). */
ull ngcc_auto_batch(ull iterations, ull min_samples);

int ngcc_warmup(ngcc_op *op, ull calls);
/* time_limit_s > 0: stop after the first batch that ends past it (used for
 * calibration, where the cost of a call is not known yet). */
int ngcc_run_trial(ngcc_op *op, const ngcc_counter *c, ull iterations, ull batch,
                   double time_limit_s, ngcc_trial *t);
void ngcc_trial_free(ngcc_trial *t);

#endif
