#define _GNU_SOURCE
#include "mem.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static long long status_kib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long long v = -1;
    size_t k = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, k) == 0 && line[k] == ':') {
            sscanf(line + k + 1, "%lld", &v);
            break;
        }
    }
    fclose(f);
    return v;
}

long long ngcc_rss_bytes(void)
{
    long long k = status_kib("VmRSS");
    return k < 0 ? -1 : k * 1024;
}

long long ngcc_peak_rss_bytes(void)
{
    /* VmHWM: the kernel's own peak of the resident set for this process. */
    long long k = status_kib("VmHWM");
    return k < 0 ? -1 : k * 1024;
}

/* Paint pattern: a byte value unlikely to be left in a used stack slot; a
 * slot that the operation writes with exactly this value is not seen, which
 * can only under-estimate by the tail of the deepest frame. */
#define PAINT 0xA5u

struct stack_job {
    ngcc_op *op; /* NULL: measure the empty thread (baseline) */
};

static void *stack_thread(void *arg)
{
    struct stack_job *j = arg;
    if (j->op)
        j->op->call(j->op);
    return NULL;
}

/* Lowest touched address of a painted stack, as depth below its top. */
static size_t depth_used(const unsigned char *base, size_t size)
{
    size_t i = 0;
    while (i < size && base[i] == PAINT)
        i++;
    return size - i;
}

static long long run_on_painted_stack(ngcc_op *op, size_t size)
{
    unsigned char *base =
        mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (base == MAP_FAILED)
        return -1;
    memset(base, PAINT, size);
    pthread_attr_t attr;
    pthread_t t;
    struct stack_job job = {op};
    pthread_attr_init(&attr);
    /* Our own stack: exact bounds known.  glibc keeps the thread descriptor
     * and TLS at its top; the empty-thread baseline removes that. */
    pthread_attr_setstack(&attr, base, size);
    if (pthread_create(&t, &attr, stack_thread, &job) != 0)
        return -1;
    pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
    long long used = (long long)depth_used(base, size);
    munmap(base, size);
    return used;
}

long long ngcc_stack_high_water(ngcc_op *op, size_t stack_bytes)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fflush(NULL);
    /* A child process: painting touches the whole stack area, which must not
     * show in the parent's peak RSS, and an operation that overflows the
     * painted stack only kills the child. */
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fds[0]);
        long long base = run_on_painted_stack(NULL, stack_bytes);
        long long used = run_on_painted_stack(op, stack_bytes);
        long long hwm = (base < 0 || used < 0) ? -1 : used - base;
        if (write(fds[1], &hwm, sizeof hwm) != (ssize_t)sizeof hwm)
            _exit(2);
        _exit(0);
    }
    close(fds[1]);
    long long hwm = -1;
    if (read(fds[0], &hwm, sizeof hwm) != (ssize_t)sizeof hwm)
        hwm = -1;
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    return hwm;
}
