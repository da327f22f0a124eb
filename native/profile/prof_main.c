/* ngcc-prof: run one operation repeatedly with the ICCS profile enabled in a
 * library relinked with the wrappers; write one JSON record to --result-fd
 * (stdout without it). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../driver/cli.h"
#include "../driver/json.h"
#include "../driver/ops.h"

typedef struct {
    int (*init)(const char *);
    void (*enable)(int);
    void (*reset)(void);
    uint64_t (*now)(void);
    const char *(*source)(void);
    double (*hz)(void);
    double (*overhead)(void);
    unsigned long long (*overflow)(void);
    unsigned long (*entries)(void);
    int (*entry)(unsigned long, const char **, unsigned long long *, unsigned long long *,
                 unsigned long long *, unsigned long long *);
} prof_api;

static int bind(void *lib, const char *name, void *slot, size_t size)
{
    void *p = dlsym(lib, name);
    if (!p)
        return -1;
    memcpy(slot, &p, size);
    return 0;
}

#define BIND(lib, api, field, name) bind(lib, name, &(api)->field, sizeof((api)->field))

static int bind_api(void *lib, prof_api *a)
{
    return BIND(lib, a, init, "ngcc_prof_init") | BIND(lib, a, enable, "ngcc_prof_enable") |
           BIND(lib, a, reset, "ngcc_prof_reset") | BIND(lib, a, now, "ngcc_prof_now") |
           BIND(lib, a, source, "ngcc_prof_tick_source") | BIND(lib, a, hz, "ngcc_prof_tick_hz") |
           BIND(lib, a, overhead, "ngcc_prof_tick_overhead") |
           BIND(lib, a, overflow, "ngcc_prof_overflow_calls") |
           BIND(lib, a, entries, "ngcc_prof_entries") | BIND(lib, a, entry, "ngcc_prof_entry");
}

static void print_error(FILE *out, const ngcc_cli *cli, const char *error)
{
    fprintf(out, "{\"driver\":\"ngcc-prof\",\"version\":1,\"status\":\"error\",\"error\":");
    ngcc_json_str(out, error);
    fprintf(out, ",\"library\":");
    ngcc_json_str(out, cli->library);
    fprintf(out, ",\"operation\":");
    ngcc_json_str(out, cli->operation);
    fprintf(out, "}\n");
}

static void print_profile(FILE *out, const ngcc_cli *cli, const ngcc_op *op, const prof_api *a,
                          uint64_t total)
{
    fprintf(out, "{\"driver\":\"ngcc-prof\",\"version\":1,\"status\":\"complete\",\"error\":null,"
           "\"library\":");
    ngcc_json_str(out, cli->library);
    fprintf(out, ",\"operation\":");
    ngcc_json_str(out, cli->operation);
    fprintf(out, ",\"category\":");
    ngcc_json_str(out, op->category);
    fprintf(out, ",\"input_bytes\":%llu,\"cpu\":%d,\"meta\":{\"tick_source\":", op->input_bytes,
           sched_getcpu());
    ngcc_json_str(out, a->source());
    fprintf(out, ",\"tick_hz\":");
    ngcc_json_num(out, a->hz());
    fprintf(out, ",\"tick_overhead\":");
    ngcc_json_num(out, a->overhead());
    fprintf(out, ",\"warmups\":%llu,\"overflow_calls\":%llu},", cli->warmups, a->overflow());
    fprintf(out, "\"total\":{\"operations\":%llu,\"ticks\":%llu},\"calls\":[", cli->iterations,
           (unsigned long long)total);
    const char *fn;
    unsigned long long in, out_bits, calls, ticks;
    for (unsigned long i = 0; a->entry(i, &fn, &in, &out_bits, &calls, &ticks) == 0; i++) {
        fprintf(out, "%s{\"fn\":", i ? "," : "");
        ngcc_json_str(out, fn);
        fprintf(out, ",\"in_bits\":%llu,\"out_bits\":%llu,\"calls\":%llu,\"ticks\":%llu}",
                in, out_bits, calls, ticks);
    }
    fprintf(out, "]}\n");
}

/* One record per process, to --result-fd (see ngcc_record_send). */
static int emit_error(const ngcc_cli *cli, const char *error)
{
    char *buf;
    size_t len;
    FILE *mem = ngcc_record_open(&buf, &len);
    if (!mem)
        return 70;
    print_error(mem, cli, error);
    return ngcc_record_send(mem, &buf, &len, cli->result_fd) == 0 ? 2 : 74;
}

static int emit(const ngcc_cli *cli, const ngcc_op *op, const prof_api *a, uint64_t total)
{
    char *buf;
    size_t len;
    FILE *mem = ngcc_record_open(&buf, &len);
    if (!mem)
        return 70;
    print_profile(mem, cli, op, a, total);
    return ngcc_record_send(mem, &buf, &len, cli->result_fd) == 0 ? 0 : 74;
}

int main(int argc, char **argv)
{
    ngcc_cli cli;
    if (ngcc_cli_parse(&cli, argc, argv, "ngcc-prof") != 0)
        return 64;
    /* The record descriptor is not inherited by anything the library may exec. */
    if (cli.result_fd >= 0 && fcntl(cli.result_fd, F_SETFD, FD_CLOEXEC) != 0)
        return 64;
    if (cli.cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cli.cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0)
            return emit_error(&cli, "cannot pin to the requested CPU");
    }
    void *lib = dlopen(cli.library, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return emit_error(&cli, dlerror());
    prof_api a;
    if (bind_api(lib, &a) != 0)
        return emit_error(&cli, "library not linked with the profile wrappers");
    if (a.init(cli.counter) != 0)
        return emit_error(&cli, "tick source unavailable");
    ngcc_op op;
    char err[512];
    /* Profiling stays off during setup and warm-up: only timed-loop calls
     * of the operation itself are attributed. */
    if (ngcc_op_prepare(&op, lib, cli.operation, &cli.op, err, sizeof err) != 0)
        return emit_error(&cli, err);
    for (ull i = 0; i < cli.warmups; i++)
        op.call(&op);
    a.reset();
    a.enable(1);
    /* Same tick source for the whole-operation total as for the wrapped
     * calls, so that shares are ratios of like units. */
    uint64_t t0 = a.now();
    int bad = 0;
    for (ull i = 0; i < cli.iterations; i++)
        bad |= op.call(&op) != 0;
    uint64_t t1 = a.now();
    a.enable(0);
    if (bad)
        return emit_error(&cli, "a profiled call returned non-zero");
    int rc = emit(&cli, &op, &a, t1 - t0);
    ngcc_op_free(&op);
    return rc;
}
