/* Counter selection and reads.  Order of preference (docs/timing.md):
 *   1. perf_event_open user-mode CPU cycles: real core cycles, unaffected by
 *      frequency changes, kernel time excluded;
 *   2. the architectural time-stamp counter (x86 rdtsc / AArch64 cntvct_el0):
 *      constant rate, no system call, but counts reference ticks not cycles;
 *   3. CLOCK_MONOTONIC_RAW: always there, nanoseconds. */
#define _GNU_SOURCE
#include "counter.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

/* Length of the window used to measure a counter's rate against
 * CLOCK_MONOTONIC_RAW; NGCC_CALIBRATE_MS overrides (tests use a short one). */
static unsigned calibrate_ms(void)
{
    const char *s = getenv("NGCC_CALIBRATE_MS");
    long v = s ? strtol(s, NULL, 10) : 50;
    return (v > 0 && v < 10000) ? (unsigned)v : 50u;
}

uint64_t ngcc_wall_ns(void)
{
    struct timespec ts;
    /* RAW: not adjusted by NTP slewing, so durations are in true hardware
     * nanoseconds of the clocksource. */
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t read_tsc(void)
{
    /* lfence before: rdtsc is not ordered, it could execute before earlier
     * instructions (the measured work) retire.  lfence after: later
     * instructions must not start before the timestamp is taken.  cpuid is
     * the textbook serialiser but traps to the hypervisor in a VM (thousands
     * of cycles, highly variable), so it is avoided. */
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

static int tsc_invariant(void)
{
    unsigned a, b, c, d;
    /* CPUID.80000007H:EDX[8] = invariant TSC: constant rate across P-, C-
     * and T-states.  Without it TSC ticks are not comparable over time. */
    if (!__get_cpuid(0x80000007u, &a, &b, &c, &d))
        return 0;
    return (d >> 8) & 1u;
}
#elif defined(__aarch64__)
static inline uint64_t read_tsc(void)
{
    uint64_t t;
    /* isb: the generic-timer read may otherwise be speculated ahead of the
     * preceding instructions. */
    __asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(t)::"memory");
    return t;
}

static uint64_t cntfrq(void)
{
    uint64_t f;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
    return f;
}
#endif

static long perf_open(struct perf_event_attr *attr)
{
    return syscall(SYS_perf_event_open, attr, 0 /* this thread */, -1 /* any cpu */,
                   -1 /* no group */, 0ul);
}

static uint64_t read_perf(int fd)
{
    uint64_t v = 0;
    /* read(2) on the event fd: the count of user-mode cycles so far.  With
     * exclude_kernel the system call's own kernel work is not counted. */
    if (read(fd, &v, sizeof v) != (ssize_t)sizeof v) {
        /* A pinned event that lost its PMU slot reads as EOF: the numbers
         * would be wrong, so fail loudly rather than record them. */
        fprintf(stderr, "ngcc: perf counter read failed\n");
        abort();
    }
    return v;
}

uint64_t ngcc_counter_read(const ngcc_counter *c)
{
    switch (c->kind) {
    case NGCC_COUNTER_PERF:
        return read_perf(c->perf_fd);
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
    case NGCC_COUNTER_TSC:
    case NGCC_COUNTER_CNTVCT:
        return read_tsc();
#endif
    default:
        return ngcc_wall_ns();
    }
}

static int try_perf(ngcc_counter *c)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = PERF_COUNT_HW_CPU_CYCLES;
    /* User mode only: the candidate's own work, not page faults or
     * interrupts serviced on its behalf; this is also what
     * perf_event_paranoid=2 permits. */
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    /* Pinned: never multiplexed with other events; if it cannot stay on the
     * PMU reads fail instead of returning a silently scaled estimate. */
    attr.pinned = 1;
    attr.disabled = 1;
    long fd = perf_open(&attr);
    if (fd < 0)
        return -1;
    if (ioctl((int)fd, PERF_EVENT_IOC_RESET, 0) != 0 ||
        ioctl((int)fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
        close((int)fd);
        return -1;
    }
    /* Some hypervisors accept the event but never count: require progress. */
    uint64_t v0 = 0, v1 = 0;
    volatile unsigned sink = 0;
    if (read((int)fd, &v0, sizeof v0) != (ssize_t)sizeof v0)
        v0 = 0;
    for (unsigned i = 0; i < 100000; i++)
        sink += i;
    if (read((int)fd, &v1, sizeof v1) != (ssize_t)sizeof v1 || v1 <= v0) {
        close((int)fd);
        return -1;
    }
    c->kind = NGCC_COUNTER_PERF;
    c->name = "perf_cycles";
    c->perf_fd = (int)fd;
    return 0;
}

static int try_tsc(ngcc_counter *c, int forced)
{
#if defined(__x86_64__) || defined(__i386__)
    if (!forced && !tsc_invariant())
        return -1;
    c->kind = NGCC_COUNTER_TSC;
    c->name = "tsc";
    return 0;
#elif defined(__aarch64__)
    (void)forced;
    c->kind = NGCC_COUNTER_CNTVCT;
    c->name = "cntvct_el0";
    return 0;
#else
    (void)forced;
    (void)c;
    return -1;
#endif
}

/* Counter units per second, measured against CLOCK_MONOTONIC_RAW over a busy
 * window (busy so that a per-core cycle counter keeps counting). */
static double measure_hz(const ngcc_counter *c)
{
    uint64_t window = (uint64_t)calibrate_ms() * 1000000ull;
    uint64_t w0 = ngcc_wall_ns(), c0 = ngcc_counter_read(c), w1;
    do
        w1 = ngcc_wall_ns();
    while (w1 - w0 < window);
    uint64_t c1 = ngcc_counter_read(c);
    return (double)(c1 - c0) * 1e9 / (double)(w1 - w0);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Overhead: median difference of two back-to-back reads.  This is the
 * fixed cost that every batch sample carries once. */
static double measure_overhead(const ngcc_counter *c)
{
    enum { N = 1001 };
    static uint64_t d[N];
    for (int i = 0; i < N; i++) {
        uint64_t a = ngcc_counter_read(c);
        uint64_t b = ngcc_counter_read(c);
        d[i] = b - a;
    }
    qsort(d, N, sizeof d[0], cmp_u64);
    return (double)d[N / 2];
}

static int select_counter(ngcc_counter *c, const char *forced, int allow_perf, char *err,
                          unsigned long err_len)
{
    memset(c, 0, sizeof *c);
    c->perf_fd = -1;
    int want_auto = forced == NULL || forced[0] == '\0' || strcmp(forced, "auto") == 0;
    int ok = -1;
    if (want_auto) {
        if (allow_perf)
            ok = try_perf(c);
        if (ok != 0)
            ok = try_tsc(c, 0);
    } else if (strcmp(forced, "perf") == 0 || strcmp(forced, "perf_cycles") == 0) {
        ok = allow_perf ? try_perf(c) : -1;
    } else if (strcmp(forced, "tsc") == 0 || strcmp(forced, "cntvct_el0") == 0) {
        ok = try_tsc(c, 1);
    } else if (strcmp(forced, "monotonic") == 0 || strcmp(forced, "monotonic_raw") == 0) {
        ok = -1; /* handled below */
    } else {
        snprintf(err, err_len, "unknown counter '%s'", forced);
        return -1;
    }
    if (ok != 0) {
        if (!want_auto && strncmp(forced, "monotonic", 9) != 0) {
            snprintf(err, err_len, "counter '%s' unavailable (errno %d)", forced, errno);
            return -1;
        }
        c->kind = NGCC_COUNTER_MONOTONIC;
        c->name = "monotonic_raw";
    }
    return 0;
}

static void characterise(ngcc_counter *c)
{
#if defined(__aarch64__)
    if (c->kind == NGCC_COUNTER_CNTVCT) {
        /* The generic timer's rate is architectural: read it, don't guess. */
        c->hz = (double)cntfrq();
    } else
#endif
        if (c->kind == NGCC_COUNTER_MONOTONIC) {
        c->hz = 1e9;
    } else {
        c->hz = measure_hz(c);
    }
    c->overhead_cycles = measure_overhead(c);
}

int ngcc_counter_init(ngcc_counter *c, const char *forced, char *err, unsigned long err_len)
{
    if (select_counter(c, forced, 1, err, err_len) != 0)
        return -1;
    characterise(c);
    return 0;
}

int ngcc_tick_init(ngcc_counter *c, const char *forced, char *err, unsigned long err_len)
{
    /* The profile wrappers read the clock twice per wrapped call; a system
     * call per read (perf) would dwarf short calls, so perf is excluded. */
    if (select_counter(c, forced, 0, err, err_len) != 0)
        return -1;
    characterise(c);
    return 0;
}

void ngcc_counter_close(ngcc_counter *c)
{
    if (c->kind == NGCC_COUNTER_PERF && c->perf_fd >= 0)
        close(c->perf_fd);
    c->perf_fd = -1;
}
