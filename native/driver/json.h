/* Minimal JSON writer for the driver's single output object. */
#ifndef NGCC_JSON_H
#define NGCC_JSON_H

#include <stdio.h>

void ngcc_json_str(FILE *f, const char *s); /* quoted, escaped; NULL -> null */
void ngcc_json_num(FILE *f, double v);      /* full precision; non-finite -> null */

#endif
