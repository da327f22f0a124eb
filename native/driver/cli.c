#define _GNU_SOURCE
#include "cli.h"
#include "categories.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [options] LIBRARY OPERATION\n"
            "  OPERATION: " NGCC_OPERATIONS_USAGE "\n"
            "  --iterations N   timed calls per trial (default 1)\n"
            "  --trials N       trials in this process (default 1)\n"
            "  --warmups N      untimed calls before the first trial (default 0)\n"
            "  --batch N        calls per cycle sample (default: >= --min-samples samples)\n"
            "  --min-samples N  samples per trial for the automatic batch (default 16)\n"
            "  --input-bytes N  hash message length (default 0; the guide's: "
            NGCC_HASH_MESSAGE_BYTES_USAGE ")\n"
            "  --input-seed K   input K of the seeded pool (default 0: the fixed inputs)\n"
            "  --digest-bits N  hash output length (default: library getter, else 256)\n"
            "  --hash-fn NAME   CryptHash (default), sm3hash, pseudohash, pseudoXOF\n"
            "  --category NAME  kem|sign|hash|kex (default: ngcc_category or probing)\n"
            "  --cpu N          pin to CPU N (sched_setaffinity)\n"
            "  --counter NAME   auto|perf|tsc|cntvct_el0|monotonic (env NGCC_COUNTER)\n"
            "  --stack-bytes N  painted stack for the high-water mark, 0 = off\n"
            "  --time-limit S   end a trial after the batch that passes S seconds\n"
            "  --probe          report the chosen counter (rate, read overhead) and exit\n"
            "  --result-fd N    write the record to descriptor N (opened by the parent)\n",
            prog);
}

static int num(const char *s, ull *out)
{
    char *end;
    if (!s || !*s || *s == '-')
        return -1;
    *out = strtoull(s, &end, 10);
    return *end ? -1 : 0;
}

static int seconds(const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    return (*end || *out < 0) ? -1 : 0;
}

int ngcc_cli_parse(ngcc_cli *cli, int argc, char **argv, const char *prog)
{
    static const struct option opts[] = {
        {"iterations", required_argument, 0, 'i'}, {"trials", required_argument, 0, 't'},
        {"warmups", required_argument, 0, 'w'},    {"batch", required_argument, 0, 'b'},
        {"min-samples", required_argument, 0, 'm'}, {"input-bytes", required_argument, 0, 'n'},
        {"digest-bits", required_argument, 0, 'd'}, {"hash-fn", required_argument, 0, 'h'},
        {"category", required_argument, 0, 'g'},   {"cpu", required_argument, 0, 'c'},
        {"counter", required_argument, 0, 'k'},    {"stack-bytes", required_argument, 0, 's'},
        {"time-limit", required_argument, 0, 'l'}, {"probe", no_argument, 0, 'p'},
        {"input-seed", required_argument, 0, 'e'}, {"result-fd", required_argument, 0, 'r'},
        {0, 0, 0, 0}};
    memset(cli, 0, sizeof *cli);
    cli->iterations = 1;
    cli->trials = 1;
    cli->min_samples = 16;
    cli->cpu = -1;
    cli->counter = getenv("NGCC_COUNTER");
    cli->stack_bytes = 64ull << 20;
    cli->op.digest_bits = -1;
    cli->result_fd = -1;
    int ch;
    ull v = 0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        int bad = 0;
        switch (ch) {
        case 'i': bad = num(optarg, &cli->iterations); break;
        case 't': bad = num(optarg, &cli->trials); break;
        case 'w': bad = num(optarg, &cli->warmups); break;
        case 'b': bad = num(optarg, &cli->batch); break;
        case 'm': bad = num(optarg, &cli->min_samples); break;
        case 'n': bad = num(optarg, &cli->op.input_bytes); break;
        case 'd': bad = num(optarg, &v); cli->op.digest_bits = (long)v; break;
        case 'h': cli->op.hash_fn = optarg; break;
        case 'g': cli->op.category = optarg; break;
        case 'c': bad = num(optarg, &v); cli->cpu = (int)v; break;
        case 'k': cli->counter = optarg; break;
        case 's': bad = num(optarg, &cli->stack_bytes); break;
        case 'l': bad = seconds(optarg, &cli->time_limit_s); break;
        case 'p': cli->probe = 1; break;
        case 'e': bad = num(optarg, &cli->op.input_seed); break;
        case 'r': bad = num(optarg, &v) || v > 1023; cli->result_fd = (int)v; break;
        default: bad = 1;
        }
        if (bad) {
            usage(prog);
            return -1;
        }
    }
    if (cli->probe && argc == optind)
        return 0; /* counter probe: no library, no operation */
    if (argc - optind != 2 || cli->iterations == 0 || cli->trials == 0) {
        usage(prog);
        return -1;
    }
    cli->library = argv[optind];
    cli->operation = argv[optind + 1];
    return 0;
}
