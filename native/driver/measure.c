#define _GNU_SOURCE
#include "measure.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* The 1-minute load average, or NaN (printed as null) when not available. */
static double load_average(void)
{
    double avg[1];
    return getloadavg(avg, 1) == 1 ? avg[0] : NAN;
}

/* Context switches of the calling thread so far (RUSAGE_THREAD: the timed
 * loop runs on this thread only; other threads' switches are not ours). */
static void thread_switches(long *involuntary, long *voluntary)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0) {
        *involuntary = *voluntary = -1;
        return;
    }
    *involuntary = ru.ru_nivcsw;
    *voluntary = ru.ru_nvcsw;
}

/* CPU time this thread has run so far, or NaN.  CLOCK_THREAD_CPUTIME_ID
 * advances only while the thread is on a core; recorded as evidence of the
 * trial (the parent checks it against the process's CPU time). */
static double thread_cpu_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return NAN;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Seconds this thread has spent runnable but not running, or NaN.  The
 * scheduler's own account (run_delay, the second field of schedstat): unlike a
 * count of involuntary switches it grows with how long competitors held the
 * core, and unlike CPU time against wall time it does not grow while the
 * library sleeps of its own accord (a voluntary wait is the library's cost). */
static double thread_wait_seconds(void)
{
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (!f)
        return NAN;
    unsigned long long run_ns, wait_ns;
    int n = fscanf(f, "%llu %llu", &run_ns, &wait_ns);
    fclose(f);
    return n == 2 ? (double)wait_ns / 1e9 : NAN;
}

ull ngcc_auto_batch(ull iterations, ull min_samples)
{
    if (min_samples == 0)
        min_samples = 1;
    ull b = iterations / min_samples;
    return b ? b : 1;
}

int ngcc_warmup(ngcc_op *op, ull calls)
{
    /* Warm-up: caches, branch predictors, lazy PLT binding and first-touch
     * page faults of the output buffers happen here, not in trial 1. */
    int bad = 0;
    for (ull i = 0; i < calls; i++)
        bad |= op->call(op) != 0;
    return bad;
}

int ngcc_run_trial(ngcc_op *op, const ngcc_counter *c, ull iterations, ull batch,
                   double time_limit_s, ngcc_trial *t)
{
    memset(t, 0, sizeof *t);
    if (batch == 0)
        batch = 1;
    size_t full = (size_t)(iterations / batch);
    ull rest = iterations - (ull)full * batch;
    t->samples = malloc((full ? full : 1) * sizeof *t->samples);
    if (!t->samples)
        return -1;
    int (*call)(ngcc_op *) = op->call;
    ull nonzero = 0;
    int ret = 0;
    /* Batches are contiguous: each counter read ends one sample and starts
     * the next, so the samples add up to the trial total (less the final
     * partial batch) and every sample carries exactly one read overhead. */
    /* Interference readings enclose the timed region, outside the wall-time
     * window, so they cost the measured calls nothing. */
    long inv0, vol0;
    t->loadavg_start = load_average();
    thread_switches(&inv0, &vol0);
    /* Read just before the wall clock starts and just after it stops, so the
     * CPU and wait windows enclose the wall window (they can exceed it by the
     * cost of the reads, never fall short of it because of them). */
    double wait0 = thread_wait_seconds();
    double cpu0 = thread_cpu_seconds();
    uint64_t w0 = ngcc_wall_ns();
    uint64_t c0 = ngcc_counter_read(c), prev = c0;
    for (size_t b = 0; b < full; b++) {
        for (ull i = 0; i < batch; i++) {
            int r = call(op);
            if (r != 0) {
                nonzero++;
                ret = r;
            }
        }
        uint64_t now = ngcc_counter_read(c);
        t->samples[b] = now - prev;
        prev = now;
        if (time_limit_s > 0 && (double)(ngcc_wall_ns() - w0) / 1e9 >= time_limit_s) {
            full = b + 1;
            iterations = (ull)full * batch;
            rest = 0;
        }
    }
    /* Calls that do not fill a batch are timed in the totals but give no
     * sample: a partial batch is not comparable with the others. */
    for (ull i = 0; i < rest; i++) {
        int r = call(op);
        if (r != 0) {
            nonzero++;
            ret = r;
        }
    }
    uint64_t c1 = rest ? ngcc_counter_read(c) : prev;
    uint64_t w1 = ngcc_wall_ns();
    double cpu1 = thread_cpu_seconds();
    double wait1 = thread_wait_seconds();
    long inv1, vol1;
    thread_switches(&inv1, &vol1);
    t->loadavg_end = load_average();
    t->involuntary_switches = inv0 < 0 || inv1 < 0 ? -1 : inv1 - inv0;
    t->voluntary_switches = vol0 < 0 || vol1 < 0 ? -1 : vol1 - vol0;
    t->measurements = iterations;
    t->seconds = (double)(w1 - w0) / 1e9;
    t->cpu_seconds = cpu1 - cpu0; /* NaN propagates: printed as null */
    t->wait_seconds = wait1 - wait0;
    t->cycles = c1 - c0;
    t->batch_calls = batch;
    t->n_samples = full;
    t->nonzero = nonzero;
    t->last_ret = ret;
    t->cpu = sched_getcpu();
    return 0;
}

void ngcc_trial_free(ngcc_trial *t)
{
    free(t->samples);
    t->samples = NULL;
}
