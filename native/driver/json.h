/* Minimal JSON writer for the driver's single output object. */
#ifndef NGCC_JSON_H
#define NGCC_JSON_H

#include <stdio.h>

void ngcc_json_str(FILE *f, const char *s); /* quoted, escaped; NULL -> null */
void ngcc_json_num(FILE *f, double v);      /* full precision; non-finite -> null */

/* Open an in-memory stream for one record (NULL on failure). */
FILE *ngcc_record_open(char **buf, size_t *len);
/* Close the record stream and write it with as few write() calls as possible to
 * fd (stdout when fd < 0); 0 on success. */
int ngcc_record_send(FILE *mem, char **buf, size_t *len, int fd);

#endif
