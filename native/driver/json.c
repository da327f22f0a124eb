#define _GNU_SOURCE
#include "json.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

void ngcc_json_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

void ngcc_json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

FILE *ngcc_record_open(char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    return open_memstream(buf, len);
}

/* The record goes out in one piece to the descriptor the parent opened
 * (--result-fd), never interleaved with what the candidate library prints. */
int ngcc_record_send(FILE *mem, char **buf, size_t *len, int fd)
{
    if (fclose(mem) != 0)
        return -1;
    size_t done = 0;
    while (done < *len) {
        ssize_t n = write(fd >= 0 ? fd : STDOUT_FILENO, *buf + done, *len - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    free(*buf);
    *buf = NULL;
    return done == *len ? 0 : -1;
}
