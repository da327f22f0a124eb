/* Hostile fixtures: forged timing records. */
/* _GNU_SOURCE comes from the harness flags (-D_GNU_SOURCE) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hostile.h"

/* The value after `option` on our own command line (the request, to echo it). */
static const char *cmdline_value(const char *option, char *buf, size_t n)
{
    int fd = open("/proc/self/cmdline", O_RDONLY);
    ssize_t len = fd >= 0 ? read(fd, buf, n - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (len <= 0)
        return "1";
    buf[len] = '\0';
    for (char *p = buf; p < buf + len; p += strlen(p) + 1)
        if (strcmp(p, option) == 0 && p + strlen(p) + 1 < buf + len)
            return p + strlen(p) + 1;
    return "0";
}

/* User-mode work (as a library's computing would be): the CPU clock is read
 * only every 2^20 iterations, so the time is not spent in the kernel. */
static void burn_cpu(double seconds)
{
    clock_t start = clock();
    volatile unsigned long spin = 0;
    do {
        for (unsigned long i = 0; i < (1ul << 20); i++)
            spin = spin * 6364136223846793005ul + 1442695040888963407ul;
    } while ((double)(clock() - start) / CLOCKS_PER_SEC < seconds);
}

void hostile_forge(int on_channel)
{
    char a[4096], b[4096], record[2048];
    const char *iterations = cmdline_value("--iterations", a, sizeof a);
    const char *warmups = cmdline_value("--warmups", b, sizeof b);
    unsigned long long n = strtoull(iterations, NULL, 10);
    snprintf(record, sizeof record,
             "{\"driver\":\"ngcc-time\",\"version\":1,\"status\":\"complete\",\"error\":null,"
             "\"library\":\"x\",\"operation\":\"keygen\",\"category\":\"kem\",\"input_bytes\":0,"
             "\"pinned_cpu\":-1,\"cpu\":0,\"iterations\":%s,\"warmups\":%s,"
             "\"counter\":{\"name\":\"tsc\",\"hz\":1000000000,\"overhead_cycles\":0},"
             "\"sizes\":{\"input_bytes\":0,\"pk_bytes\":32,\"sk_bytes\":64,\"ct_bytes\":33,"
             "\"ss_bytes\":32,\"signature_bytes\":0,\"digest_bytes\":0},\"hash_fn\":null,"
             "\"digest_bits\":-1,\"setup_seconds\":0,\"baseline_rss_bytes\":1,"
             "\"peak_rss_bytes\":1,\"stack_high_water_bytes\":null,\"trials\":[{"
             "\"measurements\":%llu,\"seconds\":%.9f,\"cycles\":%llu,\"batch_calls\":%llu,"
             "\"cpu\":0,\"samples\":[%llu]}]}\n",
             iterations, warmups, n, 42e-9 * (double)n, 42 * n, n, 42 * n);
    if (!on_channel) {
        fputs(record, stdout);
        fflush(stdout);
        _exit(0);
    }
    burn_cpu(0.8); /* the real work, done but not to be reported */
    for (int fd = 3; fd < 1024; fd++) {
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
            (void)!write(fd, record, strlen(record));
    }
    _exit(0);
}
