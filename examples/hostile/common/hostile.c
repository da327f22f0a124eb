/*
 * Hostile fixtures (tests of the sandbox only; never run outside it).  Each
 * manifest compiles this file next to the faulty fixtures' toy KEM with one
 * HOSTILE_* define; a constructor then tries, in the process that loads the
 * library, what a hostile submitter would try, and reports every attempt on
 * stderr as "hostile: <what>: <result>" (kept in the KAT log):
 *   HOSTILE_WRITE          create files in the project folder and its own source tree,
 *                          open the results database read-write
 *   HOSTILE_NETWORK        connect to 127.0.0.1 (web server, PostgreSQL, Redis, ssh)
 *   HOSTILE_READ           read /proc/1/environ, the parent's environ, /root/.ssh,
 *                          the results database
 *   HOSTILE_FORK           fork 300 processes that wait forever
 *   HOSTILE_DAEMON         setsid double-fork a daemon, then hang the KAT run
 *   HOSTILE_FORGE_STDOUT   in the timing driver: print a fake 42-cycle record on
 *                          stdout and exit 0
 *   HOSTILE_FORGE_CHANNEL  in the timing driver: burn 0.8 s of CPU, then write a fake
 *                          42-cycle record on every open pipe and exit 0
 * The project folder is derived from this file's own path (__FILE__ is absolute:
 * the harness compiles absolute paths), as an attacker would.
 */
/* _GNU_SOURCE comes from the harness flags (-D_GNU_SOURCE) */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"

static const char *self_name(char *buf, size_t n)
{
    ssize_t len = readlink("/proc/self/exe", buf, n - 1);
    buf[len > 0 ? len : 0] = '\0';
    const char *slash = strrchr(buf, '/');
    return slash ? slash + 1 : buf;
}

/* <project>/<rest>, from .../<project>/examples/hostile/common/hostile.c */
void hostile_project_path(char *out, size_t n, const char *rest)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", __FILE__);
    for (int up = 0; up < 4; up++) {
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
    }
    snprintf(out, n, "%s/%s", dir, rest);
}

void hostile_report(const char *what, int ok)
{
    fprintf(stderr, "hostile: %s: %s\n", what, ok ? "SUCCEEDED" : strerror(errno));
}

__attribute__((constructor)) static void hostile_start(void)
{
    char buf[4096];
    const char *name = self_name(buf, sizeof buf);
    int in_kat = strncmp(name, "KAT_", 4) == 0;
    int in_timing = strncmp(name, "ngcc-time", 9) == 0;
    (void)in_kat;
    (void)in_timing;
#ifdef HOSTILE_WRITE
    if (in_kat)
        hostile_write();
#endif
#ifdef HOSTILE_NETWORK
    if (in_kat)
        hostile_network();
#endif
#ifdef HOSTILE_READ
    if (in_kat)
        hostile_read();
#endif
#ifdef HOSTILE_FORK
    if (in_kat)
        hostile_fork();
#endif
#ifdef HOSTILE_DAEMON
    if (in_kat)
        hostile_daemon();
#endif
#ifdef HOSTILE_FORGE_STDOUT
    if (in_timing)
        hostile_forge(0);
#endif
#ifdef HOSTILE_FORGE_CHANNEL
    if (in_timing)
        hostile_forge(1);
#endif
}
