#define _GNU_SOURCE
#include "measure.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

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
    t->measurements = iterations;
    t->seconds = (double)(w1 - w0) / 1e9;
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
