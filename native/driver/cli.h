/* Command line of ngcc-time and ngcc-prof. */
#ifndef NGCC_CLI_H
#define NGCC_CLI_H

#include "ops.h"

typedef struct {
    const char *library;
    const char *operation;
    ngcc_op_options op;
    ull iterations;  /* timed calls per trial */
    ull trials;      /* trials in this process (a plan normally uses 1) */
    ull warmups;
    ull batch;       /* 0: automatic */
    ull min_samples; /* for the automatic batch size */
    int cpu;         /* -1: not pinned */
    const char *counter;
    unsigned long long stack_bytes; /* 0: no stack measurement */
    double time_limit_s;            /* 0: none; else stop a trial after this much */
    int probe;                      /* --probe: report the counter only, time nothing */
    int result_fd;                  /* --result-fd: where the record goes (-1: stdout) */
} ngcc_cli;

/* Parse argv; on error print usage to stderr and return -1. */
int ngcc_cli_parse(ngcc_cli *cli, int argc, char **argv, const char *prog);

#endif
