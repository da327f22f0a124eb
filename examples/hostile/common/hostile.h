/* Hostile fixtures: the attempts (see hostile.c). */
#ifndef HOSTILE_H
#define HOSTILE_H

#include <stddef.h>

void hostile_project_path(char *out, size_t n, const char *rest);
void hostile_report(const char *what, int ok);

void hostile_write(void);
void hostile_network(void);
void hostile_read(void);
void hostile_fork(void);
void hostile_daemon(void);
void hostile_forge(int on_channel);

#endif
