/* Hostile fixtures: network, process floods, daemons. */
/* _GNU_SOURCE comes from the harness flags (-D_GNU_SOURCE) */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hostile.h"

void hostile_network(void)
{
    static const int ports[] = {8000, 5432, 6379, 22};
    for (size_t i = 0; i < sizeof ports / sizeof *ports; i++) {
        char what[64];
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(ports[i])};
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        int ok = fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0;
        snprintf(what, sizeof what, "connect 127.0.0.1:%d", ports[i]);
        hostile_report(what, ok);
        if (fd >= 0)
            close(fd);
    }
}

void hostile_fork(void)
{
    int made = 0, refused = 0;
    for (int i = 0; i < 300; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            for (;;)
                pause();
        }
        if (pid > 0)
            made++;
        else
            refused++;
    }
    fprintf(stderr, "hostile: fork 300: %d made, %d refused\n", made, refused);
}

void hostile_daemon(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        if (fork() == 0) {
            signal(SIGHUP, SIG_IGN);
            for (;;) /* a daemon that keeps stdout/stderr open and never exits */
                pause();
        }
        _exit(0);
    }
    fprintf(stderr, "hostile: daemon: started\n");
    for (;;) /* and the KAT run itself never ends */
        pause();
}
