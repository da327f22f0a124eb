/* ngcc-time: time one operation of one instance library and write a single
 * JSON record to --result-fd (stdout without it); parsed by
 * runner/harness/driver_output.py only. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>

#include "../counter/counter.h"
#include "cli.h"
#include "json.h"
#include "measure.h"
#include "mem.h"
#include "ops.h"
#include "ops_kex.h"

typedef struct {
    const ngcc_cli *cli;
    const ngcc_counter *counter; /* NULL before selection */
    const ngcc_op *op;           /* NULL before setup */
    ngcc_trial *trials;
    ull n_trials;
    long long baseline_rss, peak_rss, stack_hwm;
    double setup_seconds;
} report;

static void print_sizes(FILE *out, const ngcc_op *op)
{
    fprintf(out, "\"sizes\":{\"input_bytes\":%llu,\"pk_bytes\":%llu,\"sk_bytes\":%llu,"
           "\"ct_bytes\":%llu,\"ss_bytes\":%llu,\"signature_bytes\":%llu,\"digest_bytes\":%llu},",
           op->input_bytes, op->pk_bytes, op->sk_bytes, op->ct_bytes, op->ss_bytes,
           op->sig_bytes, op->digest_bytes);
}

static void print_trial(FILE *out, const ngcc_trial *t)
{
    fprintf(out, "{\"measurements\":%llu,\"seconds\":", t->measurements);
    ngcc_json_num(out, t->seconds);
    fprintf(out, ",\"cycles\":%llu,\"batch_calls\":%llu,\"cpu\":%d,\"samples\":[",
           (unsigned long long)t->cycles, t->batch_calls, t->cpu);
    for (size_t i = 0; i < t->n_samples; i++)
        fprintf(out, "%s%llu", i ? "," : "", (unsigned long long)t->samples[i]);
    fprintf(out, "],\"involuntary_switches\":%ld,\"voluntary_switches\":%ld,\"loadavg_start\":",
            t->involuntary_switches, t->voluntary_switches);
    ngcc_json_num(out, t->loadavg_start);
    fprintf(out, ",\"loadavg_end\":");
    ngcc_json_num(out, t->loadavg_end);
    fprintf(out, ",\"cpu_seconds\":");
    ngcc_json_num(out, t->cpu_seconds);
    fprintf(out, ",\"wait_seconds\":");
    ngcc_json_num(out, t->wait_seconds);
    fprintf(out, "}");
}

static void print_ll(FILE *out, const char *key, long long v)
{
    if (v < 0)
        fprintf(out, "\"%s\":null,", key);
    else
        fprintf(out, "\"%s\":%lld,", key, v);
}

/* The record: one JSON object, also on failure (status "error"). */
static void print_record(FILE *out, const report *r, const char *error)
{
    const ngcc_cli *cli = r->cli;
    fprintf(out, "{\"driver\":\"ngcc-time\",\"version\":1,\"status\":");
    ngcc_json_str(out, error ? "error" : "complete");
    fprintf(out, ",\"error\":");
    ngcc_json_str(out, error);
    fprintf(out, ",\"library\":");
    ngcc_json_str(out, cli->library);
    fprintf(out, ",\"operation\":");
    ngcc_json_str(out, cli->operation);
    fprintf(out, ",\"category\":");
    ngcc_json_str(out, r->op ? r->op->category : cli->op.category);
    fprintf(out, ",\"input_bytes\":%llu,\"pinned_cpu\":%d,\"cpu\":%d,", cli->op.input_bytes, cli->cpu,
           sched_getcpu());
    fprintf(out, "\"iterations\":%llu,\"warmups\":%llu,", cli->iterations, cli->warmups);
    if (r->counter) {
        fprintf(out, "\"counter\":{\"name\":");
        ngcc_json_str(out, r->counter->name);
        fprintf(out, ",\"hz\":");
        ngcc_json_num(out, r->counter->hz);
        fprintf(out, ",\"overhead_cycles\":");
        ngcc_json_num(out, r->counter->overhead_cycles);
        fprintf(out, "},");
    }
    if (r->op) {
        print_sizes(out, r->op);
        ngcc_kex_print(out, r->op);
        fprintf(out, "\"hash_fn\":");
        ngcc_json_str(out, strcmp(r->op->category, "hash") == 0
                                  ? (cli->op.hash_fn ? cli->op.hash_fn : "CryptHash")
                                  : NULL);
        fprintf(out, ",\"digest_bits\":%ld,", r->op->digest_bits);
    }
    fprintf(out, "\"setup_seconds\":");
    ngcc_json_num(out, r->setup_seconds);
    fprintf(out, ",");
    print_ll(out, "baseline_rss_bytes", r->baseline_rss);
    print_ll(out, "peak_rss_bytes", r->peak_rss);
    print_ll(out, "stack_high_water_bytes", r->stack_hwm);
    fprintf(out, "\"trials\":[");
    for (ull i = 0; i < r->n_trials; i++) {
        if (i)
            fputc(',', out);
        print_trial(out, &r->trials[i]);
    }
    fprintf(out, "]}\n");
}

