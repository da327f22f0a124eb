/* Categories and their timed operations, generated from measurements/domain.py by
 * runner/harness/native_tables.py (python -m runner.harness.native_tables): do not edit.
 * tests/native/test_category_header.py checks that it matches the registry. */
#ifndef NGCC_CATEGORIES_H
#define NGCC_CATEGORIES_H

#include <stddef.h>
#include <string.h>

/* For the usage text: the operations of every category, and the guide's hash message
 * lengths S1..S8 in bytes (the --input-bytes values of a campaign). */
#define NGCC_OPERATIONS_USAGE "keygen sign verify | keygen enc dec | exchange | hash"
#define NGCC_HASH_MESSAGE_BYTES_USAGE "32 128 512 1024 4096 8192 16384 65536"

typedef struct {
    const char *category;
    const char *operations[4]; /* NULL-terminated, in page order */
} ngcc_category_ops;

static const ngcc_category_ops ngcc_category_table[] = {
    {"sign", {"keygen", "sign", "verify", NULL}},
    {"kem", {"keygen", "enc", "dec", NULL}},
    {"kex", {"exchange", NULL}},
    {"hash", {"hash", NULL}},
    {NULL, {NULL}},
};

/* The table entry of `category`, or NULL when the registry has no such category. */
static inline const ngcc_category_ops *ngcc_category_find(const char *category)
{
    for (const ngcc_category_ops *c = ngcc_category_table; c->category; c++)
        if (strcmp(c->category, category) == 0)
            return c;
    return NULL;
}

/* 1 when `operation` is one of the category's timed operations. */
static inline int ngcc_operation_known(const ngcc_category_ops *c, const char *operation)
{
    for (const char *const *op = c->operations; *op; op++)
        if (strcmp(*op, operation) == 0)
            return 1;
    return 0;
}

#endif
