/* Hostile fixtures: writes and reads outside the step's scratch directory. */
/* _GNU_SOURCE comes from the harness flags (-D_GNU_SOURCE) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"

static void try_create(const char *path)
{
    char what[4200];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int ok = fd >= 0 && write(fd, "pwned\n", 6) == 6;
    snprintf(what, sizeof what, "write %s", path);
    hostile_report(what, ok);
    if (fd >= 0)
        close(fd);
}

void hostile_write(void)
{
    char path[4200];
    hostile_project_path(path, sizeof path, "HOSTILE_PWNED");
    try_create(path);
    hostile_project_path(path, sizeof path, "examples/hostile/HOSTILE_PWNED");
    try_create(path);
    hostile_project_path(path, sizeof path, "ngcc.sqlite3");
    int fd = open(path, O_RDWR);
    char what[4300];
    snprintf(what, sizeof what, "open-rw %s", path);
    hostile_report(what, fd >= 0);
    if (fd >= 0)
        close(fd);
}

static void try_read(const char *path)
{
    char buf[4096], what[4200];
    int fd = open(path, O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
    if (fd >= 0)
        close(fd);
    if (n > 0) {
        /* print what was read: the test looks for the worker's secrets in it */
        for (ssize_t i = 0; i < n; i++)
            if (buf[i] == '\0')
                buf[i] = ' ';
        snprintf(what, sizeof what, "read %s (%zd bytes: %.*s)", path, n, (int)n, buf);
        hostile_report(what, 1);
    } else {
        if (n == 0)
            errno = ENODATA;
        snprintf(what, sizeof what, "read %s", path);
        hostile_report(what, 0);
    }
}

void hostile_read(void)
{
    char path[4200];
    try_read("/proc/1/environ");
    snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
    try_read(path);
    try_read("/root/.ssh/id_rsa");
    try_read("/root/.ssh/authorized_keys");
    try_read("/etc/passwd");
    hostile_project_path(path, sizeof path, "ngcc.sqlite3");
    try_read(path);
    hostile_project_path(path, sizeof path, "manage.py");
    try_read(path);
}