/* Exactly one record per process.  It is assembled in memory and written with
 * one write() to the descriptor the parent opened (--result-fd), never to
 * stdout, which the candidate library shares: the parent reads the record
 * from that pipe only and accepts it only if it is the single well-formed
 * object it expects (and consistent with the CPU time it measured itself). */
static int emit(const report *r, const char *error)
{
    char *buf;
    size_t len;
    FILE *mem = ngcc_record_open(&buf, &len);
    if (!mem)
        return 70;
    print_record(mem, r, error);
    if (ngcc_record_send(mem, &buf, &len, r->cli->result_fd) != 0)
        return 74;
    return error ? 2 : 0;
}

static int pin(int cpu)
{
    if (cpu < 0)
        return 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    /* Pin before anything else, so the counter calibration, setup and all
     * trials run on the one core the plan chose. */
    return sched_setaffinity(0, sizeof set, &set);
}

int main(int argc, char **argv)
{
    ngcc_cli cli;
    if (ngcc_cli_parse(&cli, argc, argv, "ngcc-time") != 0)
        return 64;
    /* The record descriptor is not inherited by anything the library may exec. */
    if (cli.result_fd >= 0 && fcntl(cli.result_fd, F_SETFD, FD_CLOEXEC) != 0)
        return 64;
    report r = {.cli = &cli, .baseline_rss = -1, .peak_rss = -1, .stack_hwm = -1};
    char err[512] = "";
    if (pin(cli.cpu) != 0)
        return emit(&r, "cannot pin to the requested CPU");
    ngcc_counter counter;
    if (ngcc_counter_init(&counter, cli.counter, err, sizeof err) != 0)
        return emit(&r, err);
    r.counter = &counter;
    if (cli.probe) /* system registration: which counter, its rate and read overhead */
        return emit(&r, NULL);
    uint64_t t0 = ngcc_wall_ns();
    /* RTLD_NOW: resolve every symbol at load, not lazily inside trial 1. */
    void *lib = dlopen(cli.library, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(err, sizeof err, "dlopen: %s", dlerror());
        return emit(&r, err);
    }
    ngcc_op op;
    int prep = ngcc_op_prepare(&op, lib, cli.operation, &cli.op, err, sizeof err);
    r.setup_seconds = (double)(ngcc_wall_ns() - t0) / 1e9;
    if (prep != 0)
        return emit(&r, err);
    r.op = &op;
    /* Baseline RSS: after setup (library loaded, inputs made), before any
     * warm-up or timed call. */
    r.baseline_rss = ngcc_rss_bytes();
    if (ngcc_warmup(&op, cli.warmups) != 0)
        return emit(&r, "warm-up call returned non-zero");
    ull batch = cli.batch ? cli.batch : ngcc_auto_batch(cli.iterations, cli.min_samples);
    r.trials = calloc((size_t)cli.trials, sizeof *r.trials);
    if (!r.trials)
        return emit(&r, "out of memory");
    for (ull i = 0; i < cli.trials; i++) {
        if (ngcc_run_trial(&op, &counter, cli.iterations, batch, cli.time_limit_s, &r.trials[i]) != 0)
            return emit(&r, "out of memory");
        r.n_trials = i + 1;
        if (r.trials[i].nonzero) {
            snprintf(err, sizeof err, "%llu timed calls returned non-zero (last %d)",
                     r.trials[i].nonzero, r.trials[i].last_ret);
            return emit(&r, err);
        }
    }
    /* Peak RSS at the end of timing, before the stack measurement (whose
     * painted stack lives in a child process anyway). */
    r.peak_rss = ngcc_peak_rss_bytes();
    if (cli.stack_bytes)
        r.stack_hwm = ngcc_stack_high_water(&op, (size_t)cli.stack_bytes);
    int rc = emit(&r, NULL);
    for (ull i = 0; i < r.n_trials; i++)
        ngcc_trial_free(&r.trials[i]);
    free(r.trials);
    ngcc_op_free(&op);
    ngcc_counter_close(&counter);
    return rc;
}
